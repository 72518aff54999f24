/*
 * run.c: run mode, `cperfwatch -- COMMAND`.
 *
 * Fork held at a gate, arm counters (and cgroup membership), exec (with no counters to arm,
 * the child is released once exit records are listened for, and execs once in its groups:
 * launch.h), then sample the tree on
 * the interval while reaping: cperfwatch is a child subreaper, so orphans come back to it
 * and are waited for with wait4 like the command itself. A zombie's own figures are read
 * from /proc before it is reaped, so short processes keep exact per-process totals.
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

#include "source/perf.h"
#include "exitcodes.h"
#include "modes/launch.h"
#include "source/proc_parse.h"
#include "session/session.h"
#include "util/escape.h"
#include "util/signals.h"
#include "modes/watch.h"

#define MAX_ROOTS 4096

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

/* Reads a zombie's final own figures, then reaps it, adding its wait4 figures to
 * s->report.ru. Returns its pid, 0 when none is waiting, -1 when cperfwatch has no
 * children left. */
static pid_t reap_one(struct cpw_session *s, int *status)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return -1;
	if (si.si_pid == 0)
		return 0;

	char path[320], buf[2048];
	struct cpw_stat_fields st;
	snprintf(path, sizeof(path), "%s/%d/stat", s->cfg->proc_root, (int)si.si_pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	long hz = sysconf(_SC_CLK_TCK);
	struct rusage ru;
	pid_t pid = wait4(si.si_pid, status, 0, &ru);
	if (pid <= 0)
		return pid;
	rusage_add(&s->report.ru, &ru);
	if (len > 0 && cpw_parse_stat(buf, (size_t)len, &st) == 0)
		cpw_tree_record_exit(s->tree, pid, st.ppid, st.comm, (double)st.utime_ticks / (double)hz,
				     (double)st.stime_ticks / (double)hz, st.minflt, st.majflt, 0,
				     cpw_session_elapsed(s));
	return pid;
}

