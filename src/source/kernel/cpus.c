/*
 * cpus.c: cores usable = CPUs in the affinity mask, capped by the cgroup CPU quota.
 *
 * The affinity mask is read with a dynamically sized cpu_set_t, since machines may have
 * more CPUs than CPU_SETSIZE (1024).
 */
#include "config.h"
#include "source/kernel/cpus.h"
#include "source/cgroup/cgroup.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cpw_cpus_combine(int affinity_cpus, int online_cpus, double quota_cores,
		      const char *quota_why, struct cpw_cpus *c)
{
	memset(c, 0, sizeof *c);
	c->affinity_cpus = affinity_cpus;
	c->online_cpus = online_cpus;
	c->quota_cores = quota_cores;
	const char *qw = quota_why && quota_why[0] ? quota_why : "no cgroup CPU quota";
	if (affinity_cpus <= 0 && isnan(quota_cores)) {
		c->cores_usable = online_cpus > 0 ? (double)online_cpus : NAN;
		snprintf(c->reason, sizeof c->reason,
			 "affinity unreadable; %s; using the %d online CPUs", qw, online_cpus);
	} else if (affinity_cpus <= 0) {
		c->cores_usable = quota_cores;
		snprintf(c->reason, sizeof c->reason, "affinity unreadable; limited by %s", qw);
	} else if (!isnan(quota_cores) && quota_cores < (double)affinity_cpus) {
		c->cores_usable = quota_cores;
		snprintf(c->reason, sizeof c->reason, "limited by %s (affinity allows %d CPUs)", qw,
			 affinity_cpus);
	} else {
		c->cores_usable = (double)affinity_cpus;
		if (online_cpus > 0 && affinity_cpus < online_cpus)
			snprintf(c->reason, sizeof c->reason,
				 "limited by CPU affinity: %d of %d online CPUs; %s", affinity_cpus,
				 online_cpus, qw);
		else if (online_cpus > 0)
			snprintf(c->reason, sizeof c->reason, "all %d CPUs; %s", affinity_cpus, qw);
		else
			snprintf(c->reason, sizeof c->reason, "%d CPUs in the affinity mask; %s",
				 affinity_cpus, qw);
	}
}

/* Counts the CPUs in pid's affinity mask, growing the set until the kernel's fits. */
static int affinity_count(pid_t pid)
{
	for (int ncpus = 1024; ncpus <= 1024 * 1024; ncpus *= 2) {
		cpu_set_t *set = CPU_ALLOC((size_t)ncpus);
		if (!set)
			return -ENOMEM;
		size_t size = CPU_ALLOC_SIZE((size_t)ncpus);
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(pid, size, set) == 0) {
			int n = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			return n;
		}
		int err = errno;
		CPU_FREE(set);
		if (err != EINVAL)
			return -err;
	}
	return -EINVAL;
}

int cpw_cpus_usable(pid_t pid, const char *cgroup_root, const char *proc_cgroup_path,
		    struct cpw_cpus *c)
{
	char qwhy[256] = "";
	double quota = cpw_cgroup_cpu_quota_at(cgroup_root,
					       proc_cgroup_path ? proc_cgroup_path : "/proc/self/cgroup",
					       qwhy, sizeof qwhy);
	int aff = affinity_count(pid);
	/* The kernel gives the mask already cut to the active CPUs: the online count (a file
	 * read) is needed only where the mask could not be read. */
	long online = aff > 0 ? 0 : sysconf(_SC_NPROCESSORS_ONLN);
	cpw_cpus_combine(aff > 0 ? aff : 0, online > 0 ? (int)online : 0, quota, qwhy, c);
	return aff < 0 ? aff : 0;
}
