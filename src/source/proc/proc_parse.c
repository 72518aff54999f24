/*
 * proc_parse.c: parsers for /proc/PID/{stat,schedstat,status,io,cmdline} and the
 * task/TID/children lists (see proc_parse.h). No I/O but cpw_proc_parse_read_file().
 */
#include "config.h"
#include "source/proc/proc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Parses an unsigned decimal at *p, skipping leading spaces; advances *p. */
static bool next_u64(const char **p, const char *end, uint64_t *value)
{
	const char *s = *p;
	uint64_t v = 0;
	bool any = false;

	while (s < end && *s == ' ')
		s++;
	if (s < end && *s == '-') { /* a few stat fields are signed; treat negatives as 0 */
		s++;
		while (s < end && *s >= '0' && *s <= '9')
			s++, any = true;
		*p = s;
		*value = 0;
		return any;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned digit = (unsigned)(*s - '0');
		v = (v > (UINT64_MAX - digit) / 10) ? UINT64_MAX : v * 10 + digit;
		s++;
		any = true;
	}
	*p = s;
	*value = v;
	return any;
}

int cpw_proc_parse_stat(const char *buf, size_t len, struct cpw_stat_fields *out)
{
	const char *end = buf + len;
	const char *open, *close = NULL;

	memset(out, 0, sizeof(*out));
	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	/* comm may hold spaces and parentheses: the real end is the last ')'. */
	for (const char *s = end; s > open; s--)
		if (s[-1] == ')') {
			close = s - 1;
			break;
		}
	if (!close)
		return -EINVAL;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';

	const char *p = close + 1;
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return -EINVAL;
	out->state = *p++; /* field 3 */

	/* Fields 4.. after the state; we keep the ones we use, by number. */
	uint64_t v;
	int field = 4;
	for (; field <= 52 && next_u64(&p, end, &v); field++) {
		switch (field) {
		case 4: out->ppid = (pid_t)v; break;
		case 9: out->flags = v; break;
		case 10: out->minflt = v; break;
		case 12: out->majflt = v; break;
		case 14: out->utime_ticks = v; break;
		case 15: out->stime_ticks = v; break;
		case 20: out->num_threads = (long)v; break;
		case 22: out->starttime_ticks = v; break;
		case 24: out->rss_pages = (long)v; break;
		case 26: out->startcode = v; break;
		case 42: out->blkio_ticks = v; out->has_blkio = true; break;
		default: break;
		}
	}
	/* Every kernel since 2.6 writes at least 44 fields; fewer means a truncated read. */
	return field > 24 ? 0 : -EINVAL;
}

int cpw_proc_parse_schedstat(const char *buf, size_t len, struct cpw_schedstat *out)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof(*out));
	if (!next_u64(&p, end, &out->oncpu_ns) || !next_u64(&p, end, &out->runq_ns))
		return -EINVAL;
	next_u64(&p, end, &out->slices);
	return 0;
}

/* Finds "Key:" at the start of a line and parses the number after it. */
static bool status_value(const char *buf, size_t len, const char *key, uint64_t *value)
{
	size_t klen = strlen(key);
	const char *end = buf + len;

	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *lend = nl ? nl : end;
		if ((size_t)(lend - line) > klen && memcmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *p = line + klen + 1;
			while (p < lend && (*p == ' ' || *p == '\t'))
				p++;
			return next_u64(&p, lend, value);
		}
		line = nl ? nl + 1 : end;
	}
	return false;
}

int cpw_proc_parse_status(const char *buf, size_t len, struct cpw_status_fields *out)
{
	memset(out, 0, sizeof(*out));
	bool vol = status_value(buf, len, "voluntary_ctxt_switches", &out->vol_ctxsw);
	bool invol = status_value(buf, len, "nonvoluntary_ctxt_switches", &out->invol_ctxsw);
	out->has_ctxsw = vol && invol;
	out->has_hwm = status_value(buf, len, "VmHWM", &out->vm_hwm_kib);
	status_value(buf, len, "VmRSS", &out->vm_rss_kib);
	uint64_t ignored;
	/* Every status file has a Pid: line; without it this is not a status file. */
	return status_value(buf, len, "Pid", &ignored) ? 0 : -EINVAL;
}

int cpw_proc_parse_smaps_rollup_pss(const char *buf, size_t len, uint64_t *pss_kib)
{
	*pss_kib = 0;
	return status_value(buf, len, "Pss", pss_kib) ? 0 : -EINVAL;
}

int cpw_proc_parse_io(const char *buf, size_t len, struct cpw_io_fields *out)
{
	memset(out, 0, sizeof(*out));
	bool ok = status_value(buf, len, "read_bytes", &out->read_bytes) &&
		  status_value(buf, len, "write_bytes", &out->write_bytes);
	status_value(buf, len, "rchar", &out->rchar);
	status_value(buf, len, "wchar", &out->wchar);
	status_value(buf, len, "cancelled_write_bytes", &out->cancelled_write_bytes);
	return ok ? 0 : -EINVAL;
}

