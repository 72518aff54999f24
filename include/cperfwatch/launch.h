/*
 * launch.h: starting COMMAND (target/launch.c).
 *
 * The child is forked and held at a pipe gate until everything that must see it from its
 * first instruction (cgroup membership, counters with enable_on_exec) is armed; then it
 * execs. Counting starts at exec, not at fork. Exec failures come back over a close-on-exec
 * pipe, so "not found" (127) and "cannot run" (126) are told apart exactly.
 */
#ifndef CPERFWATCH_LAUNCH_H
#define CPERFWATCH_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "cperfwatch/cgroup.h"

struct cpw_launch {
	pid_t pid;
	int gate_fd;  /* write end: one byte releases the child */
	int error_fd; /* read end: the child's join report (when asked for), then its exec
		       * errno, or EOF when exec succeeded */
	struct cpw_cgroup_placement *placement; /* NULL: none */
	bool report_pending; /* the child's join report is not read yet */
};

/* Makes cperfwatch a child subreaper and forks the held child: into the groups of
 * placement where it can (cgroup.h; NULL: where cperfwatch is), setting its v2_done.
 * Returns 0 or -errno. */
int cpw_launch_prepare(char *const argv[], struct cpw_cgroup_placement *placement,
		       struct cpw_launch *l);
/* Waits for the held child's report of the v1 groups it joined by itself and sets the
 * placement's v1_done flags. Returns 0, or -errno when no report came (the flags stay
 * false, so the parent migrates it). Without a placement it returns 0 at once. */
int cpw_launch_placed(struct cpw_launch *l);
/* Releases the child and waits until exec succeeded or failed. Returns 0 when COMMAND is
 * running, else the exec errno (positive). */
int cpw_launch_release(struct cpw_launch *l);
/* The two halves of cpw_launch_release(), for a caller with work to do while the child
 * execs: release it, then wait for the exec's result (same returns). */
void cpw_launch_go(struct cpw_launch *l);
int cpw_launch_exec_result(struct cpw_launch *l);
/* Kills a child still held at the gate (set-up failed) and reaps it. */
void cpw_launch_abort(struct cpw_launch *l);

#endif
