/*
 * tui_draw.c: the live view's drawing (tui.h): the snapshot into the header and the
 * table's rows, then the header, the advice, the sparklines and the phases so far, the
 * process table, the footer, and the help, verdict and top functions' panels over them. Drawing happens
 * only after a sample or a key; the table's buffers are reused between refreshes.
 */
#include "config.h"
#include "view/tui_private.h"

#include <curses.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "options.h"
#include "util/escape.h"
#include "classify/verdict.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- The model into the view ---- */

static void read_header(struct cpw_tui *ui)
{
	struct header *h = &ui->hdr;
	const struct cpw_view_snapshot *snap = &ui->snap;
	const struct cpw_tree_totals *tt = cpw_tree_totals(snap->tree);

	h->elapsed_s = snap->elapsed_s;
	const struct cpw_proc *target = snap->target ? cpw_tree_find(snap->tree, snap->target) : NULL;
	if (target && target->comm[0])
		cpw_escape_for_terminal(target->comm, h->target_comm, sizeof(h->target_comm));
	h->verdict = snap->verdict;
	h->have_verdict = true;
	h->cores_used = tt->cpu_pct / 100.0;
	h->alive = tt->alive;
	h->seen = tt->seen;
	h->rss_kib = tt->rss_kib;
	h->read_rate = tt->read_rate;
	h->write_rate = tt->write_rate;
	h->psi_ok = snap->psi_ok;
	h->psi_cpu = snap->psi_cpu;
	h->psi_io = snap->psi_io;
	h->psi_mem = snap->psi_mem;
}

void cpw_tui_rebuild(struct cpw_tui *ui)
{
	const struct cpw_tree *tree = ui->snap.tree;
	size_t n = cpw_tree_size(tree);
	if (n > ui->procs_alloc) {
		size_t cap = ui->procs_alloc ? ui->procs_alloc : 64;
		while (cap < n)
			cap *= 2;
		const struct cpw_proc **p = realloc(ui->procs, cap * sizeof(*p));
		if (!p)
			return; /* keep the previous rows */
		ui->procs = p;
		ui->procs_alloc = cap;
	}
	for (size_t i = 0; i < n; i++)
		ui->procs[i] = cpw_tree_proc(tree, i);
	struct cpw_tui_opts o = {
		.tree = ui->tree, .threads = ui->threads, .sort = ui->sort, .collapsed = ui->collapsed,
		.ncollapsed = ui->ncollapsed, .now_s = ui->snap.elapsed_s,
		/* Once the target is gone the final rows stay until q. */
		.linger_s = ui->ended ? INFINITY : CPW_TUI_LINGER_S,
		.filter = ui->filter,
		.verdicts = &ui->snap.procs, /* the CLASS column (issue 27, 3) */
	};
	if (cpw_tui_table_build(&ui->table, ui->procs, n, &o) < 0)
		return;
	/* The selection follows its process (or thread; where the thread is gone or its rows
	 * are hidden, its process); when that is gone, it stays where it was. */
	long found = ui->sel_pid ? cpw_tui_table_find_thread(&ui->table, ui->sel_pid, ui->sel_tid) : -1;
	if (found < 0 && ui->sel_pid)
		found = cpw_tui_table_find(&ui->table, ui->sel_pid);
	if (found >= 0)
		ui->sel = found;
	if (ui->sel >= (long)ui->table.nrows)
		ui->sel = (long)ui->table.nrows - 1;
	if (ui->sel < 0)
		ui->sel = 0;
	ui->sel_pid = ui->table.nrows ? ui->table.rows[ui->sel].pid : 0;
	ui->sel_tid = ui->table.nrows ? ui->table.rows[ui->sel].tid : 0;
}

/* ---- Drawing ---- */

/* Writes s at (y, x), cut to the cells left on the line (never the last cell of the
 * screen, which would scroll on some terminals). */
static void put(struct cpw_tui *ui, int y, int x, const char *s, attr_t attr)
{
	int w = COLS - x - (y == LINES - 1 ? 1 : 0);
	if (y < 0 || y >= LINES || w <= 0)
		return;
	cpw_tui_fit(s, w, ui->cell, sizeof(ui->cell));
	attron(attr);
	mvaddstr(y, x, ui->cell);
	attroff(attr);
}

static attr_t pair(const struct cpw_tui *ui, enum pair p, attr_t fallback)
{
	return ui->colors ? COLOR_PAIR(p) : fallback;
}

