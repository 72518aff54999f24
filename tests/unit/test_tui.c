/*
 * test_tui.c: the pure parts of the live view: table rows from a hand-built tree (tree
 * order, flat order, collapse sums, sort orders, exited processes lingering, orphans and
 * stale parent cycles), column choice for a width, sparklines, the phase marks under them
 * and the list of phases, short figures, the interval ladder and cutting strings to
 * terminal cells; an exited row (X, its final TIME+), TIME+ as htop shows it, the filter,
 * the command's arguments shortened, the selected process's status line, and the help
 * wrapped to any width.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "view/tui.h"
#include "model/tree.h"
#include "source/proc/proc_reader.h"
#include "cunit_tap.h"
#include "fixture_root.h"

/* A tree:   1 (init-like root, 0% cpu)
 *           ├─ 10 (40% cpu) ── 11 (25%), 12 (5%, exited 1 s before now)
 *           └─ 20 (60% cpu)
 *           30 (ppid 999, not in the tree: a root of its own)           */
static struct cpw_proc procs[6];
static const struct cpw_proc *ptrs[6];

static void set(int i, pid_t pid, pid_t ppid, const char *cmd, double cpu, uint64_t rss, int thr)
{
	struct cpw_proc *p = &procs[i];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	snprintf(p->comm, sizeof(p->comm), "%s", cmd);
	snprintf(p->cmdline, sizeof(p->cmdline), "%s", cmd);
	p->alive = true;
	p->exited_s = NAN;
	p->state = 'R';
	p->cpu_pct = cpu;
	p->rss_kib = rss;
	p->nthreads = thr;
	p->minflt_rate = cpu * 10;
	p->majflt_rate = 1;
	p->read_rate = 1000 * cpu;
	p->write_rate = NAN; /* unreadable everywhere but in 11 */
	p->ctxsw_rate = 2;
	ptrs[i] = p;
}

static size_t fixture(void)
{
	set(0, 1, 0, "root", 0, 1000, 1);
	set(1, 10, 1, "ten", 40, 2000, 2);
	set(2, 11, 10, "eleven", 25, 3000, 3);
	set(3, 12, 10, "twelve", 5, 0, 0);
	set(4, 20, 1, "twenty", 60, 500, 1);
	set(5, 30, 999, "orphan", 1, 100, 1);
	procs[2].write_rate = 4096;
	procs[3].alive = false;
	procs[3].exited_s = 9.0;
	/* CPU seconds over the watch: 10 one, 11 two, 12 three (user + system). */
	procs[1].user_s = 0.75;
	procs[1].sys_s = 0.25;
	procs[2].user_s = 2;
	procs[3].user_s = 1.5;
	procs[3].sys_s = 1.5;
	return 6;
}

static struct cpw_tui_opts opts(bool tree, enum cpw_tui_col sort)
{
	struct cpw_tui_opts o = { .tree = tree, .sort = sort, .now_s = 10.0, .linger_s = CPW_TUI_LINGER_S };
	return o;
}

/* The WAIT column: what the main thread waits on now, from the model, sorted as words;
 * an exited process waits on nothing. */
static void test_wait_column(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	snprintf(procs[1].wait_now, sizeof(procs[1].wait_now), "network");
	snprintf(procs[4].wait_now, sizeof(procs[4].wait_now), "lock");
	snprintf(procs[3].wait_now, sizeof(procs[3].wait_now), "pipe"); /* exited */
	struct cpw_tui_opts o = opts(false, CPW_TUI_COL_WAIT);
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	long ten = cpw_tui_table_find(&tb, 10), twelve = cpw_tui_table_find(&tb, 12);
	CU_ASSERT_FATAL(ten >= 0 && twelve >= 0);
	CU_ASSERT_STRING_EQUAL(tb.rows[ten].wait, "network");
	CU_ASSERT_STRING_EQUAL(tb.rows[twelve].wait, "");
	/* Low first, as words: "" (running) before "lock" before "network". */
	CU_ASSERT_TRUE(cpw_tui_table_find(&tb, 20) < ten);
	CU_ASSERT_TRUE(cpw_tui_table_find(&tb, 1) < cpw_tui_table_find(&tb, 20));
	CU_ASSERT_STRING_EQUAL(cpw_tui_col_title(CPW_TUI_COL_WAIT), "WAIT");
	memset(procs[1].wait_now, 0, sizeof(procs[1].wait_now));
	memset(procs[3].wait_now, 0, sizeof(procs[3].wait_now));
	memset(procs[4].wait_now, 0, sizeof(procs[4].wait_now));
	cpw_tui_table_free(&tb);
}

static void pids_of(const struct cpw_tui_table *tb, pid_t *out)
{
	for (size_t i = 0; i < tb->nrows; i++)
		out[i] = tb->rows[i].pid;
}

static void test_tree_order(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	struct cpw_tui_opts o = opts(true, CPW_TUI_COL_PID);
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	CU_ASSERT_EQUAL_FATAL(tb.nrows, 6);
	pid_t got[6];
	pids_of(&tb, got);
	pid_t want[6] = { 1, 10, 11, 12, 20, 30 };
	CU_ASSERT_EQUAL(memcmp(got, want, sizeof(want)), 0);
	int depth[6] = { 0, 1, 2, 2, 1, 0 };
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(tb.rows[i].depth, depth[i]);
	CU_ASSERT_TRUE(tb.rows[0].has_children);
	CU_ASSERT_FALSE(tb.rows[2].last_sibling);
	CU_ASSERT_TRUE(tb.rows[3].last_sibling);
	CU_ASSERT_TRUE(tb.rows[3].exited);
	CU_ASSERT_EQUAL(tb.rows[2].proc, 2);
	CU_ASSERT_EQUAL(cpw_tui_table_find(&tb, 20), 4);
	CU_ASSERT_EQUAL(cpw_tui_table_find(&tb, 77), -1);

	/* Sorting by CPU orders siblings high first, keeping the tree. */
	o.sort = CPW_TUI_COL_CPU;
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	pids_of(&tb, got);
	pid_t want_cpu[6] = { 30, 1, 20, 10, 11, 12 };
	CU_ASSERT_EQUAL(memcmp(got, want_cpu, sizeof(want_cpu)), 0);
	cpw_tui_table_free(&tb);
}

