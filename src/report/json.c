/*
 * json.c: the report as one JSON document (schema "cperfwatch/1", doc/cperfwatch.schema.json),
 * written with json-c. A value that could not be measured is null, with the reason among
 * "notes"; never 0. Every json-c call goes through report/json_value.h, so that memory
 * running out ends in -ENOMEM (one line from the caller), never in json-c's assertions or
 * a document with a piece missing.
 */
#include "config.h"
#include "report/report.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/counters_report.h"
#include "report/phases_report.h"
#include "report/hotspots_report.h"
#include "report/waits_report.h"
#include "report/json_value.h"

/* The document's values, each checked (json_value.h): d fails where one cannot be made. */
static json_object *jint(struct cpw_json_doc *d, uint64_t v) { return cpw_json_value_doc_int(d, (int64_t)v); }
static json_object *jsmall(struct cpw_json_doc *d, int v) { return cpw_json_value_doc_int(d, v); }
static json_object *jbool(struct cpw_json_doc *d, bool v) { return cpw_json_value_need(d, json_object_new_boolean(v)); }
static json_object *jtext(struct cpw_json_doc *d, const char *s) { return cpw_json_value_doc_text(d, s); }
static json_object *jobj(struct cpw_json_doc *d) { return cpw_json_value_doc_object(d); }
static json_object *jarr(struct cpw_json_doc *d) { return cpw_json_value_doc_array(d); }
static json_object *jnum(struct cpw_json_doc *d, double v) { return cpw_json_value_doc_number(d, v); }
static json_object *jstr(struct cpw_json_doc *d, const char *s) { return cpw_json_value_doc_string(d, s); }
static void add(struct cpw_json_doc *d, json_object *o, const char *key, json_object *v) { cpw_json_value_put(d, o, key, v); }
static void push(struct cpw_json_doc *d, json_object *a, json_object *v) { cpw_json_value_append(d, a, v); }

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static json_object *time_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = jobj(d);
	double cpu = m->user_s + m->sys_s;
	add(d, o, "wall_s", jnum(d, m->wall_s));
	add(d, o, "user_s", jnum(d, m->user_s));
	add(d, o, "sys_s", jnum(d, m->sys_s));
	add(d, o, "cpu_percent", jnum(d, cpw_known(m->wall_s) && m->wall_s > 0 ? 100 * cpu / m->wall_s : NAN));
	return o;
}

static json_object *memory_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = jobj(d);
	add(d, o, "max_rss_kib", jnum(d, m->max_rss_kib));
	add(d, o, "tree_peak_rss_kib", jnum(d, m->tree_peak_rss_kib));
	add(d, o, "tree_peak_kib", jnum(d, m->tree_peak_kib));
	add(d, o, "tree_peak_source", m->tree_peak_source[0] ? jstr(d, m->tree_peak_source) : NULL);
	add(d, o, "tree_peak_pss_kib", jnum(d, m->tree_peak_pss_kib));
	add(d, o, "major_faults", jint(d, m->major_faults));
	add(d, o, "minor_faults", jint(d, m->minor_faults));
	add(d, o, "refaults", jnum(d, m->refaults));
	add(d, o, "memory_limit_kib", jnum(d, m->memory_limit_kib));
	add(d, o, "cgroup_peak_kib", jnum(d, r->cgroup_mem_peak_kib)); /* page cache included */
	return o;
}

static json_object *io_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = jobj(d);
	add(d, o, "read_bytes", jnum(d, m->read_bytes));
	add(d, o, "write_bytes", jnum(d, m->write_bytes));
	if (r->mode == CPW_MODE_RUN && r->rusage_known) {
		add(d, o, "fs_inputs", jint(d, m->fs_inputs));
		add(d, o, "fs_outputs", jint(d, m->fs_outputs));
	} else {
		add(d, o, "fs_inputs", NULL);
		add(d, o, "fs_outputs", NULL);
	}
	return o;
}

