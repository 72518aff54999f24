/*
 * launch.h: starting COMMAND (modes/launch.c).
 *
 * The child is forked and held at a pipe gate until everything that must see it from its
 * first instruction (cgroup membership, counters with enable_on_exec) is armed; then it
 * execs. Counting starts at exec, not at fork. Where there are no counters to arm (the
 * default set on a machine without a CPU PMU) and the child could be cloned straight into
 * its v2 group (or there is none), the child is not gated: the parent releases it
 * as soon as it listens for exit records, before the rest of its set-up, and the child execs
 * once it is in its groups and says when, which is the start of the run (~0.1 ms less
 * start-up on our VMs each: the exec no longer waits for the parent's set-up, and the
 * listener is set up while the child joins its groups). Exec failures come back over a
 * close-on-exec pipe, so "not found" (127) and "cannot run" (126) are told apart exactly.
 */
#ifndef CPW_MODES_LAUNCH_H
#define CPW_MODES_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "source/cgroup/cgroup.h"

struct cpw_launch {
	pid_t pid;
	bool gated;   /* its report comes before the release, not after */
	int gate_fd;  /* write end: one byte releases the child; -1 once released */
	int error_fd; /* read end: the child's report, then its exec errno, or EOF when exec
		       * succeeded */
	struct cpw_cgroup_placement *placement; /* NULL: none */
	bool report_pending; /* the child's report is not read yet */
	/* Not gated: when the child went on to exec (CLOCK_MONOTONIC), from its report. */
	struct timespec released;
	bool released_known;
};

/* Makes cperfwatch a child subreaper and forks the child: into the groups of placement
 * where it can (cgroup.h; NULL: where cperfwatch is), setting its v2_done. It joins its
 * groups and is held until cpw_launch_go(). Gated, it reports before that; not gated, after,
 * and cpw_launch_go() is all its exec waits for. A child that could not be cloned into its
 * v2 group is gated whatever `gated` says (l->gated tells): the parent moves it there with
 * cpw_cgroup_add_pid() before the release. Returns 0 or -errno. */
int cpw_launch_prepare(char *const argv[], struct cpw_cgroup_placement *placement, bool gated,
		       struct cpw_launch *l);
/* Waits for the child's report: the v1 groups it joined by itself (setting the placement's
 * v1_done flags) and, not gated, when it went on to exec (released; a child not released
 * yet is released first). Returns 0, or -errno when no report came (the flags stay false,
 * so the parent migrates it). A gated child without a placement sends none: 0 at once. */
int cpw_launch_placed(struct cpw_launch *l);
/* Releases the child if it is not released yet, and waits until exec succeeded or failed.
 * Returns 0 when COMMAND is running, else the exec errno (positive). */
int cpw_launch_release(struct cpw_launch *l);
/* The two halves of cpw_launch_release(), for a caller with work to do while the child
 * execs: release it, then wait for the exec's result (same returns). */
void cpw_launch_go(struct cpw_launch *l);
int cpw_launch_exec_result(struct cpw_launch *l);
/* Set-up failed: a child held at the gate exits without running the command; one released
 * may be running it already and is killed. Then it is reaped. */
void cpw_launch_abort(struct cpw_launch *l);

#endif
