/*
 * tui.h: the live view of the watched tree (view/tui*.c).
 *
 * It draws from a snapshot that the session hands it after each sample (the tree, the
 * verdict so far, the phases so far and the timeline they were found in, usable cores,
 * pressure over the last interval, the top functions so far) and reads nothing from the kernel nor classifies. The loop that samples and hands snapshots over is the modes' (watch.c).
 *
 * Two layers. The pure helpers (tui_table.c, tui_spark.c, tui_phases.c, tui_hot.c,
 * tui_format.c) turn the model into rows, columns, sparklines, phase marks, the lines of
 * the top functions and short figures; they draw nothing and are unit-tested. The
 * view owns the terminal through ncurses: tui_screen.c takes the terminal and always gives
 * it back (quit, signal, exit, fatal signal) before the report is written, tui_draw.c
 * draws only after a sample or a key, and tui_keys.c reads keys with ppoll() on the
 * terminal between samples (their shared state: tui_private.h).
 */
#ifndef CPW_VIEW_TUI_H
#define CPW_VIEW_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "classify/phases.h"
#include "classify/process_verdict.h"
#include "classify/verdict.h"
#include "model/timeline.h"
#include "model/tree.h"
#include "options.h"
#include "source/sample/sampler.h"

/* The top functions so far (f), copied from the session's hotspots (model/hotspots.h) into
 * the snapshot, so that nothing in it points into tables the session goes on filling.
 * Names are raw (the view escapes them), cut at a character's start where too long. */
#define CPW_VIEW_HOT_MAX 10
enum cpw_view_hot_state {
	CPW_VIEW_HOT_OFF,         /* --no-hotspots */
	CPW_VIEW_HOT_UNAVAILABLE, /* the sampler could not open: why says why */
	CPW_VIEW_HOT_NOT_ARMED,   /* not yet: run mode arms it arms_at_s into the run */
	CPW_VIEW_HOT_SAMPLED,
};
struct cpw_view_hot_fn {
	char name[192];
	char file[96];         /* the file's base name, or FILE:LINE for Python */
	char comm[16];         /* the process that ran it most */
	pid_t pid;
	unsigned nprocs;       /* processes that ran it */
	uint64_t self, total;  /* samples */
};
struct cpw_view_hotspots {
	enum cpw_view_hot_state state;
	char why[200];                   /* CPW_VIEW_HOT_UNAVAILABLE's reason */
	double arms_at_s;                /* CPW_VIEW_HOT_NOT_ARMED: when (0: at the next sample) */
	double armed_at_s;               /* CPW_VIEW_HOT_SAMPLED: since when (run seconds) */
	int hz;                          /* samples per second per running thread */
	uint64_t samples;
	uint64_t kind[CPW_CODE_KINDS];   /* samples by kind of code */
	size_t n;                        /* the top functions by self samples, most first */
	struct cpw_view_hot_fn fn[CPW_VIEW_HOT_MAX];
};

/* What the view draws, filled by the session (cpw_session_snapshot()). */
struct cpw_view_snapshot {
	const struct cpw_tree *tree;  /* the model: processes, totals, history */
	pid_t target;                 /* the process the view is about (its name heads it); 0: none */
	struct cpw_verdict verdict;   /* the verdict so far */
	double elapsed_s;             /* since the watch began */
	double cores_usable;          /* affinity and cgroup quota; NAN where unknown */
	bool psi_available;           /* system pressure can be read here */
	bool psi_ok;                  /* and was, over the last interval: */
	double psi_cpu, psi_io, psi_mem; /* % of it that some task stalled */
	/* The phases so far (cpw_phases_find over the timeline when the snapshot was made;
	 * n 0 before the first sample), and the timeline they were found in: its points give
	 * the sparklines' columns their times. */
	struct cpw_phases phases;
	const struct cpw_timeline *timeline; /* NULL: none */
	/* A verdict per process so far (classify/process_verdict.h): the VERDICT column. */
	struct cpw_proc_verdicts procs;
	/* The GPUs the tree holds, at the latest reading: busy share, memory used and total
	 * (bytes); NAN where it holds none. */
	double gpu_busy, gpu_mem_used_b, gpu_mem_total_b;
	/* The top functions so far, or why there are none (f). */
	struct cpw_view_hotspots hot;
};