static void test_flat_sorts(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	pid_t got[6];
	struct cpw_tui_opts o = opts(false, CPW_TUI_COL_CPU);

	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	pids_of(&tb, got);
	pid_t by_cpu[6] = { 20, 10, 11, 30, 1, 12 }; /* the exited has no CPU% now: last */
	CU_ASSERT_EQUAL(memcmp(got, by_cpu, sizeof(by_cpu)), 0);
	for (size_t i = 0; i < tb.nrows; i++)
		CU_ASSERT_EQUAL(tb.rows[i].depth, 0);

	o.sort = CPW_TUI_COL_RSS;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	pids_of(&tb, got);
	pid_t by_rss[6] = { 11, 10, 1, 20, 30, 12 };
	CU_ASSERT_EQUAL(memcmp(got, by_rss, sizeof(by_rss)), 0);

	o.sort = CPW_TUI_COL_COMMAND;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	pids_of(&tb, got);
	pid_t by_cmd[6] = { 11, 30, 1, 10, 12, 20 }; /* eleven orphan root ten twelve twenty */
	CU_ASSERT_EQUAL(memcmp(got, by_cmd, sizeof(by_cmd)), 0);

	/* Unreadable (NAN) sorts last, whatever the direction. */
	o.sort = CPW_TUI_COL_WRITE;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.rows[0].pid, 11);
	CU_ASSERT_TRUE(isnan(tb.rows[5].write_rate));
	cpw_tui_table_free(&tb);
}

static void test_collapse_sums(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	pid_t collapsed[] = { 10 };
	struct cpw_tui_opts o = opts(true, CPW_TUI_COL_PID);
	o.collapsed = collapsed;
	o.ncollapsed = 1;

	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	CU_ASSERT_EQUAL_FATAL(tb.nrows, 4); /* 1, 10 (+11, 12), 20, 30 */
	const struct cpw_tui_row *r = &tb.rows[1];
	CU_ASSERT_EQUAL(r->pid, 10);
	CU_ASSERT_TRUE(r->collapsed);
	CU_ASSERT_EQUAL(r->nsummed, 3);
	/* The exited 12 adds no rates (its last ones are stale), only its CPU time. */
	CU_ASSERT_DOUBLE_EQUAL(r->cpu_pct, 65.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->rss_kib, 5000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->minflt_rate, 650.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->majflt_rate, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->read_rate, 65000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->write_rate, 4096.0, 1e-9); /* the readable part */
	CU_ASSERT_DOUBLE_EQUAL(r->ctxsw_rate, 4.0, 1e-9);
	CU_ASSERT_EQUAL(r->threads, 5); /* the exited one has none */
	CU_ASSERT_DOUBLE_EQUAL(r->cpu_s, 6.0, 1e-9); /* 10, 11 and the exited 12: 1 + 2 + 3 s */

	/* A collapsed subtree sorts among its siblings by its sums: 65 > 60. */
	o.sort = CPW_TUI_COL_CPU;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.rows[1].pid, 1);
	CU_ASSERT_EQUAL(tb.rows[2].pid, 10);
	CU_ASSERT_EQUAL(tb.rows[3].pid, 20);

	/* Collapsing the root sums the whole tree; flat mode hides the same rows. */
	pid_t root[] = { 1 };
	o.collapsed = root;
	o.tree = false;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL_FATAL(tb.nrows, 2);
	long i = cpw_tui_table_find(&tb, 1);
	CU_ASSERT_FATAL(i >= 0);
	CU_ASSERT_DOUBLE_EQUAL(tb.rows[i].cpu_pct, 125.0, 1e-9);
	CU_ASSERT_EQUAL(tb.rows[i].nsummed, 5);

	/* Collapsing a leaf changes nothing. */
	pid_t leaf[] = { 20 };
	o.collapsed = leaf;
	o.tree = true;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 6);
	CU_ASSERT_FALSE(tb.rows[cpw_tui_table_find(&tb, 20)].collapsed);
	cpw_tui_table_free(&tb);
}

static void test_linger_and_cycles(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	struct cpw_tui_opts o = opts(true, CPW_TUI_COL_PID);

	/* 12 exited at 9 s: shown at 10 s, gone at 12.5 s. */
	o.now_s = 12.5;
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 5);
	CU_ASSERT_EQUAL(cpw_tui_table_find(&tb, 12), -1);

	/* Stale parents that form a cycle (reused pids) still give every row once. */
	procs[0].ppid = 20;
	o.now_s = 10;
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	CU_ASSERT_EQUAL(tb.nrows, 6);
	pid_t seen[] = { 1, 10, 11, 12, 20, 30 };
	for (size_t k = 0; k < 6; k++)
		CU_ASSERT(cpw_tui_table_find(&tb, seen[k]) >= 0);

	/* Empty input. */
	CU_ASSERT_EQUAL(cpw_tui_table_build(&tb, ptrs, 0, &o), 0);
	CU_ASSERT_EQUAL(tb.nrows, 0);
	cpw_tui_table_free(&tb);
}

static int visible_width(const bool vis[CPW_TUI_NCOLS], int cmd)
{
	int w = cmd;
	for (int c = 0; c < CPW_TUI_NCOLS; c++)
		if (vis[c] && c != CPW_TUI_COL_COMMAND)
			w += cpw_tui_col_width((enum cpw_tui_col)c) + 1;
	return w;
}

