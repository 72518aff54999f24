/*
 * tui_table.c: the rows of the live view's process table (tui.h).
 *
 * From the tree's processes to ordered rows: which are shown (the living, and the exited
 * for a moment), who is whose parent among them, subtree sums for collapsed rows, sibling
 * (tree) or global (flat) ordering by the sort column, and which columns fit a width.
 * Pure and allocation-free once the buffers have grown to the tree's size.
 */
#include "config.h"
#include "view/tui.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct figs {
	double cpu, rss, maj, min, rd, wr, csw, thr, time;
};

struct node {
	size_t proc;        /* index in procs */
	const struct cpw_proc *p;
	long parent;        /* node index, -1 for a root */
	long first_child;
	long next_sibling;
	int depth;
	bool has_children;  /* fixed before the second sort, which relinks */
	bool collapsed;
	bool hidden;        /* below a collapsed ancestor */
	bool visited;
	unsigned nsummed;
	struct figs own, sum;
};

struct scratch {
	struct node *nodes;
	long *bypid;  /* node indices sorted by pid */
	long *kids;   /* node indices sorted by (parent, key) */
	long *order;  /* preorder */
	long *stack;
	size_t cap;
};

/* qsort has no context argument in C11: the comparators read it from here. */
static const struct node *sort_nodes;
static enum cpw_tui_col sort_col;

static int grow(struct cpw_tui_table *tb, size_t n)
{
	struct scratch *s = tb->scratch;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		tb->scratch = s;
	}
	if (n <= s->cap && n <= tb->alloc)
		return 0;
	size_t cap = s->cap ? s->cap : 64;
	while (cap < n)
		cap *= 2;
	struct node *nodes = realloc(s->nodes, cap * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	s->nodes = nodes;
	long **arrays[] = { &s->bypid, &s->kids, &s->order, &s->stack };
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		long *a = realloc(*arrays[i], cap * sizeof(long));
		if (!a)
			return -ENOMEM;
		*arrays[i] = a;
	}
	s->cap = cap;
	if (cap <= tb->alloc) /* thread rows made room already */
		return 0;
	struct cpw_tui_row *rows = realloc(tb->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	tb->rows = rows;
	tb->alloc = cap;
	return 0;
}

