/*
 * attach.c: attach mode, `cperfwatch --pid N`.
 *
 * Watches N and its descendants until N exits, --duration passes, or the user stops it
 * (SIGINT, SIGTERM, SIGHUP, or q in the live view); the report covers the time watched.
 * On a terminal the live view (view/tui.c) shows the tree between samples; it gives the
 * terminal back before the report is written, so the report lands on the shell's screen.
 */
#include "config.h"
#include "modes/attach.h"
#include "report/report.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/perf.h"
#include "exitcodes.h"
#include "source/proc_parse.h"
#include "session/session.h"
#include "util/signals.h"
#include "modes/watch.h"

/* The pid must exist and its stat must be readable: one line and 125 otherwise. */
static int check_target(const struct cpw_config *cfg)
{
	char path[320], buf[2048];
	snprintf(path, sizeof(path), "%s/%d/stat", cfg->proc_root, (int)cfg->pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len == -ENOENT || len == -ESRCH) {
		fprintf(stderr, "cperfwatch: no process with pid %d\n", (int)cfg->pid);
		return -1;
	}
	if (len < 0) {
		fprintf(stderr, "cperfwatch: cannot read process %d: %s\n", (int)cfg->pid, strerror((int)-len));
		return -1;
	}
	if (cfg->pid == getpid()) {
		fprintf(stderr, "cperfwatch: will not watch itself (pid %d)\n", (int)cfg->pid);
		return -1;
	}
	return 0;
}

/* Arms a counter on every live thread of the tree (new ones as they appear). */
static void arm_counters(struct cpw_session *s)
{
	pid_t tids[4096];
	if (!s->counters)
		return;
	size_t n = cpw_tree_live_tids(s->tree, tids, sizeof(tids) / sizeof(tids[0]));
	for (size_t i = 0; i < n; i++)
		cpw_counters_attach_thread(s->counters, tids[i]);
}

int cpw_attach_mode(const struct cpw_config *cfg, struct cpw_output *report_out)
{
	struct cpw_session s;
	char err[256] = "";

	if (check_target(cfg) < 0)
		return CPW_EXIT_FAILURE;
	if (cpw_session_init(&s, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	if (cpw_session_open(&s, err, sizeof(err)) < 0) {
		cpw_session_free(&s);
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	s.report.pid = cfg->pid;
	cpw_session_begin(&s);

	pid_t root = cfg->pid;
	bool ended = false, quit = false;
	struct cpw_watch_view view;
	struct cpw_pacer pacer = { { 0, 0 } };
	cpw_watch_view_init(&view, cfg, false);
	for (;;) {
		int alive = cpw_session_sample(&s, &root, 1);
		arm_counters(&s);
		const struct cpw_proc *p = cpw_tree_find(s.tree, root);
		/* A zombie target has ended: only its parent's wait is missing. */
		if (alive <= 0 || !p || !p->alive || p->state == 'Z') {
			ended = true;
			break;
		}
		if (cpw_signal_received)
			break;
		if (cfg->duration_s > 0 && cpw_session_elapsed(&s) >= cfg->duration_s)
			break;
		enum cpw_watch_step step = cpw_watch_view_step(&view, &s, root);
		if (step == CPW_WATCH_QUIT) {
			quit = true;
			break;
		}
		if (step == CPW_WATCH_NO_VIEW)
			cpw_pacer_wait(&pacer, cfg->interval_ms);
		if (cpw_signal_received)
			break;
	}
	/* The watch ends here: the time spent on the final view below is not watched. */
	if (quit)
		cpw_report_note(&s.report, "the watch was ended from the live view");
	s.report.metrics.wall_s = cpw_session_elapsed(&s);
	s.report.exit_known = false;
	if (ended)
		cpw_report_note(&s.report, "process %d ended while watched", (int)cfg->pid);
	if (cpw_signal_received)
		cpw_report_note(&s.report, "the watch was stopped by signal %d", (int)cpw_signal_received);
	cpw_report_note(&s.report, "figures cover the %.1f s watched, not the process's life before it",
			s.report.metrics.wall_s);
	bool budget_broken = cpw_session_finish(&s);
	char notice[160];
	snprintf(notice, sizeof(notice), "process %d exited %s press q for the report",
		 (int)cfg->pid, MB_CUR_MAX > 1 ? "\u2014" : "--");
	/* The terminal is back before anything is printed. */
	cpw_watch_view_end(&view, &s, ended && !cpw_signal_received ? notice : NULL);
	int status = cpw_report_emit(&s.report, report_out) != 0 ? CPW_EXIT_FAILURE
		     : budget_broken ? CPW_EXIT_BUDGET : CPW_EXIT_OK;
	cpw_session_free(&s);
	return status;
}
