/*
 * vmstat.c: workingset refaults and major faults from /proc/vmstat.
 *
 * Linux 5.9 split workingset_refault into _anon and _file; older kernels have the single
 * counter. Both are accepted.
 */
#include "config.h"
#include "source/kernel/vmstat.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpw_vmstat_parse(const char *text, size_t len, struct cpw_vmstat *v)
{
	memset(v, 0, sizeof *v);
	uint64_t anon = 0, file = 0, total = 0;
	bool has_anon = cpw_kfile_find_u64(text, len, "workingset_refault_anon", &anon) == 0;
	bool has_file = cpw_kfile_find_u64(text, len, "workingset_refault_file", &file) == 0;
	if (has_anon || has_file) {
		v->has_refaults = true;
		v->refault_anon = anon;
		v->refault_file = file;
		v->refaults = anon + file;
	} else if (cpw_kfile_find_u64(text, len, "workingset_refault", &total) == 0) {
		v->has_refaults = true;
		v->refaults = total;
	}
	v->has_pgmajfault = cpw_kfile_find_u64(text, len, "pgmajfault", &v->pgmajfault) == 0;
	if (!v->has_refaults && !v->has_pgmajfault)
		snprintf(v->reason, sizeof v->reason, "no workingset_refault or pgmajfault counter");
	else if (!v->has_refaults)
		snprintf(v->reason, sizeof v->reason, "no workingset_refault counter (kernel older than 4.15?)");
	else if (!v->has_pgmajfault)
		snprintf(v->reason, sizeof v->reason, "no pgmajfault counter");
	return v->has_refaults || v->has_pgmajfault ? 0 : -ENOENT;
}

int cpw_vmstat_read(const char *proc_root, struct cpw_held_file *held, struct cpw_vmstat *v)
{
	char path[4096];
	int err = cpw_kfile_pathf(path, sizeof path, "%s/vmstat", proc_root);
	if (err < 0) {
		memset(v, 0, sizeof *v);
		snprintf(v->reason, sizeof v->reason, "proc root path too long");
		return err;
	}
	/* /proc/vmstat is about 8 KiB on 6.x kernels; leave room for growth. */
	size_t size = 64 * 1024;
	char *buf = malloc(size);
	if (!buf) {
		memset(v, 0, sizeof *v);
		snprintf(v->reason, sizeof v->reason, "out of memory");
		return -ENOMEM;
	}
	ssize_t n = held ? cpw_kfile_read_held(held, path, buf, size) : cpw_kfile_read(path, buf, size);
	if (n < 0) {
		memset(v, 0, sizeof *v);
		snprintf(v->reason, sizeof v->reason, "cannot read %s: %s", path, strerror((int)-n));
		free(buf);
		return (int)n;
	}
	err = cpw_vmstat_parse(buf, (size_t)n, v);
	free(buf);
	return err;
}
