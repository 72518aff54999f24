/*
 * tui_private.h: what the files of the live view share (view/tui_*.c): the view's state,
 * the screen's lifecycle (tui_screen.c) and the drawing (tui_draw.c) that the keys
 * (tui_keys.c) drive. Nothing outside the view includes it.
 */
#ifndef CPW_VIEW_TUI_PRIVATE_H
#define CPW_VIEW_TUI_PRIVATE_H

#include <curses.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "view/tui.h"

#define LINE_MAX_BYTES 2048

enum pair { PAIR_TITLE = 1, PAIR_VERDICT, PAIR_HEAD, PAIR_SPARK, PAIR_NOTICE, PAIR_EXITED };

struct header {
	double elapsed_s;
	struct cpw_verdict verdict;
	bool have_verdict;
	double cores_used;
	unsigned alive, seen;
	uint64_t rss_kib;
	double read_rate, write_rate;
	bool psi_ok;
	double psi_cpu, psi_io, psi_mem; /* share of time some task stalled, percent */
	char target_comm[64];            /* the target's name now (it may exec); "" unknown */
};

/* k / F9: choosing a signal, then confirming it. */
enum kill_stage { KILL_NONE, KILL_CHOOSE, KILL_CONFIRM };

#define FILTER_MAX 64

struct cpw_tui {
	const struct cpw_config *cfg;
	struct cpw_view_snapshot snap; /* the last one handed over while not paused */
	SCREEN *screen;
	FILE *out, *in;
	bool own_out, own_in;
	int in_fd, out_fd;
	char target[160];

	struct cpw_tui_table table;
	const struct cpw_proc **procs;
	size_t procs_alloc;
	pid_t collapsed[CPW_TUI_COLLAPSED_MAX];
	size_t ncollapsed;
	bool threads;                /* H: thread rows */
	bool tree;
	enum cpw_tui_col sort;
	long sel, top;
	pid_t sel_pid, sel_tid;       /* the selected row's process, and thread (0: none) */

	bool paused, help, ended;
	int help_top;                /* the help's first line shown, where it scrolls */
	char filter[FILTER_MAX];     /* / F4: rows whose name or command line hold it */
	bool filter_edit;            /* typing it: keys go into it */
	enum kill_stage kill_stage;
	size_t kill_sel;             /* the signal chosen, in cpw_tui_signals() */
	int kill_num;                /* digits typed to choose it by number */
	pid_t kill_pid;              /* the process it goes to, fixed when k was pressed */
	char kill_label[96];         /* its command, short and escaped */
	bool kill_pending;           /* confirmed: cpw_tui_take_kill() takes it */
	char status_msg[200];        /* on the status line until the next key; "" none */
	bool verdict_panel;          /* v: the verdict so far, whole */
	bool hot_panel;              /* f: the top functions so far, until f or Esc */
	char notice[200];
	unsigned interval_ms;
	struct timespec last_update;
	bool utf8, colors;
	bool shared_terminal;   /* run mode: the command may write over the view */
	double last_full_s;

	struct header hdr;

	char line[LINE_MAX_BYTES];
	char cell[LINE_MAX_BYTES];
};

/* ---- The screen (tui_screen.c) ---- */

/* Set by SIGWINCH: the terminal was resized. */
extern volatile sig_atomic_t cpw_tui_winch_seen;
/* Takes the terminal's new size (clears cpw_tui_winch_seen). */
void cpw_tui_screen_resize(struct cpw_tui *ui);

/* ---- Drawing (tui_draw.c) ---- */

/* Builds the table's rows from the last snapshot, keeping the selection on its process. */
void cpw_tui_rebuild(struct cpw_tui *ui);
/* Draws the whole screen from the last snapshot. */
void cpw_tui_draw(struct cpw_tui *ui);

#endif