/* ---- The table (tui_table.c) ---- */

/* Columns in display order. COMMAND is always last and takes the width that is left. */
enum cpw_tui_col {
	CPW_TUI_COL_PID,
	CPW_TUI_COL_STATE,
	CPW_TUI_COL_WAIT,
	CPW_TUI_COL_CPU,
	CPW_TUI_COL_RSS,
	CPW_TUI_COL_MAJFLT,
	CPW_TUI_COL_MINFLT,
	CPW_TUI_COL_READ,
	CPW_TUI_COL_WRITE,
	CPW_TUI_COL_CTXSW,
	CPW_TUI_COL_THREADS,
	CPW_TUI_COL_TIME,    /* TIME+: CPU time over the watch, as htop shows it */
	CPW_TUI_COL_VERDICT, /* CLASS: its own verdict so far, short ("cpu", "io", "wait") */
	CPW_TUI_COL_COMMAND,
	CPW_TUI_NCOLS
};

/* How long an exited process stays visible: dimmed, its state X, its rates and RSS "-",
 * its TIME+ the CPU time it ended with (htop shows the exited briefly, then drops them). */
#define CPW_TUI_LINGER_S 3.0
#define CPW_TUI_COLLAPSED_MAX 64

/* One line of the table. Figures are copied, so a paused view keeps them. */
struct cpw_tui_row {
	size_t proc;        /* index in the tree (cpw_tree_proc), stable across samples */
	pid_t pid;          /* a thread row: its process's */
	pid_t tid;          /* a thread row (H): the thread's id; 0 for a process row */
	char name[16];      /* a thread row: the thread's name (raw) */
	int target;         /* a thread row: what it waits on, where known: an index in the
			     * table's targets (raw); -1 none (a side table: only thread rows
			     * have one) */
	char state;
	char wait[24];      /* what its threads wait on now (model/tree.h wait_now); "" when none */
	int depth;          /* tree mode: indentation level; 0 in flat mode */
	bool has_children;  /* visible descendants exist */
	bool collapsed;     /* its subtree is hidden and summed into this row */
	bool exited;
	bool last_sibling;  /* tree mode: draws the branch as a corner */
	unsigned nsummed;   /* processes in the figures (1 unless collapsed) */
	double cpu_pct, rss_kib, majflt_rate, minflt_rate, read_rate, write_rate, ctxsw_rate;
	double cpu_s;       /* TIME+: user + system seconds over the watch; NAN for a thread row */
	int threads;
	char verdict[8];    /* CLASS: its class so far, short (cpw_tui_class_short); "" where it
			     * does not matter (classify/process_verdict.h) or a thread row */
};

struct cpw_tui_opts {
	bool tree;                 /* tree (indented by parent) or flat */
	enum cpw_tui_col sort;     /* numeric columns sort high first, PID/STATE/WAIT/COMMAND low first */
	const pid_t *collapsed;    /* pids whose subtree is collapsed */
	size_t ncollapsed;
	double now_s;              /* seconds since the watch began, for the linger of exits */
	double linger_s;           /* exited processes stay this long (CPW_TUI_LINGER_S) */
	bool threads;              /* under each process with several threads, a row per thread */
	const char *filter;        /* only processes whose name or command line holds it (any
				    * case; a match whose parent is hidden is a root); NULL or "": all */
	const struct cpw_proc_verdicts *verdicts; /* the CLASS column's; NULL: none */
};

/* Rows and the scratch space to build them; reused between refreshes (grows only). */
struct cpw_tui_table {
	struct cpw_tui_row *rows;
	size_t nrows;
	size_t alloc;
	void *scratch;             /* private to tui_table.c */
	size_t scratch_alloc;
	char (*targets)[64];       /* the thread rows' wait targets (row.target) */
	size_t ntargets, targets_alloc;
};

