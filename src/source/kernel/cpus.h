/*
 * cpus.h: how many cores a run may use: the CPUs in its affinity mask, capped by the CPU
 * quota of its cgroup. A double, since a quota can be fractional (1.5 cores).
 */
#ifndef CPW_SOURCE_KERNEL_CPUS_H
#define CPW_SOURCE_KERNEL_CPUS_H

#include <sys/types.h>

struct cpw_cpus {
	double cores_usable;   /* min(affinity_cpus, quota_cores); NAN only if neither known */
	int affinity_cpus;     /* CPUs in sched_getaffinity; 0 when unreadable */
	int online_cpus;       /* sysconf(_SC_NPROCESSORS_ONLN) where the affinity could not be
				* read (the mask holds only online CPUs); 0: not read */
	double quota_cores;    /* NAN: no quota (or unknown, see reason) */
	char reason[320];      /* what limited cores_usable, or why a part is unknown */
};

/* Pure: combines an affinity count (0 = unknown) and a quota (NAN = none) into c, with the
 * reason naming the limit. quota_why says what the quota reading found. */
void cpw_cpus_combine(int affinity_cpus, int online_cpus, double quota_cores,
		      const char *quota_why, struct cpw_cpus *c);

/* Reads pid's affinity (0: the calling process) and the CPU quota of the cgroup whose
 * /proc/PID/cgroup file is proc_cgroup_path (NULL: /proc/self/cgroup), below cgroup_root.
 * Returns 0, or -errno when the affinity could not be read (c is still filled). */
int cpw_cpus_usable(pid_t pid, const char *cgroup_root, const char *proc_cgroup_path,
		    struct cpw_cpus *c);

#endif