int cpw_proc_parse_pid_list(const char *buf, size_t len, pid_t *out, size_t max, size_t *more)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0, extra = 0;
	uint64_t v;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if (p >= end || *p == '\0')
			break;
		if (!next_u64(&p, end, &v) || v == 0 || v > 0x3fffffff)
			return -EINVAL;
		if (n < max)
			out[n++] = (pid_t)v;
		else
			extra++;
	}
	if (more)
		*more = extra;
	return (int)n;
}

void cpw_proc_parse_cmdline(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t n = 0;

	if (outlen == 0)
		return;
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len && n + 1 < outlen; i++)
		out[n++] = buf[i] == '\0' ? ' ' : buf[i];
	out[n] = '\0';
}

static bool cpu_number(const char **p, const char *end, unsigned *cpu)
{
	uint64_t v;

	if (*p >= end || **p < '0' || **p > '9' || !next_u64(p, end, &v) || v >= CPW_CPUSET_MAX)
		return false;
	*cpu = (unsigned)v;
	return true;
}

int cpw_proc_parse_cpu_list(const char *buf, size_t len, struct cpw_cpuset *out)
{
	const char *p = buf, *end = buf + len;
	const char *nl = memchr(buf, '\n', len);

	memset(out, 0, sizeof(*out));
	if (nl)
		end = nl;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end) {
		unsigned lo, hi;

		if (!cpu_number(&p, end, &lo))
			return -EINVAL;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (!cpu_number(&p, end, &hi) || hi < lo)
				return -EINVAL;
		}
		for (unsigned c = lo; c <= hi; c++)
			out->bits[c / 64] |= UINT64_C(1) << (c % 64);
		if (p < end && *p == ',')
			p++;
		else if (p < end)
			return -EINVAL;
		else
			break;
		if (p >= end)
			return -EINVAL; /* a trailing comma */
	}
	return cpw_proc_parse_cpuset_count(out);
}

int cpw_proc_parse_cpus_allowed(const char *buf, size_t len, struct cpw_cpuset *out)
{
	static const char key[] = "Cpus_allowed_list:";
	const char *end = buf + len;

	memset(out, 0, sizeof(*out));
	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *lend = nl ? nl : end;

		if ((size_t)(lend - line) >= sizeof(key) - 1 && memcmp(line, key, sizeof(key) - 1) == 0)
			return cpw_proc_parse_cpu_list(line + sizeof(key) - 1,
						  (size_t)(lend - line) - (sizeof(key) - 1), out);
		line = nl ? nl + 1 : end;
	}
	return -EINVAL;
}

int cpw_proc_parse_cpuset_count(const struct cpw_cpuset *set)
{
	int n = 0;

	for (size_t i = 0; i < CPW_CPUSET_MAX / 64; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

void cpw_proc_parse_cpuset_union(struct cpw_cpuset *into, const struct cpw_cpuset *from)
{
	for (size_t i = 0; i < CPW_CPUSET_MAX / 64; i++)
		into->bits[i] |= from->bits[i];
}

static bool cpuset_has(const struct cpw_cpuset *set, unsigned cpu)
{
	return cpu < CPW_CPUSET_MAX && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

void cpw_proc_parse_cpuset_format(const struct cpw_cpuset *set, char *out, size_t outlen)
{
	size_t used = 0;

	if (outlen == 0)
		return;
	out[0] = '\0';
	for (unsigned c = 0; c < CPW_CPUSET_MAX; c++) {
		unsigned hi = c;
		char item[32];
		int n;

		if (c % 64 == 0 && set->bits[c / 64] == 0) {
			c += 63; /* an empty word: called every sample, most of the 8,192 are */
			continue;
		}
		if (!cpuset_has(set, c))
			continue;
		while (cpuset_has(set, hi + 1))
			hi++;
		n = hi > c ? snprintf(item, sizeof(item), "%s%u-%u", used ? "," : "", c, hi)
			   : snprintf(item, sizeof(item), "%s%u", used ? "," : "", c);
		if (used + (size_t)n + 4 > outlen) {
			/* No room for this range and an ellipsis after it: end with one. */
			if (used + 4 <= outlen)
				snprintf(out + used, outlen - used, "...");
			return;
		}
		memcpy(out + used, item, (size_t)n + 1);
		used += (size_t)n;
		c = hi;
	}
}

bool cpw_proc_parse_wchan_is_storage(const char *wchan)
{
	/* Wait channels of D sleeps that are not storage: locks, pipes, sockets, network
	 * file systems, the freezer. Storage waits show up as io_schedule, folio/page/buffer
	 * waits, bio and journal functions, which is everything else in practice. */
	static const char *const not_storage[] = {
		"mutex", "rwsem", "down_", "futex", "pipe", "sk_", "unix_", "tcp_", "nfs",
		"rpc_", "fuse", "freezer", "refrigerator", "do_signal_stop", "msleep", NULL,
	};
	if (!wchan || !wchan[0] || strcmp(wchan, "0") == 0)
		return true;
	for (const char *const *s = not_storage; *s; s++)
		if (strstr(wchan, *s))
			return false;
	return true;
}

long cpw_proc_parse_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;

	if (fd < 0)
		return -errno;
	while (used + 1 < size) {
		ssize_t n = read(fd, buf + used, size - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	return (long)used;
}