/* Builds the rows from procs[0..n) (pointers in the tree's order; index i is row.proc).
 * Collapsed rows hold the sums of their visible subtree in every column; a process whose
 * parent is not shown is a root. With o->threads, a living process with several threads
 * is followed by a row per thread (CPU%, state and wait of that thread; sorted by CPU%,
 * state or wait where that is the sort column, else by tid). Returns 0 or -ENOMEM. */
int cpw_tui_table_build(struct cpw_tui_table *tb, const struct cpw_proc *const *procs, size_t n,
			const struct cpw_tui_opts *o);
void cpw_tui_table_free(struct cpw_tui_table *tb);
/* Whether p's name or command line (raw) holds filter, in any case (ASCII); NULL or ""
 * matches every process. */
bool cpw_tui_filter_match(const struct cpw_proc *p, const char *filter);
/* The row of process pid (not one of its threads' rows), or -1. */
long cpw_tui_table_find(const struct cpw_tui_table *tb, pid_t pid);
/* The row of thread tid of process pid (tid 0: the process's row), or -1. */
long cpw_tui_table_find_thread(const struct cpw_tui_table *tb, pid_t pid, pid_t tid);

const char *cpw_tui_col_title(enum cpw_tui_col c);
/* A class in the CLASS column's 5 characters: "cpu", "mem", "io", "thrsh", "wait", "starv",
 * "mixed", "?". */
const char *cpw_tui_class_short(enum cpw_class cls);
int cpw_tui_col_width(enum cpw_tui_col c); /* COMMAND: its minimum */
/* Which columns fit in width: visible[c] set for each shown column, most useful first
 * (PID, CPU%, RSS, COMMAND, then STATE, IO, faults...). Returns the width left for COMMAND
 * (at least its minimum when width allows; PID and COMMAND always stay). */
int cpw_tui_layout(int width, bool visible[CPW_TUI_NCOLS]);

/* ---- Sparklines (tui_spark.c) ---- */

/* Renders the last `width` points of series (a history ring, see cpw_tree_history_at) as a
 * sparkline into out: UTF-8 block characters when utf8, else ASCII " _.-=+*#". Scaled to
 * max (<= 0: the highest point shown). Missing points (fewer than width) are blanks on the
 * left, NAN points are blanks. Returns the number of cells written. */
int cpw_tui_sparkline(const struct cpw_history *h, const double *series, int width, double max,
		      bool utf8, char *out, size_t outlen);

/* ---- Phases on the timeline (tui_phases.c) ---- */

/* The row of phase marks under the sparklines: width cells, one per column of a sparkline
 * of the same width (the last `width` of the history's `count` points, newest at the
 * right, blanks on the left where there are fewer). Each column shows the mark of the phase
 * at its sample's time (1-9, then a, b, c, as in the text report), taken from the
 * timeline's points[0..npoints) (oldest first; the newest history point is the newest
 * sample; a merged point's samples are spread over its interval). Blank where the
 * timeline does not reach back, and all blank with fewer than two phases. Returns the
 * cells written (width, cut to outlen - 1). */
int cpw_tui_phase_row(const struct cpw_phases *ph, const struct cpw_tl_point *points, size_t npoints,
		      size_t count, int width, char *out, size_t outlen);
/* The phases so far on one line of at most width cells: "phases: [1] 0.0-1.3 s io-bound
 * [2] 1.3 s- cpu-bound" (ongoing: the last one has no end yet). Where they do not all fit,
 * the oldest give way to "..."; empty with no phase yet. Returns the cells used. */
int cpw_tui_phase_list(const struct cpw_phases *ph, bool ongoing, int width, char *out, size_t outlen);

/* ---- The top functions so far (tui_hot.c) ---- */

