/*
 * watch.c: the live view in the modes' sampling loops (watch.h).
 *
 * The view is opened after a sample, so that its title can name the target's command,
 * and is closed before anything is printed; an interval the user changed in it goes into
 * the report's notes, so the report says at which pace it was sampled.
 */
#include "config.h"
#include "modes/watch.h"

#include <stdio.h>

#include "report/report.h"
#include "util/escape.h"

void cpw_watch_view_init(struct cpw_watch_view *w, const struct cpw_config *cfg, bool shared_terminal)
{
	w->ui = NULL;
	w->wanted = cpw_tui_wanted(cfg);
	w->shared_terminal = shared_terminal;
}

static void close_view(struct cpw_watch_view *w, struct cpw_session *s)
{
	if (!w->ui)
		return;
	unsigned ms = cpw_tui_interval_ms(w->ui);
	if (ms != s->cfg->interval_ms)
		cpw_report_note(&s->report, "the sampling interval was changed to %u ms in the live view", ms);
	cpw_tui_close(w->ui);
	w->ui = NULL;
}

static void open_view(struct cpw_watch_view *w, struct cpw_session *s, pid_t target)
{
	char comm[CPW_COMM_MAX * 4 + 1] = "", title[CPW_COMM_MAX * 4 + 32], err[256] = "";
	const struct cpw_proc *p = cpw_tree_find(s->tree, target);
	const char *name = p ? p->comm : s->cfg->command ? s->cfg->command[0] : "?";

	w->wanted = false;
	cpw_escape_for_terminal(name, comm, sizeof(comm));
	snprintf(title, sizeof(title), "pid %d (%s)", (int)target, comm);
	w->ui = cpw_tui_open(s->cfg, title, w->shared_terminal, err, sizeof(err));
	if (!w->ui)
		fprintf(stderr, "cperfwatch: no live view: %s\n", err);
}

enum cpw_watch_step cpw_watch_view_step(struct cpw_watch_view *w, struct cpw_session *s, pid_t target)
{
	if (w->wanted)
		open_view(w, s, target);
	if (!w->ui)
		return CPW_WATCH_NO_VIEW;
	struct cpw_view_snapshot snap;
	cpw_session_snapshot(s, &snap);
	cpw_tui_update(w->ui, &snap);
	if (cpw_tui_wait(w->ui) == CPW_TUI_QUIT) {
		close_view(w, s);
		return CPW_WATCH_QUIT;
	}
	return CPW_WATCH_NEXT;
}

void cpw_watch_view_end(struct cpw_watch_view *w, struct cpw_session *s, const char *notice)
{
	if (w->ui && notice)
		cpw_tui_hold(w->ui, notice);
	close_view(w, s);
}