static void draw_header(struct cpw_tui *ui)
{
	const struct header *h = &ui->hdr;
	char el[16], rss[16], rd[16], wr[16];

	cpw_tui_fmt_elapsed(h->elapsed_s, el, sizeof(el));
	/* The target's name as it is now: a shell script or a pyenv shim becomes python. */
	char title[sizeof(ui->target) + sizeof(h->target_comm)];
	if (ui->snap.target && h->target_comm[0])
		snprintf(title, sizeof(title), "pid %d (%s)", (int)ui->snap.target, h->target_comm);
	else
		snprintf(title, sizeof(title), "%s", ui->target);
	snprintf(ui->line, sizeof(ui->line), "cperfwatch %s  %s  %u proc%s%s", title, el, h->alive,
		 h->alive == 1 ? "" : "s", ui->paused ? "  PAUSED" : "");
	put(ui, 0, 0, ui->line, A_BOLD | pair(ui, PAIR_TITLE, 0));
	if (ui->paused && !ui->colors)
		put(ui, 0, COLS - 7 > 0 ? COLS - 7 : 0, "PAUSED", A_REVERSE);

	if (h->have_verdict) {
		const struct cpw_verdict *v = &h->verdict;
		const char *headline = cpw_tui_verdict_headline(v);
		snprintf(ui->line, sizeof(ui->line), "verdict: %s (%.0f%%)%s%s", cpw_verdict_class_name(v->cls),
			 100.0 * v->confidence, headline[0] ? "  " : "", headline);
		cpw_escape_for_terminal(ui->line, ui->cell, sizeof(ui->cell));
		snprintf(ui->line, sizeof(ui->line), "%s", ui->cell);
		put(ui, 1, 0, ui->line, A_BOLD | pair(ui, PAIR_VERDICT, 0));
	}

	cpw_tui_fmt_kib((double)h->rss_kib, rss, sizeof(rss));
	cpw_tui_fmt_bytes_rate(h->read_rate, rd, sizeof(rd));
	cpw_tui_fmt_bytes_rate(h->write_rate, wr, sizeof(wr));
	int n;
	/* The usable count may be unknown (NAN): ? then. */
	if (isfinite(ui->snap.cores_usable))
		n = snprintf(ui->line, sizeof(ui->line), "cores %.2f/%.4g  rss %s  io r %s/s w %s/s",
			     h->cores_used, ui->snap.cores_usable, rss, rd, wr);
	else
		n = snprintf(ui->line, sizeof(ui->line), "cores %.2f/?  rss %s  io r %s/s w %s/s",
			     h->cores_used, rss, rd, wr);
	if (n > 0 && (size_t)n < sizeof(ui->line)) {
		if (h->psi_ok)
			snprintf(ui->line + n, sizeof(ui->line) - (size_t)n,
				 "  psi cpu %.0f%% io %.0f%% mem %.0f%%", h->psi_cpu, h->psi_io, h->psi_mem);
		else
			snprintf(ui->line + n, sizeof(ui->line) - (size_t)n, "  psi %s",
				 ui->snap.psi_available ? "..." : "N/A");
	}
	/* The GPUs the tree holds (gpu): busy and memory at the latest reading. */
	if (isfinite(ui->snap.gpu_busy)) {
		size_t len = strlen(ui->line);
		char used[16] = "", total[16] = "";
		if (isfinite(ui->snap.gpu_mem_used_b)) {
			cpw_tui_fmt_kib(ui->snap.gpu_mem_used_b / 1024, used, sizeof(used));
			cpw_tui_fmt_kib(ui->snap.gpu_mem_total_b / 1024, total, sizeof(total));
		}
		snprintf(ui->line + len, sizeof(ui->line) - len, "  gpu %.0f%%%s%s%s%s",
			 100 * ui->snap.gpu_busy, used[0] ? " mem " : "", used, used[0] ? "/" : "", total);
	}
	put(ui, 2, 0, ui->line, 0);
}

/* The verdict's advice so far, on one line (cut at the screen's edge); returns the rows
 * used. */
static int draw_advice(struct cpw_tui *ui, int y)
{
	const struct header *h = &ui->hdr;
	if (!h->have_verdict || !h->verdict.advice[0])
		return 0;
	snprintf(ui->line, sizeof(ui->line), "advice: %s", h->verdict.advice);
	cpw_escape_for_terminal(ui->line, ui->cell, sizeof(ui->cell));
	snprintf(ui->line, sizeof(ui->line), "%s", ui->cell);
	put(ui, y, 0, ui->line, 0);
	return 1;
}

