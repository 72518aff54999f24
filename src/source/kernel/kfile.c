/*
 * kfile.c: read small kernel files (/proc, cgroupfs) whole and find "key value" lines in them.
 *
 * The kernel-interface sources use these so that each of them only knows its own format.
 */
#include "config.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t cpw_kfile_read(const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len < size - 1) {
		size_t want = size - 1 - len;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			return err;
		}
		len += (size_t)n;
		if ((size_t)n < want)
			break; /* the end: see kfile.h */
	}
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

ssize_t cpw_kfile_read_held(struct cpw_held_file *h, const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -EINVAL;
	if (!h->open) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		h->fd = fd;
		h->open = true;
	}
	size_t len = 0;
	while (len < size - 1) {
		size_t want = size - 1 - len;
		ssize_t n = pread(h->fd, buf + len, want, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

void cpw_kfile_held_close(struct cpw_held_file *h)
{
	if (h->open)
		close(h->fd);
	h->open = false;
	h->fd = -1;
}

ssize_t cpw_kfile_read_alloc(const char *path, char **buf)
{
	*buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	char *b = malloc(cap);
	while (b) {
		if (cap - len < 2) {
			char *nb = realloc(b, cap * 2);
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, b + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			free(b);
			close(fd);
			return err;
		}
		if (n == 0) {
			b[len] = '\0';
			close(fd);
			*buf = b;
			return (ssize_t)len;
		}
		len += (size_t)n;
	}
	free(b);
	close(fd);
	return -ENOMEM;
}

/* Parses an unsigned decimal at s; the digits must be followed by whitespace or the end. */
static int parse_u64(const char *s, const char *end, uint64_t *value)
{
	uint64_t v = 0;
	const char *p = s;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	if (p == s)
		return -EINVAL;
	if (p < end && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\0')
		return -EINVAL;
	*value = v;
	return 0;
}

int cpw_kfile_parse_u64(const char *text, size_t len, uint64_t *value)
{
	return parse_u64(text, text + len, value);
}

int cpw_kfile_read_u64(const char *path, uint64_t *value)
{
	char buf[64];
	ssize_t n = cpw_kfile_read(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	return parse_u64(buf, buf + n, value);
}

int cpw_kfile_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(s);
	ssize_t n = write(fd, s, len);
	int err = n < 0 ? -errno : ((size_t)n == len ? 0 : -EIO);
	if (close(fd) < 0 && err == 0)
		err = -errno;
	return err;
}

int cpw_kfile_find_u64(const char *text, size_t len, const char *key, uint64_t *value)
{
	size_t klen = strlen(key);
	const char *end = text + len;
	const char *line = text;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		if ((size_t)(eol - line) > klen && memcmp(line, key, klen) == 0 && line[klen] == ' ')
			return parse_u64(line + klen + 1, eol, value);
		line = eol + 1;
	}
	return -ENOENT;
}

int cpw_kfile_pathf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}
