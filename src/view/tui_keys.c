/*
 * tui_keys.c: the live view's keys and its wait between samples (tui.h): one thread, so
 * the mode's loop samples, calls cpw_tui_update() to draw, then cpw_tui_wait(), which
 * ppoll()s the terminal for keys until the next sample is due or a signal comes; and the
 * final view of an ended target, held until q or a signal.
 */
#include "config.h"
#include "view/tui_private.h"

#include <curses.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>

#include "util/signals.h"

/* ---- Keys ---- */

static void toggle_collapse(struct cpw_tui *ui)
{
	if (!ui->table.nrows)
		return;
	pid_t pid = ui->table.rows[ui->sel].pid;
	for (size_t i = 0; i < ui->ncollapsed; i++) {
		if (ui->collapsed[i] == pid) {
			ui->collapsed[i] = ui->collapsed[--ui->ncollapsed];
			return;
		}
	}
	if (ui->table.rows[ui->sel].has_children && ui->ncollapsed < CPW_TUI_COLLAPSED_MAX)
		ui->collapsed[ui->ncollapsed++] = pid;
}

/* Next sort column among those shown, in either direction. */
static void step_sort(struct cpw_tui *ui, int dir)
{
	bool vis[CPW_TUI_NCOLS];
	cpw_tui_layout(COLS, vis);
	int c = (int)ui->sort;
	for (int i = 0; i < CPW_TUI_NCOLS; i++) {
		c = (c + dir + CPW_TUI_NCOLS) % CPW_TUI_NCOLS;
		if (vis[c])
			break;
	}
	ui->sort = (enum cpw_tui_col)c;
}

static void move_sel(struct cpw_tui *ui, long to)
{
	long n = (long)ui->table.nrows;
	if (to >= n)
		to = n - 1;
	if (to < 0)
		to = 0;
	ui->sel = to;
	ui->sel_pid = n ? ui->table.rows[to].pid : 0;
	ui->sel_tid = n ? ui->table.rows[to].tid : 0;
}

/* Returns true on quit. */
static bool handle_key(struct cpw_tui *ui, int ch, bool *redraw, bool *rebuild_rows)
{
	int page = LINES > 12 ? LINES - 12 : 1;

	*redraw = true;
	if (ui->help && ch != KEY_RESIZE) {
		ui->help = false;
		return ch == 'q' || ch == 'Q';
	}
	if (ui->verdict_panel && ch != KEY_RESIZE) {
		ui->verdict_panel = false;
		return ch == 'q' || ch == 'Q';
	}
	switch (ch) {
	case 'q': case 'Q': return true;
	case ' ':
		if (!ui->ended)
			ui->paused = !ui->paused;
		break;
	case 't': case 'T': ui->tree = !ui->tree; *rebuild_rows = true; break;
	case 'c': case 'C': case '\n': case '\r': case KEY_ENTER:
		toggle_collapse(ui);
		*rebuild_rows = true;
		break;
	case KEY_UP: case 'k': move_sel(ui, ui->sel - 1); break;
	case KEY_DOWN: case 'j': move_sel(ui, ui->sel + 1); break;
	case KEY_PPAGE: move_sel(ui, ui->sel - page); break;
	case KEY_NPAGE: move_sel(ui, ui->sel + page); break;
	case KEY_HOME: case 'g': move_sel(ui, 0); break;
	case KEY_END: case 'G': move_sel(ui, (long)ui->table.nrows - 1); break;
	case '<': case ',': step_sort(ui, -1); *rebuild_rows = true; break;
	case '>': case '.': case KEY_F(6): step_sort(ui, 1); *rebuild_rows = true; break;
	case '+': case '=': ui->interval_ms = cpw_tui_interval_step(ui->interval_ms, 1); break;
	case '-': case '_': ui->interval_ms = cpw_tui_interval_step(ui->interval_ms, -1); break;
	case 'H': ui->threads = !ui->threads; *rebuild_rows = true; break;
	case 'h': case '?': ui->help = true; break;
	case 'v': case 'V': ui->verdict_panel = true; break;
	case KEY_RESIZE: break;
	default: *redraw = false; break;
	}
	return false;
}

/* Reads every pending key. Returns true on quit. */
static bool read_keys(struct cpw_tui *ui)
{
	bool redraw = false, rows = false;
	int ch;
	while ((ch = getch()) != ERR) {
		bool r = false;
		if (handle_key(ui, ch, &r, &rows))
			return true;
		redraw |= r;
	}
	if (rows)
		cpw_tui_rebuild(ui);
	if (redraw)
		cpw_tui_draw(ui);
	return false;
}

static double ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
}

/* Waits for keys until timeout_ms (< 0: forever) passes or a signal other than a
 * resize comes. Returns QUIT when the user quit. */
static enum cpw_tui_event wait_keys(struct cpw_tui *ui, bool forever)
{
	for (;;) {
		if (cpw_signal_received)
			return CPW_TUI_TICK;
		if (cpw_tui_winch_seen) {
			cpw_tui_screen_resize(ui);
			cpw_tui_draw(ui);
		}
		int timeout = -1;
		if (!forever) {
			double left = (double)ui->interval_ms - ms_since(&ui->last_update);
			if (left <= 0)
				return CPW_TUI_TICK;
			timeout = (int)ceil(left);
		}
		struct pollfd pfd = { .fd = ui->in_fd, .events = POLLIN };
		struct timespec ts = { .tv_sec = timeout / 1000, .tv_nsec = (long)(timeout % 1000) * 1000000L };
		/* ppoll with the wait mask: signals blocked while drawing are delivered here. */
		int r = ppoll(&pfd, 1, timeout < 0 ? NULL : &ts, &cpw_wait_mask);
		if (r < 0) {
			if (errno != EINTR)
				return CPW_TUI_QUIT;
			if (cpw_tui_winch_seen)
				continue;
			if (!forever)
				return CPW_TUI_TICK; /* SIGCHLD (run mode) or a stop signal */
			continue;
		}
		if (r == 0)
			continue;
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return CPW_TUI_QUIT; /* the terminal is gone */
		/* Readable with nothing to read is a hung-up terminal (a closed pty reads EIO):
		 * without this the loop would spin on it at full CPU. */
		int avail = 0;
		if (ioctl(ui->in_fd, FIONREAD, &avail) < 0 || avail <= 0)
			return CPW_TUI_QUIT;
		if (read_keys(ui))
			return CPW_TUI_QUIT;
	}
}

enum cpw_tui_event cpw_tui_wait(struct cpw_tui *ui)
{
	return wait_keys(ui, false);
}

void cpw_tui_hold(struct cpw_tui *ui, const char *notice)
{
	ui->ended = true;
	ui->paused = false;
	snprintf(ui->notice, sizeof(ui->notice), "%s", notice);
	/* No new reading: the last one before the exit holds the final figures (the exit
	 * sample has the processes at zero). */
	cpw_tui_draw(ui);
	while (!cpw_signal_received && wait_keys(ui, true) != CPW_TUI_QUIT)
		;
}
