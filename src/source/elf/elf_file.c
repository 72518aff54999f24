/*
 * elf_file.c: the files a watched process maps, read for their symbols (elf_file.h).
 *
 * The file is mapped read-only, parsed by the pure reader (elf_symbols.c) and unmapped:
 * the names are copied out, so a process that keeps a library mapped costs its symbol
 * table, not the file.
 */
#include "config.h"
#include "source/elf/elf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/kernel/kfile.h"

/* Larger files are not read (a debug build of a big program): its frames get offsets. */
#define ELF_FILE_MAX ((off_t)1 << 31)
#define PERF_MAP_MAX ((size_t)16 << 20)

int cpw_elf_file_open(const char *proc_root, pid_t pid, const char *path)
{
	char p[4352];
	if (snprintf(p, sizeof(p), "%s/%d/root%s", proc_root, (int)pid, path) < (int)sizeof(p)) {
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		/* The path may be written from cperfwatch's side of a chroot. */
		size_t skip = errno == ENOENT ? cpw_elf_file_root_prefix(proc_root, pid, path) : 0;
		if (skip && snprintf(p, sizeof(p), "%s/%d/root%s", proc_root, (int)pid, path + skip) < (int)sizeof(p)) {
			fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				return fd;
		}
	}
	/* The process has ended (its root went with it): the path as cperfwatch sees it, which
	 * the build-id or inode check confirms. */
	return open(path, O_RDONLY | O_CLOEXEC);
}

