/*
 * tui.c: the live view (tui.h): header, sparklines and the phases so far, the process
 * table, keys, help.
 *
 * One thread: the mode's loop samples, calls cpw_tui_update() to draw, then
 * cpw_tui_wait(), which poll()s the terminal for keys until the next sample is due. Drawing
 * happens only after a sample or a key; the table's buffers are reused between refreshes.
 * The terminal is given back on every way out: cpw_tui_close(), an atexit handler, and a
 * handler for fatal signals that restores the saved modes and leaves the alternate screen
 * with async-signal-safe calls only.
 */
#include "config.h"
#include "view/tui.h"
#include "util/signals.h"

#include <curses.h>
#include <term.h>

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "util/escape.h"
#include "classify/verdict.h"

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
	bool verdict_panel;          /* v: the verdict so far, whole */
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

/* ---- Terminal restore on every way out ---- */

static struct cpw_tui *active;
static volatile sig_atomic_t winch_seen;
static struct termios saved_in, saved_out;
static bool saved_in_ok, saved_out_ok;
static int saved_in_fd = -1, saved_out_fd = -1;
static char restore_seq[256]; /* rmcup, cnorm, sgr0: what endwin would send */
static size_t restore_len;

static void on_winch(int sig)
{
	(void)sig;
	winch_seen = 1;
}

static void restore_now(void)
{
	if (!active)
		return;
	endwin();
	fflush(active->out);
}

