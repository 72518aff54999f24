/*
 * phases_report.c: the phases and the timeline in the text and JSON reports
 * (report/phases_report.h).
 *
 * The text timeline is ASCII (" .:-=+*#%@" from nothing to the row's top), so that it
 * reads the same in any terminal, log file or locale.
 */
#include "config.h"
#include "report/phases_report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "report/json_value.h"
#include "util/escape.h"
#include "util/round.h"

static const char ramp[] = " .:-=+*#%@";

static double bytes_rate(const struct cpw_tl_point *p)
{
	double b = (isnan(p->read_bytes) ? 0 : p->read_bytes) + (isnan(p->write_bytes) ? 0 : p->write_bytes);
	return p->dt_s > 0 ? b / p->dt_s : 0;
}

/* The three rows' values per column. */
struct rows {
	size_t ncols;
	double cores[CPW_SPARK_COLUMNS], mem_kib[CPW_SPARK_COLUMNS], disk[CPW_SPARK_COLUMNS];
	double gpu[CPW_SPARK_COLUMNS]; /* busy share of the GPUs the tree holds; 0 without */
	int phase[CPW_SPARK_COLUMNS];
	bool disk_known, gpu_known;
};

static void fill_rows(const struct cpw_phases *ph, const struct cpw_timeline *tl, struct rows *r)
{
	size_t n = cpw_timeline_count(tl);
	r->ncols = n < CPW_SPARK_COLUMNS ? n : CPW_SPARK_COLUMNS;
	r->disk_known = r->gpu_known = false;
	for (size_t c = 0; c < r->ncols; c++) {
		struct cpw_tl_point p;
		cpw_timeline_column(tl, c, r->ncols, &p);
		r->cores[c] = p.dt_s > 0 ? (p.user_s + p.sys_s) / p.dt_s : 0;
		r->mem_kib[c] = isnan(p.rss_kib_max) ? 0 : p.rss_kib_max;
		r->disk[c] = bytes_rate(&p);
		r->disk_known = r->disk_known || !isnan(p.read_bytes);
		r->gpu[c] = p.gpu_s > 0 ? p.gpu_busy_s / p.gpu_s : 0;
		r->gpu_known = r->gpu_known || p.gpu_s > 0;
		r->phase[c] = cpw_phases_at(ph, p.start_s + p.dt_s / 2);
	}
}

