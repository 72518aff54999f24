/*
 * perf_errors.c: the pure side of the counters module: why an event could not open (errno
 * to status and reason), what perf_event_paranoid allows, multiplex scaling, the role of an
 * encoded event and the derived figures (IPC, miss ratios, top-down shares).
 *
 * Kept apart from perf.c so unit tests check every branch without a kernel or a PMU.
 */
#include "config.h"
#include "source/perf/perf_private.h"
#include "source/kernel/kfile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cpw_perf_paranoid_meaning(int level)
{
	if (level == CPW_PARANOID_UNKNOWN)
		return "unknown limits";
	if (level >= 3)
		return "no perf events at all for unprivileged users";
	if (level == 2)
		return "user-space counting of own processes only";
	if (level == 1)
		return "user and kernel counting of own processes, no CPU-wide events";
	if (level == 0)
		return "CPU-wide events allowed, no raw tracepoints";
	return "no restrictions";
}

int cpw_perf_read_paranoid(const char *proc_root, int *level)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc_root ? proc_root : "/proc");
	char text[32];
	ssize_t n = cpw_kfile_read(path, text, sizeof text); /* not stdio: no FILE, no 4 KiB buffer */
	if (n < 0)
		return (int)n;
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || errno || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*level = (int)v;
	return 0;
}

/* Names of core PMUs as the kernel registers them (x86 hybrid parts and Arm). */
static bool is_core_pmu_name(const char *name)
{
	return strcmp(name, "cpu") == 0 || strcmp(name, "cpu_core") == 0 ||
	       strcmp(name, "cpu_atom") == 0 || strncmp(name, "armv", 4) == 0;
}

int cpw_perf_cpu_pmu(const char *sys_root, bool names_decide)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", sys_root ? sys_root : "/sys");
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int found = -1;
	bool listed = false;
	for (struct dirent *de; found < 0 && (de = readdir(d)) != NULL;) {
		if (de->d_name[0] == '.')
			continue;
		listed = true;
		if (is_core_pmu_name(de->d_name)) {
			found = 1;
			break;
		}
		if (names_decide)
			continue; /* no type file to read: ~10 us each, 6-10 devices */
		char tpath[800];
		uint64_t type;
		snprintf(tpath, sizeof(tpath), "%s/%s/type", path, de->d_name);
		if (cpw_kfile_read_u64(tpath, &type) == 0 && type == PERF_TYPE_RAW)
			found = 1;
	}
	closedir(d);
	/* Devices listed (software is always there) and none of them a core PMU. */
	if (found < 0 && names_decide && listed)
		found = 0;
	return found;
}

static enum cpw_counter_status not_permitted(const struct cpw_perf_env *env, char *reason, size_t len)
{
	if (env->paranoid == CPW_PARANOID_UNKNOWN)
		snprintf(reason, len, "permission denied; perf_event_paranoid is unreadable%s",
			 env->is_root ? " (even as root: seccomp or lockdown?)" : "");
	else if (env->is_root)
		snprintf(reason, len, "permission denied even as root (perf_event_paranoid is %d; "
			 "seccomp, container or lockdown?)", env->paranoid);
	else
		snprintf(reason, len, "perf_event_paranoid is %d: %s", env->paranoid,
			 cpw_perf_paranoid_meaning(env->paranoid));
	return CPW_COUNTER_NOT_PERMITTED;
}

enum cpw_counter_status cpw_perf_errno_status(int err, const struct cpw_perf_env *env,
					      bool hw_event, char *reason, size_t len)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (hw_event && !env->hw_pmu_present)
			snprintf(reason, len, "no hardware PMU visible (virtual machine?)");
		else if (!hw_event)
			snprintf(reason, len, "this kernel does not offer the event (%s)",
				 err == ENOENT ? "ENOENT" : err == ENODEV ? "ENODEV" : "EOPNOTSUPP");
		else if (err == EOPNOTSUPP)
			snprintf(reason, len, "the PMU cannot count this event as asked (EOPNOTSUPP)");
		else
			snprintf(reason, len, "this CPU's PMU has no such event (%s)",
				 err == ENOENT ? "ENOENT" : "ENODEV");
		return CPW_COUNTER_NOT_SUPPORTED;
	case EACCES:
	case EPERM:
		return not_permitted(env, reason, len);
	case EINVAL:
		snprintf(reason, len, "the kernel rejected the event's settings (EINVAL): "
			 "unknown to this PMU, or a modifier it cannot honour");
		return CPW_COUNTER_NOT_SUPPORTED;
	case EBUSY:
		snprintf(reason, len, "the PMU counter is busy (another tool, or the NMI watchdog)");
		return CPW_COUNTER_NOT_SUPPORTED;
	case EMFILE:
	case ENFILE:
		snprintf(reason, len, "out of file descriptors (one per event per thread)");
		return CPW_COUNTER_NOT_SUPPORTED;
	case ESRCH:
		snprintf(reason, len, "the process was gone before counting began");
		return CPW_COUNTER_NOT_SUPPORTED;
	default:
		snprintf(reason, len, "perf_event_open failed: %s", strerror(err));
		return CPW_COUNTER_NOT_SUPPORTED;
	}
}