/* A sparkline's geometry in w cells: a 4-cell label, a space, the line, a space and the
 * latest figure in a fixed width, so that every row of a column of sparklines (and the
 * phase row under them) has its time columns at the same places. */
#define SPARK_LABEL_CELLS 4
#define SPARK_NOW_CELLS 8 /* the widest figure: "999.9M/s" */

static int spark_cells(int w)
{
	return w - SPARK_LABEL_CELLS - 1 - 1 - SPARK_NOW_CELLS;
}

/* One sparkline with its label and latest figure, in w cells at (y, x). */
static void draw_spark(struct cpw_tui *ui, int y, int x, int w, const char *name, const double *series,
		       double max, const char *now)
{
	const struct cpw_history *hist = cpw_tree_history(ui->snap.tree);
	char lbl[24];
	int sw = spark_cells(w);
	if (sw < 4)
		return;
	snprintf(lbl, sizeof(lbl), "%-*s", SPARK_LABEL_CELLS, name);
	put(ui, y, x, lbl, A_BOLD);
	cpw_tui_sparkline(hist, series, sw, max, ui->utf8, ui->line, sizeof(ui->line));
	put(ui, y, x + SPARK_LABEL_CELLS + 1, ui->line, pair(ui, PAIR_SPARK, 0));
	put(ui, y, x + SPARK_LABEL_CELLS + 1 + sw + 1, now, 0);
}

/* Under a column of sparklines of w cells at (y, x), the phase of each of their columns:
 * "PH   111112222222". */
static void draw_phase_row(struct cpw_tui *ui, int y, int x, int w)
{
	const struct cpw_history *hist = cpw_tree_history(ui->snap.tree);
	const struct cpw_timeline *tl = ui->snap.timeline;
	int sw = spark_cells(w);
	if (sw < 4 || !tl)
		return;
	put(ui, y, x, "PH", A_BOLD);
	cpw_tui_phase_row(&ui->snap.phases, cpw_timeline_point(tl, 0), cpw_timeline_count(tl), hist->count, sw,
			  ui->line, sizeof(ui->line));
	put(ui, y, x + SPARK_LABEL_CELLS + 1, ui->line, pair(ui, PAIR_TITLE, A_BOLD));
}

/* Returns the number of lines used: the sparklines, and under them the phase of each of
 * their columns once there are two phases (the line is kept blank until then, so that the
 * table below does not move when the second phase appears). */
static int draw_sparklines(struct cpw_tui *ui, int y)
{
	const struct cpw_history *hist = cpw_tree_history(ui->snap.tree);
	char cpu[16], rss[16], io[24], flt[24];
	size_t last = hist->count ? hist->count - 1 : 0;
	bool phases = ui->snap.phases.n >= 2 && ui->snap.timeline;

	if (LINES < 20 || COLS < 40)
		return 0;
	cpw_tui_fmt_pct(cpw_tree_history_at(hist, hist->cpu_pct, last), cpu, sizeof(cpu));
	strcat(cpu, "%");
	cpw_tui_fmt_kib(cpw_tree_history_at(hist, hist->rss_kib, last), rss, sizeof(rss));
	cpw_tui_fmt_bytes_rate(cpw_tree_history_at(hist, hist->io_bytes_rate, last), io, sizeof(io));
	strcat(io, "/s");
	cpw_tui_fmt_count_rate(cpw_tree_history_at(hist, hist->fault_rate, last), flt, sizeof(flt));
	strcat(flt, "/s");
	/* CPU is scaled to the usable cores, so a full bar means all of them are busy. */
	double cpu_max = isfinite(ui->snap.cores_usable) ? 100.0 * ui->snap.cores_usable : 0;
	if (COLS >= 100) {
		/* Two columns of the same width, so that their time columns line up. */
		int w = (COLS - 1) / 2;
		draw_spark(ui, y, 0, w, "CPU", hist->cpu_pct, cpu_max, cpu);
		draw_spark(ui, y, w + 1, w, "RSS", hist->rss_kib, 0, rss);
		draw_spark(ui, y + 1, 0, w, "IO", hist->io_bytes_rate, 0, io);
		draw_spark(ui, y + 1, w + 1, w, "FLT", hist->fault_rate, 0, flt);
		if (phases) {
			draw_phase_row(ui, y + 2, 0, w);
			draw_phase_row(ui, y + 2, w + 1, w);
		}
		return 3;
	}
	draw_spark(ui, y, 0, COLS, "CPU", hist->cpu_pct, cpu_max, cpu);
	draw_spark(ui, y + 1, 0, COLS, "RSS", hist->rss_kib, 0, rss);
	draw_spark(ui, y + 2, 0, COLS, "IO", hist->io_bytes_rate, 0, io);
	draw_spark(ui, y + 3, 0, COLS, "FLT", hist->fault_rate, 0, flt);
	if (phases)
		draw_phase_row(ui, y + 4, 0, COLS);
	return 5;
}