static json_object *threads_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	struct cpw_thread_shares s;
	json_object *o = jobj(d);
	cpw_metrics_thread_shares(m, &s);
	add(d, o, "running", jnum(d, s.running));
	add(d, o, "runnable", jnum(d, s.runnable));
	add(d, o, "disk_wait", jnum(d, s.disk_wait));
	add(d, o, "uninterruptible_other", jnum(d, s.d_other));
	add(d, o, "sleeping", jnum(d, s.sleeping));
	add(d, o, "other", jnum(d, s.other));
	add(d, o, "samples", jint(d, m->samples));
	add(d, o, "thread_samples", jint(d, m->thread_samples));
	add(d, o, "interval_s", jnum(d, r->cfg->interval_ms / 1000.0));
	add(d, o, "oncpu_s", jnum(d, m->oncpu_s));
	add(d, o, "runqueue_wait_s", jnum(d, m->runq_wait_s));
	add(d, o, "avg_runnable", jnum(d, m->avg_runnable_threads));
	json_object *delays = jobj(d);
	add(d, delays, "enabled", jbool(d, m->delayacct_on));
	add(d, delays, "blkio_s", jnum(d, m->blkio_delay_s));
	add(d, delays, "swapin_s", jnum(d, m->swapin_delay_s));
	add(d, delays, "thrashing_s", jnum(d, m->thrashing_delay_s));
	add(d, delays, "reclaim_s", jnum(d, m->reclaim_delay_s));
	add(d, o, "delays", delays);
	return o;
}

static json_object *pressure_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = jobj(d);
	add(d, o, "scope", jtext(d, m->psi_from_cgroup ? "cgroup" : "system"));
	add(d, o, "cpu_some_s", jnum(d, m->psi_cpu_some_s));
	add(d, o, "io_some_s", jnum(d, m->psi_io_some_s));
	add(d, o, "io_full_s", jnum(d, m->psi_io_full_s));
	add(d, o, "memory_some_s", jnum(d, m->psi_mem_some_s));
	add(d, o, "memory_full_s", jnum(d, m->psi_mem_full_s));
	return o;
}

static json_object *verdict_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_verdict *v = &r->verdict;
	json_object *o = jobj(d);
	add(d, o, "class", jtext(d, cpw_verdict_class_name(v->cls)));
	add(d, o, "confidence", jnum(d, v->confidence));
	json_object *ev = jarr(d);
	for (int i = 0; i < v->nevidence; i++) {
		const struct cpw_evidence *e = &v->evidence[i];
		json_object *item = jobj(d);
		add(d, item, "metric", jstr(d, e->metric));
		add(d, item, "value", jnum(d, e->value));
		add(d, item, "threshold", jnum(d, e->threshold));
		add(d, item, "source", jstr(d, e->source));
		add(d, item, "text", jstr(d, e->text));
		push(d, ev, item);
	}
	add(d, o, "evidence", ev);
	add(d, o, "secondary", v->secondary == CPW_CLASS_NONE ? NULL
					 : jtext(d, cpw_verdict_class_name(v->secondary)));
	json_object *findings = jarr(d);
	for (int i = 0; i < v->nfindings; i++)
		push(d, findings, jstr(d, v->findings[i]));
	add(d, o, "findings", findings);
	add(d, o, "advice", jstr(d, v->advice));
	return o;
}

/* Stands for the processes array in the document until it is written. */
#define PROCESSES_PLACEHOLDER "@cperfwatch-processes@"
#define TIMELINE_PLACEHOLDER "@cperfwatch-timeline@"
static bool stream_processes = true;

static json_object *process_object(struct cpw_json_doc *d, const struct cpw_proc *p)
{
	json_object *o = jobj(d);
	add(d, o, "pid", jsmall(d, p->pid));
	add(d, o, "ppid", jsmall(d, p->ppid));
	add(d, o, "command", jstr(d, p->comm));
	add(d, o, "user", p->user[0] ? jstr(d, p->user) : NULL);
	add(d, o, "cmdline", jstr(d, p->cmdline));
	add(d, o, "user_s", jnum(d, p->user_s));
	add(d, o, "sys_s", jnum(d, p->sys_s));
	add(d, o, "max_rss_kib", jint(d, p->max_rss_kib));
	add(d, o, "major_faults", jint(d, p->majflt));
	add(d, o, "minor_faults", jint(d, p->minflt));
	add(d, o, "voluntary_ctxsw", jint(d, p->vol_ctxsw));
	add(d, o, "involuntary_ctxsw", jint(d, p->invol_ctxsw));
	add(d, o, "read_bytes", jnum(d, p->read_bytes));
	add(d, o, "write_bytes", jnum(d, p->write_bytes));
	add(d, o, "oncpu_s", jnum(d, p->oncpu_s));
	add(d, o, "runqueue_wait_s", jnum(d, p->runq_wait_s));
	add(d, o, "threads", jsmall(d, p->nthreads));
	add(d, o, "first_seen_s", jnum(d, p->first_seen_s));
	add(d, o, "exited_s", jnum(d, p->exited_s));
	add(d, o, "alive", jbool(d, p->alive));
	add(d, o, "preexisting", jbool(d, p->preexisting));
	return o;
}