void cpw_tui_table_free(struct cpw_tui_table *tb)
{
	struct scratch *s = tb->scratch;
	if (s) {
		free(s->nodes);
		free(s->bypid);
		free(s->kids);
		free(s->order);
		free(s->stack);
		free(s);
	}
	free(tb->rows);
	free(tb->targets);
	memset(tb, 0, sizeof(*tb));
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether hay holds needle, in any case (ASCII). */
static bool holds(const char *hay, const char *needle)
{
	for (; *hay; hay++) {
		size_t i = 0;
		while (needle[i] && hay[i] && lower(hay[i]) == lower(needle[i]))
			i++;
		if (!needle[i])
			return true;
	}
	return false;
}

bool cpw_tui_filter_match(const struct cpw_proc *p, const char *filter)
{
	if (!filter || !filter[0])
		return true;
	return holds(p->comm, filter) || holds(p->cmdline, filter);
}

static bool shown(const struct cpw_proc *p, const struct cpw_tui_opts *o)
{
	if (!cpw_tui_filter_match(p, o->filter))
		return false;
	if (p->alive)
		return true;
	return isnan(p->exited_s) || o->now_s - p->exited_s <= o->linger_s;
}

static bool is_collapsed(pid_t pid, const struct cpw_tui_opts *o)
{
	for (size_t i = 0; i < o->ncollapsed; i++)
		if (o->collapsed[i] == pid)
			return true;
	return false;
}

/* NAN (unreadable) adds nothing; a sum is NAN only when every part is. */
static void add(double *sum, double v)
{
	if (isnan(v))
		return;
	*sum = isnan(*sum) ? v : *sum + v;
}

static void add_figs(struct figs *to, const struct figs *f)
{
	add(&to->cpu, f->cpu);
	add(&to->rss, f->rss);
	add(&to->maj, f->maj);
	add(&to->min, f->min);
	add(&to->rd, f->rd);
	add(&to->wr, f->wr);
	add(&to->csw, f->csw);
	add(&to->thr, f->thr);
	add(&to->time, f->time);
}

static const struct figs *shown_figs(const struct node *n)
{
	return n->collapsed && n->has_children ? &n->sum : &n->own;
}

/* What the command column shows: the command line, or [comm] for kernel threads and
 * processes whose command line is gone. */
static const char *label(const struct cpw_proc *p)
{
	return p->cmdline[0] ? p->cmdline : p->comm;
}

static double col_value(const struct figs *f, enum cpw_tui_col c)
{
	switch (c) {
	case CPW_TUI_COL_CPU: return f->cpu;
	case CPW_TUI_COL_RSS: return f->rss;
	case CPW_TUI_COL_MAJFLT: return f->maj;
	case CPW_TUI_COL_MINFLT: return f->min;
	case CPW_TUI_COL_READ: return f->rd;
	case CPW_TUI_COL_WRITE: return f->wr;
	case CPW_TUI_COL_CTXSW: return f->csw;
	case CPW_TUI_COL_THREADS: return f->thr;
	case CPW_TUI_COL_TIME: return f->time;
	default: return NAN;
	}
}

/* The sort order of two nodes by the sort column; pid breaks ties so it is stable. */
static int by_key(const struct node *a, const struct node *b)
{
	int r = 0;
	switch (sort_col) {
	case CPW_TUI_COL_PID:
		break;
	case CPW_TUI_COL_STATE:
		r = (a->p->state > b->p->state) - (a->p->state < b->p->state);
		break;
	case CPW_TUI_COL_WAIT:
		r = strcmp(a->p->wait_now, b->p->wait_now);
		break;
	case CPW_TUI_COL_COMMAND:
		r = strcmp(label(a->p), label(b->p));
		break;
	default: {
		/* High first; unreadable last. */
		double va = col_value(shown_figs(a), sort_col), vb = col_value(shown_figs(b), sort_col);
		if (isnan(va) || isnan(vb))
			r = isnan(va) - isnan(vb);
		else
			r = (va < vb) - (va > vb);
	}
	}
	if (r == 0)
		r = (a->p->pid > b->p->pid) - (a->p->pid < b->p->pid);
	return r;
}

static int cmp_pid(const void *x, const void *y)
{
	pid_t a = sort_nodes[*(const long *)x].p->pid, b = sort_nodes[*(const long *)y].p->pid;
	return (a > b) - (a < b);
}

static int cmp_parent_key(const void *x, const void *y)
{
	const struct node *a = &sort_nodes[*(const long *)x], *b = &sort_nodes[*(const long *)y];
	if (a->parent != b->parent)
		return (a->parent > b->parent) - (a->parent < b->parent);
	return by_key(a, b);
}

static int cmp_key(const void *x, const void *y)
{
	return by_key(&sort_nodes[*(const long *)x], &sort_nodes[*(const long *)y]);
}

static long find_pid(const struct scratch *s, size_t k, pid_t pid)
{
	size_t lo = 0, hi = k;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		pid_t m = s->nodes[s->bypid[mid]].p->pid;
		if (m == pid)
			return s->bypid[mid];
		if (m < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Sorts kids by (parent, key) and rebuilds the child lists from it. */
static void link_children(struct scratch *s, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		s->kids[i] = (long)i;
		s->nodes[i].first_child = s->nodes[i].next_sibling = -1;
	}
	qsort(s->kids, k, sizeof(long), cmp_parent_key);
	for (size_t j = 0; j < k; j++) {
		struct node *n = &s->nodes[s->kids[j]];
		if (j + 1 < k && s->nodes[s->kids[j + 1]].parent == n->parent)
			n->next_sibling = s->kids[j + 1];
		if (n->parent >= 0 && (j == 0 || s->nodes[s->kids[j - 1]].parent != n->parent))
			s->nodes[n->parent].first_child = s->kids[j];
	}
}

/* Preorder walk from one root, into order[*m]; marks nodes visited (a cycle of stale
 * parents cannot loop). */
static void walk(struct scratch *s, long root, size_t *m)
{
	size_t sp = 0;
	s->stack[sp++] = root;
	s->nodes[root].visited = true;
	while (sp > 0) {
		long i = s->stack[--sp];
		s->order[(*m)++] = i;
		/* Push children in reverse so the first child is walked first. */
		size_t base = sp;
		for (long c = s->nodes[i].first_child; c >= 0; c = s->nodes[c].next_sibling) {
			if (s->nodes[c].visited)
				continue;
			s->nodes[c].visited = true;
			s->nodes[c].depth = s->nodes[i].depth + 1;
			s->stack[sp++] = c;
		}
		for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
			long t = s->stack[a];
			s->stack[a] = s->stack[b - 1];
			s->stack[b - 1] = t;
		}
	}
}

static int cmp_thread_rows(const void *x, const void *y)
{
	const struct cpw_tui_row *a = x, *b = y;
	int r = 0;
	switch (sort_col) {
	case CPW_TUI_COL_CPU: r = (a->cpu_pct < b->cpu_pct) - (a->cpu_pct > b->cpu_pct); break;
	case CPW_TUI_COL_STATE: r = (a->state > b->state) - (a->state < b->state); break;
	case CPW_TUI_COL_WAIT: r = strcmp(a->wait, b->wait); break;
	case CPW_TUI_COL_COMMAND: r = strcmp(a->name, b->name); break;
	default: break;
	}
	return r ? r : (a->tid > b->tid) - (a->tid < b->tid);
}

/* A row per thread of n's process, under it (one level deeper in tree mode). */
static void emit_threads(struct cpw_tui_table *tb, const struct node *n, int depth)
{
	size_t nth = cpw_tree_proc_thread_count(n->p), start = tb->nrows;
	if (nth < 2 || (n->collapsed && n->has_children))
		return;
	for (size_t i = 0; i < nth && tb->nrows < tb->alloc; i++) {
		const struct cpw_thread_now *th = cpw_tree_proc_thread(n->p, i);
		struct cpw_tui_row *r = &tb->rows[tb->nrows++];
		memset(r, 0, sizeof(*r));
		r->proc = n->proc;
		r->pid = n->p->pid;
		r->tid = th->tid;
		snprintf(r->name, sizeof(r->name), "%s", th->comm);
		r->target = -1;
		if (th->target[0] && tb->ntargets < tb->targets_alloc) {
			r->target = (int)tb->ntargets;
			snprintf(tb->targets[tb->ntargets++], sizeof(tb->targets[0]), "%s", th->target);
		}
		r->state = th->state;
		snprintf(r->wait, sizeof(r->wait), "%s", th->wait);
		r->depth = depth;
		r->nsummed = 1;
		r->cpu_pct = th->cpu_pct;
		r->rss_kib = r->majflt_rate = r->minflt_rate = r->read_rate = r->write_rate = r->ctxsw_rate = NAN;
		r->cpu_s = NAN;
	}
	qsort(&tb->rows[start], tb->nrows - start, sizeof(tb->rows[0]), cmp_thread_rows);
	/* The last thread closes the branch unless child processes follow at its depth. */
	if (tb->nrows > start)
		tb->rows[tb->nrows - 1].last_sibling = !n->has_children;
}

static void emit(struct cpw_tui_table *tb, const struct node *n, int depth, bool threads)
{
	struct cpw_tui_row *r = &tb->rows[tb->nrows++];
	const struct figs *f = shown_figs(n);
	memset(r, 0, sizeof(*r));
	r->target = -1;
	r->proc = n->proc;
	r->pid = n->p->pid;
	r->state = n->p->state;
	snprintf(r->wait, sizeof(r->wait), "%s", n->p->alive ? n->p->wait_now : "");
	r->depth = depth;
	r->has_children = n->has_children;
	r->collapsed = n->collapsed && r->has_children;
	r->exited = !n->p->alive;
	r->last_sibling = n->next_sibling < 0;
	r->nsummed = r->collapsed ? n->nsummed : 1;
	r->cpu_pct = f->cpu;
	r->rss_kib = f->rss;
	r->majflt_rate = f->maj;
	r->minflt_rate = f->min;
	r->read_rate = f->rd;
	r->write_rate = f->wr;
	r->ctxsw_rate = f->csw;
	r->cpu_s = f->time;
	r->threads = isnan(f->thr) ? 0 : (int)f->thr;
	if (threads)
		emit_threads(tb, n, depth + 1); /* none for the exited: they have no threads */
}

int cpw_tui_table_build(struct cpw_tui_table *tb, const struct cpw_proc *const *procs, size_t n,
			const struct cpw_tui_opts *o)
{
	size_t rows = n;
	for (size_t i = 0; o->threads && i < n; i++)
		if (procs[i] && cpw_tree_proc_thread_count(procs[i]) >= 2)
			rows += cpw_tree_proc_thread_count(procs[i]);
	if (grow(tb, n) < 0)
		return -ENOMEM;
	if (rows > tb->alloc) { /* thread rows: more rows than processes, no more nodes */
		struct cpw_tui_row *more = realloc(tb->rows, rows * sizeof(*more));
		if (!more)
			return -ENOMEM;
		tb->rows = more;
		tb->alloc = rows;
	}
	tb->ntargets = 0;
	if (rows - n > tb->targets_alloc) {
		char (*t)[64] = realloc(tb->targets, (rows - n) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		tb->targets = t;
		tb->targets_alloc = rows - n;
	}
	struct scratch *s = tb->scratch;
	size_t k = 0;

	tb->nrows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *p = procs[i];
		if (!p || !shown(p, o))
			continue;
		struct node *nd = &s->nodes[k];
		memset(nd, 0, sizeof(*nd));
		nd->proc = i;
		nd->p = p;
		nd->collapsed = is_collapsed(p->pid, o);
		nd->nsummed = 1;
		/* An exited process has no rates nor RSS now (its last ones are stale: "R 89.2"
		 * after its end); its CPU time is final. */
		if (p->alive)
			nd->own = (struct figs){ .cpu = p->cpu_pct, .rss = (double)p->rss_kib,
						 .maj = p->majflt_rate, .min = p->minflt_rate,
						 .rd = p->read_rate, .wr = p->write_rate,
						 .csw = p->ctxsw_rate, .thr = (double)p->nthreads };
		else
			nd->own = (struct figs){ .cpu = NAN, .rss = NAN, .maj = NAN, .min = NAN, .rd = NAN,
						 .wr = NAN, .csw = NAN, .thr = 0 };
		nd->own.time = p->user_s + p->sys_s;
		nd->sum = nd->own;
		s->bypid[k] = (long)k;
		k++;
	}
	if (k == 0)
		return 0;

	sort_nodes = s->nodes;
	sort_col = CPW_TUI_COL_PID;
	qsort(s->bypid, k, sizeof(long), cmp_pid);
	for (size_t i = 0; i < k; i++) {
		long par = find_pid(s, k, s->nodes[i].p->ppid);
		s->nodes[i].parent = par == (long)i ? -1 : par;
	}

	/* Preorder from the roots; what is left unvisited sits on a cycle of stale parents
	 * (pids reused between samples): each such node becomes a root. */
	link_children(s, k);
	size_t m = 0;
	for (size_t j = 0; j < k && s->nodes[s->kids[j]].parent < 0; j++)
		walk(s, s->kids[j], &m);
	for (size_t i = 0; i < k; i++) {
		if (!s->nodes[i].visited) {
			s->nodes[i].parent = -1;
			s->nodes[i].depth = 0;
			walk(s, (long)i, &m);
		}
	}

	for (size_t i = 0; i < k; i++)
		s->nodes[i].has_children = s->nodes[i].first_child >= 0;
	/* Sums bottom-up (reverse preorder), then what a collapsed ancestor hides. */
	for (size_t j = m; j-- > 0;) {
		struct node *nd = &s->nodes[s->order[j]];
		if (nd->parent >= 0) {
			add_figs(&s->nodes[nd->parent].sum, &nd->sum);
			s->nodes[nd->parent].nsummed += nd->nsummed;
		}
	}
	for (size_t j = 0; j < m; j++) {
		struct node *nd = &s->nodes[s->order[j]];
		if (nd->parent >= 0) {
			const struct node *par = &s->nodes[nd->parent];
			nd->hidden = par->hidden || par->collapsed;
		}
	}

	sort_col = o->sort;
	if (o->tree) {
		link_children(s, k);
		for (size_t i = 0; i < k; i++) {
			s->nodes[i].visited = false;
			s->nodes[i].depth = 0;
		}
		m = 0;
		for (size_t j = 0; j < k && s->nodes[s->kids[j]].parent < 0; j++)
			walk(s, s->kids[j], &m);
		for (size_t j = 0; j < m; j++) {
			const struct node *nd = &s->nodes[s->order[j]];
			if (!nd->hidden)
				emit(tb, nd, nd->depth, o->threads);
		}
	} else {
		size_t v = 0;
		for (size_t i = 0; i < k; i++)
			if (!s->nodes[i].hidden)
				s->kids[v++] = (long)i;
		qsort(s->kids, v, sizeof(long), cmp_key);
		for (size_t j = 0; j < v; j++)
			emit(tb, &s->nodes[s->kids[j]], 0, o->threads);
	}
	sort_nodes = NULL;
	return 0;
}

long cpw_tui_table_find(const struct cpw_tui_table *tb, pid_t pid)
{
	return cpw_tui_table_find_thread(tb, pid, 0);
}

long cpw_tui_table_find_thread(const struct cpw_tui_table *tb, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < tb->nrows; i++)
		if (tb->rows[i].pid == pid && tb->rows[i].tid == tid)
			return (long)i;
	return -1;
}

