/*
 * session.h: one watch, from the first sample to the report (session.c), shared by run
 * mode (modes/run.c) and attach mode (modes/attach.c).
 *
 * The session owns the model and the sources that are read at the start and the end
 * (pressure, vmstat, cgroup), takes samples on its interval, and at the end turns all of it
 * into the report's metrics and verdict.
 */
#ifndef CPERFWATCH_SESSION_H
#define CPERFWATCH_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "options.h"
#include "report/report.h"
#include "model/tree.h"
#include "view/tui.h"

struct cpw_session_private;

struct cpw_session {
	const struct cpw_config *cfg;
	struct cpw_tree *tree;
	struct cpw_counters *counters; /* NULL when none could be set up */
	struct timespec start;         /* monotonic: exec (run) or first sample (attach) */
	struct cpw_report report;
	struct cpw_session_private *priv;
};

/* Sets up the model and, in run mode, the command's own cgroup (cheap: the command is
 * forked into it next). Returns 0 or -errno (err says why). */
int cpw_session_init(struct cpw_session *s, const struct cpw_config *cfg, char *err, size_t errlen);
/* Run mode: where the command's child is to be forked (cgroup.h), NULL without a cgroup.
 * It (re)opens the placement and clears its flags: call it once, for the fork; afterwards
 * the launch's own pointer to it (cpw_launch.placement) has the flags. */
struct cpw_cgroup_placement *cpw_session_placement(struct cpw_session *s);
/* Opens the whole-run sources: counters, exit records (unless cpw_session_listen() did),
 * delay accounting (run mode: while the forked command looks itself up). Returns 0, or
 * -errno with err saying why; the caller still frees the session (run mode: after the
 * child is gone, so that the groups it made can be removed). */
int cpw_session_open(struct cpw_session *s, char *err, size_t errlen);
/* Starts taking exit records (root; a note says why not). Run mode calls it before it
 * releases the child: a command not gated may start its own children at once. */
void cpw_session_listen(struct cpw_session *s);
/* Closes what the session holds in the kernel (exit records, held files) and removes the
 * command's cgroup; cpw_session_free() does it too. Run mode calls it once the end values
 * are read, before the report: the kernel's clean-up of the groups then runs on the other
 * CPU while the report is written (~0.05 ms less start-up on our VMs). */
void cpw_session_close_sources(struct cpw_session *s);
/* Run mode: removes the empty groups that earlier runs killed with SIGKILL left beside the
 * command's own (cpw_cgroup_remove_stale()). Called once the command runs, off the path
 * that start-up takes. */
void cpw_session_remove_stale_groups(struct cpw_session *s);
/* Run mode: puts the held child in the parts of the command's own cgroup that its
 * placement did not already put it in, when there is one. Returns 0, or -errno with a
 * note in the report saying which parts are missing. */
int cpw_session_adopt(struct cpw_session *s, pid_t child);
/* Marks the start of counting (run mode: the exec; attach mode: now) and reads the
 * start values of whole-run sources. */
void cpw_session_begin(struct cpw_session *s);
/* The two halves of cpw_session_begin(). Run mode marks the start just before releasing
 * the command and reads the start values while it execs (on another CPU). */
void cpw_session_start_clock(struct cpw_session *s);
/* The same with a time taken elsewhere (CLOCK_MONOTONIC): a child not gated says when it
 * went on to exec. */
void cpw_session_start_at(struct cpw_session *s, const struct timespec *t);
void cpw_session_read_start(struct cpw_session *s);
/* The cores the run may use (affinity, cgroup quota), which do not change during it: run
 * mode reads them while the held child makes its groups; cpw_session_read_start() reads
 * them where that was not done. */
void cpw_session_read_cpus(struct cpw_session *s);
double cpw_session_elapsed(const struct cpw_session *s);
/* One sample of the tree below roots; run mode passes the children of cperfwatch itself. */
int cpw_session_sample(struct cpw_session *s, const pid_t *roots, size_t nroots);
/* What the live view draws after a sample: the tree, the verdict so far, the phases so far
 * (cut from the timeline, once per snapshot) with the timeline, usable cores and system
 * pressure over the interval since the last snapshot. */
void cpw_session_snapshot(struct cpw_session *s, struct cpw_view_snapshot *snap);
/* Reads the end values and fills report.metrics, report.verdict, budgets. Returns true when
 * a budget was broken. */
bool cpw_session_finish(struct cpw_session *s);
void cpw_session_free(struct cpw_session *s);

/* Children of pid (all its threads), for the run mode roots. Returns the count, or -errno. */
int cpw_children_of(const char *proc_root, pid_t pid, pid_t *out, size_t max);

#endif