/* The phases so far on one line, where the screen has room for it (12 lines and 24
 * columns), kept from the start (blank before the first sample) so that the table never
 * moves; returns the lines used. */
static int draw_phase_list(struct cpw_tui *ui, int y)
{
	if (LINES < 12 || COLS < 24)
		return 0;
	cpw_tui_phase_list(&ui->snap.phases, !ui->ended, COLS - 1, ui->line, sizeof(ui->line));
	put(ui, y, 0, ui->line, 0);
	return 1;
}

/* The cells of the first len bytes of an escaped line. */
static size_t cells_in(const char *line, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len && line[i]; i++)
		n += ((unsigned char)line[i] & 0xC0) != 0x80;
	return n;
}

/* Appends one right-aligned cell of width w and a space (left-aligned for words: -w). A
 * title is cut to w; a figure never is: it is made to fit (cpw_tui_fmt_cell). */
static size_t cell_right(char *line, size_t len, size_t at, const char *text, int w, bool title)
{
	if (at >= len)
		return at;
	int n = title ? snprintf(line + at, len - at, "%*.*s ", w, w < 0 ? -w : w, text)
		      : snprintf(line + at, len - at, "%*s ", w, text);
	return n > 0 ? at + (size_t)n : at;
}

static void draw_table(struct cpw_tui *ui, int y0, int rows)
{
	bool vis[CPW_TUI_NCOLS];
	cpw_tui_layout(COLS, vis); /* COMMAND takes what is left: put() cuts at the edge */
	size_t at = 0;

	/* Title row. */
	for (int c = 0; c < CPW_TUI_NCOLS; c++) {
		if (!vis[c])
			continue;
		char t[16];
		snprintf(t, sizeof(t), "%s%s", cpw_tui_col_title((enum cpw_tui_col)c),
			 (enum cpw_tui_col)c == ui->sort ? (ui->utf8 ? "\xe2\x96\xbe" : "*") : "");
		if (c == CPW_TUI_COL_COMMAND)
			at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "%s%s", t,
					       ui->tree ? " (tree)" : "");
		else {
			int w = cpw_tui_col_width((enum cpw_tui_col)c) + ((enum cpw_tui_col)c == ui->sort && ui->utf8 ? 2 : 0);
			at = cell_right(ui->line, sizeof(ui->line), at, t, c == CPW_TUI_COL_WAIT ? -w : w, true);
		}
	}
	attron(pair(ui, PAIR_HEAD, A_REVERSE));
	mvhline(y0, 0, ' ', COLS);
	attroff(pair(ui, PAIR_HEAD, A_REVERSE));
	put(ui, y0, 0, ui->line, pair(ui, PAIR_HEAD, A_REVERSE) | A_BOLD);

	/* Keep the selection on screen. */
	if (ui->sel < ui->top)
		ui->top = ui->sel;
	if (rows > 0 && ui->sel >= ui->top + rows)
		ui->top = ui->sel - rows + 1;
	if (ui->top > (long)ui->table.nrows - rows)
		ui->top = (long)ui->table.nrows - rows;
	if (ui->top < 0)
		ui->top = 0;

	for (int i = 0; i < rows && ui->top + i < (long)ui->table.nrows; i++) {
		const struct cpw_tui_row *r = &ui->table.rows[ui->top + i];
		const struct cpw_proc *p = cpw_tree_proc(ui->snap.tree, r->proc);
		char v[24];
		at = 0;
		for (int c = 0; c < CPW_TUI_NCOLS && at < sizeof(ui->line); c++) {
			if (!vis[c])
				continue;
			int w = cpw_tui_col_width((enum cpw_tui_col)c);
			if (c != CPW_TUI_COL_COMMAND) {
				cpw_tui_fmt_cell(r, (enum cpw_tui_col)c, v, sizeof(v));
				at = cell_right(ui->line, sizeof(ui->line), at, v, c == CPW_TUI_COL_WAIT ? -w : w, false);
				continue;
			}
			/* Command: tree branch, collapse mark, the escaped command line. A thread
			 * row hangs under its process in the flat list too. */
			int indent = ui->tree ? r->depth : r->tid ? 1 : 0;
			if (indent > 8)
				indent = 8;
			for (int d = 1; d < indent && at + 3 < sizeof(ui->line); d++)
				at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "  ");
			if (indent > 0)
				at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "%s",
						       ui->utf8 ? (r->last_sibling ? "\xe2\x94\x94\xe2\x94\x80"
										   : "\xe2\x94\x9c\xe2\x94\x80")
								: (r->last_sibling ? "`-" : "|-"));
			/* The count comes before the command, which a narrow screen cuts. */
			if (r->collapsed)
				at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "[+](%u procs) ",
						       r->nsummed);
			char esc[CPW_CMDLINE_MAX * 4 + 1];
			if (r->tid) { /* the thread's name, then what it waits on */
				char tgt[sizeof(ui->table.targets[0]) * 4];
				cpw_escape_for_terminal(r->name[0] ? r->name : "?", esc, sizeof(esc));
				cpw_escape_for_terminal(r->target >= 0 ? ui->table.targets[r->target] : "", tgt, sizeof(tgt));
				if (at < sizeof(ui->line))
					at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "%s%s%s", esc,
							       tgt[0] ? "  " : "", tgt);
				continue;
			}
			/* The arguments tell processes of one program apart: shortened to the
			 * cells left (put() cuts what is still too wide). */
			const char *suffix = r->exited ? " (exited)" : "";
			int left = COLS - (int)cells_in(ui->line, at) - (int)strlen(suffix);
			cpw_tui_cmd_short(p ? p->cmdline : NULL, p ? p->comm : "?", left, ui->utf8, esc, sizeof(esc));
			if (at < sizeof(ui->line))
				at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "%s%s", esc, suffix);
		}
		attr_t a = 0;
		if (r->exited)
			a |= A_DIM | pair(ui, PAIR_EXITED, 0);
		if (ui->top + i == ui->sel)
			a = A_REVERSE | (r->exited ? A_DIM : 0);
		if (a & A_REVERSE) {
			attron(A_REVERSE);
			mvhline(y0 + 1 + i, 0, ' ', COLS);
			attroff(A_REVERSE);
		}
		put(ui, y0 + 1 + i, 0, ui->line, a);
	}
}