#define CPW_TUI_HOT_ROW 512 /* bytes of one line of the panel */
/* The lines of f's panel, each at most width cells (escaped, cut; width from 20): a title
 * with the samples and their rate ("top functions so far: 1234 cpu-clock samples at 99 Hz,
 * from 0.5 s"), the time by kind of code ("by kind of code: python 90%, interpreter 9%"),
 * then a row of column titles and a row per function: self%, total%, function, file,
 * process (pid), as the report's Hotspots section. A narrow width drops total%, then the
 * process, then the file; a name too long for its column is cut with "..." (an ellipsis
 * with utf8). Where there are no functions to show, the lines say why. *head: the index
 * of the column titles' row, -1 where there is none. Returns the lines written (at most
 * max); the function rows come last, so that a caller may show only the first ones. */
int cpw_tui_hot_lines(const struct cpw_view_hotspots *hs, int width, bool utf8, char rows[][CPW_TUI_HOT_ROW],
		      int max, int *head);

/* ---- Formatting (tui_format.c): every result fits in 6 cells, a count in 4 ---- */

void cpw_tui_fmt_kib(double kib, char *buf, size_t len);        /* "512K" "12.3M" "1.2G"; N/A */
void cpw_tui_fmt_bytes_rate(double bps, char *buf, size_t len); /* "0" "512" "1.2K" "34M"; N/A */
void cpw_tui_fmt_count_rate(double per_s, char *buf, size_t len); /* "0" "12" "1.2k" "34k" */
void cpw_tui_fmt_pct(double pct, char *buf, size_t len);        /* "12.3" "1234" "1.2M"; N/A */
void cpw_tui_fmt_count(double n, char *buf, size_t len);        /* "12" "1.2k" "10k": 4 cells */
/* Row r's cell in column c (not COMMAND), in at most cpw_tui_col_width(c) cells: a figure
 * that would not fit is shown in units (10k), never cut. "-" for a thread row's figures
 * that are its process's. */
void cpw_tui_fmt_cell(const struct cpw_tui_row *r, enum cpw_tui_col c, char *buf, size_t len);
void cpw_tui_fmt_elapsed(double s, char *buf, size_t len);      /* "12.3s" "4m05s" "2h03m" */
/* CPU seconds as htop's TIME+, in at most 8 cells: "0:00.00" "12:34.56" (minutes and
 * hundredths under an hour), "1h02:03" (under 100 hours), "123h"; "N/A" where unknown. */
void cpw_tui_fmt_time(double s, char *buf, size_t len);
/* What the COMMAND column shows of a process in width cells: its command line (raw, from
 * the model), escaped for the terminal, with the program's directory left out ("python3
 * run.py --case 3"); where that is wider than width, each argument that is a path gives
 * way to its last part ("..." or, with utf8, an ellipsis, then "/test_x.py"), so that the
 * arguments that tell processes apart stay in sight; the caller cuts what is still too
 * wide. comm where there is no command line. Returns the cells of the result. */
int cpw_tui_cmd_short(const char *cmdline, const char *comm, int width, bool utf8, char *out, size_t outlen);
/* The status line of the selected process (tid: of its thread row; 0: the process):
 * "pid 123  start 0.4s  end 2.1s  ran 1.7s  avg CPU 89.2%  peak RSS 12M  cmd: ..." (times
 * since the watch began; "start before the watch" for a process there at attach; "running
 * 1.7s" while alive, at now_s) and then its whole command line, escaped. */
void cpw_tui_proc_status(const struct cpw_proc *p, pid_t tid, double now_s, char *out, size_t outlen);
/* The verdict's most telling evidence line for the one-line header: what the tree waits on
 * (its target, else its kind), the files an io-bound tree waits for, threads taking turns
 * on a lock, else the first line; "" without evidence. */
const char *cpw_tui_verdict_headline(const struct cpw_verdict *v);
/* The next refresh interval up (dir > 0) or down, on a 1-2-5 ladder within
 * [CPW_INTERVAL_MIN_MS, CPW_TUI_INTERVAL_MAX_MS]. */
#define CPW_TUI_INTERVAL_MAX_MS 10000u
unsigned cpw_tui_interval_step(unsigned ms, int dir);
/* Copies src (already escaped: printable or valid UTF-8) into dst, cut to at most width
 * terminal cells, never inside a character; characters the locale cannot show become '?'.
 * Returns the cells used. */