enum cpw_counter_status cpw_perf_scale(const struct cpw_perf_reading *r, double *value,
				       double *fraction)
{
	if (r->running_ns == 0) {
		*value = NAN;
		*fraction = 0;
		return CPW_COUNTER_NOT_SUPPORTED;
	}
	if (r->running_ns >= r->enabled_ns) {
		*value = (double)r->value;
		*fraction = 1;
		return CPW_COUNTER_COUNTED;
	}
	*fraction = (double)r->running_ns / (double)r->enabled_ns;
	*value = (double)r->value * ((double)r->enabled_ns / (double)r->running_ns);
	return CPW_COUNTER_MULTIPLEXED;
}

enum cpw_counter_role cpw_perf_role_of(const struct perf_event_attr *attr)
{
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_TASK_CLOCK)
		return CPW_ROLE_TASK_CLOCK;
	if (attr->type == PERF_TYPE_HARDWARE) {
		switch (attr->config) {
		case PERF_COUNT_HW_CPU_CYCLES: return CPW_ROLE_CYCLES;
		case PERF_COUNT_HW_INSTRUCTIONS: return CPW_ROLE_INSTRUCTIONS;
		case PERF_COUNT_HW_CACHE_REFERENCES: return CPW_ROLE_CACHE_REFERENCES;
		case PERF_COUNT_HW_CACHE_MISSES: return CPW_ROLE_CACHE_MISSES;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return CPW_ROLE_BRANCHES;
		case PERF_COUNT_HW_BRANCH_MISSES: return CPW_ROLE_BRANCH_MISSES;
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND: return CPW_ROLE_STALLED_FRONTEND;
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND: return CPW_ROLE_STALLED_BACKEND;
		default: return CPW_ROLE_NONE;
		}
	}
	if (attr->type == PERF_TYPE_HW_CACHE &&
	    attr->config == (PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			     (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)))
		return CPW_ROLE_LLC_LOAD_MISSES;
	return CPW_ROLE_NONE;
}

static double ratio(double num, double den)
{
	if (isnan(num) || isnan(den) || den <= 0)
		return NAN;
	return num / den;
}

void cpw_perf_derive(const double by_role[CPW_ROLE_COUNT], struct cpw_counters_derived *d)
{
	const double cyc = by_role[CPW_ROLE_CYCLES], ins = by_role[CPW_ROLE_INSTRUCTIONS];
	d->ipc = ratio(ins, cyc);
	d->cache_miss_ratio = ratio(by_role[CPW_ROLE_CACHE_MISSES], by_role[CPW_ROLE_CACHE_REFERENCES]);
	d->llc_mpki = ratio(by_role[CPW_ROLE_LLC_LOAD_MISSES] * 1000.0, ins);
	d->branch_mpki = ratio(by_role[CPW_ROLE_BRANCH_MISSES] * 1000.0, ins);
	d->branch_miss_ratio = ratio(by_role[CPW_ROLE_BRANCH_MISSES], by_role[CPW_ROLE_BRANCHES]);
	d->stalled_frontend_share = ratio(by_role[CPW_ROLE_STALLED_FRONTEND], cyc);
	d->stalled_backend_share = ratio(by_role[CPW_ROLE_STALLED_BACKEND], cyc);

	const double slots = by_role[CPW_ROLE_TD_SLOTS];
	d->topdown_retiring = ratio(by_role[CPW_ROLE_TD_RETIRING], slots);
	d->topdown_bad_spec = ratio(by_role[CPW_ROLE_TD_BAD_SPEC], slots);
	d->topdown_frontend_bound = ratio(by_role[CPW_ROLE_TD_FE_BOUND], slots);
	d->topdown_backend_bound = ratio(by_role[CPW_ROLE_TD_BE_BOUND], slots);
	/* Frontend bound is the remainder where the PMU has no direct event for it. */
	if (isnan(d->topdown_frontend_bound) && !isnan(d->topdown_retiring) &&
	    !isnan(d->topdown_bad_spec) && !isnan(d->topdown_backend_bound)) {
		double fe = 1 - d->topdown_retiring - d->topdown_bad_spec - d->topdown_backend_bound;
		d->topdown_frontend_bound = fe < 0 ? 0 : fe;
	}
	d->topdown_memory_bound = ratio(by_role[CPW_ROLE_TD_MEM_BOUND], slots);
	/* Older cores (Skylake): Memory_Bound ~ Backend_Bound x memory stalls / all stalls. */
	if (isnan(d->topdown_memory_bound)) {
		double mem_share = ratio(by_role[CPW_ROLE_TD_STALLS_MEM], by_role[CPW_ROLE_TD_STALLS_TOTAL]);
		if (!isnan(mem_share) && !isnan(d->topdown_backend_bound))
			d->topdown_memory_bound = d->topdown_backend_bound * (mem_share > 1 ? 1 : mem_share);
	}
}