/* A box of h lines and w cells at (y, x), in reverse video. */
static void fill_box(int y, int x, int h, int w)
{
	attron(A_REVERSE);
	for (int i = 0; i < h; i++)
		mvhline(y + i, x, ' ', w);
	attroff(A_REVERSE);
}

static void box_line(struct cpw_tui *ui, int y, int x, int w, const char *text, attr_t extra)
{
	cpw_tui_fit(text, w, ui->cell, sizeof(ui->cell));
	attron(A_REVERSE | extra);
	mvaddstr(y, x, ui->cell);
	attroff(A_REVERSE | extra);
}

/* h, ?: the help in a box: its lines wrapped to the screen, never cut; in two columns
 * where one is too tall and the screen is wide enough, else scrolled (Up, Down, PgUp,
 * PgDn) with a line that says there is more. */
static void draw_help(struct cpw_tui *ui)
{
	enum { MAX = 96 };
	static char rows[MAX][CPW_TUI_HELP_ROW];
	/* At most 76 cells, so that it reads as a box over the table. */
	int natural = cpw_tui_help_width() < 76 ? cpw_tui_help_width() : 76;
	int w = natural < COLS - 4 ? natural : COLS - 4; /* the text's cells */
	int room = LINES - 4;                             /* lines for it: border, title, hint */
	/* cppcheck-suppress knownConditionTrueFalse ; COLS and LINES are curses variables */
	if (w < 24 || room < 1) {
		fill_box(0, 0, LINES, COLS);
		box_line(ui, 0, 0, COLS, "help: the screen is too small", A_BOLD);
		return;
	}
	int n = cpw_tui_help_lines(w, rows, MAX);
	int cols = 1, colw = w, split = n;
	if (n > room) {
		/* Two columns, split between entries, where they fit. */
		int w2 = (COLS - 4 - 3) / 2 < natural ? (COLS - 4 - 3) / 2 : natural;
		if (w2 >= 36) {
			int n2 = cpw_tui_help_lines(w2, rows, MAX);
			int s2 = (n2 + 1) / 2;
			while (s2 < n2 && rows[s2][0] == ' ')
				s2++;
			if (s2 <= room && n2 - s2 <= room) {
				cols = 2;
				colw = w2;
				n = n2;
				split = s2;
			} else {
				n = cpw_tui_help_lines(w, rows, MAX);
			}
		}
	}
	int shown = cols == 2 ? split : (n < room ? n : room);
	int top = 0;
	if (cols == 1 && n > room) {
		if (ui->help_top > n - room)
			ui->help_top = n - room;
		if (ui->help_top < 0)
			ui->help_top = 0;
		top = ui->help_top;
	} else {
		ui->help_top = 0;
	}
	int bw = cols * colw + (cols - 1) * 3 + 2, bh = shown + 4;
	int y = (LINES - bh) / 2, x = (COLS - bw) / 2;
	erase(); /* on its own, as htop's: no piece of the table beside it */
	fill_box(y, x, bh, bw);
	box_line(ui, y + 1, x + 1, bw - 2, "cperfwatch live view: keys", A_BOLD);
	for (int i = 0; i < shown; i++) {
		box_line(ui, y + 2 + i, x + 1, colw, rows[top + i], 0);
		if (cols == 2 && split + i < n)
			box_line(ui, y + 2 + i, x + 1 + colw + 3, colw, rows[split + i], 0);
	}
	char hint[96];
	if (cols == 1 && n > room)
		snprintf(hint, sizeof(hint), "lines %d-%d of %d: Up Down PgUp PgDn scroll, other keys close",
			 top + 1, top + shown, n);
	else
		snprintf(hint, sizeof(hint), "press any key");
	box_line(ui, y + 2 + shown, x + 1, bw - 2, hint, A_BOLD);
}