int cpw_elf_file_open_in(int root_fd, const char *proc_root, pid_t pid, const char *path)
{
	if (root_fd >= 0) {
		const char *rel = path;
		while (*rel == '/')
			rel++;
		int fd = openat(root_fd, rel, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return cpw_elf_file_open(proc_root, pid, path);
}

size_t cpw_elf_file_root_prefix(const char *proc_root, pid_t pid, const char *path)
{
	char link_path[128], root[PATH_MAX];
	snprintf(link_path, sizeof(link_path), "%s/%d/root", proc_root, (int)pid);
	ssize_t n = readlink(link_path, root, sizeof(root) - 1);
	if (n <= 1) /* unreadable, or "/" */
		return 0;
	root[n] = '\0';
	return strncmp(path, root, (size_t)n) == 0 && path[n] == '/' ? (size_t)n : 0;
}

/* Maps path as process pid sees it, read-only: 0 with *map and *size, or -errno with why
 * filled. ino (non-zero, with no build-id to check) must be the file's inode. */
static int map_as_seen(const char *proc_root, pid_t pid, const char *path, bool check_ino, uint64_t ino,
		       void **map, size_t *size, char *why, size_t len)
{
	int fd = cpw_elf_file_open(proc_root, pid, path);
	if (fd < 0) {
		int e = errno;
		snprintf(why, len, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > ELF_FILE_MAX || st.st_size == 0) {
		close(fd);
		snprintf(why, len, "%s: not a regular file of a readable size", path);
		return -EINVAL;
	}
	if (check_ino && ino && (uint64_t)st.st_ino != ino) {
		close(fd);
		snprintf(why, len, "%s: replaced since it was mapped (another inode)", path);
		return -ESTALE;
	}
	*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*map == MAP_FAILED) {
		int e = errno;
		snprintf(why, len, "%s: %s", path, strerror(e));
		return -e;
	}
	*size = (size_t)st.st_size;
	return 0;
}

bool cpw_elf_file_debug_path(const uint8_t *build_id, size_t build_id_len, char *buf, size_t len)
{
	if (build_id_len < 2 || len < 32 + 2 * build_id_len)
		return false;
	int n = snprintf(buf, len, "/usr/lib/debug/.build-id/%02x/", build_id[0]);
	for (size_t i = 1; i < build_id_len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%02x", build_id[i]);
	snprintf(buf + n, len - (size_t)n, ".debug");
	return true;
}

/* A stripped file's .symtab from its debug file (the same build-id; its program headers are
 * the file's, so the file's segments still place the symbols). */
static void symbols_from_debug_file(const char *proc_root, pid_t pid, struct cpw_elf_info *info)
{
	char path[96], why[8];
	void *map;
	size_t size;
	struct cpw_elf_info dbg;
	if (!cpw_elf_file_debug_path(info->build_id, info->build_id_len, path, sizeof(path)) ||
	    map_as_seen(proc_root, pid, path, false, 0, &map, &size, why, sizeof(why)) < 0)
		return;
	int rc = cpw_elf_symbols_parse(map, size, &dbg);
	munmap(map, size);
	if (rc < 0)
		return;
	if (dbg.has_symtab && dbg.build_id_len == info->build_id_len &&
	    memcmp(dbg.build_id, info->build_id, info->build_id_len) == 0) {
		free(info->syms);
		free(info->names);
		info->syms = dbg.syms;
		info->nsyms = dbg.nsyms;
		info->names = dbg.names;
		info->names_len = dbg.names_len;
		info->has_symtab = true;
		dbg.syms = NULL;
		dbg.names = NULL;
	}
	cpw_elf_symbols_info_free(&dbg);
}

int cpw_elf_file_load(const char *proc_root, pid_t pid, const char *path, const uint8_t *build_id,
		 size_t build_id_len, uint64_t ino, struct cpw_elf_info *out, char *why, size_t len)
{
	memset(out, 0, sizeof(*out));
	void *map;
	size_t size;
	int rc = map_as_seen(proc_root, pid, path, build_id_len == 0, ino, &map, &size, why, len);
	if (rc < 0)
		return rc;
	rc = cpw_elf_symbols_parse(map, size, out);
	munmap(map, size);
	if (rc < 0) {
		snprintf(why, len, "%s: %s", path, rc == -ENOMEM ? "out of memory" : "not a readable ELF file");
		return rc;
	}
	if (build_id_len && (out->build_id_len != build_id_len ||
			     memcmp(out->build_id, build_id, build_id_len) != 0)) {
		cpw_elf_symbols_info_free(out);
		snprintf(why, len, "%s: replaced since it was mapped (another build-id)", path);
		return -ESTALE;
	}
	if (!out->has_symtab)
		symbols_from_debug_file(proc_root, pid, out);
	return 0;
}

#define MEMORY_IMAGE_MAX ((uint64_t)1 << 20)

int cpw_elf_file_load_memory(const char *proc_root, pid_t pid, uint64_t addr, uint64_t len,
			     struct cpw_elf_info *out, char *why, size_t wlen)
{
	memset(out, 0, sizeof(*out));
	if (len == 0 || len > MEMORY_IMAGE_MAX || addr > (uint64_t)INT64_MAX - len) {
		snprintf(why, wlen, "an image of %llu bytes in memory: not read", (unsigned long long)len);
		return -EINVAL;
	}
	char path[128];
	snprintf(path, sizeof(path), "%s/%d/mem", proc_root, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, wlen, "%s: %s", path, strerror(e));
		return -e;
	}
	unsigned char *buf = malloc((size_t)len);
	ssize_t n = buf ? pread(fd, buf, (size_t)len, (off_t)addr) : -1;
	int e = buf ? errno : ENOMEM;
	close(fd);
	if (n != (ssize_t)len) {
		free(buf);
		snprintf(why, wlen, "%s: %s", path, n < 0 ? strerror(e) : "read short");
		return n < 0 ? -e : -EIO;
	}
	int rc = cpw_elf_symbols_parse(buf, (size_t)len, out);
	free(buf);
	if (rc < 0)
		snprintf(why, wlen, "%s at 0x%llx: %s", path, (unsigned long long)addr,
			 rc == -ENOMEM ? "out of memory" : "not a readable ELF image");
	return rc;
}

int cpw_elf_file_find(const char *proc_root, pid_t pid, const char *path, struct cpw_elf_wanted *w,
			 size_t n, uint64_t *load0, char *why, size_t len)
{
	void *map;
	size_t size;
	int rc = map_as_seen(proc_root, pid, path, false, 0, &map, &size, why, len);
	if (rc < 0)
		return rc;
	rc = cpw_elf_symbols_find(map, size, w, n, load0);
	munmap(map, size);
	if (rc < 0)
		snprintf(why, len, "%s: %s", path, rc == -ENOMEM ? "out of memory" : "not a readable ELF file");
	return rc;
}

int cpw_elf_file_perf_map_load(const char *proc_root, pid_t pid, size_t max_syms, struct cpw_perf_map *out)
{
	char path[256];
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%d/root/tmp/perf-%d.map", proc_root, (int)pid, (int)pid);
	char *text = NULL;
	ssize_t n = cpw_kfile_read_alloc(path, &text);
	if (n < 0)
		return (int)n;
	int rc = cpw_elf_symbols_perf_map_parse(text, (size_t)n < PERF_MAP_MAX ? (size_t)n : PERF_MAP_MAX, max_syms, out);
	free(text);
	return rc;
}
