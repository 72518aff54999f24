/*
 * cgroup_read.c: the figures of a cpw_cgroup that the report uses (memory peak, limit,
 * refaults, pressure) and the CPU quota of a process's cgroup. They are read at the start
 * and again after the command ends, on the way to the report: nothing else is read (the
 * group's current memory, members and CPU time were, and nothing used them).
 *
 * v1 files: memory.max_usage_in_bytes, memory.stat (hierarchical_memory_limit,
 * [total_]workingset_refault_*), cpu.cfs_quota_us / cpu.cfs_period_us. v2 files:
 * memory.peak (or memory.current where there is none), memory.max, memory.stat, cpu.max
 * ("quota period" or "max period").
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "source/cgroup/cgroup_private.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPW_V1_NO_LIMIT (UINT64_C(1) << 60)

double cpw_cgroup_parse_limit_kib(const char *text)
{
	char *end;
	if (!text || *text < '0' || *text > '9')
		return NAN; /* "max", "-1", empty */
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || (*end && *end != '\n' && *end != ' '))
		return NAN;
	if (v >= CPW_V1_NO_LIMIT)
		return NAN;
	return (double)v / 1024.0;
}

/* Reads dir/name, through held, as a number of bytes into *kib; leaves NAN on failure. */
static int read_kib(struct cpw_held_file *held, const char *dir, const char *name, double *kib)
{
	char path[CPW_CG_PATH_MAX];
	uint64_t v;
	int err = cpw_kfile_pathf(path, sizeof path, "%s/%s", dir, name);
	if (err == 0) {
		char text[64];
		ssize_t n = cpw_kfile_read_held(held, path, text, sizeof text);
		err = n < 0 ? (int)n : cpw_kfile_parse_u64(text, (size_t)n, &v);
	}
	if (err == 0)
		*kib = (double)v / 1024.0;
	return err;
}

/* Refaults from memory.stat text; prefix is "total_" for the v1 hierarchical sums. */
static double stat_refaults(const char *text, size_t len, const char *prefix)
{
	char key[64];
	uint64_t anon = 0, file = 0, total;
	snprintf(key, sizeof key, "%sworkingset_refault_anon", prefix);
	bool a = cpw_kfile_find_u64(text, len, key, &anon) == 0;
	snprintf(key, sizeof key, "%sworkingset_refault_file", prefix);
	bool f = cpw_kfile_find_u64(text, len, key, &file) == 0;
	if (a || f)
		return (double)(anon + file);
	snprintf(key, sizeof key, "%sworkingset_refault", prefix);
	if (cpw_kfile_find_u64(text, len, key, &total) == 0)
		return (double)total;
	return NAN;
}

/* Reads dir/memory.stat through held into text. Returns the length or -errno. */
static ssize_t read_stat(struct cpw_held_file *held, const char *dir, char *text, size_t size)
{
	char path[CPW_CG_PATH_MAX];
	if (cpw_kfile_pathf(path, sizeof path, "%s/memory.stat", dir) < 0)
		return -ENAMETOOLONG;
	return cpw_kfile_read_held(held, path, text, size);
}

static void read_memory_v1(struct cpw_cgroup *cg, struct cpw_cgroup_stats *s)
{
	const char *dir = cg->mem1.path;
	char text[8192]; /* memory.stat: ~2 KiB on 6.x */
	s->memory_available = read_kib(&cg->mem_peak, dir, "memory.max_usage_in_bytes",
				       &s->mem_peak_kib) == 0;
	if (!s->memory_available) {
		snprintf(s->memory_reason, sizeof s->memory_reason,
			 "cannot read %s/memory.max_usage_in_bytes", dir);
		return;
	}
	ssize_t n = read_stat(&cg->mem_stat, dir, text, sizeof text);
	uint64_t limit;
	if (n >= 0 && cpw_kfile_find_u64(text, (size_t)n, "hierarchical_memory_limit", &limit) == 0) {
		s->mem_limit_kib = limit >= CPW_V1_NO_LIMIT ? NAN : (double)limit / 1024.0;
	} else {
		char path[CPW_CG_PATH_MAX], lim[64];
		if (cpw_kfile_pathf(path, sizeof path, "%s/memory.limit_in_bytes", dir) == 0 &&
		    cpw_kfile_read(path, lim, sizeof lim) > 0)
			s->mem_limit_kib = cpw_cgroup_parse_limit_kib(lim);
	}
	if (n >= 0) {
		s->refaults = stat_refaults(text, (size_t)n, "total_");
		if (isnan(s->refaults))
			s->refaults = stat_refaults(text, (size_t)n, "");
	}
	if (isnan(s->refaults))
		snprintf(s->memory_reason, sizeof s->memory_reason,
			 "no workingset_refault in %s/memory.stat", dir);
}

/* The effective v2 limit: the smallest memory.max from d->path up to the mount. */
static double v2_limit_kib(const struct cpw_cg_dir *d)
{
	char dir[CPW_CG_PATH_MAX], path[CPW_CG_PATH_MAX];
	double best = NAN;
	memcpy(dir, d->path, sizeof dir);
	do {
		char lim[64];
		if (cpw_kfile_pathf(path, sizeof path, "%s/memory.max", dir) == 0 &&
		    cpw_kfile_read(path, lim, sizeof lim) > 0) {
			double kib = cpw_cgroup_parse_limit_kib(lim);
			if (!isnan(kib) && (isnan(best) || kib < best))
				best = kib;
		}
	} while (cpw_cgroup_up(dir, d->mount));
	return best;
}