/* k, F9: the signals to choose from, then the question. */
static void draw_kill(struct cpw_tui *ui)
{
	size_t ns;
	const struct cpw_tui_signal *sigs = cpw_tui_signals(&ns);
	int w = COLS - 4 < 64 ? COLS - 4 : 64;
	int h = (int)ns + 5;
	/* cppcheck-suppress knownConditionTrueFalse ; COLS is a curses variable, not 0 */
	if (w < 20 || LINES < 6)
		return;
	if (h > LINES)
		h = LINES;
	int y = (LINES - h) / 2, x = (COLS - w) / 2;
	fill_box(y, x, h, w);
	snprintf(ui->line, sizeof(ui->line), "send a signal to pid %d %s", (int)ui->kill_pid, ui->kill_label);
	box_line(ui, y + 1, x + 1, w - 2, ui->line, A_BOLD);
	/* The list between the title and the question; the chosen signal kept in sight. */
	size_t rows = (size_t)(h - 4);
	size_t first = ui->kill_sel >= rows ? ui->kill_sel - rows + 1 : 0;
	for (size_t i = first; i < ns && i - first < rows; i++) {
		snprintf(ui->line, sizeof(ui->line), "%s %2d %s", i == ui->kill_sel ? ">" : " ", sigs[i].sig, sigs[i].name);
		box_line(ui, y + 2 + (int)(i - first), x + 1, w - 2, ui->line, i == ui->kill_sel ? A_BOLD : 0);
	}
	const struct cpw_tui_signal *c = &sigs[ui->kill_sel];
	if (ui->kill_stage == KILL_CONFIRM)
		snprintf(ui->line, sizeof(ui->line), "send %s (%d) to pid %d? y: send, other keys: cancel", c->name,
			 c->sig, (int)ui->kill_pid);
	else
		snprintf(ui->line, sizeof(ui->line), "Up Down or its number: choose  Enter: next  Esc: cancel");
	box_line(ui, y + h - 2, x + 1, w - 2, ui->line, A_BOLD);
}

/* Appends text to the panel's rows, wrapped at width cells: the first line after lead,
 * the others after as many spaces. */
static void panel_text(char rows[][256], int *n, int max, int width, const char *lead, const char *text)
{
	char esc[sizeof(((struct cpw_verdict *)0)->advice) * 4];
	int indent = (int)strlen(lead);
	cpw_escape_for_terminal(text, esc, sizeof(esc));
	const char *p = esc;
	bool first = true;
	do {
		while (!first && *p == ' ')
			p++;
		size_t len = cpw_tui_wrap(p, width - indent > 8 ? width - indent : 8);
		if (*n < max)
			snprintf(rows[(*n)++], 256, "%*s%.*s", indent, first ? lead : "", (int)(len < 240 ? len : 240), p);
		p += len;
		first = false;
	} while (*p);
}