int cpw_tui_fit(const char *src, int width, char *dst, size_t dstlen);
/* Word wrap: how many bytes of text (escaped, as for cpw_tui_fit) the first line of at most
 * width cells takes, up to the last space that fits (not included), or width cells where
 * one word is longer. All of it where it fits. */
size_t cpw_tui_wrap(const char *text, int width);

/* ---- The help (tui_help.c) ---- */

#define CPW_TUI_HELP_ROW 160 /* bytes of one help line */
/* The widest line of the help unwrapped, in cells. */
int cpw_tui_help_width(void);
/* The help's lines, each at most width cells (from 24): an entry is its keys in a column
 * of their own and what they do, wrapped under itself; a line that starts an entry starts
 * with a non-blank. Returns the lines written (at most max). */
int cpw_tui_help_lines(int width, char rows[][CPW_TUI_HELP_ROW], int max);

/* ---- Signals the view offers (k, F9) ---- */

struct cpw_tui_signal {
	int sig;
	const char *name; /* "SIGTERM" */
};
/* The signals k offers (the common ones, by number on x86 and arm); *n their count; SIGTERM is the
 * one selected first (its index: cpw_tui_signal_default()). */
const struct cpw_tui_signal *cpw_tui_signals(size_t *n);
size_t cpw_tui_signal_default(void);

/* ---- The view (tui_screen.c, tui_draw.c, tui_keys.c) ---- */

struct cpw_tui;

enum cpw_tui_event {
	CPW_TUI_TICK,   /* the interval passed (or a signal came): take the next sample */
	CPW_TUI_QUIT,   /* the user quit */
	CPW_TUI_KILL,   /* the user chose and confirmed a signal for a process: the caller
			 * takes it (cpw_tui_take_kill), sends it where it may, says how it went
			 * (cpw_tui_notice) and waits again */
};

/* Whether the view should be shown: --tui, or attach mode by default when stdout is a
 * terminal; never with --no-tui or without a terminal to draw on. */
bool cpw_tui_wanted(const struct cpw_config *cfg);

/* Takes over the terminal (stdout, or stderr / /dev/tty where stdout is not one; keys from
 * stdin or /dev/tty). target names what is watched ("pid 123 (make)"). Returns NULL with
 * err set when there is no usable terminal. Installs an atexit handler and a fault's
 * clean-up (cpw_signals_on_fault) that restore the terminal: the alternate screen left,
 * the cursor shown, the saved modes back. */
/* shared_terminal: run mode, where the command may write over the view. */
struct cpw_tui *cpw_tui_open(const struct cpw_config *cfg, const char *target, bool shared_terminal,
			     char *err, size_t errlen);
/* Takes in the latest snapshot and redraws (unless paused). */
void cpw_tui_update(struct cpw_tui *ui, const struct cpw_view_snapshot *snap);
/* Handles keys until the next sample is due (one interval after the last update), a
 * signal arrives, or the user quits. */
enum cpw_tui_event cpw_tui_wait(struct cpw_tui *ui);
/* The signal the user asked for (after CPW_TUI_KILL): the process's pid and the signal.
 * Returns false when none is pending; taking it clears it. The view never sends one: the
 * mode does, and only to a live process of the watched tree. */
bool cpw_tui_take_kill(struct cpw_tui *ui, pid_t *pid, int *sig);
/* Shows msg (escaped here) on the status line until the next key, and redraws. */
void cpw_tui_notice(struct cpw_tui *ui, const char *msg);
/* The refresh interval the user chose (starts at cfg->interval_ms). */
unsigned cpw_tui_interval_ms(const struct cpw_tui *ui);
/* The target is gone: shows notice, keeps the final figures and handles keys until q or
 * a signal (cpw_signals_received). */
void cpw_tui_hold(struct cpw_tui *ui, const char *notice);
/* Restores the terminal and frees the view. NULL is fine. */
void cpw_tui_close(struct cpw_tui *ui);

#endif