static void test_layout(void)
{
	bool vis[CPW_TUI_NCOLS];
	int cmd = cpw_tui_layout(120, vis);
	for (int c = 0; c < CPW_TUI_NCOLS; c++)
		CU_ASSERT_TRUE(vis[c]);
	CU_ASSERT_EQUAL(visible_width(vis, cmd), 120);

	cmd = cpw_tui_layout(80, vis);
	CU_ASSERT_TRUE(cmd >= cpw_tui_col_width(CPW_TUI_COL_COMMAND));
	CU_ASSERT_EQUAL(visible_width(vis, cmd), 80);

	cmd = cpw_tui_layout(40, vis);
	CU_ASSERT_TRUE(vis[CPW_TUI_COL_PID] && vis[CPW_TUI_COL_CPU] && vis[CPW_TUI_COL_RSS]);
	CU_ASSERT_TRUE(vis[CPW_TUI_COL_COMMAND]);
	CU_ASSERT_FALSE(vis[CPW_TUI_COL_CTXSW]);
	CU_ASSERT_FALSE(vis[CPW_TUI_COL_MINFLT]);
	CU_ASSERT_TRUE(cmd >= cpw_tui_col_width(CPW_TUI_COL_COMMAND));
	CU_ASSERT_EQUAL(visible_width(vis, cmd), 40);

	/* Narrower: columns drop in priority order, PID and COMMAND stay. */
	int prev = CPW_TUI_NCOLS + 1;
	for (int w = 120; w >= 10; w--) {
		cmd = cpw_tui_layout(w, vis);
		int count = 0;
		for (int c = 0; c < CPW_TUI_NCOLS; c++)
			count += vis[c];
		CU_ASSERT_TRUE(count <= prev);
		prev = count;
		CU_ASSERT_TRUE(vis[CPW_TUI_COL_PID] && vis[CPW_TUI_COL_COMMAND]);
		if (w >= 18)
			CU_ASSERT_TRUE(visible_width(vis, cmd) <= w);
	}
	CU_ASSERT_STRING_EQUAL(cpw_tui_col_title(CPW_TUI_COL_CPU), "CPU%");
}

static void test_sparkline(void)
{
	struct cpw_history h;
	char out[256];
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 8; i++) {
		h.cpu_pct[h.next] = i * 100.0 / 7.0;
		h.next++;
		h.count++;
	}
	/* ASCII: one cell per point, lowest to highest. */
	CU_ASSERT_EQUAL(cpw_tui_sparkline(&h, h.cpu_pct, 8, 100, false, out, sizeof(out)), 8);
	CU_ASSERT_STRING_EQUAL(out, "_.,-=+*#");
	/* Wider than the history: padded on the left. */
	CU_ASSERT_EQUAL(cpw_tui_sparkline(&h, h.cpu_pct, 10, 100, false, out, sizeof(out)), 10);
	CU_ASSERT_STRING_EQUAL(out, "  _.,-=+*#");
	/* Narrower: the newest points. */
	cpw_tui_sparkline(&h, h.cpu_pct, 3, 100, false, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "+*#");
	/* UTF-8 blocks, 3 bytes per cell; auto scale (max 0) puts the top point at full. */
	CU_ASSERT_EQUAL(cpw_tui_sparkline(&h, h.cpu_pct, 2, 0, true, out, sizeof(out)), 2);
	CU_ASSERT_STRING_EQUAL(out, "\xe2\x96\x87\xe2\x96\x88");
	/* Values above max clip; NAN is blank. */
	h.cpu_pct[7] = 500;
	h.cpu_pct[6] = NAN;
	cpw_tui_sparkline(&h, h.cpu_pct, 2, 100, false, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, " #");
	/* Ring wrap: cpw_tree_history_at order. */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < CPW_HISTORY_LEN + 2; i++) {
		h.cpu_pct[h.next] = i < CPW_HISTORY_LEN ? 0 : 100;
		h.next = (h.next + 1) % CPW_HISTORY_LEN;
		if (h.count < CPW_HISTORY_LEN)
			h.count++;
	}
	cpw_tui_sparkline(&h, h.cpu_pct, 4, 100, false, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "__##");
	/* A small buffer is never overrun. */
	CU_ASSERT_TRUE(cpw_tui_sparkline(&h, h.cpu_pct, 40, 100, true, out, 8) <= 2);
	CU_ASSERT_TRUE(strlen(out) < 8);
}

/* Two phases: io-bound up to split_s, cpu-bound from there to end_s (and a third, waiting,
 * from third_s when third_s > 0). */
static void two_phases(struct cpw_phases *ph, double split_s, double end_s, double third_s)
{
	memset(ph, 0, sizeof(*ph));
	ph->n = 2;
	ph->phase[0] = (struct cpw_phase){ .start_s = 0, .end_s = split_s, .cls = CPW_CLASS_IO_BOUND };
	ph->phase[1] = (struct cpw_phase){ .start_s = split_s, .end_s = end_s, .cls = CPW_CLASS_CPU_BOUND };
	if (third_s > 0) {
		ph->phase[1].end_s = third_s;
		ph->phase[2] = (struct cpw_phase){ .start_s = third_s, .end_s = end_s, .cls = CPW_CLASS_WAITING };
		ph->n = 3;
	}
}

/* Appends k points of `samples` samples, each covering dt_s, to points[*n]. */
static void add_points(struct cpw_tl_point *points, size_t *n, int k, double dt_s, uint64_t samples)
{
	for (int i = 0; i < k; i++) {
		double start = *n ? points[*n - 1].start_s + points[*n - 1].dt_s : 0;
		cpw_timeline_point_init(&points[*n], start);
		points[*n].dt_s = dt_s;
		points[*n].samples = samples;
		(*n)++;
	}
}