/* v: the verdict so far whole, live: class, every evidence line, the findings and the
 * advice, wrapped in a box; any key closes it. */
static void draw_verdict_panel(struct cpw_tui *ui)
{
	enum { MAX = 64 };
	char rows[MAX][256];
	int n = 0;
	int w = COLS - 4 < 100 ? COLS - 4 : 100;
	const struct cpw_verdict *v = &ui->hdr.verdict;

	/* cppcheck-suppress knownConditionTrueFalse ; COLS is a curses variable, not 0 */
	if (w < 20 || LINES < 6)
		return;
	if (!ui->hdr.have_verdict) {
		snprintf(rows[n++], 256, "verdict: none yet (the first sample is still to come)");
	} else {
		snprintf(rows[n++], 256, "verdict so far: %s (%.0f%%)", cpw_verdict_class_name(v->cls), 100.0 * v->confidence);
		for (int i = 0; i < v->nevidence; i++)
			panel_text(rows, &n, MAX, w - 2, i == 0 ? "evidence: " : "          ", v->evidence[i].text);
		for (int i = 0; i < v->nfindings; i++)
			panel_text(rows, &n, MAX, w - 2, i == 0 ? "findings: " : "          ", v->findings[i]);
		if (v->advice[0])
			panel_text(rows, &n, MAX, w - 2, "advice:   ", v->advice);
	}
	if (n < MAX)
		snprintf(rows[n++], 256, "(any key closes)");
	int h = n + 2 < LINES - 1 ? n + 2 : LINES - 1;
	int y = (LINES - h) / 2, x = (COLS - w) / 2;
	for (int i = 0; i < h; i++) {
		attron(A_REVERSE);
		mvhline(y + i, x, ' ', w);
		attroff(A_REVERSE);
	}
	for (int i = 0; i < n && i + 1 < h - 1; i++) {
		/* Cut short: the last line that fits says so. */
		const char *text = i + 2 == h - 1 && i + 1 < n ? "..." : rows[i];
		cpw_tui_fit(text, w - 2, ui->cell, sizeof(ui->cell));
		attron(A_REVERSE | (i == 0 ? A_BOLD : 0));
		mvaddstr(y + 1 + i, x + 1, ui->cell);
		attroff(A_REVERSE | A_BOLD);
	}
}

/* f: the top functions so far, in a box that follows the run, as wide as the screen (120
 * cells at most, so that a wide screen does not spread it thin); the functions that do not fit the screen's height are
 * left out, the line that closes it stays. */
static void draw_hot_panel(struct cpw_tui *ui)
{
	enum { MAX = 16 };
	char rows[MAX][CPW_TUI_HOT_ROW];
	int w = COLS <= 124 ? COLS : 120;
	int head;

	if (w < 22 || LINES < 5)
		return;
	int room = LINES - 3; /* a blank line above and below, the closing line */
	int n = cpw_tui_hot_lines(&ui->snap.hot, w - 2, ui->utf8, rows, room < MAX ? room : MAX, &head);
	int h = n + 3;
	int y = (LINES - h) / 2, x = (COLS - w) / 2;
	fill_box(y, x, h, w);
	for (int i = 0; i < n; i++)
		box_line(ui, y + 1 + i, x + 1, w - 2, rows[i], i == 0 || i == head ? A_BOLD : 0);
	box_line(ui, y + 1 + n, x + 1, w - 2, "f or Esc closes", A_DIM);
}

/* The status of the selected process (or a message) into ui->line: "" when none. */
static void status_text(struct cpw_tui *ui)
{
	ui->line[0] = '\0';
	if (ui->status_msg[0]) {
		snprintf(ui->line, sizeof(ui->line), "%s", ui->status_msg);
		return;
	}
	if (!ui->table.nrows || ui->sel < 0 || ui->sel >= (long)ui->table.nrows)
		return;
	const struct cpw_tui_row *r = &ui->table.rows[ui->sel];
	const struct cpw_proc *p = cpw_tree_proc(ui->snap.tree, r->proc);
	if (p)
		cpw_tui_proc_status(p, r->tid, ui->snap.elapsed_s, ui->line, sizeof(ui->line));
}

/* The lines the status takes: its text wrapped to the screen, at most 3 (1 below 24
 * lines, 2 below 30), at least 1. */