/* One budget: its limit and value for people ("limit", "value", as the text report shows
 * them) and as numbers whose key names the unit (limit_s and value_s, limit_kib and
 * value_kib; for --fail-on, limit_classes and value_class). */
static json_object *budget_object(struct cpw_json_doc *d, const struct cpw_budget_result *br)
{
	json_object *b = jobj(d);
	add(d, b, "name", jtext(d, br->name));
	add(d, b, "limit", jtext(d, br->limit));
	add(d, b, "value", jtext(d, br->value));
	switch (br->unit) {
	case CPW_BUDGET_SECONDS:
	case CPW_BUDGET_KIB: {
		const char *unit = br->unit == CPW_BUDGET_SECONDS ? "s" : "kib";
		char key[16];
		snprintf(key, sizeof(key), "limit_%s", unit);
		add(d, b, key, jnum(d, br->limit_num));
		snprintf(key, sizeof(key), "value_%s", unit);
		add(d, b, key, jnum(d, br->value_num));
		break;
	}
	case CPW_BUDGET_CLASS: {
		json_object *classes = jarr(d);
		for (int c = 0; c < CPW_CLASS_COUNT; c++)
			if (br->limit_classes & (1u << c))
				push(d, classes, jtext(d, cpw_verdict_class_name((enum cpw_class)c)));
		add(d, b, "limit_classes", classes);
		add(d, b, "value_class", br->value_class >= 0 ? jtext(d, cpw_verdict_class_name((enum cpw_class)br->value_class))
							     : NULL);
		break;
	}
	}
	add(d, b, "result", jtext(d, br->broken ? "broken" : "ok"));
	return b;
}

static json_object *timeline_object(struct cpw_json_doc *d, const struct cpw_report *r)
{
	return cpw_json_value_need(d, cpw_phases_report_timeline_to_json(r->timeline, r->cfg->interval_ms / 1000.0));
}

