/*
 * attach.c: attach mode, `cperfwatch --pid N`.
 *
 * Watches N and its descendants until N exits, --duration passes, or the user stops it
 * (SIGINT, SIGTERM, SIGHUP, or q in the live view); the report covers the time watched.
 */
#include "config.h"
#include "cperfwatch/modes.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cperfwatch/counters.h"
#include "cperfwatch/exitcodes.h"
#include "cperfwatch/proc_parse.h"
#include "cperfwatch/session.h"

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

int cpw_attach_mode(const struct cpw_config *cfg, FILE *report_out)
{
	struct cpw_session s;
	char err[256] = "";

	if (check_target(cfg) < 0)
		return CPW_EXIT_FAILURE;
	if (cpw_session_init(&s, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	cpw_signals_install(CPW_MODE_ATTACH);
	s.report.pid = cfg->pid;
	cpw_session_begin(&s);

	pid_t root = cfg->pid;
	bool ended = false;
	for (;;) {
		int alive = cpw_session_sample(&s, &root, 1);
		arm_counters(&s);
		const struct cpw_proc *p = cpw_tree_find(s.tree, root);
		if (alive <= 0 || !p || !p->alive) {
			ended = true;
			break;
		}
		if (cpw_signal_received)
			break;
		if (cfg->duration_s > 0 && cpw_session_elapsed(&s) >= cfg->duration_s)
			break;
		cpw_sleep_interruptible(cfg->interval_ms);
		if (cpw_signal_received)
			break;
	}
	s.report.metrics.wall_s = cpw_session_elapsed(&s);
	s.report.exit_known = false;
	if (ended)
		cpw_report_note(&s.report, "process %d ended while watched", (int)cfg->pid);
	if (cpw_signal_received)
		cpw_report_note(&s.report, "the watch was stopped by signal %d", (int)cpw_signal_received);
	cpw_report_note(&s.report, "figures cover the %.1f s watched, not the process's life before it",
			s.report.metrics.wall_s);
	bool budget_broken = cpw_session_finish(&s);
	int status = cpw_emit_report(cfg, &s.report, report_out) != 0 ? CPW_EXIT_FAILURE
		     : budget_broken ? CPW_EXIT_BUDGET : CPW_EXIT_OK;
	cpw_session_free(&s);
	return status;
}