static size_t current_roots(const struct cpw_config *cfg, pid_t *roots)
{
	int n = cpw_children_of(cfg->proc_root, getpid(), roots, MAX_ROOTS);
	return n > 0 ? (size_t)n : 0;
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
	struct cpw_session s;
	struct cpw_launch launch;
	char err[256] = "";
	static pid_t roots[MAX_ROOTS];

	cpw_signals_install(CPW_MODE_RUN);
	if (cpw_session_init(&s, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	/* The child is forked into its cgroup next, and joins its v1 groups and looks its
	 * command up while the session opens its sources. It is held at the gate until the
	 * exit records are listened for (its children may end at once), and gated (held on)
	 * only where counters are to be armed on it before its exec. */
	bool gated = cpw_counters_may_open(cfg->events);
	int rc = cpw_launch_prepare(cfg->command, cpw_session_placement(&s), gated, &launch);
	if (rc < 0) {
		say_cannot("start", cfg->command[0], -rc);
		cpw_session_free(&s);
		return CPW_EXIT_FAILURE;
	}
	cpw_session_listen(&s);
	gated = launch.gated; /* also where the clone into its v2 group was refused */
	if (!gated)
		cpw_launch_go(&launch); /* all it waited for */
	if (cpw_session_open(&s, err, sizeof(err)) < 0) {
		/* The child first: a v1 group it made and is in can only be removed after it. */
		cpw_launch_abort(&launch);
		cpw_session_free(&s);
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	s.report.pid = launch.pid;
	cpw_session_read_cpus(&s); /* while the child makes and joins its v1 groups */
	/* No report (the child died before it): nothing to say about its groups. */
	bool reported = cpw_launch_placed(&launch) == 0;
	if (reported && !gated && !cpw_cgroup_placement_complete(launch.placement))
		cpw_report_note(&s.report, "the command was already running when it was moved into "
				"the rest of its cgroups (it could not join them itself): their figures may "
				"miss its first moments");
	cpw_session_adopt(&s, launch.pid); /* a failure is in the notes */
	if (gated) {
		if (s.counters)
			cpw_counters_open_child(s.counters, launch.pid);
		cpw_session_start_clock(&s);
		cpw_launch_go(&launch);
	} else if (launch.released_known) {
		cpw_session_start_at(&s, &launch.released); /* its exec: the run's start */
	} else {
		cpw_session_start_clock(&s); /* it sent no report (it died): from now */
	}
	/* The start values are read while the command execs on the other CPU: pressure
	 * stalls of the first ~0.3 ms of the run go uncounted, start-up gets shorter. */
	cpw_session_read_start(&s);
	int exec_errno = cpw_launch_exec_result(&launch);
	if (exec_errno) {
		int status;
		waitpid(launch.pid, &status, 0);
		say_cannot("run", cfg->command[0], exec_errno);
		cpw_session_free(&s);
		return exec_errno == ENOENT ? CPW_EXIT_NOT_FOUND : CPW_EXIT_CANNOT_RUN;
	}
	cpw_session_remove_stale_groups(&s); /* while the command runs */

	bool main_done = false;
	int main_status = 0;
	double main_end_s = 0;
	struct cpw_watch_view view; /* the live view (--tui), driven by this loop */
	struct cpw_pacer pacer = { { 0, 0 } };
	cpw_watch_view_init(&view, cfg, true);
	for (;;) {
		int status;
		pid_t pid;
		while ((pid = reap_one(&s, &status)) > 0) {
			if (pid == launch.pid) {
				main_done = true;
				main_status = status;
				main_end_s = cpw_session_elapsed(&s);
			}
		}
		bool none_left = pid < 0;
		if (main_done && (!cfg->wait_all || none_left))
			break;
		if (none_left && !main_done)
			break; /* cannot happen: the command is our child until reaped */

		if (cpw_signal_received) {
			int sig = cpw_signal_received;
			cpw_signal_received = 0;
			/* The command decides what SIGTERM/SIGHUP mean to it; we report after. */
			if (!main_done)
				kill(launch.pid, sig);
		}
		size_t n = current_roots(cfg, roots);
		if (n)
			cpw_session_sample(&s, roots, n);
		/* q in the view closes it; the command keeps running and its report still comes. */
		if (cpw_watch_view_step(&view, &s, launch.pid) == CPW_WATCH_NO_VIEW)
			cpw_pacer_wait(&pacer, cfg->interval_ms);
	}

	s.report.metrics.wall_s = cfg->wait_all ? cpw_session_elapsed(&s) : main_end_s;
	/* Everything reaped so far: the command, what it waited for, and the orphans that
	 * came back to us. */
	s.report.rusage_known = true; /* reap_one() summed them, the command's first */
	s.report.exit_known = true;
	if (WIFSIGNALED(main_status)) {
		s.report.exit_signal = WTERMSIG(main_status);
	} else {
		s.report.exit_code = WEXITSTATUS(main_status);
	}
	size_t left = current_roots(cfg, roots);
	if (!left)
		cpw_tree_end(s.tree, cpw_session_elapsed(&s)); /* everything was waited for */
	if (left) {
		cpw_session_sample(&s, roots, left); /* so the report lists them */
		s.report.descendants_running = cpw_tree_totals(s.tree)->alive;
		cpw_report_note(&s.report,
				"%u descendant process(es) were still running when the command exited; "
				"their figures are sampled, not exact (use --wait-all to wait for them)",
				s.report.descendants_running);
	}

	bool budget_broken = cpw_session_finish(&s);
	/* The end values are read. The groups go now, so that the kernel's clean-up of them
	 * overlaps the report; not where descendants still run in them (moving them out and
	 * retrying the rmdir can take up to 2 s: that waits until after the report). */
	if (!s.report.descendants_running)
		cpw_session_close_sources(&s);
	char notice[160];
	end_notice(main_status, notice, sizeof(notice));
	cpw_watch_view_end(&view, &s, notice); /* until q; gives the terminal back */
	int exit_status = s.report.exit_signal ? CPW_EXIT_SIGNAL_BASE + s.report.exit_signal
					       : s.report.exit_code;
	if (cpw_report_emit(&s.report, report_out) != 0)
		exit_status = CPW_EXIT_FAILURE;
	else if (budget_broken && exit_status == 0)
		exit_status = CPW_EXIT_BUDGET;
	cpw_session_free(&s);
	return exit_status;
}