static void test_phase_row(void)
{
	struct cpw_tl_point pts[64] = { 0 };
	struct cpw_phases ph;
	char out[128];
	size_t n = 0;

	/* 20 samples of 0.1 s, the phases cut at 1.0 s: a column per sample, newest at the
	 * right, blanks on the left where the history is shorter than the width. */
	add_points(pts, &n, 20, 0.1, 1);
	two_phases(&ph, 1.0, 2.0, 0);
	CU_ASSERT_EQUAL(cpw_tui_phase_row(&ph, pts, n, 20, 24, out, sizeof(out)), 24);
	CU_ASSERT_STRING_EQUAL(out, "    11111111112222222222");
	/* Narrower than the history: the newest columns, as the sparkline shows them. */
	cpw_tui_phase_row(&ph, pts, n, 20, 15, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "111112222222222");
	/* A history longer than the timeline (samples before it): blank where it has no time. */
	cpw_tui_phase_row(&ph, pts, n, 22, 22, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "  11111111112222222222");
	/* One phase, or none: nothing to mark. */
	ph.n = 1;
	CU_ASSERT_EQUAL(cpw_tui_phase_row(&ph, pts, n, 20, 10, out, sizeof(out)), 10);
	CU_ASSERT_STRING_EQUAL(out, "          ");
	ph.n = 0;
	cpw_tui_phase_row(&ph, pts, n, 20, 4, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "    ");

	/* The interval changed in the view: 10 samples of 0.1 s, then 4 of 0.5 s; the cut at
	 * 1.0 s falls between them (an even spread over the range would put it at 2.5 s). */
	n = 0;
	add_points(pts, &n, 10, 0.1, 1);
	add_points(pts, &n, 4, 0.5, 1);
	two_phases(&ph, 1.0, 3.0, 0);
	cpw_tui_phase_row(&ph, pts, n, 14, 14, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "11111111112222");

	/* A compacted timeline: points of 2 samples each, spread over their interval. The cut
	 * at 0.5 s falls in the middle of the third point (0.4-0.6 s). */
	n = 0;
	add_points(pts, &n, 4, 0.2, 2);
	two_phases(&ph, 0.5, 0.8, 0);
	cpw_tui_phase_row(&ph, pts, n, 8, 8, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "11111222");

	/* Three phases, the third mark after the second; a small buffer cuts the row. */
	n = 0;
	add_points(pts, &n, 6, 1.0, 1);
	two_phases(&ph, 2.0, 6.0, 4.0);
	cpw_tui_phase_row(&ph, pts, n, 6, 6, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "112233");
	CU_ASSERT_EQUAL(cpw_tui_phase_row(&ph, pts, n, 6, 6, out, 4), 3);
	CU_ASSERT_STRING_EQUAL(out, "233");
	/* No timeline: blanks. */
	cpw_tui_phase_row(&ph, NULL, 0, 6, 6, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "      ");
}

static void test_phase_list(void)
{
	struct cpw_phases ph;
	char out[256];

	two_phases(&ph, 1.3, 3.5, 0);
	/* While the watch goes on, the last phase has no end yet. */
	int cells = cpw_tui_phase_list(&ph, true, 80, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "phases: [1] 0.0-1.3 s io-bound  [2] 1.3 s- cpu-bound");
	CU_ASSERT_EQUAL(cells, (int)strlen(out));
	cpw_tui_phase_list(&ph, false, 80, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "phases: [1] 0.0-1.3 s io-bound  [2] 1.3-3.5 s cpu-bound");
	/* Too narrow for all: the oldest give way; never wider than the width. */
	two_phases(&ph, 1.3, 9.0, 4.0);
	cpw_tui_phase_list(&ph, true, 60, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "phases: ... [2] 1.3-4.0 s cpu-bound  [3] 4.0 s- waiting");
	cpw_tui_phase_list(&ph, true, 39, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "phases: ... [3] 4.0 s- waiting");
	CU_ASSERT_EQUAL(cpw_tui_phase_list(&ph, true, 20, out, sizeof(out)), 20);
	CU_ASSERT_STRING_EQUAL(out, "phases: ... [3] 4.0 ");
	/* One phase: itself (the line is there from the start, so the table never moves);
	 * none: nothing. */
	ph.n = 1;
	cpw_tui_phase_list(&ph, true, 80, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "phases: [1] 0.0 s- io-bound");
	ph.n = 0;
	CU_ASSERT_EQUAL(cpw_tui_phase_list(&ph, true, 80, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	/* A small buffer is never overrun. */
	two_phases(&ph, 1.3, 3.5, 0);
	CU_ASSERT_TRUE(cpw_tui_phase_list(&ph, true, 80, out, 10) <= 9);
	CU_ASSERT_EQUAL(strlen(out), 9);
}

static void test_formats(void)
{
	char b[16];
	cpw_tui_fmt_kib(0, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "0");
	cpw_tui_fmt_kib(512, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "512K");
	cpw_tui_fmt_kib(1536, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "1.5M");
	cpw_tui_fmt_kib(200 * 1024, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "200M");
	cpw_tui_fmt_kib(3.0 * 1024 * 1024, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "3.0G");
	cpw_tui_fmt_kib(NAN, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "N/A");

	cpw_tui_fmt_bytes_rate(0, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "0");
	cpw_tui_fmt_bytes_rate(999, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "999");
	cpw_tui_fmt_bytes_rate(4096, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "4.0K");
	cpw_tui_fmt_bytes_rate(120.0 * 1024 * 1024, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "120M");
	cpw_tui_fmt_bytes_rate(NAN, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "N/A");

	cpw_tui_fmt_count_rate(0.2, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "0");
	cpw_tui_fmt_count_rate(12, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "12");
	cpw_tui_fmt_count_rate(1500, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "1.5k");
	cpw_tui_fmt_count_rate(2.5e6, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "2.5M");

	cpw_tui_fmt_pct(12.34, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "12.3");
	cpw_tui_fmt_pct(1234.4, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "1234");
	cpw_tui_fmt_pct(NAN, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "N/A");

	cpw_tui_fmt_elapsed(12.34, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "12.3s");
	cpw_tui_fmt_elapsed(245, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "4m05s");
	cpw_tui_fmt_elapsed(7380, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "2h03m");

	/* Everything fits its 6-cell column. */
	for (double v = 0.1; v < 1e16; v *= 3.7) {
		cpw_tui_fmt_kib(v, b, sizeof(b));
		CU_ASSERT_TRUE(strlen(b) <= 6);
		cpw_tui_fmt_bytes_rate(v, b, sizeof(b));
		CU_ASSERT_TRUE(strlen(b) <= 6);
		cpw_tui_fmt_count_rate(v, b, sizeof(b));
		CU_ASSERT_TRUE(strlen(b) <= 6);
		cpw_tui_fmt_pct(v, b, sizeof(b));
		CU_ASSERT_TRUE(strlen(b) <= 6);
	}
}

/* Every cell of the table fits its column without cutting a digit: THR showed 1000 for
 * 10,001 threads (cut by "%4.4s"), WAIT "network:10" for "network:10001" (the kind gives way
 * now, not the count). */
static void test_cells_fit(void)
{
	char b[32];
	struct cpw_tui_row r;
	memset(&r, 0, sizeof(r));
	r.pid = 4194304;
	r.state = 'S';
	r.threads = 10001;
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_THREADS, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "10k");
	r.threads = 999;
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_THREADS, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "999");
	r.threads = 1234;
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_THREADS, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "1.2k");
	snprintf(r.wait, sizeof(r.wait), "network:10001");
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_WAIT, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "networ:10k"); /* the kind gives way, not the count */
	snprintf(r.wait, sizeof(r.wait), "event-loop:3");
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_WAIT, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "event-lo:3");
	snprintf(r.wait, sizeof(r.wait), "lock:12");
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_WAIT, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "lock:12");
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_PID, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "4194304");
	r.cpu_pct = 1.5e6; /* 15,000 cores */
	cpw_tui_fmt_cell(&r, CPW_TUI_COL_CPU, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "1.5M");

	/* Every column, from small to absurd figures, fits its width. */
	for (double v = 0.3; v < 1e13; v *= 3.7) {
		r.threads = v < 2e9 ? (int)v : 2000000000;
		r.cpu_pct = r.rss_kib = r.majflt_rate = r.minflt_rate = r.read_rate = r.write_rate = r.ctxsw_rate = v;
		r.cpu_s = v;
		snprintf(r.wait, sizeof(r.wait), "event-loop:%u", (unsigned)(v < 4e9 ? v : 4e9));
		for (int c = 0; c < CPW_TUI_COL_COMMAND; c++) {
			cpw_tui_fmt_cell(&r, (enum cpw_tui_col)c, b, sizeof(b));
			if ((int)strlen(b) > cpw_tui_col_width((enum cpw_tui_col)c))
				CU_FAIL("a cell is wider than its column");
		}
	}
}

