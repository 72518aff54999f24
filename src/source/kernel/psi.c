/*
 * psi.c: pressure stall information from /proc/pressure or a cgroup v2 directory.
 *
 * Format (Documentation/accounting/psi.rst):
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * total is cumulative stall time in microseconds.
 */
#include "config.h"
#include "source/kernel/psi.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Finds " total=N" in one line [p, eol). */
static int parse_total(const char *p, const char *eol, uint64_t *value)
{
	static const char key[] = "total=";
	const size_t klen = sizeof key - 1;
	for (; p + klen <= eol; p++) {
		if ((p[-1] == ' ' || p[-1] == '\t') && memcmp(p, key, klen) == 0) {
			const char *d = p + klen;
			uint64_t v = 0;
			if (d >= eol || *d < '0' || *d > '9')
				return -EINVAL;
			for (; d < eol && *d >= '0' && *d <= '9'; d++) {
				unsigned digit = (unsigned)(*d - '0');
				if (v > (UINT64_MAX - digit) / 10)
					return -ERANGE;
				v = v * 10 + digit;
			}
			*value = v;
			return 0;
		}
	}
	return -EINVAL;
}

int cpw_psi_parse(const char *text, size_t len, struct cpw_psi_resource *out)
{
	memset(out, 0, sizeof *out);
	const char *end = text + len;
	const char *line = text;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - line);
		/* parse_total looks one byte back, so the tag and its space are skipped first. */
		if (n > 5 && memcmp(line, "some ", 5) == 0 && !out->has_some) {
			if (parse_total(line + 5, eol, &out->some_total_us) == 0)
				out->has_some = true;
		} else if (n > 5 && memcmp(line, "full ", 5) == 0 && !out->has_full) {
			if (parse_total(line + 5, eol, &out->full_total_us) == 0)
				out->has_full = true;
		}
		line = eol + 1;
	}
	return out->has_some ? 0 : -EINVAL;
}

static void set_unavailable(struct cpw_psi *out, const char *reason)
{
	memset(out, 0, sizeof *out);
	out->available = false;
	snprintf(out->reason, sizeof out->reason, "%s", reason);
}

/* Reads one pressure file into r (through held when not NULL); on failure fills out's
 * reason. */
static int read_one(const char *path, struct cpw_held_file *held, struct cpw_psi_resource *r,
		    struct cpw_psi *out, const char *absent_reason)
{
	char buf[512];
	ssize_t n = held ? cpw_kfile_read_held(held, path, buf, sizeof buf)
			 : cpw_kfile_read(path, buf, sizeof buf);
	if (n < 0) {
		char why[160];
		if (n == -ENOENT)
			snprintf(why, sizeof why, "%s", absent_reason);
		else if (n == -EOPNOTSUPP)
			snprintf(why, sizeof why, "%s is not supported: kernel booted with psi=0", path);
		else
			snprintf(why, sizeof why, "cannot read %s: %s", path, strerror((int)-n));
		set_unavailable(out, why);
		return (int)n;
	}
	if (cpw_psi_parse(buf, (size_t)n, r) < 0) {
		char why[160];
		snprintf(why, sizeof why, "%s has no \"some ... total=\" line", path);
		set_unavailable(out, why);
		return -EINVAL;
	}
	return 0;
}

/* Reads the three files <dir>/<prefix>{cpu,io,memory}<suffix>. */
static int read_three(const char *dir, const char *prefix, const char *suffix,
		      struct cpw_psi_files *files, struct cpw_psi *out, const char *absent_reason)
{
	static const char *const names[3] = { "cpu", "io", "memory" };
	struct cpw_psi_resource r[3];
	for (int i = 0; i < 3; i++) {
		char path[4096];
		if (cpw_kfile_pathf(path, sizeof path, "%s/%s%s%s", dir, prefix, names[i], suffix) < 0) {
			set_unavailable(out, "pressure file path too long");
			return -ENAMETOOLONG;
		}
		int err = read_one(path, files ? &files->file[i] : NULL, &r[i], out, absent_reason);
		if (err < 0)
			return err;
	}
	memset(out, 0, sizeof *out);
	out->available = true;
	out->cpu_some_us = r[0].some_total_us;
	out->cpu_full_us = r[0].has_full ? r[0].full_total_us : 0;
	out->io_some_us = r[1].some_total_us;
	out->io_full_us = r[1].full_total_us;
	out->mem_some_us = r[2].some_total_us;
	out->mem_full_us = r[2].full_total_us;
	return 0;
}

int cpw_psi_read_system(const char *proc_root, struct cpw_psi_files *files, struct cpw_psi *out)
{
	return read_three(proc_root, "pressure/", "", files, out,
			  "/proc/pressure is absent: kernel without PSI or booted with psi=0");
}

int cpw_psi_read_cgroup(const char *cgroup_dir, struct cpw_psi_files *files, struct cpw_psi *out)
{
	return read_three(cgroup_dir, "", ".pressure", files, out,
			  "the cgroup has no *.pressure files (not cgroup v2, or PSI off)");
}

void cpw_psi_files_close(struct cpw_psi_files *files)
{
	for (int i = 0; i < 3; i++)
		cpw_kfile_held_close(&files->file[i]);
}

static uint64_t sub0(uint64_t end, uint64_t start)
{
	return end >= start ? end - start : 0;
}

void cpw_psi_delta(const struct cpw_psi *start, const struct cpw_psi *end, struct cpw_psi *d)
{
	struct cpw_psi r;
	memset(&r, 0, sizeof r);
	if (!start->available || !end->available) {
		snprintf(r.reason, sizeof r.reason, "%s",
			 !start->available ? start->reason : end->reason);
		*d = r;
		return;
	}
	r.available = true;
	r.cpu_some_us = sub0(end->cpu_some_us, start->cpu_some_us);
	r.cpu_full_us = sub0(end->cpu_full_us, start->cpu_full_us);
	r.io_some_us = sub0(end->io_some_us, start->io_some_us);
	r.io_full_us = sub0(end->io_full_us, start->io_full_us);
	r.mem_some_us = sub0(end->mem_some_us, start->mem_some_us);
	r.mem_full_us = sub0(end->mem_full_us, start->mem_full_us);
	*d = r;
}
