/*
 * session.h: one watch, from the first sample to the report (session.c), shared by run
 * mode (modes/run.c) and attach mode (modes/attach.c).
 *
 * The session owns the model and every source: it reads them in order, folds the readings
 * into the run's figures (model/whole_run.c, pure) and has them judged (classify/). The
 * modes only start, pace and end the watch; the struct is theirs only through these calls.
 *
 * Run mode:    new, placement, listen, open, take_child, start, then sample (and zombie
 *              before each wait4) on the interval, then end.
 * Attach mode: new, open, start, then sample on the interval, then end.
 * Both: snapshot after a sample for the live view; free last.
 */
#ifndef CPW_SESSION_SESSION_H
#define CPW_SESSION_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "options.h"
#include "report/report.h"
#include "model/tree.h"
#include "view/tui.h"

struct cpw_session;
struct cpw_cgroup_placement;

/* Sets up the model; in run mode the command's own cgroup (cheap: the command is forked
 * into it next); in attach mode checks that the target exists, is readable and is not
 * cperfwatch itself. NULL with one line in err on failure. */
struct cpw_session *cpw_session_new(const struct cpw_config *cfg, char *err, size_t errlen);

/* Run mode, before the fork. Whether the command must be held at its gate until counters
 * are armed on it (only where counters may open: cheap). */
bool cpw_session_gate_wanted(const struct cpw_session *s);
/* Where the command's child is to be forked (cgroup.h), NULL without a cgroup. It (re)opens
 * the placement and clears its flags: call it once, for the fork. */
struct cpw_cgroup_placement *cpw_session_placement(struct cpw_session *s);
/* Starts taking exit records (root; a note says why not). Run mode calls it before it
 * releases the child: a command not gated may start its own children at once. */
void cpw_session_listen(struct cpw_session *s);
/* Opens the whole-run sources: counters, exit records (unless listened for already), delay
 * accounting. Returns 0, or -errno with err saying why. */
int cpw_session_open(struct cpw_session *s, char *err, size_t errlen);
/* Run mode: the command's child is forked and has said where it is (placed: it reported;
 * placement: the launch's view of it, with its flags). Reads the usable cores, notes what
 * the child could not join, puts it in the rest of its groups, and where gated arms the
 * counters on it before its exec. */
void cpw_session_take_child(struct cpw_session *s, pid_t child, bool placed, bool gated,
			    const struct cpw_cgroup_placement *placement);
/* Marks the start of the watch (at: the command's exec, CLOCK_MONOTONIC; NULL: now) and
 * reads the start values of the whole-run sources. */
void cpw_session_start(struct cpw_session *s, const struct timespec *at);

/* One sample: run mode, of the tree below cperfwatch's children; attach mode, of the
 * target's tree, with counters armed on threads that appeared. Returns the live processes
 * of the tree, or -errno. */
int cpw_session_sample(struct cpw_session *s);
/* Attach mode: whether the target still runs (not gone, not a zombie). */
bool cpw_session_target_alive(const struct cpw_session *s);
/* Run mode: a child of cperfwatch is a zombie about to be reaped: its own final figures are
 * read now, so that short processes keep exact per-process totals. */
void cpw_session_zombie(struct cpw_session *s, pid_t pid);
double cpw_session_elapsed(const struct cpw_session *s);
/* What cpw_session_start() marked (CLOCK_MONOTONIC): the origin of the grid the samples
 * and the Python stack readings are paced on (util/tick_grid.h). */
struct timespec cpw_session_started_at(const struct cpw_session *s);
/* What the live view draws after a sample: the tree, the verdict so far, the phases so far
 * (cut from the timeline, once per snapshot) with the timeline, usable cores and system
 * pressure over the interval since the last snapshot. */
void cpw_session_snapshot(struct cpw_session *s, struct cpw_view_snapshot *snap);
/* The model, for the live view's title. */
const struct cpw_tree *cpw_session_tree(const struct cpw_session *s);
const struct cpw_config *cpw_session_config(const struct cpw_session *s);
/* --series (issue 29): after each sample's point is recorded, the session writes it to out
 * as one line (report/series.h), and notes a failed write in the report. Set by the mode
 * before the first sample; NULL for none; the session does not own it. */
struct cpw_series_out;
void cpw_session_set_series(struct cpw_session *s, struct cpw_series_out *out);
/* Adds a note to the report (also after the end, before it is written). */
void cpw_session_note(struct cpw_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How a watch ended, as the mode saw it. */
enum cpw_end_cause {
	CPW_END_COMMAND_EXITED, /* run mode: the command (and, with --wait-all, the rest) ended */
	CPW_END_TARGET_EXITED,  /* attach mode: the target ended */
	CPW_END_DURATION,       /* attach mode: --duration passed */
	CPW_END_VIEW_QUIT,      /* attach mode: q in the live view */
	CPW_END_SIGNAL          /* attach mode: a signal stopped the watch */
};

struct cpw_session_end {
	enum cpw_end_cause cause;
	int signal;             /* CPW_END_SIGNAL: which */
	double wall_s;          /* run mode: when the command ended (or all, --wait-all); NAN: now */
	bool exit_known;        /* run mode: wait_status is the command's */
	int wait_status;
	bool rusage_known;      /* run mode: ru is wait4's rusage of everything reaped */
	struct rusage ru;
};

/* Ends the watch with one call: samples what is left running (run mode), reads the end
 * values, folds everything into the report's figures, judges them (verdict, phases,
 * budgets) and closes the sources (where nothing is left running in the groups). Returns
 * the finished report, which the session keeps; *budget_broken says whether a budget was
 * broken. */
const struct cpw_report *cpw_session_end(struct cpw_session *s, const struct cpw_session_end *end,
					 bool *budget_broken);
/* Closes every source and frees the session (NULL is fine). */
void cpw_session_free(struct cpw_session *s);

#endif