static void read_memory_v2(struct cpw_cgroup *cg, struct cpw_cgroup_stats *s)
{
	const struct cpw_cg_dir *d = &cg->v2;
	char text[8192]; /* memory.stat: ~2 KiB on 6.x */
	s->memory_available = read_kib(&cg->mem_peak, d->path, "memory.peak", &s->mem_peak_kib) == 0;
	if (!s->memory_available) {
		/* Before Linux 5.19 there is no peak: the group's memory is still there. */
		double current;
		s->memory_available = read_kib(&cg->mem_current, d->path, "memory.current",
					       &current) == 0;
		if (!s->memory_available) {
			snprintf(s->memory_reason, sizeof s->memory_reason,
				 "cannot read %s/memory.current", d->path);
			return;
		}
		snprintf(s->memory_reason, sizeof s->memory_reason,
			 "no memory.peak (Linux 5.19+): peak of the group unknown");
	}
	/* Limits are set before a run, not during it: the walk up is done once. */
	if (!cg->v2_limit_read) {
		cg->v2_limit_kib = v2_limit_kib(d);
		cg->v2_limit_read = true;
	}
	s->mem_limit_kib = cg->v2_limit_kib;
	ssize_t n = read_stat(&cg->mem_stat, d->path, text, sizeof text);
	if (n >= 0)
		s->refaults = stat_refaults(text, (size_t)n, "");
	if (isnan(s->refaults))
		snprintf(s->memory_reason, sizeof s->memory_reason,
			 "no workingset_refault in %s/memory.stat", d->path);
}

void cpw_cgroup_read(struct cpw_cgroup *cg, struct cpw_cgroup_stats *s)
{
	cpw_cgroup_ensure_made(cg);
	memset(s, 0, sizeof *s);
	s->mem_peak_kib = s->mem_limit_kib = NAN;
	s->refaults = NAN;

	if (cg->mem1.path[0])
		read_memory_v1(cg, s);
	else if (cg->v2_memory)
		read_memory_v2(cg, s);
	else
		snprintf(s->memory_reason, sizeof s->memory_reason,
			 "no memory controller available to the group");
	cpw_cgroup_read_psi(cg, &s->psi);
}

void cpw_cgroup_read_psi(struct cpw_cgroup *cg, struct cpw_psi *out)
{
	if (cg->v2.path[0]) {
		cpw_psi_read_cgroup(cg->v2.path, &cg->psi, out);
	} else {
		memset(out, 0, sizeof *out);
		snprintf(out->reason, sizeof out->reason,
			 "no cgroup v2 hierarchy: pressure of the group unavailable");
	}
}

/* Walks up from d->path; keeps the smallest quota in *best (cores) and where it was. */
static void walk_quota(const struct cpw_cg_dir *d, bool v2, double *best, char *where,
		       size_t wlen, bool *seen_file)
{
	char dir[CPW_CG_PATH_MAX], path[CPW_CG_PATH_MAX], text[128];
	memcpy(dir, d->path, sizeof dir);
	do {
		double cores = NAN;
		if (v2) {
			if (cpw_kfile_pathf(path, sizeof path, "%s/cpu.max", dir) < 0 ||
			    cpw_kfile_read(path, text, sizeof text) <= 0)
				continue;
			*seen_file = true;
			unsigned long long quota, period;
			if (sscanf(text, "%llu %llu", &quota, &period) == 2 && period > 0)
				cores = (double)quota / (double)period;
		} else {
			uint64_t period;
			long long quota;
			if (cpw_kfile_pathf(path, sizeof path, "%s/cpu.cfs_quota_us", dir) < 0 ||
			    cpw_kfile_read(path, text, sizeof text) <= 0)
				continue;
			*seen_file = true;
			char ppath[CPW_CG_PATH_MAX];
			if (sscanf(text, "%lld", &quota) == 1 && quota > 0 &&
			    cpw_kfile_pathf(ppath, sizeof ppath, "%s/cpu.cfs_period_us", dir) == 0 &&
			    cpw_kfile_read_u64(ppath, &period) == 0 && period > 0)
				cores = (double)quota / (double)period;
		}
		if (!isnan(cores) && (isnan(*best) || cores < *best)) {
			*best = cores;
			snprintf(where, wlen, "%s", path);
		}
	} while (cpw_cgroup_up(dir, d->mount));
}

double cpw_cgroup_cpu_quota_at(const char *cgroup_root, const char *proc_cgroup_path,
			       char *why, size_t whylen)
{
	char text[4096];
	long n = cpw_cgroup_read_self(proc_cgroup_path, text, sizeof text);
	if (n < 0) {
		snprintf(why, whylen, "cannot read %s: %s", proc_cgroup_path, strerror((int)-n));
		return NAN;
	}
	struct cpw_cg_dir *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(why, whylen, "out of memory");
		return NAN;
	}
	double best = NAN;
	char where[CPW_CG_PATH_MAX] = "";
	bool seen = false;
	if (cpw_cgroup_locate_v2(cgroup_root, text, (size_t)n, d) == 0)
		walk_quota(d, true, &best, where, sizeof where, &seen);
	if (cpw_cgroup_locate_v1(cgroup_root, text, (size_t)n, "cpu", "cpu.cfs_quota_us", d) == 0)
		walk_quota(d, false, &best, where, sizeof where, &seen);
	free(d);
	if (!isnan(best))
		snprintf(why, whylen, "cgroup CPU quota of %.2f cores (%s)", best, where);
	else if (seen)
		snprintf(why, whylen, "no cgroup CPU quota");
	else
		snprintf(why, whylen, "no cgroup cpu controller visible: CPU quota unknown");
	return best;
}

