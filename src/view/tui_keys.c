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
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "util/escape.h"
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

/* k, F9: the selected row's process (a thread row's process) is the one to signal. */
static void start_kill(struct cpw_tui *ui)
{
	if (ui->ended || !ui->table.nrows)
		return;
	const struct cpw_tui_row *r = &ui->table.rows[ui->sel];
	const struct cpw_proc *p = cpw_tree_proc(ui->snap.tree, r->proc);
	if (r->exited || !p) {
		snprintf(ui->status_msg, sizeof(ui->status_msg), "pid %d has exited: there is nothing to signal",
			 (int)r->pid);
		return;
	}
	ui->kill_pid = r->pid;
	cpw_tui_cmd_short(p->cmdline, p->comm, 40, ui->utf8, ui->kill_label, sizeof(ui->kill_label));
	ui->kill_sel = cpw_tui_signal_default();
	ui->kill_num = 0;
	ui->kill_stage = KILL_CHOOSE;
}

/* A key while k's box is up; returns KILL once the signal is confirmed. */
static enum cpw_tui_event kill_key(struct cpw_tui *ui, int ch)
{
	size_t ns;
	const struct cpw_tui_signal *sigs = cpw_tui_signals(&ns);
	if (ui->kill_stage == KILL_CONFIRM) {
		ui->kill_stage = KILL_NONE;
		if (ch == 'y' || ch == 'Y') {
			ui->kill_pending = true;
			return CPW_TUI_KILL;
		}
		snprintf(ui->status_msg, sizeof(ui->status_msg), "no signal sent");
		return CPW_TUI_TICK;
	}
	switch (ch) {
	case KEY_UP: if (ui->kill_sel > 0) ui->kill_sel--; ui->kill_num = 0; break;
	case KEY_DOWN: if (ui->kill_sel + 1 < ns) ui->kill_sel++; ui->kill_num = 0; break;
	case '\n': case '\r': case KEY_ENTER: ui->kill_stage = KILL_CONFIRM; break;
	case 27: case 'q': case 'Q':
		ui->kill_stage = KILL_NONE;
		snprintf(ui->status_msg, sizeof(ui->status_msg), "no signal sent");
		break;
	case KEY_RESIZE: break;
	default:
		/* Its number, typed: 1 5 chooses SIGTERM. */
		if (ch >= '0' && ch <= '9') {
			ui->kill_num = ui->kill_num * 10 + (ch - '0');
			if (ui->kill_num > 99)
				ui->kill_num = ch - '0';
			for (size_t i = 0; i < ns; i++)
				if (sigs[i].sig == ui->kill_num)
					ui->kill_sel = i;
		}
		break;
	}
	return CPW_TUI_TICK;
}

/* A key while the filter is typed (/ F4): the rows follow each key. */
static void filter_key(struct cpw_tui *ui, int ch, bool *rebuild_rows)
{
	size_t n = strlen(ui->filter);
	switch (ch) {
	case '\n': case '\r': case KEY_ENTER: ui->filter_edit = false; break;
	case 27: ui->filter_edit = false; ui->filter[0] = '\0'; *rebuild_rows = true; break;
	case KEY_BACKSPACE: case 127: case 8:
		if (n > 0)
			ui->filter[n - 1] = '\0';
		*rebuild_rows = true;
		break;
	default:
		if (ch >= 0x20 && ch < 0x7f && n + 1 < sizeof(ui->filter)) {
			ui->filter[n] = (char)ch;
			ui->filter[n + 1] = '\0';
			*rebuild_rows = true;
		}
		break;
	}
}

/* Handles one key: QUIT on quit, KILL once a signal is confirmed, else TICK. */
static enum cpw_tui_event handle_key(struct cpw_tui *ui, int ch, bool *redraw, bool *rebuild_rows)
{
	int page = LINES > 12 ? LINES - 12 : 1;

