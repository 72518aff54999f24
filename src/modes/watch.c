/*
 * watch.c: the live view in the modes' sampling loops (watch.h).
 *
 * The view is opened after a sample, so that its title can name the target's command, and
 * is closed before anything is printed; an interval the user changed in it goes into the
 * report's notes, so the report says at which pace it was sampled. Without a view the
 * loop keeps its pace with cpw_watch_pacer_wait().
 */
#include "config.h"
#include "modes/watch.h"

#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "util/escape.h"
#include "util/signals.h"
#include "util/tick_grid.h"

void cpw_watch_view_init(struct cpw_watch_view *w, const struct cpw_config *cfg, bool shared_terminal)
{
	w->ui = NULL;
	w->wanted = cpw_tui_wanted(cfg);
	w->shared_terminal = shared_terminal;
}

/* "SIGTERM" for a signal the view offers, else "signal N". */
static const char *sigabbrev(int sig)
{
	static char other[24];
	size_t n;
	const struct cpw_tui_signal *sigs = cpw_tui_signals(&n);
	for (size_t i = 0; i < n; i++)
		if (sigs[i].sig == sig)
			return sigs[i].name;
	snprintf(other, sizeof(other), "signal %d", sig);
	return other;
}

static void close_view(struct cpw_watch_view *w, struct cpw_session *s)
{
	if (!w->ui)
		return;
	unsigned ms = cpw_tui_interval_ms(w->ui);
	if (ms != cpw_session_config(s)->interval_ms)
		cpw_session_note(s, "the sampling interval was changed to %u ms in the live view", ms);
	cpw_tui_close(w->ui);
	w->ui = NULL;
}

static void open_view(struct cpw_watch_view *w, struct cpw_session *s, pid_t target)
{
	char comm[CPW_COMM_MAX * 4 + 1] = "", title[CPW_COMM_MAX * 4 + 32], err[256] = "";
	const struct cpw_config *cfg = cpw_session_config(s);
	const struct cpw_proc *p = cpw_tree_find(cpw_session_tree(s), target);
	const char *name = p ? p->comm : cfg->command ? cfg->command[0] : "?";

	w->wanted = false;
	cpw_escape_for_terminal(name, comm, sizeof(comm));
	snprintf(title, sizeof(title), "pid %d (%s)", (int)target, comm);
	w->ui = cpw_tui_open(cfg, title, w->shared_terminal, err, sizeof(err));
	if (!w->ui)
		fprintf(stderr, "cperfwatch: no live view: %s\n", err);
}

/* The signal the user chose in the view (k, F9), sent here, not by the view: only to a
 * process of the watched tree that was alive at the last sample. How it went is shown on
 * the view's status line and noted in the report. */
static void send_signal(struct cpw_watch_view *w, struct cpw_session *s)
{
	pid_t pid;
	int sig;
	char msg[200];
	if (!cpw_tui_take_kill(w->ui, &pid, &sig))
		return;
	const struct cpw_proc *p = cpw_tree_find(cpw_session_tree(s), pid);
	if (!p || !p->alive || pid <= 0) {
		snprintf(msg, sizeof(msg), "pid %d is not a live process of the watched tree: no signal sent", (int)pid);
	} else if (kill(pid, sig) < 0) {
		snprintf(msg, sizeof(msg), "could not send %s to pid %d: %s", sigabbrev(sig), (int)pid, strerror(errno));
	} else {
		snprintf(msg, sizeof(msg), "sent %s to pid %d", sigabbrev(sig), (int)pid);
		cpw_session_note(s, "%s (%d) was sent to pid %d from the live view", sigabbrev(sig), sig, (int)pid);
	}
	cpw_tui_notice(w->ui, msg);
}

enum cpw_watch_step cpw_watch_view_step(struct cpw_watch_view *w, struct cpw_session *s, pid_t target)
{
	if (w->wanted)
		open_view(w, s, target);
	if (!w->ui)
		return CPW_WATCH_NO_VIEW;
	struct cpw_view_snapshot snap;
	cpw_session_snapshot(s, &snap);
	snap.target = target;
	cpw_tui_update(w->ui, &snap);
	enum cpw_tui_event ev;
	while ((ev = cpw_tui_wait(w->ui)) == CPW_TUI_KILL)
		send_signal(w, s);
	if (ev == CPW_TUI_QUIT) {
		close_view(w, s);
		return CPW_WATCH_QUIT;
	}
	return CPW_WATCH_NEXT;
}

void cpw_watch_pacer_wait(struct cpw_pacer *p, unsigned interval_ms)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->origin.tv_sec == 0 && p->origin.tv_nsec == 0)
		p->origin = now;
	/* The next point after now: the one a signal's early wake-up left is still ahead
	 * (its extra sample leaves the grid alone), and the interval may have changed. */
	cpw_signals_sleep_until(cpw_tick_grid_next(p->origin, (uint64_t)interval_ms * 1000000u, now));
}

void cpw_watch_view_end(struct cpw_watch_view *w, struct cpw_session *s, const char *notice)
{
	/* Told to stop (timeout, a service manager, a job runner): no one may be there to
	 * press q. */
	if (w->ui && notice && !cpw_signals_stop)
		cpw_tui_hold(w->ui, notice);
	close_view(w, s);
}