static void test_interval_ladder(void)
{
	CU_ASSERT_EQUAL(cpw_tui_interval_step(100, 1), 200);
	CU_ASSERT_EQUAL(cpw_tui_interval_step(100, -1), 50);
	CU_ASSERT_EQUAL(cpw_tui_interval_step(150, 1), 200);
	CU_ASSERT_EQUAL(cpw_tui_interval_step(150, -1), 100);
	CU_ASSERT_EQUAL(cpw_tui_interval_step(CPW_INTERVAL_MIN_MS, -1), CPW_INTERVAL_MIN_MS);
	CU_ASSERT_EQUAL(cpw_tui_interval_step(CPW_TUI_INTERVAL_MAX_MS, 1), CPW_TUI_INTERVAL_MAX_MS);
	unsigned ms = 100;
	for (int i = 0; i < 20; i++)
		ms = cpw_tui_interval_step(ms, -1);
	CU_ASSERT_EQUAL(ms, CPW_INTERVAL_MIN_MS);
}

/* Word wrap for the verdict panel: at the last space that fits, a long word cut at the
 * width, UTF-8 counted by characters. */
static void test_wrap(void)
{
	CU_ASSERT_EQUAL(cpw_tui_wrap("fits whole", 20), 10);
	CU_ASSERT_EQUAL(cpw_tui_wrap("", 20), 0);
	CU_ASSERT_EQUAL(cpw_tui_wrap("Profile it (perf record -g) and look", 20), 16); /* "Profile it (perf" */
	CU_ASSERT_EQUAL(cpw_tui_wrap("exactly ten here", 10), 7);
	CU_ASSERT_EQUAL(cpw_tui_wrap("0123456789 next", 10), 10); /* the space right at the width */
	CU_ASSERT_EQUAL(cpw_tui_wrap("averyveryverylongword and", 10), 10); /* no space: cut */
	CU_ASSERT_EQUAL(cpw_tui_wrap("caf\xc3\xa9 caf\xc3\xa9 x", 9), 11); /* 9 characters, 11 bytes */
}

