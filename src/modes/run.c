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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcodes.h"
#include "modes/launch.h"
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

int cpw_run_mode(const struct cpw_config *cfg, struct cpw_output *report_out)
{
	struct cpw_launch launch;
	char err[256] = "";

	struct cpw_session *s = cpw_session_new(cfg, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
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
	struct cpw_pacer pacer = { { 0, 0 } };
	cpw_watch_view_init(&view, cfg, true);
	for (;;) {
		int status;
		pid_t pid;
		while ((pid = reap_one(s, &end.ru, &status)) > 0) {
			if (pid == launch.pid) {
				main_done = true;
				end.exit_known = true;
				end.wait_status = status;
				end.wall_s = cpw_session_elapsed(s);
			}
		}
		bool none_left = pid < 0;
		if (main_done && (!cfg->wait_all || none_left))
			break;
		if (none_left && !main_done)
			break; /* cannot happen: the command is our child until reaped */

		/* The command decides what each signal means to it; we report after. */
		for (int sig; (sig = cpw_signal_take()) != 0;)
			if (!main_done)
				kill(launch.pid, sig);
		cpw_session_sample(s);
		/* q in the view closes it; the command keeps running and its report still comes. */
		if (cpw_watch_view_step(&view, s, launch.pid) == CPW_WATCH_NO_VIEW)
			cpw_pacer_wait(&pacer, cfg->interval_ms);
	}
	/* Everything reaped so far is in end.ru: the command, what it waited for, and the
	 * orphans that came back to us. */
	if (cfg->wait_all)
		end.wall_s = cpw_session_elapsed(s);

	bool budget_broken;
	const struct cpw_report *report = cpw_session_end(s, &end, &budget_broken);
	char notice[160];
	end_notice(end.wait_status, notice, sizeof(notice));
	cpw_watch_view_end(&view, s, notice); /* until q; gives the terminal back */
	int exit_status = report->exit_signal ? CPW_EXIT_SIGNAL_BASE + report->exit_signal
					      : report->exit_code;
	if (cpw_report_emit(report, report_out) != 0)
		exit_status = CPW_EXIT_FAILURE;
	else if (budget_broken && exit_status == 0)
		exit_status = CPW_EXIT_BUDGET;
	cpw_session_free(s);
	return exit_status;
}
