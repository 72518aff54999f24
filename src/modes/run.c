/*
 * run.c: run mode, `cperfwatch -- COMMAND`.
 *
 * Fork held at a gate, arm counters (and cgroup membership), exec (with no counters to arm,
 * the child is released once exit records are listened for, and execs once in its groups:
 * launch.h), then sample the tree on
 * the interval while reaping: cperfwatch is a child subreaper, so orphans come back to it
 * and are waited for with wait4 like the command itself. The session reads a zombie's own
 * figures before it is reaped, so short processes keep exact per-process totals. The
 * session owns every source: this file forks, paces, reaps and ends the watch with one call.
 */
#include "config.h"
#include "modes/run.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify/budgets.h"
#include "exitcodes.h"
#include "model/tree.h"
#include "modes/launch.h"
#include "report/output.h"
#include "session/session.h"
#include "util/escape.h"
#include "util/signals.h"
#include "modes/watch.h"

static void timeval_add(struct timeval *sum, const struct timeval *t)
{
	sum->tv_sec += t->tv_sec;
	sum->tv_usec += t->tv_usec;
	if (sum->tv_usec >= 1000000) {
		sum->tv_sec++;
		sum->tv_usec -= 1000000;
	}
}

/* What getrusage(RUSAGE_CHILDREN) would say of the children reaped here: sums, and the
 * largest max RSS. Not getrusage itself: it also counts children reaped before an exec of
 * cperfwatch (`exec cperfwatch ...` at the end of a script counted the whole script). */
static void rusage_add(struct rusage *sum, const struct rusage *ru)
{
	timeval_add(&sum->ru_utime, &ru->ru_utime);
	timeval_add(&sum->ru_stime, &ru->ru_stime);
	if (ru->ru_maxrss > sum->ru_maxrss)
		sum->ru_maxrss = ru->ru_maxrss;
	sum->ru_minflt += ru->ru_minflt;
	sum->ru_majflt += ru->ru_majflt;
	sum->ru_nswap += ru->ru_nswap;
	sum->ru_inblock += ru->ru_inblock;
	sum->ru_oublock += ru->ru_oublock;
	sum->ru_msgsnd += ru->ru_msgsnd;
	sum->ru_msgrcv += ru->ru_msgrcv;
	sum->ru_nsignals += ru->ru_nsignals;
	sum->ru_nvcsw += ru->ru_nvcsw;
	sum->ru_nivcsw += ru->ru_nivcsw;
}

/* Has the session read a zombie's final own figures, then reaps it, adding its wait4
 * figures to sum. Returns its pid, 0 when none is waiting, -1 when cperfwatch has no
 * children left. */
static pid_t reap_one(struct cpw_session *s, struct rusage *sum, int *status)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return -1;
	if (si.si_pid == 0)
		return 0;
	cpw_session_zombie(s, si.si_pid);
	struct rusage ru;
	pid_t pid = wait4(si.si_pid, status, 0, &ru);
	if (pid > 0)
		rusage_add(sum, &ru);
	return pid;
}

/* What the live view says once the command has ended, until q. */
static void end_notice(int wait_status, char *notice, size_t len)
{
	const char *dash = MB_CUR_MAX > 1 ? "\u2014" : "--";
	if (WIFSIGNALED(wait_status))
		snprintf(notice, len, "the command was killed by signal %d %s press q for the report",
			 WTERMSIG(wait_status), dash);
	else
		snprintf(notice, len, "the command exited with status %d %s press q for the report",
			 WEXITSTATUS(wait_status), dash);
}

/* One line: the command cannot be started or run. Its name may hold any byte (a file
 * name, or what PATH gave): escaped as the reports escape it. */
static void say_cannot(const char *what, const char *command, int err)
{
	char name[4096];
	cpw_escape_for_terminal(command, name, sizeof(name));
	fprintf(stderr, "cperfwatch: cannot %s '%s': %s\n", what, name, strerror(err));
}

/* --timeout: the command's tree stopped as timeout(1) stops it: SIGTERM to the command
 * and every live process of its tree once the time is up (and to each that appears in
 * the grace after), SIGKILL to whatever is left kill_after_s later. The tree is the
 * model's, sampled just before: every descendant is there (cperfwatch is a child
 * subreaper), and a pid is signalled only while a sample a moment ago saw it alive. */