static int status_lines(struct cpw_tui *ui)
{
	int max = LINES >= 30 ? 3 : LINES >= 24 ? 2 : 1;
	int n = 0;
	status_text(ui);
	for (const char *p = ui->line; *p && n < max; n++) {
		while (n > 0 && *p == ' ')
			p++;
		p += cpw_tui_wrap(p, COLS - 1);
	}
	return n > 0 ? n : 1;
}

static void draw_status(struct cpw_tui *ui, int y, int nlines)
{
	char text[LINE_MAX_BYTES];
	status_text(ui);
	const char *p = ui->line;
	for (int i = 0; i < nlines && *p; i++) {
		while (i > 0 && *p == ' ')
			p++;
		size_t len = cpw_tui_wrap(p, COLS - 1);
		/* The last line takes the rest: put() cuts it at the edge. */
		snprintf(text, sizeof(text), "%.*s", i + 1 < nlines ? (int)len : (int)strlen(p), p);
		put(ui, y + i, 0, text, ui->status_msg[0] ? A_BOLD : 0);
		p += len;
	}
}

static void draw_footer(struct cpw_tui *ui)
{
	int y = LINES - 1;
	if (ui->filter_edit) {
		snprintf(ui->line, sizeof(ui->line), "filter: %s_   Enter keeps it, Esc clears it", ui->filter);
		cpw_escape_for_terminal(ui->line, ui->cell, sizeof(ui->cell));
		snprintf(ui->line, sizeof(ui->line), "%s", ui->cell);
		put(ui, y, 0, ui->line, A_BOLD);
		return;
	}
	if (ui->ended) {
		attron(pair(ui, PAIR_NOTICE, A_REVERSE));
		mvhline(y, 0, ' ', COLS - 1);
		attroff(pair(ui, PAIR_NOTICE, A_REVERSE));
		put(ui, y, 0, ui->notice, pair(ui, PAIR_NOTICE, A_REVERSE) | A_BOLD);
		return;
	}
	int n = 0;
	if (ui->filter[0]) {
		cpw_escape_for_terminal(ui->filter, ui->cell, sizeof(ui->cell));
		n = snprintf(ui->line, sizeof(ui->line), "[filter: %s, Esc clears]  ", ui->cell);
	}
	if (n >= 0 && (size_t)n < sizeof(ui->line))
		snprintf(ui->line + n, sizeof(ui->line) - (size_t)n,
			 "q quit  h help  / filter  k kill  v verdict  f functions  space %s  t %s  H threads  <> sort  +- %ums",
			 ui->paused ? "resume" : "pause", ui->tree ? "flat" : "tree", ui->interval_ms);
	put(ui, y, 0, ui->line, ui->filter[0] ? A_BOLD : A_DIM);
}

void cpw_tui_draw(struct cpw_tui *ui)
{
	if (ui->shared_terminal) {
		/* Whatever the command printed over the view goes at the next full repaint. */
		double t = now_s();
		if (t - ui->last_full_s >= 1.0) {
			clearok(curscr, TRUE);
			ui->last_full_s = t;
		}
	}
	erase();
	if (LINES < 3 || COLS < 10) {
		put(ui, 0, 0, "terminal too small", 0);
		refresh();
		return;
	}
	draw_header(ui);
	int y = 3;
	if (LINES >= 20)
		y += draw_advice(ui, y);
	if (LINES >= 20)
		y += draw_sparklines(ui, y);
	y += draw_phase_list(ui, y);
	/* The status lines go where the table leaves room for them (from 8 lines). */
	int st = LINES >= 8 ? status_lines(ui) : 0;
	int rows = LINES - 1 - st - (y + 1);
	if (rows > 0)
		draw_table(ui, y, rows);
	if (st > 0)
		draw_status(ui, LINES - 1 - st, st);
	draw_footer(ui);
	if (ui->hot_panel)
		draw_hot_panel(ui);
	if (ui->verdict_panel)
		draw_verdict_panel(ui);
	if (ui->kill_stage != KILL_NONE)
		draw_kill(ui);
	if (ui->help)
		draw_help(ui);
	refresh();
}

void cpw_tui_update(struct cpw_tui *ui, const struct cpw_view_snapshot *snap)
{
	clock_gettime(CLOCK_MONOTONIC, &ui->last_update);
	if (ui->paused)
		return;
	ui->snap = *snap;
	read_header(ui);
	cpw_tui_rebuild(ui);
	cpw_tui_draw(ui);
}