static const struct {
	const char *title;
	int width;
} cols[CPW_TUI_NCOLS] = {
	[CPW_TUI_COL_PID] = { "PID", 7 },
	[CPW_TUI_COL_STATE] = { "S", 1 },
	[CPW_TUI_COL_WAIT] = { "WAIT", 10 },
	[CPW_TUI_COL_CPU] = { "CPU%", 6 },
	[CPW_TUI_COL_RSS] = { "RSS", 6 },
	[CPW_TUI_COL_MAJFLT] = { "MAJF/s", 6 },
	[CPW_TUI_COL_MINFLT] = { "MINF/s", 6 },
	[CPW_TUI_COL_READ] = { "READ/s", 6 },
	[CPW_TUI_COL_WRITE] = { "WRIT/s", 6 },
	[CPW_TUI_COL_CTXSW] = { "CSW/s", 6 },
	[CPW_TUI_COL_THREADS] = { "THR", 4 },
	[CPW_TUI_COL_TIME] = { "TIME+", 8 },
	[CPW_TUI_COL_COMMAND] = { "COMMAND", 10 },
};

const char *cpw_tui_col_title(enum cpw_tui_col c)
{
	return (unsigned)c < CPW_TUI_NCOLS ? cols[c].title : "";
}

int cpw_tui_col_width(enum cpw_tui_col c)
{
	return (unsigned)c < CPW_TUI_NCOLS ? cols[c].width : 0;
}