	*redraw = true;
	if (ch != KEY_RESIZE)
		ui->status_msg[0] = '\0';
	if (ui->help && ch != KEY_RESIZE) {
		/* The help scrolls where it does not fit; any other key closes it. */
		switch (ch) {
		case KEY_UP: ui->help_top--; return CPW_TUI_TICK;
		case KEY_DOWN: ui->help_top++; return CPW_TUI_TICK;
		case KEY_PPAGE: ui->help_top -= page; return CPW_TUI_TICK;
		case KEY_NPAGE: ui->help_top += page; return CPW_TUI_TICK;
		default: break;
		}
		ui->help = false;
		return ch == 'q' || ch == 'Q' ? CPW_TUI_QUIT : CPW_TUI_TICK;
	}
	if (ui->verdict_panel && ch != KEY_RESIZE) {
		ui->verdict_panel = false;
		return ch == 'q' || ch == 'Q' ? CPW_TUI_QUIT : CPW_TUI_TICK;
	}
	if (ui->kill_stage != KILL_NONE)
		return kill_key(ui, ch);
	if (ui->filter_edit && ch != KEY_RESIZE) {
		filter_key(ui, ch, rebuild_rows);
		return CPW_TUI_TICK;
	}
	switch (ch) {
	case 'q': case 'Q': return CPW_TUI_QUIT;
	case ' ':
		if (!ui->ended)
			ui->paused = !ui->paused;
		break;
	case 't': case 'T': ui->tree = !ui->tree; *rebuild_rows = true; break;
	case 'c': case 'C': case '\n': case '\r': case KEY_ENTER:
		toggle_collapse(ui);
		*rebuild_rows = true;
		break;
	case KEY_UP: move_sel(ui, ui->sel - 1); break;
	case KEY_DOWN: move_sel(ui, ui->sel + 1); break;
	case KEY_PPAGE: move_sel(ui, ui->sel - page); break;
	case KEY_NPAGE: move_sel(ui, ui->sel + page); break;
	case KEY_HOME: case 'g': move_sel(ui, 0); break;
	case KEY_END: case 'G': move_sel(ui, (long)ui->table.nrows - 1); break;
	case '<': case ',': step_sort(ui, -1); *rebuild_rows = true; break;
	case '>': case '.': case KEY_F(6): step_sort(ui, 1); *rebuild_rows = true; break;
	case '+': case '=': ui->interval_ms = cpw_tui_interval_step(ui->interval_ms, 1); break;
	case '-': case '_': ui->interval_ms = cpw_tui_interval_step(ui->interval_ms, -1); break;
	case 'H': ui->threads = !ui->threads; *rebuild_rows = true; break;
	case 'h': case '?': ui->help = true; ui->help_top = 0; break;
	case 'v': case 'V': ui->verdict_panel = true; break;
	case 'f': ui->hot_panel = !ui->hot_panel; break;
	case '/': case KEY_F(4): ui->filter_edit = true; break;
	case 27: /* Esc: f's panel goes, else the filter */
		if (ui->hot_panel) {
			ui->hot_panel = false;
		} else if (ui->filter[0]) {
			ui->filter[0] = '\0';
			*rebuild_rows = true;
		}
		break;
	case 'k': case KEY_F(9): start_kill(ui); break;
	case KEY_RESIZE: break;
	default: *redraw = false; break;
	}
	return CPW_TUI_TICK;
}

/* Reads every pending key. Returns QUIT on quit, KILL once a signal is confirmed (the
 * keys after it wait for the next call), else TICK. */
static enum cpw_tui_event read_keys(struct cpw_tui *ui)
{
	bool redraw = false, rows = false;
	enum cpw_tui_event ev = CPW_TUI_TICK;
	int ch;
	while (ev == CPW_TUI_TICK && (ch = getch()) != ERR) {
		bool r = false;
		ev = handle_key(ui, ch, &r, &rows);
		if (ev == CPW_TUI_QUIT)
			return ev;
		redraw |= r;
	}
	if (rows)
		cpw_tui_rebuild(ui);
	if (redraw)
		cpw_tui_draw(ui);
	return ev;
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
		if (cpw_signals_received)
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
		int r = ppoll(&pfd, 1, timeout < 0 ? NULL : &ts, &cpw_signals_wait_mask);
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
		enum cpw_tui_event ev = read_keys(ui);
		if (ev != CPW_TUI_TICK)
			return ev;
	}
}

bool cpw_tui_take_kill(struct cpw_tui *ui, pid_t *pid, int *sig)
{
	size_t ns;
	const struct cpw_tui_signal *sigs = cpw_tui_signals(&ns);
	if (!ui || !ui->kill_pending)
		return false;
	ui->kill_pending = false;
	*pid = ui->kill_pid;
	*sig = sigs[ui->kill_sel < ns ? ui->kill_sel : cpw_tui_signal_default()].sig;
	return true;
}

void cpw_tui_notice(struct cpw_tui *ui, const char *msg)
{
	if (!ui)
		return;
	cpw_escape_for_terminal(msg, ui->status_msg, sizeof(ui->status_msg));
	cpw_tui_draw(ui);
}

enum cpw_tui_event cpw_tui_wait(struct cpw_tui *ui)
{
	return wait_keys(ui, false);
}

void cpw_tui_hold(struct cpw_tui *ui, const char *notice)
{
	ui->ended = true;
	ui->paused = false;
	ui->kill_stage = KILL_NONE; /* nothing is left to signal */
	/* The final rows from the ended tree: every process exited (X, its final TIME+), no
	 * stale "R 89.2"; the header and sparklines keep the last reading before the exit. */
	cpw_tui_rebuild(ui);
	snprintf(ui->notice, sizeof(ui->notice), "%s", notice);
	/* No new reading: the last one before the exit holds the final figures (the exit
	 * sample has the processes at zero). */
	cpw_tui_draw(ui);
	while (!cpw_signals_received && wait_keys(ui, true) != CPW_TUI_QUIT)
		;
}