static void test_fit(void)
{
	char out[64];
	CU_ASSERT_EQUAL(cpw_tui_fit("hello world", 5, out, sizeof(out)), 5);
	CU_ASSERT_STRING_EQUAL(out, "hello");
	CU_ASSERT_EQUAL(cpw_tui_fit("hi", 5, out, sizeof(out)), 2);
	CU_ASSERT_STRING_EQUAL(out, "hi");
	CU_ASSERT_EQUAL(cpw_tui_fit("abc", 0, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	/* Never cuts a character in two, even when the buffer is what runs out. */
	CU_ASSERT_EQUAL(cpw_tui_fit("\xc3\xa9\xc3\xa9\xc3\xa9", 2, out, sizeof(out)), 2);
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9\xc3\xa9");
	CU_ASSERT_EQUAL(cpw_tui_fit("\xc3\xa9\xc3\xa9\xc3\xa9", 10, out, 4), 1);
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9");
	/* A double-width character does not fit in one cell. */
	CU_ASSERT_EQUAL(cpw_tui_fit("\xe4\xb8\xad" "x", 1, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(cpw_tui_fit("\xe4\xb8\xad" "x", 3, out, sizeof(out)), 3);
	/* In the C locale UTF-8 shows as one ? per byte: still no raw high bytes. */
	setlocale(LC_CTYPE, "C");
	cpw_tui_fit("a\xc3\xa9", 10, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "a??");
	setlocale(LC_CTYPE, "C.UTF-8");
}

/* The header's verdict line names what the tree waits on where the verdict knows it. */
static void test_verdict_headline(void)
{
	struct cpw_verdict v;
	memset(&v, 0, sizeof(v));
	CU_ASSERT_STRING_EQUAL(cpw_tui_verdict_headline(&v), "");
	snprintf(v.evidence[0].metric, sizeof(v.evidence[0].metric), "wait_share");
	snprintf(v.evidence[0].text, sizeof(v.evidence[0].text), "off-CPU 94%%");
	v.nevidence = 1;
	CU_ASSERT_STRING_EQUAL(cpw_tui_verdict_headline(&v), "off-CPU 94%");
	snprintf(v.evidence[1].metric, sizeof(v.evidence[1].metric), "wait_kind");
	snprintf(v.evidence[1].text, sizeof(v.evidence[1].text), "100%% on network");
	snprintf(v.evidence[2].metric, sizeof(v.evidence[2].metric), "wait_target");
	snprintf(v.evidence[2].text, sizeof(v.evidence[2].text), "network waits: 100%% on TCP 127.0.0.1:80");
	v.nevidence = 3;
	CU_ASSERT_STRING_EQUAL(cpw_tui_verdict_headline(&v), "network waits: 100% on TCP 127.0.0.1:80");
	v.nevidence = 2;
	CU_ASSERT_STRING_EQUAL(cpw_tui_verdict_headline(&v), "100% on network");
}

/* H: a row per thread under a process with several, from a tree read off a fake /proc:
 * cc1 (pid 101) has thread 101 running and thread 102 in D on io_schedule. */
static void test_thread_rows(void)
{
	char root[512];
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_copy("procroot-basic", root, sizeof(root)), 0);
	struct cpw_proc_reader *rd = cpw_proc_reader_new(root);
	struct cpw_tree *t = cpw_tree_new(false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	pid_t top = 100;
	struct cpw_proc_sample s;
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(rd, &top, 1, &s), 0);
	cpw_tree_apply(t, &s, 0.1);
	/* Thread 101 is on a CPU 50 ms of the next 0.1 s. */
	CU_ASSERT_EQUAL(cpw_fixture_write(root, "101/task/101/schedstat", "3050000000 500000000 101\n"), 0);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(rd, &top, 1, &s), 0);
	cpw_tree_apply(t, &s, 0.2);

	const struct cpw_proc *list[2] = { cpw_tree_proc(t, 0), cpw_tree_proc(t, 1) };
	struct cpw_tui_table tb = { 0 };
	struct cpw_tui_opts o = { .tree = true, .sort = CPW_TUI_COL_CPU, .linger_s = 3, .threads = false };
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, list, 2, &o), 0);
	CU_ASSERT_EQUAL(tb.nrows, 2);
	o.threads = true;
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, list, 2, &o), 0);
	CU_ASSERT_EQUAL_FATAL(tb.nrows, 4); /* make (one thread: no rows), cc1, its two threads */
	const struct cpw_tui_row *cc1 = &tb.rows[cpw_tui_table_find(&tb, 101)];
	long r101 = cpw_tui_table_find_thread(&tb, 101, 101), r102 = cpw_tui_table_find_thread(&tb, 101, 102);
	CU_ASSERT_EQUAL(cc1->tid, 0);
	CU_ASSERT_EQUAL(cc1->threads, 2);
	CU_ASSERT_TRUE_FATAL(r101 > 0 && r102 > r101); /* under cc1, the busier first */
	const struct cpw_tui_row *a = &tb.rows[r101], *b = &tb.rows[r102];
	CU_ASSERT_EQUAL(a->pid, 101);
	CU_ASSERT_DOUBLE_EQUAL(a->cpu_pct, 50.0, 1e-6);
	CU_ASSERT_EQUAL(a->state, 'R');
	CU_ASSERT_STRING_EQUAL(a->wait, "");
	CU_ASSERT_STRING_EQUAL(a->name, "cc1");
	CU_ASSERT_EQUAL(a->depth, cc1->depth + 1);
	CU_ASSERT_DOUBLE_EQUAL(b->cpu_pct, 0.0, 1e-9);
	CU_ASSERT_EQUAL(b->state, 'D');
	CU_ASSERT_STRING_EQUAL(b->wait, "disk");
	CU_ASSERT_EQUAL(b->target, -1); /* no syscall file here: the kind, no target */
	CU_ASSERT_EQUAL(cc1->target, -1);
	CU_ASSERT_TRUE(b->last_sibling);
	CU_ASSERT_TRUE(isnan(b->rss_kib)); /* a process figure, not the thread's */
	/* Sorted by PID, the threads come by tid. */
	o.sort = CPW_TUI_COL_PID;
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, list, 2, &o), 0);
	CU_ASSERT_TRUE(cpw_tui_table_find_thread(&tb, 101, 101) < cpw_tui_table_find_thread(&tb, 101, 102));
	cpw_tui_table_free(&tb);
	cpw_tree_free(t);
	cpw_proc_reader_free(rd);
	cpw_fixture_remove(root);
}

/* An exited process shows X, "-" for what it no longer has (CPU%, rates, RSS, threads)
 * and its final TIME+; sorted by TIME+, the most CPU time first. */
