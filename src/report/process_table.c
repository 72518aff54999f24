/*
 * process_table.c: the text report's table of processes. See process_table.h.
 */
#include "config.h"
#include "report/process_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/proc_label.h"
#include "source/proc/interp.h"
#include "util/escape.h"

#define ROWS_MAX 50
#define ARGS_MAX 60
#define VIA_ARGS_MAX 40 /* a wrapper's arguments after its child's */
#define NAMES_MAX 4

/* What the helpers folded into one process add up to. */
struct fold {
	size_t count;
	double cpu_s, first_s, last_s;
	char name[NAMES_MAX][16];
	size_t name_count[NAMES_MAX];
	size_t other; /* helpers whose names did not fit */
};

static void add_helper(struct fold *f, const struct cpw_proc *p)
{
	if (f->count++ == 0) {
		f->first_s = p->first_seen_s;
		f->last_s = p->exited_s;
	}
	f->cpu_s += p->user_s + p->sys_s;
	if (p->first_seen_s < f->first_s)
		f->first_s = p->first_seen_s;
	if (p->exited_s > f->last_s)
		f->last_s = p->exited_s;
	for (int k = 0; k < NAMES_MAX; k++) {
		if (f->name_count[k] && strncmp(f->name[k], p->comm, sizeof f->name[k] - 1) == 0) {
			f->name_count[k]++;
			return;
		}
		if (!f->name_count[k]) {
			snprintf(f->name[k], sizeof f->name[k], "%s", p->comm);
			f->name_count[k] = 1;
			return;
		}
	}
	f->other++;
}

static void write_fold(const struct fold *f, FILE *out)
{
	char esc[64];
	fprintf(out, "\t%15s  +%zu short-lived helper%s, %.2f-%.2f s, %.2f s CPU:", "", f->count,
		f->count > 1 ? "s" : "", f->first_s, f->last_s, f->cpu_s);
	for (int k = 0; k < NAMES_MAX && f->name_count[k]; k++) {
		cpw_escape_for_terminal(f->name[k], esc, sizeof esc);
		fprintf(out, "%s %zu %s", k ? "," : "", f->name_count[k], esc);
	}
	if (f->other)
		fprintf(out, ", %zu other", f->other);
	fputc('\n', out);
}

static void write_row(const struct cpw_proc *p, bool python_col, const char *via, FILE *out)
{
	char args[ARGS_MAX + 4], esc[sizeof args * 4], rss[24], end[16], dur[16];
	double until = !isnan(p->exited_s) ? p->exited_s : p->last_seen_s;
	if (!isnan(p->exited_s))
		snprintf(end, sizeof end, "%.2f", p->exited_s);
	else
		snprintf(end, sizeof end, "running");
	snprintf(dur, sizeof dur, "%.2f", until > p->first_seen_s ? until - p->first_seen_s : 0.0);
	cpw_proc_label_size((double)p->max_rss_kib, rss, sizeof rss);
	cpw_escape_for_terminal(cpw_proc_label_args(p, ARGS_MAX, args, sizeof args), esc, sizeof esc);
	fprintf(out, "\t%7d %7d %7.2f %7s %7s %7.2f %7.2f %10s", (int)p->pid, (int)p->ppid,
		p->first_seen_s, end, dur, p->user_s, p->sys_s, rss);
	if (python_col) {
		/* python version: the version, "yes" where Python's names do not say it */
		char py[24];
		if (p->python_exe == 1 && p->python[0])
			cpw_escape_for_terminal(p->python, py, sizeof py);
		else
			/* one known only from its exit record: its name says it (no version) */
			snprintf(py, sizeof py, "%s", p->python_exe == 1 || p->is_python == 1 ||
				 (p->python_exe < 0 && cpw_interp_exe_is_python(p->comm)) ? "yes" : "-");
		fprintf(out, " %7s", py);
	}
	fprintf(out, "  %s%s\n", esc, via);
}

struct row_order {
	double start;
	size_t i;
};

static int by_start(const void *a, const void *b)
{
	const struct row_order *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The rows in order of start: the tree holds processes in order of first sight, and those
 * known only from their exit records arrive in batches, after later ones were sampled. */
static struct row_order *rows_by_start(const struct cpw_tree *t, size_t n)
{
	struct row_order *o = malloc(n * sizeof(*o));
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		o[i].start = cpw_tree_proc(t, i)->first_seen_s;
		o[i].i = i;
	}
	qsort(o, n, sizeof(*o), by_start);
	return o;
}

/* Wrappers that only waited for their one child (sh -c 'python3 x.py; true', timeout,
 * env, a runner's launcher): at most CPW_HELPER_MAX_CPU_S of CPU, one child with a row of
 * its own, and that child's life at least 80% of the wrapper's within it. Each folds into
 * its child's row ("via sh (pid 812)"); wrapped[i] is the row i's wrapper folds into it,
 * n where none. Returns NULL (no memory, or none). */
