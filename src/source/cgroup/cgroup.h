/*
 * cgroup.h: a cgroup of the command's own, so that its tree's memory peak, refaults,
 * pressure and membership are exact; and the CPU quota cperfwatch runs under.
 *
 * Layouts handled:
 *  - cgroup v2 (a "cgroup2" mount at the root): one child directory; memory figures when the
 *    memory controller is enabled in our own cgroup's cgroup.subtree_control (we never
 *    enable controllers ourselves: that would change the system's configuration);
 *  - hybrid (v1 controllers plus a controller-less v2 at <root>/unified): a v1 memory child
 *    for the memory figures, and a v2 child for membership and *.pressure;
 *  - v1 only: a memory child, which holds the membership (a cpuacct child instead only
 *    where there is no memory controller).
 * Every child is made under the cgroup cperfwatch itself is in (/proc/self/cgroup) and named
 * cperfwatch-<pid>, so limits set on us (a memory limit in a container) also bind the command
 * (v1 with memory.use_hierarchy=1, the only mode of modern kernels; with 0 the effective limit
 * is copied to the child).
 */
#ifndef CPW_SOURCE_CGROUP_CGROUP_H
#define CPW_SOURCE_CGROUP_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "source/kernel/psi.h"

struct cpw_cgroup;

struct cpw_cgroup_stats {
	/* Memory (v1 memory controller or v2 memory.*); NAN where not known. */
	bool memory_available;
	char memory_reason[160];   /* why !memory_available, or why a figure is NAN */
	double mem_peak_kib;       /* v1 memory.max_usage_in_bytes, v2 memory.peak (5.19+) */
	double mem_limit_kib;      /* effective: smallest limit up the hierarchy; NAN: none */
	double refaults;           /* workingset_refault_anon + _file (or workingset_refault) */
	/* Pressure of the group (cumulative totals; take deltas). psi.available false, with a
	 * reason, where there is no v2 directory. */
	struct cpw_psi psi;
};

/* Creates the command's cgroup(s) under the cgroups cperfwatch is in, below cgroup_root
 * (normally "/sys/fs/cgroup"). Returns 0 and *out, or -errno with a reason in why (not root,
 * read-only cgroupfs, no cgroup mounted, ...) and *out NULL. On success why is "" when
 * everything is there, or a note of what is missing (e.g. no memory controller: membership
 * and pressure only), which belongs in the report's notes. */
int cpw_cgroup_create(struct cpw_cgroup **out, const char *cgroup_root, char *why, size_t whylen);

/* Opens, without creating anything, the cgroups of the process whose cgroup file (the
 * format of /proc/PID/cgroup) is at proc_cgroup_path. For attach mode and for tests on
 * fixture trees. Destroying it only frees it. Same returns as cpw_cgroup_create(). */
int cpw_cgroup_open(struct cpw_cgroup **out, const char *cgroup_root,
		    const char *proc_cgroup_path, char *why, size_t whylen);

/* How a new child starts inside the group without being migrated into it by its parent.
 * A migration (a cgroup.procs write) takes the kernel's global threadgroup lock, and the
 * first writer after a quiet spell waits for an RCU grace period: 5-40 ms on our VMs,
 * several times the whole start-up of `time -v`. Instead:
 *  - the child is cloned straight into the v2 group (clone3 with CLONE_INTO_CGROUP, 5.7+);
 *  - the single-threaded child writes "0" into each v1 group's "tasks" file: a task moving
 *    only itself needs no threadgroup lock (6.x kernels skip it; older ones still work).
 * Where a v2 group holds the membership, the v1 groups are also made by the child: the
 * mkdir of a v1 memory group costs ~90 us, which the child spends on the other CPU while
 * the parent opens its sources (measured 0.2-0.4 ms off start-up on our hybrid VMs).
 * The launcher fills in the *_done flags; cpw_cgroup_add_pid() then makes and migrates
 * the child into whatever it did not manage itself. */
#define CPW_CGROUP_V1_JOINS 2 /* slot 0: memory, slot 1: cpuacct */
struct cpw_cg_dir;
struct cpw_cgroup_placement {
	int v2_dir_fd;                          /* for CLONE_INTO_CGROUP; -1: none */
	/* The v1 groups the child joins (making them first where that was left to it). */
	const struct cpw_cg_dir *v1_group[CPW_CGROUP_V1_JOINS]; /* NULL: none */
	bool v2_wanted;                         /* there is a v2 group to be in */
	bool v2_done;                           /* the clone went into the v2 group */
	bool v1_done[CPW_CGROUP_V1_JOINS];      /* the child joined that v1 group */
};