static json_object *build(struct cpw_json_doc *d, const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *root = jobj(d);

	add(d, root, "schema", jtext(d, "cperfwatch/1"));
	add(d, root, "version", jtext(d, PACKAGE_VERSION));
	add(d, root, "mode", jtext(d, r->mode == CPW_MODE_RUN ? "run" : "attach"));
	json_object *cmd = jarr(d);
	if (r->mode == CPW_MODE_RUN) {
		for (int i = 0; i < r->cfg->command_argc; i++)
			push(d, cmd, jstr(d, r->cfg->command[i]));
	} else if (r->tree) {
		const struct cpw_proc *p = cpw_tree_find(r->tree, r->pid);
		if (p)
			push(d, cmd, jstr(d, p->cmdline[0] ? p->cmdline : p->comm));
	}
	add(d, root, "command", cmd);
	add(d, root, "pid", jsmall(d, r->pid));
	/* Which process of a job this is, for cperfwatch --merge (util/outname.c). */
	add(d, root, "host", r->cfg->host ? jstr(d, r->cfg->host) : NULL);
	add(d, root, "rank", r->cfg->rank >= 0 ? jsmall(d, r->cfg->rank) : NULL);

	if (r->exit_known) {
		json_object *e = jobj(d);
		add(d, e, "code", r->exit_signal ? NULL : jsmall(d, r->exit_code));
		add(d, e, "signal", r->exit_signal ? jsmall(d, r->exit_signal) : NULL);
		add(d, root, "exit", e);
	} else {
		add(d, root, "exit", NULL);
	}
	add(d, root, "time", time_object(d, r));
	add(d, root, "memory", memory_object(d, r));
	json_object *cs = jobj(d);
	add(d, cs, "voluntary", jint(d, m->vol_ctxsw));
	add(d, cs, "involuntary", jint(d, m->invol_ctxsw));
	add(d, root, "context_switches", cs);
	add(d, root, "io", io_object(d, r));
	add(d, root, "threads", threads_object(d, r));
	json_object *par = jobj(d);
	add(d, par, "cores_used", jnum(d, m->cores_used));
	add(d, par, "cores_available", jnum(d, m->cores_usable));
	add(d, root, "parallelism", par);
	add(d, root, "pressure", pressure_object(d, r));
	if (r->mode == CPW_MODE_RUN && r->rusage_known) {
		json_object *ru = jobj(d);
		add(d, ru, "user_s", jnum(d, tv_seconds(r->ru.ru_utime)));
		add(d, ru, "sys_s", jnum(d, tv_seconds(r->ru.ru_stime)));
		add(d, ru, "max_rss_kib", jint(d, (uint64_t)r->ru.ru_maxrss));
		add(d, ru, "major_faults", jint(d, (uint64_t)r->ru.ru_majflt));
		add(d, ru, "minor_faults", jint(d, (uint64_t)r->ru.ru_minflt));
		add(d, ru, "voluntary_ctxsw", jint(d, (uint64_t)r->ru.ru_nvcsw));
		add(d, ru, "involuntary_ctxsw", jint(d, (uint64_t)r->ru.ru_nivcsw));
		add(d, ru, "fs_inputs", jint(d, (uint64_t)r->ru.ru_inblock));
		add(d, ru, "fs_outputs", jint(d, (uint64_t)r->ru.ru_oublock));
		add(d, ru, "signals", jint(d, (uint64_t)r->ru.ru_nsignals));
		add(d, root, "rusage", ru);
	}
	add(d, root, "descendants_running", jsmall(d, (int)r->descendants_running));
	/* The other writers' parts are NULL only where they ran out of memory (the waits
	 * also where there are none). */
	add(d, root, "counters", cpw_json_value_need(d, r->counters ? cpw_counters_report_to_json(r->counters)
							     : json_object_new_object()));
	add(d, root, "derived", cpw_json_value_need(d, r->counters ? cpw_counters_report_derived_json(r->counters)
							    : json_object_new_object()));
	add(d, root, "waits", r->waits ? cpw_json_value_need(d, cpw_waits_report_to_json(r->waits)) : NULL);
	add(d, root, "verdict", verdict_object(d, r));
	add(d, root, "phases", cpw_json_value_need(d, cpw_phases_report_to_json(&r->phases)));
	add(d, root, "hotspots", r->hotspots ? cpw_json_value_need(d, cpw_hotspots_report_to_json(r->hotspots, &r->phases)) : NULL);
	/* Streamed too (a long run's columns held at once cost ~1 MB). */
	add(d, root, "timeline", stream_processes ? jtext(d, TIMELINE_PLACEHOLDER) : timeline_object(d, r));
	/* Written one process at a time by cpw_report_write_json(): a tree of 500 held as
	 * json-c objects next to its text costs ~2 MB of peak memory. */
	add(d, root, "processes", jtext(d, PROCESSES_PLACEHOLDER));
	json_object *budgets = jarr(d);
	for (int i = 0; i < r->nbudgets; i++)
		push(d, budgets, budget_object(d, &r->budgets[i]));
	add(d, root, "budgets", budgets);
	json_object *notes = jarr(d);
	for (int i = 0; i < r->nnotes; i++)
		push(d, notes, jstr(d, r->notes[i]));
	add(d, root, "notes", notes);
	return root;
}

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Writes text with every line after the first indented by indent (the nesting json-c would
 * have given it inside the document). */
static void put_indented(const char *text, const char *indent, FILE *out)
{
	for (const char *nl; (nl = strchr(text, '\n')); text = nl + 1) {
		fwrite(text, 1, (size_t)(nl + 1 - text), out);
		fputs(indent, out);
	}
	fputs(text, out);
}

/* The "timeline" object, as json-c prints it at the top level of the document, member by
 * member; false where memory ran out (d failed). */
