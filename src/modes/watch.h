/*
 * watch.h: the live view in the modes' sampling loops (watch.c), the one place where run
 * mode and attach mode open it, hand it the session's snapshot after each sample, wait
 * for keys, and give the terminal back.
 */
#ifndef CPW_MODES_WATCH_H
#define CPW_MODES_WATCH_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "session/session.h"
#include "view/tui.h"

struct cpw_watch_view {
	struct cpw_tui *ui;   /* NULL while no view is shown */
	bool wanted;          /* to be opened after the next sample */
	bool shared_terminal; /* run mode: the command may write over it */
};

/* Whether a view is wanted (cpw_tui_wanted()); none is open yet. */
void cpw_watch_view_init(struct cpw_watch_view *w, const struct cpw_config *cfg, bool shared_terminal);

enum cpw_watch_step {
	CPW_WATCH_NO_VIEW, /* no view is shown: the caller sleeps the interval itself */
	CPW_WATCH_NEXT,    /* the view waited for the next sample (or a signal) */
	CPW_WATCH_QUIT,    /* the user quit the view: it is closed */
};

/* After a sample: opens the view the first time (titled "pid N (comm)" after target, with
 * one line on standard error where the terminal cannot show it), hands it the session's
 * snapshot, and waits one interval for keys. */
enum cpw_watch_step cpw_watch_view_step(struct cpw_watch_view *w, struct cpw_session *s, pid_t target);

/* Sleeps until the next sample is due: the next point of a grid of intervals from origin
 * (util/tick_grid.h), so that the time a sample takes does not stretch the interval
 * (sampling 4,000 threads took 40 ms of every 100: 36 samples in 5 s instead of 50), and
 * the Python stack reader, on a grid from the same origin, wakes with it (one wake-up for
 * both: see tick_grid.h). Where a sample took longer than the interval, the next is taken
 * at the next point after it ends, with no burst to catch up. A signal ends the sleep
 * early; the sample it brings leaves the grid alone. */
struct cpw_pacer {
	struct timespec origin; /* the grid's origin (the session's start); zero: the first wait */
};
void cpw_watch_pacer_wait(struct cpw_pacer *p, unsigned interval_ms);

/* The watch is over: shows notice until q or a signal (where a view is open, notice is not
 * NULL and cperfwatch caught no signal: one told to stop does not wait), then closes the
 * view, noting in the report an interval changed in it. */
void cpw_watch_view_end(struct cpw_watch_view *w, struct cpw_session *s, const char *notice);

#endif