struct stopper {
	int stage;        /* 0: running; 1: SIGTERM sent; 2: SIGKILL sent */
	double term_s;    /* when the SIGTERM went (the watch's clock) */
	double swept_s;   /* the last sweep: processes first seen after it get the signal next */
	int terminated;   /* processes sent SIGTERM */
	int killed;       /* processes sent SIGKILL */
};

/* Sends sig to the command (unless reaped) and to the live processes of the tree first
 * seen after seen_after_s. Returns how many it reached. */
static int signal_tree(struct cpw_session *s, pid_t command, bool command_reaped, int sig,
		       double seen_after_s)
{
	const struct cpw_tree *t = cpw_session_tree(s);
	int n = 0;

	if (!command_reaped && seen_after_s < 0 && kill(command, sig) == 0)
		n++;
	for (size_t i = 0; i < cpw_tree_size(t); i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		if (p->pid == command || !p->alive || p->reaped || !isnan(p->exited_s) ||
		    p->first_seen_s <= seen_after_s)
			continue;
		if (kill(p->pid, sig) == 0)
			n++;
	}
	return n;
}

/* After each sample: the next step of the stop, where its time has come. */
static void stopper_step(struct stopper *st, struct cpw_session *s, const struct cpw_config *cfg,
			 pid_t command, bool command_reaped)
{
	double now = cpw_session_elapsed(s);

	if (!(cfg->timeout_s > 0))
		return;
	if (st->stage == 0 && now >= cfg->timeout_s) {
		st->stage = 1;
		st->term_s = now;
		st->terminated += signal_tree(s, command, command_reaped, SIGTERM, -1);
	} else if (st->stage == 1 && now >= st->term_s + cfg->kill_after_s) {
		st->stage = 2;
		st->killed += signal_tree(s, command, command_reaped, SIGKILL, -1);
	} else if (st->stage > 0) {
		/* Started since the last sweep: the same signal, once. */
		int sig = st->stage == 1 ? SIGTERM : SIGKILL;
		int n = signal_tree(s, command, true, sig, st->swept_s);
		*(sig == SIGTERM ? &st->terminated : &st->killed) += n;
	}
	st->swept_s = now;
}

/* How long the loop may sleep before the stop's next step is due, in ms; interval_ms
 * when that is later. */
static unsigned stopper_wait_ms(const struct stopper *st, struct cpw_session *s,
				const struct cpw_config *cfg)
{
	if (!(cfg->timeout_s > 0) || st->stage == 2)
		return cfg->interval_ms;
	double due = st->stage == 0 ? cfg->timeout_s : st->term_s + cfg->kill_after_s;
	double left_ms = (due - cpw_session_elapsed(s)) * 1000;
	if (left_ms >= cfg->interval_ms)
		return cfg->interval_ms;
	return left_ms > 1 ? (unsigned)ceil(left_ms) : 1;
}