static bool write_timeline(struct cpw_json_doc *d, const struct cpw_report *r, FILE *out)
{
	size_t n = cpw_phases_report_timeline_json_members();
	fputs("{\n", out);
	for (size_t i = 0; i < n && !d->failed; i++) {
		const char *key;
		json_object *v = cpw_phases_report_timeline_json_member(r->timeline, r->cfg->interval_ms / 1000.0, i, &key);
		const char *text = cpw_json_value_need(d, v) ? cpw_json_value_text(d, v, JSON_FLAGS) : NULL;
		if (text) {
			fprintf(out, "    \"%s\": ", key);
			put_indented(text, "    ", out);
			fputs(i + 1 < n ? ",\n" : "\n", out);
		}
		json_object_put(v);
	}
	fputs("  }", out);
	return !d->failed;
}

/* The "processes" array, as json-c prints it at the top level of the document; false
 * where memory ran out (d failed). */
static bool write_processes(struct cpw_json_doc *d, const struct cpw_report *r, FILE *out)
{
	size_t n = r->tree ? cpw_tree_size(r->tree) : 0;
	fputs("[\n", out);
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_object *o = process_object(d, cpw_tree_proc(r->tree, i));
		const char *text = d->failed ? NULL : cpw_json_value_text(d, o, JSON_FLAGS);
		if (text) {
			fputs("    ", out);
			put_indented(text, "    ", out);
			fputs(i + 1 < n ? ",\n" : "\n", out);
		}
		json_object_put(o);
	}
	fputs("  ]", out);
	return !d->failed;
}

void cpw_report_json_stream_processes(bool stream)
{
	stream_processes = stream;
}

/* The placeholders as the values of their top-level keys in the document's text: a string
 * in the document cannot contain these unescaped key-and-quote sequences. */
#define TIMELINE_KEY "\"timeline\": "
#define PROCESSES_KEY "\"processes\": "
#define TIMELINE_AT TIMELINE_KEY "\"" TIMELINE_PLACEHOLDER "\""
#define PROCESSES_AT PROCESSES_KEY "\"" PROCESSES_PLACEHOLDER "\""

/* Writes the document's text with the timeline (at tl) and the processes (at pr, after
 * it) streamed in place of their placeholders; false where memory ran out (d failed). */
static bool write_streamed(struct cpw_json_doc *d, const struct cpw_report *r, const char *text,
			   const char *tl, const char *pr, FILE *out)
{
	const char *tl_value = tl + strlen(TIMELINE_KEY), *after_tl = tl + strlen(TIMELINE_AT);
	const char *pr_value = pr + strlen(PROCESSES_KEY);
	fwrite(text, 1, (size_t)(tl_value - text), out);
	if (!write_timeline(d, r, out))
		return false;
	fwrite(after_tl, 1, (size_t)(pr_value - after_tl), out);
	if (!write_processes(d, r, out))
		return false;
	fputs(pr + strlen(PROCESSES_AT), out);
	return true;
}

int cpw_report_write_json(const struct cpw_report *r, FILE *out)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	json_object *root = build(d, r);
	const char *text = d->failed ? NULL : cpw_json_value_text(d, root, JSON_FLAGS);
	const char *tl = text && stream_processes ? strstr(text, TIMELINE_AT) : NULL;
	const char *pr = text && stream_processes ? strstr(text, PROCESSES_AT) : NULL;
	errno = 0;
	if (tl && pr && tl < pr) {
		write_streamed(d, r, text, tl, pr, out);
	} else if (!d->failed) {
		/* A json-c that lays the keys out otherwise: build them in the document,
		 * whatever it costs in memory. */
		json_object *all = jarr(d);
		size_t n = r->tree ? cpw_tree_size(r->tree) : 0;
		for (size_t i = 0; i < n && !d->failed; i++)
			push(d, all, process_object(d, cpw_tree_proc(r->tree, i)));
		add(d, root, "timeline", timeline_object(d, r));
		add(d, root, "processes", all);
		text = d->failed ? NULL : cpw_json_value_text(d, root, JSON_FLAGS);
		if (text)
			fputs(text, out);
	}
	json_object_put(root);
	if (d->failed)
		return -ENOMEM; /* nothing, or part, was written: the caller says why in one line */
	return fputc('\n', out) == EOF || ferror(out) ? (errno ? -errno : -EIO) : 0;
}
