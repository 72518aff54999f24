/*
 * waits.h: where the tree's off-CPU time went (model/waits.c): thread-seconds per wait
 * kind (each off-CPU thread adds the sample interval), the top targets of each kind, and
 * the same per process; with the probe's counts of what could not be resolved.
 *
 * A plain struct of fixed size (no pointers), so report fixtures can fill one.
 */
#ifndef CPERFWATCH_MODEL_WAITS_H
#define CPERFWATCH_MODEL_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "source/waits/wait_kind.h"
#include "source/waits/wait_probe.h"

#define CPW_WAIT_TARGETS_MAX 48 /* distinct (kind, target) pairs kept; the rest is counted */
#define CPW_WAIT_PROCS_MAX 32   /* processes kept; the rest is counted */

struct cpw_wait_target_time {
	enum cpw_wait_kind kind;
	char target[CPW_WAIT_TARGET_LEN]; /* raw: escape to print */
	pid_t pid;       /* the first process seen waiting on it */
	pid_t peer_pid;  /* a pipe's other end in the tree, 0 when none */
	double seconds;  /* thread-seconds */
};

struct cpw_wait_proc_time {
	pid_t pid;
	char comm[64]; /* raw */
	double seconds[CPW_WAIT_KIND_COUNT];
	double total_s;
};

struct cpw_waits {
	double seconds[CPW_WAIT_KIND_COUNT]; /* thread-seconds per kind */
	double total_s;
	struct cpw_wait_target_time targets[CPW_WAIT_TARGETS_MAX];
	size_t ntargets;
	double untracked_target_s; /* thread-seconds on targets past the table */
	struct cpw_wait_proc_time procs[CPW_WAIT_PROCS_MAX];
	size_t nprocs;
	double untracked_proc_s;
	bool probed;                         /* the probe ran at least once */
	struct cpw_wait_probe_stats probe;   /* its counts: denied, no syscall file, over budget */
};

void cpw_waits_init(struct cpw_waits *w);
/* Adds one probed wait of a thread of pid (comm raw) lasting seconds. */
void cpw_waits_add(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
		   double seconds);
/* Keeps a copy of the probe's counts for the report's notes. */
void cpw_waits_set_probe_stats(struct cpw_waits *w, const struct cpw_wait_probe_stats *s);
/* Orders targets and processes by thread-seconds, largest first (before reporting). */
void cpw_waits_sort(struct cpw_waits *w);

/* The kind that took the most thread-seconds, waits for a child left aside unless they
 * are all there is (a parent waiting for its child waits for what the child waits on);
 * -1 when nothing was waited. *share gets its share of the thread-seconds counted. */
int cpw_waits_dominant(const struct cpw_waits *w, double *share);
/* The same over thread-seconds per kind (a timeline point's, a phase's): the kind with the
 * most, waits for a child aside unless they are all there is; -1 with none. *share (may be
 * NULL): its share of those counted. */
int cpw_wait_seconds_dominant(const double seconds[CPW_WAIT_KIND_COUNT], double *share);
/* The target of kind with the most thread-seconds (after cpw_waits_sort), NULL if none. */
const struct cpw_wait_target_time *cpw_waits_top_target(const struct cpw_waits *w, enum cpw_wait_kind kind);
/* The process record of pid, NULL when it never waited or was past the table. */
const struct cpw_wait_proc_time *cpw_waits_proc(const struct cpw_waits *w, pid_t pid);
/* Its dominant kind in the same manner, -1 when none. */
int cpw_waits_proc_dominant(const struct cpw_wait_proc_time *p, double *share);

#endif