int cpw_run_mode(const struct cpw_config *cfg, struct cpw_output *report_out, struct cpw_series_out *series)
{
	struct cpw_launch launch;
	char err[256] = "";

	struct cpw_session *s = cpw_session_new(cfg, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	cpw_session_set_series(s, series);
	/* The child is forked into its cgroup next, and joins its v1 groups and looks its
	 * command up while the session opens its sources. It is held at the gate until the
	 * exit records are listened for (its children may end at once), and gated (held on)
	 * only where counters are to be armed on it before its exec. */
	int rc = cpw_launch_prepare(cfg->command, cpw_session_placement(s), cpw_session_gate_wanted(s),
				    &launch);
	if (rc < 0) {
		say_cannot("start", cfg->command[0], -rc);
		cpw_session_free(s);
		return CPW_EXIT_FAILURE;
	}
	cpw_session_listen(s);
	bool gated = launch.gated; /* also where the clone into its v2 group was refused */
	if (!gated)
		cpw_launch_go(&launch); /* all it waited for */
	if (cpw_session_open(s, err, sizeof(err)) < 0) {
		/* The child first: a v1 group it made and is in can only be removed after it. */
		cpw_launch_abort(&launch);
		cpw_session_free(s);
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	bool placed = cpw_launch_placed(&launch) == 0;
	cpw_session_take_child(s, launch.pid, placed, gated, launch.placement);
	/* The start values are read while the command execs on the other CPU: pressure
	 * stalls of the first ~0.3 ms of the run go uncounted, start-up gets shorter. */
	if (gated) {
		cpw_session_start(s, NULL);
		cpw_launch_go(&launch);
	} else {
		/* Its exec is the run's start; where it sent no report (it died), from now. */
		cpw_session_start(s, launch.released_known ? &launch.released : NULL);
	}
	int exec_errno = cpw_launch_exec_result(&launch);
	if (exec_errno) {
		int status;
		waitpid(launch.pid, &status, 0);
		say_cannot("run", cfg->command[0], exec_errno);
		cpw_session_free(s);
		return exec_errno == ENOENT ? CPW_EXIT_NOT_FOUND : CPW_EXIT_CANNOT_RUN;
	}

	struct cpw_session_end end = { .cause = CPW_END_COMMAND_EXITED, .rusage_known = true };
	bool main_done = false;
	struct cpw_watch_view view; /* the live view (--tui), driven by this loop */
	struct cpw_pacer pacer = { .origin = cpw_session_started_at(s) };
	struct stopper stop = { 0 };
	cpw_watch_view_init(&view, cfg, true);
	/* A child can be reaped only after its SIGCHLD: looked for at the first turn, then
	 * only after one came (each look is a system call, and most turns have none). */
	cpw_signals_child_ended = 1;
	for (;;) {
		int status;
		pid_t pid = 0;
		bool look = cpw_signals_child_ended;
		cpw_signals_child_ended = 0; /* SIGCHLD is blocked here: none comes in between */
		while (look && (pid = reap_one(s, &end.ru, &status)) > 0) {
			if (pid == launch.pid) {
				main_done = true;
				end.exit_known = true;
				end.wait_status = status;
				end.wall_s = cpw_session_elapsed(s);
			}
		}
		bool none_left = pid < 0;
		/* Once stopped by --timeout, the rest of the tree is waited for too: it is
		 * signalled with the command, and none of it may run on unwatched. */
		if (main_done && (!(cfg->wait_all || stop.stage > 0) || none_left))
			break;
		if (none_left && !main_done)
			break; /* cannot happen: the command is our child until reaped */

		/* The command decides what each signal means to it; we report after. */
		for (int sig; (sig = cpw_signals_take()) != 0;)
			if (!main_done)
				kill(launch.pid, sig);
		cpw_session_sample(s);
		stopper_step(&stop, s, cfg, launch.pid, main_done);
		/* q in the view closes it; the command keeps running and its report still comes. */
		if (cpw_watch_view_step(&view, s, launch.pid) == CPW_WATCH_NO_VIEW) {
			unsigned wait_ms = stopper_wait_ms(&stop, s, cfg);
			if (wait_ms < cfg->interval_ms)
				cpw_signals_sleep(wait_ms); /* the stop is due before the sample */
			else
				cpw_watch_pacer_wait(&pacer, cfg->interval_ms);
		}
	}
	/* Everything reaped so far is in end.ru: the command, what it waited for, and the
	 * orphans that came back to us. */
	if (cfg->wait_all)
		end.wall_s = cpw_session_elapsed(s);
	if (stop.stage > 0) {
		char killed[96] = "";
		if (stop.stage == 2)
			snprintf(killed, sizeof(killed), ", then SIGKILL to %d still running %.3fs later",
				 stop.killed, cfg->kill_after_s);
		cpw_session_note(s, "stopped at the --timeout of %.3fs: SIGTERM to %d process%s%s",
				 cfg->timeout_s, stop.terminated, stop.terminated == 1 ? "" : "es", killed);
	}

	bool budget_broken;
	const struct cpw_report *report = cpw_session_end(s, &end, &budget_broken);
	char notice[160];
	end_notice(end.wait_status, notice, sizeof(notice));
	cpw_watch_view_end(&view, s, notice); /* until q; gives the terminal back */
	int exit_status = report->exit_signal ? CPW_EXIT_SIGNAL_BASE + report->exit_signal
					      : report->exit_code;
	if (cpw_report_emit(report, report_out) != 0)
		exit_status = CPW_EXIT_FAILURE;
	else if ((budget_broken && exit_status == 0) || stop.stage > 0)
		exit_status = CPW_EXIT_BUDGET; /* stopped: 124 whatever the signal made of it, as timeout(1) */
	/* A report elsewhere than on stderr (-o FILE, -o -): the broken budget in one line
	 * there, where a CI log shows it. */
	char broken[512];
	if (exit_status != CPW_EXIT_FAILURE && report_out->standard != stderr &&
	    cpw_budgets_broken_line(report->budgets, report->nbudgets, broken, sizeof(broken)) > 0)
		fprintf(stderr, "cperfwatch: budget broken: %s\n", broken);
	cpw_session_free(s);
	return exit_status;
}