static void on_exit_restore(void)
{
	restore_now();
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* Async-signal-safe: only tcsetattr and write, then the default action. */
static void on_fatal(int sig)
{
	if (saved_out_ok)
		tcsetattr(saved_out_fd, TCSAFLUSH, &saved_out);
	if (saved_in_ok && saved_in_fd != saved_out_fd)
		tcsetattr(saved_in_fd, TCSAFLUSH, &saved_in);
	if (restore_len && saved_out_fd >= 0) {
		ssize_t w = write(saved_out_fd, restore_seq, restore_len);
		(void)w;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void append_cap(const char *name)
{
	char *cap = tigetstr(name);
	if (!cap || cap == (char *)-1)
		return;
	size_t n = strlen(cap);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, cap, n);
		restore_len += n;
	}
}

static void install_restore_handlers(void)
{
	static bool atexit_done;
	if (!atexit_done && atexit(on_exit_restore) == 0)
		atexit_done = true;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a resize must wake poll(). */
	sigaction(SIGWINCH, &sa, NULL);
}

static void remove_restore_handlers(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		signal(fatal_signals[i], SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
}

/* ---- Opening ---- */

bool cpw_tui_wanted(const struct cpw_config *cfg)
{
	if (cfg->no_tui)
		return false;
	if (cfg->tui || cfg->tui_forced)
		return true;
	return cfg->mode == CPW_MODE_ATTACH && isatty(STDOUT_FILENO);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool no_color(void)
{
	const char *v = getenv("NO_COLOR");
	return v && v[0];
}

static void setup_colors(struct cpw_tui *ui)
{
	ui->colors = has_colors() && !no_color() && start_color() == OK;
	if (!ui->colors)
		return;
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(PAIR_VERDICT, COLOR_YELLOW, -1);
	init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_SPARK, COLOR_GREEN, -1);
	init_pair(PAIR_NOTICE, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_EXITED, COLOR_RED, -1);
}

static int pick_terminal(struct cpw_tui *ui, char *err, size_t errlen)
{
	if (isatty(STDOUT_FILENO)) {
		ui->out = stdout;
	} else if (isatty(STDERR_FILENO)) {
		ui->out = stderr;
	} else {
		ui->out = fopen("/dev/tty", "w");
		ui->own_out = ui->out != NULL;
	}
	if (isatty(STDIN_FILENO)) {
		ui->in = stdin;
	} else {
		ui->in = fopen("/dev/tty", "r");
		ui->own_in = ui->in != NULL;
	}
	if (!ui->out || !ui->in) {
		snprintf(err, errlen, "no terminal to draw on (%s)", strerror(errno ? errno : ENOTTY));
		return -ENOTTY;
	}
	ui->out_fd = fileno(ui->out);
	ui->in_fd = fileno(ui->in);
	return 0;
}

struct cpw_tui *cpw_tui_open(const struct cpw_config *cfg, const char *target, bool shared_terminal,
			     char *err, size_t errlen)
{
	struct cpw_tui *ui = calloc(1, sizeof(*ui));
	if (!ui) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ui->cfg = cfg;
	ui->shared_terminal = shared_terminal;
	ui->snap.cores_usable = NAN;
	ui->in_fd = ui->out_fd = -1;
	snprintf(ui->target, sizeof(ui->target), "%s", target ? target : "");
	ui->tree = true;
	ui->sort = CPW_TUI_COL_PID;
	ui->interval_ms = cfg->interval_ms;
	if (pick_terminal(ui, err, errlen) < 0) {
		cpw_tui_close(ui);
		return NULL;
	}
	const char *term = getenv("TERM");
	if (!term || !term[0] || strcmp(term, "dumb") == 0) {
		snprintf(err, errlen, "the terminal (TERM=%s) cannot show it", term ? term : "");
		cpw_tui_close(ui);
		return NULL;
	}
	saved_out_ok = tcgetattr(ui->out_fd, &saved_out) == 0;
	saved_in_ok = tcgetattr(ui->in_fd, &saved_in) == 0;
	saved_out_fd = ui->out_fd;
	saved_in_fd = ui->in_fd;

	/* The character set, for ncurses and the names drawn: only the live view needs it
	 * (reports escape names themselves, and their numbers stay in the C locale), and
	 * loading it costs ~0.15 ms, which `cperfwatch -- CMD` does not pay. */
	setlocale(LC_CTYPE, "");
	fflush(ui->out);
	ui->screen = newterm(NULL, ui->out, ui->in);
	if (!ui->screen) {
		snprintf(err, errlen, "cannot set up the terminal TERM=%s", term);
		cpw_tui_close(ui);
		return NULL;
	}
	active = ui;
	restore_len = 0;
	append_cap("rmcup");
	append_cap("cnorm");
	append_cap("sgr0");
	install_restore_handlers();

	const char *cs = nl_langinfo(CODESET);
	ui->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	cbreak(); /* keeps ISIG: ^C still reaches cperfwatch as SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_colors(ui);

	clock_gettime(CLOCK_MONOTONIC, &ui->last_update);
	return ui;
}

void cpw_tui_close(struct cpw_tui *ui)
{
	if (!ui)
		return;
	if (ui->screen) {
		endwin();
		fflush(ui->out);
		delscreen(ui->screen);
		remove_restore_handlers();
	}
	if (active == ui)
		active = NULL;
	saved_in_ok = saved_out_ok = false;
	restore_len = 0;
	if (ui->own_out)
		fclose(ui->out);
	if (ui->own_in)
		fclose(ui->in);
	cpw_tui_table_free(&ui->table);
	free(ui->procs);
	free(ui);
}

unsigned cpw_tui_interval_ms(const struct cpw_tui *ui) { return ui->interval_ms; }

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

static void rebuild(struct cpw_tui *ui)
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
		snprintf(ui->line, sizeof(ui->line), "verdict: %s (%.0f%%)%s%s", cpw_class_name(v->cls),
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
	cpw_tui_fmt_pct(cpw_history_at(hist, hist->cpu_pct, last), cpu, sizeof(cpu));
	strcat(cpu, "%");
	cpw_tui_fmt_kib(cpw_history_at(hist, hist->rss_kib, last), rss, sizeof(rss));
	cpw_tui_fmt_bytes_rate(cpw_history_at(hist, hist->io_bytes_rate, last), io, sizeof(io));
	strcat(io, "/s");
	cpw_tui_fmt_count_rate(cpw_history_at(hist, hist->fault_rate, last), flt, sizeof(flt));
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

/* Appends one right-aligned cell of width w and a space (left-aligned for words: -w). */
static size_t cell_right(char *line, size_t len, size_t at, const char *text, int w)
{
	if (at >= len)
		return at;
	int n = snprintf(line + at, len - at, "%*.*s ", w, w < 0 ? -w : w, text);
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
			at = cell_right(ui->line, sizeof(ui->line), at, t, c == CPW_TUI_COL_WAIT ? -w : w);
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
			switch ((enum cpw_tui_col)c) {
			case CPW_TUI_COL_PID: snprintf(v, sizeof(v), "%d", (int)(r->tid ? r->tid : r->pid)); break;
			case CPW_TUI_COL_STATE:
				/* X (dead) for the exited: their last state letter is stale. */
				snprintf(v, sizeof(v), "%c", r->exited ? 'X' : r->state ? r->state : '?');
				break;
			/* "-" while it runs: a blank cell would shift the columns of a screen scrape. */
			case CPW_TUI_COL_WAIT: snprintf(v, sizeof(v), "%s", r->wait[0] ? r->wait : "-"); break;
			case CPW_TUI_COL_CPU: cpw_tui_fmt_pct(r->cpu_pct, v, sizeof(v)); break;
			case CPW_TUI_COL_RSS: cpw_tui_fmt_kib(r->rss_kib, v, sizeof(v)); break;
			case CPW_TUI_COL_MAJFLT: cpw_tui_fmt_count_rate(r->majflt_rate, v, sizeof(v)); break;
			case CPW_TUI_COL_MINFLT: cpw_tui_fmt_count_rate(r->minflt_rate, v, sizeof(v)); break;
			case CPW_TUI_COL_READ: cpw_tui_fmt_bytes_rate(r->read_rate, v, sizeof(v)); break;
			case CPW_TUI_COL_WRITE: cpw_tui_fmt_bytes_rate(r->write_rate, v, sizeof(v)); break;
			case CPW_TUI_COL_CTXSW: cpw_tui_fmt_count_rate(r->ctxsw_rate, v, sizeof(v)); break;
			case CPW_TUI_COL_THREADS: snprintf(v, sizeof(v), "%d", r->threads); break;
			default: v[0] = '\0'; break;
			}
			/* A thread row has figures of its own only in these; "-" elsewhere keeps
			 * the columns of a screen scrape. */
			if (r->tid && c != CPW_TUI_COL_PID && c != CPW_TUI_COL_STATE && c != CPW_TUI_COL_WAIT &&
			    c != CPW_TUI_COL_CPU && c != CPW_TUI_COL_COMMAND)
				snprintf(v, sizeof(v), "-");
			if (c != CPW_TUI_COL_COMMAND) {
				at = cell_right(ui->line, sizeof(ui->line), at, v, c == CPW_TUI_COL_WAIT ? -w : w);
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
			const char *lbl = p ? (p->cmdline[0] ? p->cmdline : p->comm) : "?";
			/* The program's base name, then its arguments: a long directory would push
			 * the name itself off a narrow screen. */
			if (p && p->cmdline[0]) {
				const char *end = strchr(lbl, ' ');
				for (const char *ch = lbl; *ch && (!end || ch < end); ch++)
					if (*ch == '/' && ch[1] && ch[1] != ' ')
						lbl = ch + 1;
			}
			cpw_escape_for_terminal(lbl, esc, sizeof(esc));
			if (at < sizeof(ui->line))
				at += (size_t)snprintf(ui->line + at, sizeof(ui->line) - at, "%s%s", esc,
						       r->exited ? " (exited)" : "");
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

static const char *const help_lines[] = {
	"cperfwatch live view: keys",
	"",
	"q          quit and print the report",
	"space      pause the display (sampling goes on)",
	"t          tree / flat list",
	"H          a row per thread under each process (htop's H)",
	"v          the verdict so far: evidence, findings, advice",
	"c, Enter   collapse / expand the selected subtree",
	"Up/Down PgUp/PgDn Home/End   move the selection",
	"< >  F6    sort column (left / right)",
	"+ -        sampling interval up / down",
	"h ?        this help",
	"",
	"A collapsed row sums its subtree in every column.",
	"Exited processes stay dimmed for a few seconds.",
	"",
	"press any key",
};

static void draw_help(struct cpw_tui *ui)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int w = 56 < COLS - 2 ? 56 : COLS - 2;
	int h = n + 2 < LINES ? n + 2 : LINES;
	int y = (LINES - h) / 2, x = (COLS - w) / 2;
	/* cppcheck-suppress knownConditionTrueFalse ; COLS is a curses variable, not 0 */
	if (w < 10 || h < 3)
		return;
	for (int i = 0; i < h; i++) {
		attron(A_REVERSE);
		mvhline(y + i, x, ' ', w);
		attroff(A_REVERSE);
	}
	for (int i = 0; i < n && i + 1 < h - 1; i++) {
		snprintf(ui->line, sizeof(ui->line), "%s", help_lines[i]);
		cpw_tui_fit(ui->line, w - 2, ui->cell, sizeof(ui->cell));
		attron(A_REVERSE | (i == 0 ? A_BOLD : 0));
		mvaddstr(y + 1 + i, x + 1, ui->cell);
		attroff(A_REVERSE | A_BOLD);
	}
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
		snprintf(rows[n++], 256, "verdict so far: %s (%.0f%%)", cpw_class_name(v->cls), 100.0 * v->confidence);
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

static void draw_footer(struct cpw_tui *ui)
{
	int y = LINES - 1;
	if (ui->ended) {
		attron(pair(ui, PAIR_NOTICE, A_REVERSE));
		mvhline(y, 0, ' ', COLS - 1);
		attroff(pair(ui, PAIR_NOTICE, A_REVERSE));
		put(ui, y, 0, ui->notice, pair(ui, PAIR_NOTICE, A_REVERSE) | A_BOLD);
		return;
	}
	snprintf(ui->line, sizeof(ui->line), "q quit  h help  v verdict  space %s  t %s  H threads  <> sort  +- %ums",
		 ui->paused ? "resume" : "pause", ui->tree ? "flat" : "tree", ui->interval_ms);
	put(ui, y, 0, ui->line, A_DIM);
}

static void draw(struct cpw_tui *ui)
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
	int rows = LINES - 1 - (y + 1);
	if (rows > 0)
		draw_table(ui, y, rows);
	draw_footer(ui);
	if (ui->verdict_panel)
		draw_verdict_panel(ui);
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
	rebuild(ui);
	draw(ui);
}

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

static void resize(struct cpw_tui *ui)
{
	struct winsize ws;
	winch_seen = 0;
	if (ioctl(ui->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
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
		rebuild(ui);
	if (redraw)
		draw(ui);
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
		if (winch_seen) {
			resize(ui);
			draw(ui);
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
			if (winch_seen)
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
	draw(ui);
	while (!cpw_signal_received && wait_keys(ui, true) != CPW_TUI_QUIT)
		;
}