int cpw_tui_layout(int width, bool visible[CPW_TUI_NCOLS])
{
	/* What a user looks at first; the rest is dropped from the end as width shrinks. */
	static const enum cpw_tui_col priority[] = {
		CPW_TUI_COL_CPU, CPW_TUI_COL_RSS, CPW_TUI_COL_STATE, CPW_TUI_COL_TIME, CPW_TUI_COL_WAIT,
		CPW_TUI_COL_READ,
		CPW_TUI_COL_WRITE, CPW_TUI_COL_MAJFLT, CPW_TUI_COL_THREADS, CPW_TUI_COL_MINFLT,
		CPW_TUI_COL_CTXSW,
	};
	int used = cols[CPW_TUI_COL_PID].width + 1;
	/* The command tells processes apart by their arguments: a quarter of a wide screen
	 * is kept for it. */
	int cmd_min = cols[CPW_TUI_COL_COMMAND].width;
	if (width / 4 > cmd_min)
		cmd_min = width / 4;

	for (int c = 0; c < CPW_TUI_NCOLS; c++)
		visible[c] = false;
	visible[CPW_TUI_COL_PID] = visible[CPW_TUI_COL_COMMAND] = true;
	for (size_t i = 0; i < sizeof(priority) / sizeof(priority[0]); i++) {
		int w = cols[priority[i]].width + 1;
		if (used + w + cmd_min > width)
			break;
		visible[priority[i]] = true;
		used += w;
	}
	return width - used > 0 ? width - used : 0;
}