static void test_exited_row(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	char b[32];
	struct cpw_tui_opts o = opts(false, CPW_TUI_COL_TIME);
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	pid_t got[6], by_time[6] = { 12, 11, 10, 1, 20, 30 };
	pids_of(&tb, got);
	CU_ASSERT_EQUAL(memcmp(got, by_time, sizeof(by_time)), 0);
	const struct cpw_tui_row *r = &tb.rows[cpw_tui_table_find(&tb, 12)];
	CU_ASSERT_TRUE(r->exited);
	static const struct {
		enum cpw_tui_col c;
		const char *want;
	} cells[] = {
		{ CPW_TUI_COL_PID, "12" },     { CPW_TUI_COL_STATE, "X" },  { CPW_TUI_COL_WAIT, "-" },
		{ CPW_TUI_COL_CPU, "-" },      { CPW_TUI_COL_RSS, "-" },    { CPW_TUI_COL_MAJFLT, "-" },
		{ CPW_TUI_COL_MINFLT, "-" },   { CPW_TUI_COL_READ, "-" },   { CPW_TUI_COL_WRITE, "-" },
		{ CPW_TUI_COL_CTXSW, "-" },    { CPW_TUI_COL_THREADS, "-" }, { CPW_TUI_COL_TIME, "0:03.00" },
	};
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		cpw_tui_fmt_cell(r, cells[i].c, b, sizeof(b));
		if (strcmp(b, cells[i].want) != 0) {
			fprintf(stderr, "# column %s: \"%s\", want \"%s\"\n", cpw_tui_col_title(cells[i].c), b, cells[i].want);
			CU_FAIL("an exited row's cell");
		}
	}
	/* A live row keeps its figures. */
	r = &tb.rows[cpw_tui_table_find(&tb, 10)];
	cpw_tui_fmt_cell(r, CPW_TUI_COL_CPU, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "40.0");
	cpw_tui_fmt_cell(r, CPW_TUI_COL_TIME, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "0:01.00");
	CU_ASSERT_STRING_EQUAL(cpw_tui_col_title(CPW_TUI_COL_TIME), "TIME+");
	cpw_tui_table_free(&tb);
}

/* TIME+ as htop shows it. */
static void test_time_format(void)
{
	static const struct {
		double s;
		const char *want;
	} cases[] = {
		{ 0, "0:00.00" },          { 1.5, "0:01.50" },       { 59.999, "0:59.99" },
		{ 61.25, "1:01.25" },      { 3599.99, "59:59.99" },  { 3600, "1h00:00" },
		{ 3723.9, "1h02:03" },     { 359999, "99h59:59" },   { 360000, "100h" },
		{ 1e12, "9999999h" },      { NAN, "N/A" },           { -1, "N/A" },
	};
	char b[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cpw_tui_fmt_time(cases[i].s, b, sizeof(b));
		if (strcmp(b, cases[i].want) != 0) {
			fprintf(stderr, "# %g s: \"%s\", want \"%s\"\n", cases[i].s, b, cases[i].want);
			CU_FAIL("TIME+");
		}
		CU_ASSERT_TRUE((int)strlen(b) <= cpw_tui_col_width(CPW_TUI_COL_TIME));
	}
}

/* / and F4: rows whose name or command line hold the filter, in any case; a match whose
 * parent is filtered out is a root. */
static void test_filter(void)
{
	struct cpw_tui_table tb = { 0 };
	size_t n = fixture();
	snprintf(procs[2].cmdline, sizeof(procs[2].cmdline), "/usr/bin/python3 run.py --case Slow");
	struct cpw_tui_opts o = opts(true, CPW_TUI_COL_PID);
	o.filter = "sLOW";
	CU_ASSERT_EQUAL_FATAL(cpw_tui_table_build(&tb, ptrs, n, &o), 0);
	CU_ASSERT_EQUAL_FATAL(tb.nrows, 1);
	CU_ASSERT_EQUAL(tb.rows[0].pid, 11);
	CU_ASSERT_EQUAL(tb.rows[0].depth, 0);
	o.filter = "TW"; /* twelve (exited, lingering) and twenty, by name */
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 2);
	CU_ASSERT_TRUE(cpw_tui_table_find(&tb, 12) >= 0 && cpw_tui_table_find(&tb, 20) >= 0);
	o.filter = "eleven"; /* the name: the command line does not hold it */
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 1);
	o.filter = "nothing like it";
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 0);
	o.filter = "";
	cpw_tui_table_build(&tb, ptrs, n, &o);
	CU_ASSERT_EQUAL(tb.nrows, 6);
	CU_ASSERT_TRUE(cpw_tui_filter_match(&procs[0], NULL));
	CU_ASSERT_TRUE(cpw_tui_filter_match(&procs[2], "PYTHON3 RUN"));
	CU_ASSERT_FALSE(cpw_tui_filter_match(&procs[2], "pythons"));
	cpw_tui_table_free(&tb);
}

/* The command column: the program's base name and the arguments that tell processes
 * apart; paths give way to their last part where it is too wide; escaped. */
static void test_cmd_short(void)
{
	char b[512];
	const char *cmd = "/usr/bin/python3 /home/u/proj/tests/test_slow.py -k slow --out=/tmp/a/b.json ./x.py";
	int n = cpw_tui_cmd_short(cmd, "python3", 200, false, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "python3 /home/u/proj/tests/test_slow.py -k slow --out=/tmp/a/b.json ./x.py");
	CU_ASSERT_EQUAL(n, (int)strlen(b));
	cpw_tui_cmd_short(cmd, "python3", 40, false, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "python3 .../test_slow.py -k slow --out=.../b.json ./x.py");
	n = cpw_tui_cmd_short(cmd, "python3", 40, true, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "python3 \xe2\x80\xa6/test_slow.py -k slow --out=\xe2\x80\xa6/b.json ./x.py");
	CU_ASSERT_EQUAL(n, 52); /* cells, not bytes: the caller cuts it */
	/* No command line (a kernel thread, a process seen only at its exit): its name. */
	cpw_tui_cmd_short("", "kworker/0:1", 20, true, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "kworker/0:1");
	/* What the kernel gave may hold anything: escaped. */
	cpw_tui_cmd_short("evil \x1b]0;pwned\x07 arg", "evil", 80, false, b, sizeof(b));
	CU_ASSERT_PTR_NULL(strchr(b, '\x1b'));
	CU_ASSERT_PTR_NULL(strchr(b, '\x07'));
	/* A small buffer is filled, ended, never overrun. */
	char small[12];
	cpw_tui_cmd_short(cmd, "python3", 10, false, small, sizeof(small));
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
}