static double max_of(const double *v, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static void spark_row(FILE *out, const char *label, const double *v, size_t n, double top,
		      const char *scale)
{
	fprintf(out, "\t%-7s|", label);
	for (size_t i = 0; i < n; i++) {
		int level = top > 0 ? (int)cpw_round(v[i] / top * (double)(sizeof(ramp) - 2)) : 0;
		if (level < 0)
			level = 0;
		if (level > (int)sizeof(ramp) - 2)
			level = (int)sizeof(ramp) - 2;
		if (level == 0 && v[i] > 0)
			level = 1; /* something is not nothing */
		fputc(ramp[level], out);
	}
	fprintf(out, "| %s\n", scale);
}

static void write_timeline(const struct cpw_phases *ph, const struct cpw_timeline *tl,
			   double cores_usable, FILE *out)
{
	struct rows r;
	char scale[64];
	size_t n = cpw_timeline_count(tl);
	const struct cpw_tl_point *first = cpw_timeline_point(tl, 0), *last = cpw_timeline_point(tl, n - 1);
	double end = last->start_s + last->dt_s;

	fill_rows(ph, tl, &r);
	fprintf(out, "Timeline: %.1f-%.1f s, %zu columns of %.2f s (%s, the row's top at the right)\n",
		first->start_s, end, r.ncols, (end - first->start_s) / (double)r.ncols, "\" .:-=+*#%@\"");
	double cores_top = cpw_known(cores_usable) && cores_usable > 0 ? cores_usable : max_of(r.cores, r.ncols);
	snprintf(scale, sizeof scale, "0-%g cores", cores_top);
	spark_row(out, "cores", r.cores, r.ncols, cores_top, scale);
	double mem_top = max_of(r.mem_kib, r.ncols);
	snprintf(scale, sizeof scale, "peak %.1f MiB", mem_top / 1024.0);
	spark_row(out, "memory", r.mem_kib, r.ncols, mem_top, scale);
	double disk_top = max_of(r.disk, r.ncols);
	if (r.disk_known)
		snprintf(scale, sizeof scale, "peak %.1f MiB/s read+written", disk_top / 1048576.0);
	else
		snprintf(scale, sizeof scale, "N/A (storage bytes unreadable)");
	if (!r.disk_known || disk_top > 0) /* no storage at all: the Storage line says so */
		spark_row(out, "disk", r.disk, r.ncols, disk_top, scale);
	if (r.gpu_known)
		spark_row(out, "gpu", r.gpu, r.ncols, 1, "0-100% busy (the GPUs the tree holds)");
	if (ph->n < 2)
		return; /* one phase: its row would say 1 in every column */
	fprintf(out, "\t%-7s|", "phase");
	for (size_t c = 0; c < r.ncols; c++)
		fputc(cpw_phases_mark(r.phase[c]), out);
	fputs("|\n", out);
}

int cpw_phases_report_write_text(const struct cpw_phases *ph, const struct cpw_timeline *tl,
			  double cores_usable, FILE *out)
{
	char esc[4 * 160];

	if (ph->n == 0 || !tl || cpw_timeline_count(tl) == 0)
		return 0;
	if (ph->n == 1)
		fprintf(out, "Phases: one (the whole run is %s; a phase lasts %.1f s at least)\n",
			cpw_verdict_class_name(ph->phase[0].cls), ph->min_len_s);
	else
		fprintf(out, "Phases: %d (a phase lasts %.1f s at least)\n", ph->n, ph->min_len_s);
	/* One phase is the run: its line would repeat the verdict. */
	for (int i = 0; ph->n > 1 && i < ph->n; i++) {
		const struct cpw_phase *p = &ph->phase[i];
		char range[48], who[4 * sizeof p->who + 16] = "";
		snprintf(range, sizeof range, "%.1f-%.1f s", p->start_s, p->end_s);
		if (p->procs[0].pid) {
			/* proc_label: its arguments where known, else its name */
			char comm[4 * sizeof p->who];
			cpw_escape_for_terminal(p->who[0] ? p->who : p->procs[0].comm, comm, sizeof comm);
			snprintf(who, sizeof who, "%s (pid %d)", comm, p->procs[0].pid);
		}
		cpw_escape_for_terminal(p->evidence, esc, sizeof esc);
		fprintf(out, "\t[%c] %-13s %-12s %3.0f%%  %-24s %s\n", cpw_phases_mark(i), range,
			cpw_verdict_class_name(p->cls), 100 * p->confidence, who[0] ? who : "-", esc);
	}
	write_timeline(ph, tl, cores_usable, out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

/* ---- JSON ---- */

struct json_object *cpw_phases_report_to_json(const struct cpw_phases *ph)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	struct json_object *arr = cpw_json_value_doc_array(d);
	for (int i = 0; !d->failed && i < ph->n; i++) {
		const struct cpw_phase *p = &ph->phase[i];
		struct json_object *o = cpw_json_value_doc_object(d), *procs = cpw_json_value_doc_array(d);
		cpw_json_value_put(d, o, "start_s", cpw_json_value_doc_number(d, p->start_s));
		cpw_json_value_put(d, o, "end_s", cpw_json_value_doc_number(d, p->end_s));
		cpw_json_value_put(d, o, "class", cpw_json_value_doc_text(d, cpw_verdict_class_name(p->cls)));
		cpw_json_value_put(d, o, "confidence", cpw_json_value_doc_number(d, p->confidence));
		cpw_json_value_put(d, o, "secondary", p->secondary == CPW_CLASS_NONE ? NULL
						: cpw_json_value_doc_text(d, cpw_verdict_class_name(p->secondary)));
		cpw_json_value_put(d, o, "evidence", cpw_json_value_doc_string(d, p->evidence));
		cpw_json_value_put(d, o, "cores_used", cpw_json_value_doc_number(d, p->cores_used));
		cpw_json_value_put(d, o, "wait_kind", p->wait_kind[0] ? cpw_json_value_doc_text(d, p->wait_kind) : NULL);
		for (int k = 0; k < CPW_TIMELINE_TOP && p->procs[k].pid; k++) {
			struct json_object *e = cpw_json_value_doc_object(d);
			cpw_json_value_put(d, e, "pid", cpw_json_value_doc_int(d, p->procs[k].pid));
			cpw_json_value_put(d, e, "command", cpw_json_value_doc_string(d, p->procs[k].comm));
			cpw_json_value_put(d, e, "cpu_s", cpw_json_value_doc_number(d, p->procs[k].cpu_s));
			cpw_json_value_put(d, e, "io_bytes", cpw_json_value_doc_number(d, p->procs[k].io_bytes));
			cpw_json_value_put(d, e, "wait_s", cpw_json_value_doc_number(d, p->procs[k].wait_s));
			cpw_json_value_append(d, procs, e);
		}
		cpw_json_value_put(d, o, "processes", procs);
		cpw_json_value_append(d, arr, o);
	}
	return cpw_json_value_doc_end(d, arr);
}

/* The series' columns: name, unit, and how to read one point. */
struct column {
	const char *name, *unit;
	double (*get)(const struct cpw_tl_point *p); /* NULL: wait_s[kind] */
	int kind;
};

static double per_sample(const struct cpw_tl_point *p, enum cpw_tl_state s)
{
	return p->samples ? (double)p->states[s] / (double)p->samples : NAN;
}
static double get_t(const struct cpw_tl_point *p) { return p->start_s; }
static double get_dt(const struct cpw_tl_point *p) { return p->dt_s; }
static double get_user(const struct cpw_tl_point *p) { return p->user_s; }
static double get_sys(const struct cpw_tl_point *p) { return p->sys_s; }
static double get_runq(const struct cpw_tl_point *p) { return p->runq_s; }
static double get_running(const struct cpw_tl_point *p) { return per_sample(p, CPW_TL_RUNNING); }
static double get_disk(const struct cpw_tl_point *p) { return per_sample(p, CPW_TL_DISK_WAIT); }
static double get_dother(const struct cpw_tl_point *p) { return per_sample(p, CPW_TL_D_OTHER); }
static double get_sleeping(const struct cpw_tl_point *p) { return per_sample(p, CPW_TL_SLEEPING); }
static double get_other(const struct cpw_tl_point *p) { return per_sample(p, CPW_TL_OTHER); }
static double get_rss(const struct cpw_tl_point *p) { return p->rss_kib_max; }
static double get_read(const struct cpw_tl_point *p) { return p->read_bytes; }
static double get_write(const struct cpw_tl_point *p) { return p->write_bytes; }
static double get_majflt(const struct cpw_tl_point *p) { return (double)p->majflt; }
static double get_minflt(const struct cpw_tl_point *p) { return (double)p->minflt; }
static double get_psi_cpu(const struct cpw_tl_point *p) { return p->psi_cpu_s; }
static double get_psi_io(const struct cpw_tl_point *p) { return p->psi_io_s; }
static double get_psi_mem(const struct cpw_tl_point *p) { return p->psi_mem_s; }
static double get_gpu_busy(const struct cpw_tl_point *p) { return p->gpu_s > 0 ? p->gpu_busy_s / p->gpu_s : NAN; }

static const struct column columns[] = {
	{ "t_s", "s since the start", get_t, 0 },
	{ "dt_s", "s", get_dt, 0 },
	{ "cpu_user_s", "CPU s in the point", get_user, 0 },
	{ "cpu_sys_s", "CPU s in the point", get_sys, 0 },
	{ "runq_wait_s", "thread s in the point", get_runq, 0 },
	{ "threads_running", "threads (mean over the point's samples)", get_running, 0 },
	{ "threads_disk_wait", "threads (mean over the point's samples)", get_disk, 0 },
	{ "threads_d_other", "threads (mean over the point's samples)", get_dother, 0 },
	{ "threads_sleeping", "threads (mean over the point's samples)", get_sleeping, 0 },
	{ "threads_other", "threads (mean over the point's samples)", get_other, 0 },
	{ "rss_kib_max", "KiB (the tree's sum, highest sample)", get_rss, 0 },
	{ "read_bytes", "bytes in the point", get_read, 0 },
	{ "write_bytes", "bytes in the point", get_write, 0 },
	{ "major_faults", "faults in the point", get_majflt, 0 },
	{ "minor_faults", "faults in the point", get_minflt, 0 },
	{ "psi_cpu_some_s", "stall s in the point", get_psi_cpu, 0 },
	{ "psi_io_some_s", "stall s in the point", get_psi_io, 0 },
	{ "psi_mem_some_s", "stall s in the point", get_psi_mem, 0 },
	{ "gpu_busy", "share of the point the GPUs the tree holds were busy", get_gpu_busy, 0 },
	{ "child_wait_s", "thread s waiting for a child in the point", NULL, CPW_WAIT_CHILD },
	/* What the other off-CPU thread time waited on, per kind (the Waits section's kinds). */
	{ "wait_network_s", "thread s waiting in the point", NULL, CPW_WAIT_NETWORK },
	{ "wait_pipe_s", "thread s waiting in the point", NULL, CPW_WAIT_PIPE },
	{ "wait_lock_s", "thread s waiting in the point", NULL, CPW_WAIT_LOCK },
	{ "wait_timer_s", "thread s waiting in the point", NULL, CPW_WAIT_TIMER },
	{ "wait_event_loop_s", "thread s waiting in the point", NULL, CPW_WAIT_EVENT_LOOP },
	{ "wait_terminal_s", "thread s waiting in the point", NULL, CPW_WAIT_TERMINAL },
	{ "wait_disk_s", "thread s waiting in the point", NULL, CPW_WAIT_DISK },
	{ "wait_page_in_s", "thread s waiting in the point", NULL, CPW_WAIT_PAGE_IN },
	{ "wait_other_s", "thread s waiting in the point", NULL, CPW_WAIT_OTHER },
};

static double column_value(const struct column *c, const struct cpw_tl_point *p)
{
	return c->get ? c->get(p) : p->wait_s[c->kind];
}

/* Whose pressure the psi_* columns hold: the command's cgroup's when every point with a
 * figure has it from there, the system's otherwise; NULL when no point has one. */
static const char *psi_scope(const struct cpw_timeline *tl)
{
	size_t n = tl ? cpw_timeline_count(tl) : 0;
	bool any = false, all_cgroup = true;
	for (size_t k = 0; k < n; k++) {
		const struct cpw_tl_point *p = cpw_timeline_point(tl, k);
		if (isnan(p->psi_cpu_s))
			continue;
		any = true;
		all_cgroup = all_cgroup && p->psi_from_cgroup;
	}
	return !any ? NULL : all_cgroup ? "the command's cgroup" : "system-wide";
}

/* Members: interval_s, samples_per_point, points, one per column, then units. */
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

size_t cpw_phases_report_timeline_json_members(void) { return 3 + NCOLUMNS + 1; }

void cpw_phases_report_point_put(struct cpw_json_doc *d, struct json_object *o, const struct cpw_tl_point *p)
{
	for (size_t k = 0; !d->failed && k < NCOLUMNS; k++)
		cpw_json_value_put(d, o, columns[k].name, cpw_json_value_doc_number(d, column_value(&columns[k], p)));
}

struct json_object *cpw_phases_report_timeline_json_member(const struct cpw_timeline *tl, double interval_s, size_t i,
					     const char **key)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	size_t n = tl ? cpw_timeline_count(tl) : 0;

	switch (i) {
	case 0:
		*key = "interval_s";
		return cpw_json_value_number(interval_s);
	case 1:
		*key = "samples_per_point";
		return json_object_new_int64((int64_t)(tl ? cpw_timeline_stride(tl) : 1));
	case 2:
		*key = "points";
		return json_object_new_int64((int64_t)n);
	default:
		break;
	}
	if (i - 3 < NCOLUMNS) {
		const struct column *c = &columns[i - 3];
		struct json_object *arr = cpw_json_value_need(d, json_object_new_array_ext((int)n));
		*key = c->name;
		for (size_t k = 0; !d->failed && k < n; k++)
			cpw_json_value_append(d, arr, cpw_json_value_doc_number(d, column_value(c, cpw_timeline_point(tl, k))));
		return cpw_json_value_doc_end(d, arr);
	}
	*key = "units";
	struct json_object *units = cpw_json_value_doc_object(d);
	const char *scope = psi_scope(tl);
	for (size_t k = 0; !d->failed && k < NCOLUMNS; k++) {
		char unit[96];
		if (strncmp(columns[k].name, "psi_", 4) == 0 && scope)
			snprintf(unit, sizeof unit, "%s, %s", columns[k].unit, scope);
		else
			snprintf(unit, sizeof unit, "%s", columns[k].unit);
		cpw_json_value_put(d, units, columns[k].name, cpw_json_value_doc_text(d, unit));
	}
	return cpw_json_value_doc_end(d, units);
}

struct json_object *cpw_phases_report_timeline_to_json(const struct cpw_timeline *tl, double interval_s)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	struct json_object *o = cpw_json_value_doc_object(d);

	for (size_t i = 0; !d->failed && i < cpw_phases_report_timeline_json_members(); i++) {
		const char *key;
		struct json_object *v = cpw_phases_report_timeline_json_member(tl, interval_s, i, &key);
		cpw_json_value_put(d, o, key, cpw_json_value_need(d, v));
	}
	return cpw_json_value_doc_end(d, o);
}