/* The placement of a child about to be forked into cg, its descriptors opened (close-on-
 * exec); NULL when cg is NULL. Owned by cg: cpw_cgroup_add_pid() closes the descriptors. */
struct cpw_cgroup_placement *cpw_cgroup_placement(struct cpw_cgroup *cg);

/* Whether the child is in every group of the placement (v2 clone, v1 joins), so that
 * cpw_cgroup_add_pid() has nothing to move; true for NULL. */
bool cpw_cgroup_placement_complete(const struct cpw_cgroup_placement *pl);

/* In the child of a placement, before exec: makes v1 group `slot` where that was left to
 * the child, and joins it by moving only itself. Returns 0 or -errno; the parent redoes
 * what failed in cpw_cgroup_add_pid(), with the reason. */
int cpw_cgroup_join_v1(const struct cpw_cgroup_placement *pl, int slot);

/* Moves pid (a whole process) into each of the group's directories that its placement has
 * not put it in already, first making the v1 groups the child did not make. Call it while
 * the child waits at the exec gate, from the parent. Returns 0, or -errno with why (which
 * groups are missing and what that costs the report). */
int cpw_cgroup_add_pid(struct cpw_cgroup *cg, pid_t pid, char *why, size_t whylen);

/* Reads the group's figures; those that could not be read are NAN, with a reason in s. */
void cpw_cgroup_read(struct cpw_cgroup *cg, struct cpw_cgroup_stats *s);

/* Only the group's pressure (the same as cpw_cgroup_read()'s psi), through files kept open:
 * cheap enough for every sample. */
void cpw_cgroup_read_psi(struct cpw_cgroup *cg, struct cpw_psi *out);

/* The member processes (cgroup.procs), daemonized orphans included. Stores up to max pids
 * and returns how many there are (may exceed max), or -errno. */
int cpw_cgroup_pids(struct cpw_cgroup *cg, pid_t *pids, size_t max);

/* One line saying which directories are used, for notes and debugging. */
const char *cpw_cgroup_describe(const struct cpw_cgroup *cg);

/* Moves leftover processes back to the parent cgroup, removes the directories it created
 * (retrying while the kernel still counts exiting tasks) and frees cg. NULL is allowed. */
void cpw_cgroup_destroy(struct cpw_cgroup *cg);

/* Removes, beside each group cg made, the empty cperfwatch-PID groups that earlier runs
 * killed with SIGKILL left behind (their PID gone, never one holding a process). Returns
 * how many were removed. NULL is allowed. */
int cpw_cgroup_remove_stale(const struct cpw_cgroup *cg);
/* Its work in one directory, for tests: removes the empty groups named cperfwatch-PID of
 * processes that no longer exist, other than self's, made before made_before (seconds since
 * the epoch). Returns how many or -errno. */
int cpw_cgroup_remove_stale_in(const char *parent, pid_t self, double made_before);

/* The CPU quota (cores) of the cgroup of the process whose cgroup file (the format of
 * /proc/PID/cgroup) is at proc_cgroup_path: the smallest quota/period walking up the
 * hierarchy (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us). NAN when there is none
 * or it cannot be read; why says which (and where the quota came from otherwise). */
double cpw_cgroup_cpu_quota_at(const char *cgroup_root, const char *proc_cgroup_path,
			       char *why, size_t whylen);

/* Pure parser of /proc/PID/cgroup text: the path of the cgroup in the hierarchy of
 * controller (a v1 controller name like "memory", or NULL for the v2 "0::" line). When
 * controllers is not NULL it receives that line's controller list ("cpu,cpuacct"), which
 * names the v1 mount. Returns 0, -ENOENT when the hierarchy is not listed, -ENAMETOOLONG. */
int cpw_cgroup_self_path(const char *text, size_t len, const char *controller,
			 char *path, size_t pathlen, char *controllers, size_t ctlen);

/* Limit parsing, exposed for tests: v1 limits at or above 2^60 bytes mean "none" (the
 * kernel's unlimited is 2^63-1 rounded down to pages), v2 "max" too. Returns the limit in
 * KiB, or NAN for none or unparsable text. */
double cpw_cgroup_parse_limit_kib(const char *text);

#endif