/* The status line of the selected process: start, end, duration, average CPU, peak RSS,
 * the whole command line. */
static void test_proc_status(void)
{
	char b[1024];
	size_t n = fixture();
	(void)n;
	struct cpw_proc *p = &procs[2];
	snprintf(p->cmdline, sizeof(p->cmdline), "/usr/bin/python3 /home/u/tests/run.py --case slow");
	p->first_seen_s = 0.5;
	p->max_rss_kib = 20480;
	cpw_tui_proc_status(p, 0, 4.5, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "pid 11  start 0.5s  running 4.0s  avg CPU 50.0%  peak RSS 20M  "
				  "cmd: /usr/bin/python3 /home/u/tests/run.py --case slow");
	p = &procs[3]; /* exited at 9 s */
	p->first_seen_s = 3;
	cpw_tui_proc_status(p, 0, 10, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "pid 12  start 3.0s  end 9.0s  ran 6.0s  avg CPU 50.0%  cmd: twelve");
	p = &procs[1];
	p->preexisting = true;
	p->cmdline[0] = '\0';
	cpw_tui_proc_status(p, 13, 2, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "thread 13 of pid 10  start before the watch  running 2.0s  avg CPU 50.0%  cmd: [ten]");
	/* Cut to the buffer, ended. */
	char small[16];
	cpw_tui_proc_status(&procs[2], 0, 4.5, small, sizeof(small));
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
}

/* The help wraps to any width from 24 cells, loses no word, and each entry starts its own
 * line; k offers SIGTERM first, and SIGKILL. */
static void test_help_lines(void)
{
	static char rows[128][CPW_TUI_HELP_ROW];
	char want[4096], words[4096];
	int full = cpw_tui_help_lines(400, rows, 128);
	CU_ASSERT_TRUE_FATAL(full > 10);
	/* The same words in the same order at every width (here: its letters, blanks left out). */
	size_t k = 0;
	for (int i = 0; i < full; i++) {
		CU_ASSERT_TRUE((int)strlen(rows[i]) <= cpw_tui_help_width());
		for (const char *c = rows[i]; *c && k + 1 < sizeof(want); c++)
			if (*c != ' ')
				want[k++] = *c;
	}
	want[k] = '\0';
	for (int w = 24; w <= 100; w++) {
		int m = cpw_tui_help_lines(w, rows, 128);
		size_t j = 0;
		bool fits = true, starts = true;
		for (int i = 0; i < m; i++) {
			if ((int)strlen(rows[i]) > w)
				fits = false;
			for (const char *c = rows[i]; *c && j + 1 < sizeof(words); c++)
				if (*c != ' ')
					words[j++] = *c;
		}
		words[j] = '\0';
		if (!fits || strcmp(words, want) != 0) {
			fprintf(stderr, "# width %d: %s\n", w, fits ? "words differ" : "a line is too wide");
			CU_FAIL("help at a width");
		}
		/* "k F9" starts a line of its own. */
		for (int i = 0; i < m; i++)
			if (strstr(rows[i], "F9") && strncmp(rows[i], "k F9", 4) != 0)
				starts = false;
		CU_ASSERT_TRUE(starts);
	}
	size_t ns;
	const struct cpw_tui_signal *sigs = cpw_tui_signals(&ns);
	CU_ASSERT_TRUE_FATAL(ns >= 5 && cpw_tui_signal_default() < ns);
	CU_ASSERT_EQUAL(sigs[cpw_tui_signal_default()].sig, 15);
	CU_ASSERT_STRING_EQUAL(sigs[cpw_tui_signal_default()].name, "SIGTERM");
	bool kill9 = false;
	for (size_t i = 0; i < ns; i++)
		kill9 |= sigs[i].sig == 9 && strcmp(sigs[i].name, "SIGKILL") == 0;
	CU_ASSERT_TRUE(kill9);
}

int main(void)
{
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "en_US.UTF-8");
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("tui", NULL, NULL);
	CU_add_test(s, "tree order and sibling sort", test_tree_order);
	CU_add_test(s, "wait column", test_wait_column);
	CU_add_test(s, "thread rows (H)", test_thread_rows);
	CU_add_test(s, "the verdict's headline names the wait", test_verdict_headline);
	CU_add_test(s, "flat sort orders", test_flat_sorts);
	CU_add_test(s, "collapse sums", test_collapse_sums);
	CU_add_test(s, "exited linger, stale parent cycles", test_linger_and_cycles);
	CU_add_test(s, "columns for a width", test_layout);
	CU_add_test(s, "sparklines", test_sparkline);
	CU_add_test(s, "phase marks under the sparklines", test_phase_row);
	CU_add_test(s, "the phases so far on one line", test_phase_list);
	CU_add_test(s, "short figures", test_formats);
	CU_add_test(s, "every cell fits its column, no digit cut", test_cells_fit);
	CU_add_test(s, "interval ladder", test_interval_ladder);
	CU_add_test(s, "cut to terminal cells", test_fit);
	CU_add_test(s, "word wrap", test_wrap);
	CU_add_test(s, "an exited process: X, no rates, its final TIME+", test_exited_row);
	CU_add_test(s, "TIME+ as htop shows it", test_time_format);
	CU_add_test(s, "the filter (/ F4)", test_filter);
	CU_add_test(s, "the command column's arguments, shortened", test_cmd_short);
	CU_add_test(s, "the selected process's status line", test_proc_status);
	CU_add_test(s, "the help wrapped, the signals offered", test_help_lines);
	return cpw_cunit_run_tap();
}