static size_t *waiting_wrappers(const struct cpw_tree *t, size_t n, bool *folded)
{
	const struct cpw_proc *first = cpw_tree_proc(t, 0);
	size_t *kids = calloc(n, sizeof(*kids)), *only = malloc(n * sizeof(*only));
	size_t *wrapped = malloc(n * sizeof(*wrapped));
	size_t found = 0;

	if (!kids || !only || !wrapped) {
		free(kids);
		free(only);
		free(wrapped);
		return NULL;
	}
	for (size_t j = 0; j < n; j++) {
		wrapped[j] = n;
		const struct cpw_proc *c = cpw_tree_proc(t, j);
		const struct cpw_proc *par = folded[j] ? NULL : cpw_tree_find(t, c->ppid);
		if (par && par != c) { /* the model's pid lookup; its array is the rows' order */
			kids[par - first]++;
			only[par - first] = j;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *w = cpw_tree_proc(t, i);
		if (folded[i] || kids[i] != 1 || w->user_s + w->sys_s > CPW_HELPER_MAX_CPU_S)
			continue;
		const struct cpw_proc *c = cpw_tree_proc(t, only[i]);
		double w_end = !isnan(w->exited_s) ? w->exited_s : w->last_seen_s;
		double c_end = !isnan(c->exited_s) ? c->exited_s : c->last_seen_s;
		double w_life = w_end - w->first_seen_s, c_life = c_end - c->first_seen_s;
		/* Starts from different clocks (a stat's ticks, an exec event, a first sample) may
		 * put the child a tick before its parent: 20 ms are allowed. */
		if (!(w_life > 0) || !(c_life >= 0.8 * w_life) || c->first_seen_s + 0.02 < w->first_seen_s)
			continue;
		wrapped[only[i]] = i;
		folded[i] = true;
		found++;
	}
	free(kids);
	free(only);
	if (!found) {
		free(wrapped);
		return NULL;
	}
	return wrapped;
}

/* " (via sh -c ... name_3, pid 812; timeout 60, pid 810)": the wrappers folded into row i,
 * nearest first. */
static void via_words(const struct cpw_tree *t, const size_t *wrapped, size_t n, size_t i, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int depth = 0; wrapped && wrapped[i] < n && depth < 3 && used + 1 < len; depth++) {
		const struct cpw_proc *w = cpw_tree_proc(t, wrapped[i]);
		char args[VIA_ARGS_MAX + 4], esc[sizeof args * 4];
		/* its arguments: a runner's wrapper may carry the name that tells a test apart */
		cpw_escape_for_terminal(cpw_proc_label_args(w, VIA_ARGS_MAX, args, sizeof args), esc, sizeof esc);
		int k = snprintf(buf + used, len - used, "%s%s, pid %d", depth ? "; " : " (via ", esc, (int)w->pid);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
		i = wrapped[i];
	}
	if (used && used + 1 < len)
		snprintf(buf + used, len - used, ")");
}

void cpw_process_table_write(const struct cpw_tree *t, FILE *out)
{
	size_t n = t ? cpw_tree_size(t) : 0;
	if (n == 0)
		return;
	bool *folded = calloc(n, sizeof(*folded));
	struct fold *folds = calloc(n, sizeof(*folds));
	if (!folded || !folds) { /* out of memory: every process on its own row */
		free(folded);
		free(folds);
		folded = NULL;
		folds = NULL;
	}
	const struct cpw_proc *first = cpw_tree_proc(t, 0);
	if (folded) {
		cpw_proc_label_fold(t, folded);
		for (size_t i = 0; i < n; i++) {
			const struct cpw_proc *p = cpw_tree_proc(t, i);
			const struct cpw_proc *into = folded[i] ? cpw_proc_label_folded_into(t, folded, p) : NULL;
			if (into)
				add_helper(&folds[into - first], p);
			else
				folded[i] = false; /* nowhere to fold it: its own row */
		}
	}
	size_t *wrapped = folded ? waiting_wrappers(t, n, folded) : NULL;
	bool python_col = false;
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		python_col |= p->python_exe == 1 || p->is_python == 1;
	}
	fprintf(out, "\t%7s %7s %7s %7s %7s %7s %7s %10s", "PID", "PPID", "START_S", "END_S", "DUR_S",
		"USER_S", "SYS_S", "MAXRSS");
	if (python_col)
		fprintf(out, " %7s", "PYTHON");
	fputs("  COMMAND\n", out);
	size_t rows = 0, left = 0;
	struct row_order *order = rows_by_start(t, n); /* NULL (no memory): first sight */
	for (size_t k = 0; k < n; k++) {
		size_t i = order ? order[k].i : k;
		if (folded && folded[i])
			continue;
		if (rows == ROWS_MAX) {
			left++;
			continue;
		}
		rows++;
		char via[3 * (4 * (VIA_ARGS_MAX + 4) + 24) + 8];
		via_words(t, wrapped, n, i, via, sizeof via);
		write_row(cpw_tree_proc(t, i), python_col, via, out);
		if (folds && folds[i].count)
			write_fold(&folds[i], out);
	}
	if (left)
		fprintf(out, "\t... and %zu more (see --json for all)\n", left);
	free(order);
	free(wrapped);
	free(folded);
	free(folds);
}
