/*
 * attach.c: attach mode, `cperfwatch --pid N`.
 *
 * Watches N and its descendants until N exits, --duration passes, or the user stops it
 * (SIGINT, SIGTERM, SIGHUP, or q in the live view); the report covers the time watched.
 * On a terminal the live view (src/view/, driven by modes/watch.c) shows the tree between
 * samples; it gives the terminal back before the report is written, so the report lands
 * on the shell's screen.
 */
#include "config.h"
#include "modes/attach.h"
#include "report/report.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "report/output.h"
#include "session/session.h"
#include "util/signals.h"
#include "modes/watch.h"

int cpw_attach_mode(const struct cpw_config *cfg, struct cpw_output *report_out, struct cpw_series_out *series)
{
	char err[256] = "";

	struct cpw_session *s = cpw_session_new(cfg, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	if (cpw_session_open(s, err, sizeof(err)) < 0) {
		cpw_session_free(s);
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	cpw_session_set_series(s, series);
	cpw_session_start(s, NULL);

	struct cpw_session_end end = { .cause = CPW_END_DURATION, .wall_s = NAN };
	struct cpw_watch_view view;
	struct cpw_pacer pacer = { .origin = cpw_session_started_at(s) };
	cpw_watch_view_init(&view, cfg, false);
	for (;;) {
		int alive = cpw_session_sample(s);
		if (alive <= 0 || !cpw_session_target_alive(s)) {
			end.cause = CPW_END_TARGET_EXITED;
			break;
		}
		if (cpw_signals_received)
			break;
		if (cfg->duration_s > 0 && cpw_session_elapsed(s) >= cfg->duration_s)
			break;
		enum cpw_watch_step step = cpw_watch_view_step(&view, s, cfg->pid);
		if (step == CPW_WATCH_QUIT) {
			end.cause = CPW_END_VIEW_QUIT;
			break;
		}
		if (step == CPW_WATCH_NO_VIEW)
			cpw_watch_pacer_wait(&pacer, cfg->interval_ms);
		if (cpw_signals_received)
			break;
	}
	/* The watch ends here: the time spent on the final view below is not watched. */
	bool ended = end.cause == CPW_END_TARGET_EXITED;
	if (cpw_signals_received) {
		end.cause = CPW_END_SIGNAL;
		end.signal = (int)cpw_signals_received;
	}
	bool budget_broken;
	const struct cpw_report *report = cpw_session_end(s, &end, &budget_broken);
	char notice[160];
	snprintf(notice, sizeof(notice), "process %d exited %s press q for the report",
		 (int)cfg->pid, MB_CUR_MAX > 1 ? "\u2014" : "--");
	/* The terminal is back before anything is printed. */
	cpw_watch_view_end(&view, s, ended && !cpw_signals_received ? notice : NULL);
	int status = cpw_report_emit(report, report_out) != 0 ? CPW_EXIT_FAILURE
		     : budget_broken ? CPW_EXIT_BUDGET : CPW_EXIT_OK;
	/* As in run mode: the broken budgets in one line where the report is not on stderr. */
	char broken[512];
	if (status == CPW_EXIT_BUDGET && report_out->standard != stderr &&
	    cpw_budgets_broken_line(report->budgets, report->nbudgets, broken, sizeof(broken)) > 0)
		fprintf(stderr, "cperfwatch: budget broken: %s\n", broken);
	cpw_session_free(s);
	return status;
}
