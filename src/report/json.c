/*
 * json.c: the report as one JSON document (schema "cperfwatch/1", doc/cperfwatch.schema.json),
 * written with json-c. A value that could not be measured is null, with the reason among
 * "notes"; never 0.
 */
#include "config.h"
#include "report/report.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "report/counters_report.h"
#include "report/phases_report.h"
#include "report/hotspots_report.h"
#include "report/waits_report.h"
#include "report/json_value.h"

static json_object *jint(uint64_t v) { return json_object_new_int64((int64_t)v); }

static void add(json_object *o, const char *key, json_object *v) { json_object_object_add(o, key, v); }

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static json_object *time_object(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = json_object_new_object();
	double cpu = m->user_s + m->sys_s;
	add(o, "wall_s", cpw_json_number(m->wall_s));
	add(o, "user_s", cpw_json_number(m->user_s));
	add(o, "sys_s", cpw_json_number(m->sys_s));
	add(o, "cpu_percent", cpw_json_number(cpw_known(m->wall_s) && m->wall_s > 0 ? 100 * cpu / m->wall_s : NAN));
	return o;
}

static json_object *memory_object(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = json_object_new_object();
	add(o, "max_rss_kib", cpw_json_number(m->max_rss_kib));
	add(o, "tree_peak_rss_kib", cpw_json_number(m->tree_peak_rss_kib));
	add(o, "tree_peak_kib", cpw_json_number(m->tree_peak_kib));
	add(o, "tree_peak_source", m->tree_peak_source[0] ? cpw_json_string(m->tree_peak_source) : NULL);
	add(o, "tree_peak_pss_kib", cpw_json_number(m->tree_peak_pss_kib));
	add(o, "major_faults", jint(m->major_faults));
	add(o, "minor_faults", jint(m->minor_faults));
	add(o, "refaults", cpw_json_number(m->refaults));
	add(o, "memory_limit_kib", cpw_json_number(m->memory_limit_kib));
	add(o, "cgroup_peak_kib", cpw_json_number(r->cgroup_mem_peak_kib)); /* page cache included */
	return o;
}

static json_object *io_object(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = json_object_new_object();
	add(o, "read_bytes", cpw_json_number(m->read_bytes));
	add(o, "write_bytes", cpw_json_number(m->write_bytes));
	if (r->mode == CPW_MODE_RUN && r->rusage_known) {
		add(o, "fs_inputs", jint(m->fs_inputs));
		add(o, "fs_outputs", jint(m->fs_outputs));
	} else {
		add(o, "fs_inputs", NULL);
		add(o, "fs_outputs", NULL);
	}
	return o;
}

static json_object *threads_object(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	struct cpw_thread_shares s;
	json_object *o = json_object_new_object();
	cpw_thread_shares(m, &s);
	add(o, "running", cpw_json_number(s.running));
	add(o, "runnable", cpw_json_number(s.runnable));
	add(o, "disk_wait", cpw_json_number(s.disk_wait));
	add(o, "uninterruptible_other", cpw_json_number(s.d_other));
	add(o, "sleeping", cpw_json_number(s.sleeping));
	add(o, "other", cpw_json_number(s.other));
	add(o, "samples", jint(m->samples));
	add(o, "thread_samples", jint(m->thread_samples));
	add(o, "interval_s", cpw_json_number(r->cfg->interval_ms / 1000.0));
	add(o, "oncpu_s", cpw_json_number(m->oncpu_s));
	add(o, "runqueue_wait_s", cpw_json_number(m->runq_wait_s));
	add(o, "avg_runnable", cpw_json_number(m->avg_runnable_threads));
	json_object *d = json_object_new_object();
	add(d, "enabled", json_object_new_boolean(m->delayacct_on));
	add(d, "blkio_s", cpw_json_number(m->blkio_delay_s));
	add(d, "swapin_s", cpw_json_number(m->swapin_delay_s));
	add(d, "thrashing_s", cpw_json_number(m->thrashing_delay_s));
	add(d, "reclaim_s", cpw_json_number(m->reclaim_delay_s));
	add(o, "delays", d);
	return o;
}

static json_object *pressure_object(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *o = json_object_new_object();
	add(o, "scope", json_object_new_string(m->psi_from_cgroup ? "cgroup" : "system"));
	add(o, "cpu_some_s", cpw_json_number(m->psi_cpu_some_s));
	add(o, "io_some_s", cpw_json_number(m->psi_io_some_s));
	add(o, "io_full_s", cpw_json_number(m->psi_io_full_s));
	add(o, "memory_some_s", cpw_json_number(m->psi_mem_some_s));
	add(o, "memory_full_s", cpw_json_number(m->psi_mem_full_s));
	return o;
}

static json_object *verdict_object(const struct cpw_report *r)
{
	const struct cpw_verdict *v = &r->verdict;
	json_object *o = json_object_new_object();
	add(o, "class", json_object_new_string(cpw_class_name(v->cls)));
	add(o, "confidence", cpw_json_number(v->confidence));
	json_object *ev = json_object_new_array();
	for (int i = 0; i < v->nevidence; i++) {
		const struct cpw_evidence *e = &v->evidence[i];
		json_object *item = json_object_new_object();
		add(item, "metric", cpw_json_string(e->metric));
		add(item, "value", cpw_json_number(e->value));
		add(item, "threshold", cpw_json_number(e->threshold));
		add(item, "source", cpw_json_string(e->source));
		add(item, "text", cpw_json_string(e->text));
		json_object_array_add(ev, item);
	}
	add(o, "evidence", ev);
	add(o, "secondary", v->secondary == CPW_CLASS_NONE ? NULL
					 : json_object_new_string(cpw_class_name(v->secondary)));
	json_object *findings = json_object_new_array();
	for (int i = 0; i < v->nfindings; i++)
		json_object_array_add(findings, cpw_json_string(v->findings[i]));
	add(o, "findings", findings);
	add(o, "advice", cpw_json_string(v->advice));
	return o;
}

/* Stands for the processes array in the document until it is written. */
#define PROCESSES_PLACEHOLDER "@cperfwatch-processes@"
#define TIMELINE_PLACEHOLDER "@cperfwatch-timeline@"
static bool stream_processes = true;

static json_object *process_object(const struct cpw_proc *p)
{
	json_object *o = json_object_new_object();
	add(o, "pid", json_object_new_int(p->pid));
	add(o, "ppid", json_object_new_int(p->ppid));
	add(o, "command", cpw_json_string(p->comm));
	add(o, "user", p->user[0] ? cpw_json_string(p->user) : NULL);
	add(o, "cmdline", cpw_json_string(p->cmdline));
	add(o, "user_s", cpw_json_number(p->user_s));
	add(o, "sys_s", cpw_json_number(p->sys_s));
	add(o, "max_rss_kib", jint(p->max_rss_kib));
	add(o, "major_faults", jint(p->majflt));
	add(o, "minor_faults", jint(p->minflt));
	add(o, "voluntary_ctxsw", jint(p->vol_ctxsw));
	add(o, "involuntary_ctxsw", jint(p->invol_ctxsw));
	add(o, "read_bytes", cpw_json_number(p->read_bytes));
	add(o, "write_bytes", cpw_json_number(p->write_bytes));
	add(o, "oncpu_s", cpw_json_number(p->oncpu_s));
	add(o, "runqueue_wait_s", cpw_json_number(p->runq_wait_s));
	add(o, "threads", json_object_new_int(p->nthreads));
	add(o, "first_seen_s", cpw_json_number(p->first_seen_s));
	add(o, "exited_s", cpw_json_number(p->exited_s));
	add(o, "alive", json_object_new_boolean(p->alive));
	add(o, "preexisting", json_object_new_boolean(p->preexisting));
	return o;
}

static json_object *build(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;
	json_object *root = json_object_new_object();

	add(root, "schema", json_object_new_string("cperfwatch/1"));
	add(root, "version", json_object_new_string(PACKAGE_VERSION));
	add(root, "mode", json_object_new_string(r->mode == CPW_MODE_RUN ? "run" : "attach"));
	json_object *cmd = json_object_new_array();
	if (r->mode == CPW_MODE_RUN) {
		for (int i = 0; i < r->cfg->command_argc; i++)
			json_object_array_add(cmd, cpw_json_string(r->cfg->command[i]));
	} else if (r->tree) {
		const struct cpw_proc *p = cpw_tree_find(r->tree, r->pid);
		if (p)
			json_object_array_add(cmd, cpw_json_string(p->cmdline[0] ? p->cmdline : p->comm));
	}
	add(root, "command", cmd);
	add(root, "pid", json_object_new_int(r->pid));
	/* Which process of a job this is, for cperfwatch --merge (util/outname.c). */
	add(root, "host", r->cfg->host ? cpw_json_string(r->cfg->host) : NULL);
	add(root, "rank", r->cfg->rank >= 0 ? json_object_new_int(r->cfg->rank) : NULL);

	if (r->exit_known) {
		json_object *e = json_object_new_object();
		add(e, "code", r->exit_signal ? NULL : json_object_new_int(r->exit_code));
		add(e, "signal", r->exit_signal ? json_object_new_int(r->exit_signal) : NULL);
		add(root, "exit", e);
	} else {
		add(root, "exit", NULL);
	}
	add(root, "time", time_object(r));
	add(root, "memory", memory_object(r));
	json_object *cs = json_object_new_object();
	add(cs, "voluntary", jint(m->vol_ctxsw));
	add(cs, "involuntary", jint(m->invol_ctxsw));
	add(root, "context_switches", cs);
	add(root, "io", io_object(r));
	add(root, "threads", threads_object(r));
	json_object *par = json_object_new_object();
	add(par, "cores_used", cpw_json_number(m->cores_used));
	add(par, "cores_available", cpw_json_number(m->cores_usable));
	add(root, "parallelism", par);
	add(root, "pressure", pressure_object(r));
	if (r->mode == CPW_MODE_RUN && r->rusage_known) {
		json_object *ru = json_object_new_object();
		add(ru, "user_s", cpw_json_number(tv_seconds(r->ru.ru_utime)));
		add(ru, "sys_s", cpw_json_number(tv_seconds(r->ru.ru_stime)));
		add(ru, "max_rss_kib", jint((uint64_t)r->ru.ru_maxrss));
		add(ru, "major_faults", jint((uint64_t)r->ru.ru_majflt));
		add(ru, "minor_faults", jint((uint64_t)r->ru.ru_minflt));
		add(ru, "voluntary_ctxsw", jint((uint64_t)r->ru.ru_nvcsw));
		add(ru, "involuntary_ctxsw", jint((uint64_t)r->ru.ru_nivcsw));
		add(ru, "fs_inputs", jint((uint64_t)r->ru.ru_inblock));
		add(ru, "fs_outputs", jint((uint64_t)r->ru.ru_oublock));
		add(ru, "signals", jint((uint64_t)r->ru.ru_nsignals));
		add(root, "rusage", ru);
	}
	add(root, "descendants_running", json_object_new_int((int)r->descendants_running));
	add(root, "counters", r->counters ? cpw_counters_to_json(r->counters) : json_object_new_object());
	add(root, "derived", r->counters ? cpw_counters_derived_json(r->counters) : json_object_new_object());
	add(root, "waits", cpw_waits_to_json(r->waits));
	add(root, "verdict", verdict_object(r));
	add(root, "phases", cpw_phases_to_json(&r->phases));
	add(root, "hotspots", cpw_hotspots_to_json(r->hotspots, &r->phases));
	/* Streamed too (a long run's columns held at once cost ~1 MB). */
	add(root, "timeline", stream_processes ? json_object_new_string(TIMELINE_PLACEHOLDER)
			      : cpw_timeline_to_json(r->timeline, r->cfg->interval_ms / 1000.0));
	/* Written one process at a time by cpw_report_write_json(): a tree of 500 held as
	 * json-c objects next to its text costs ~2 MB of peak memory. */
	add(root, "processes", json_object_new_string(PROCESSES_PLACEHOLDER));
	json_object *budgets = json_object_new_array();
	for (int i = 0; i < r->nbudgets; i++) {
		json_object *b = json_object_new_object();
		add(b, "name", json_object_new_string(r->budgets[i].name));
		add(b, "limit", json_object_new_string(r->budgets[i].limit));
		add(b, "value", json_object_new_string(r->budgets[i].value));
		add(b, "result", json_object_new_string(r->budgets[i].broken ? "broken" : "ok"));
		json_object_array_add(budgets, b);
	}
	add(root, "budgets", budgets);
	json_object *notes = json_object_new_array();
	for (int i = 0; i < r->nnotes; i++)
		json_object_array_add(notes, cpw_json_string(r->notes[i]));
	add(root, "notes", notes);
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
 * member. */
static void write_timeline(const struct cpw_report *r, FILE *out)
{
	size_t n = cpw_timeline_json_members();
	fputs("{\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *key;
		json_object *v = cpw_timeline_json_member(r->timeline, r->cfg->interval_ms / 1000.0, i, &key);
		fprintf(out, "    \"%s\": ", key);
		put_indented(v ? json_object_to_json_string_ext(v, JSON_FLAGS) : "null", "    ", out);
		fputs(i + 1 < n ? ",\n" : "\n", out);
		json_object_put(v);
	}
	fputs("  }", out);
}

/* The "processes" array, as json-c prints it at the top level of the document. */
static void write_processes(const struct cpw_report *r, FILE *out)
{
	size_t n = r->tree ? cpw_tree_size(r->tree) : 0;
	fputs("[\n", out);
	for (size_t i = 0; i < n; i++) {
		json_object *o = process_object(cpw_tree_proc(r->tree, i));
		fputs("    ", out);
		put_indented(json_object_to_json_string_ext(o, JSON_FLAGS), "    ", out);
		fputs(i + 1 < n ? ",\n" : "\n", out);
		json_object_put(o);
	}
	fputs("  ]", out);
}

void cpw_report_json_stream_processes(bool stream)
{
	stream_processes = stream;
}

int cpw_report_write_json(const struct cpw_report *r, FILE *out)
{
	json_object *root = build(r);
	const char *text = json_object_to_json_string_ext(root, JSON_FLAGS);
	/* The placeholders are the values of top-level keys: a string in the document cannot
	 * contain these unescaped key-and-quote sequences. The timeline comes first. */
	static const char tl_key[] = "\"timeline\": ", pr_key[] = "\"processes\": ";
	const char *tl = stream_processes ? strstr(text, "\"timeline\": \"" TIMELINE_PLACEHOLDER "\"") : NULL;
	const char *pr = stream_processes ? strstr(text, "\"processes\": \"" PROCESSES_PLACEHOLDER "\"") : NULL;
	errno = 0;
	if (tl && pr && tl < pr) {
		tl += strlen(tl_key);
		pr += strlen(pr_key);
		fwrite(text, 1, (size_t)(tl - text), out);
		write_timeline(r, out);
		tl += strlen("\"" TIMELINE_PLACEHOLDER "\"");
		fwrite(tl, 1, (size_t)(pr - tl), out);
		write_processes(r, out);
		fputs(pr + strlen("\"" PROCESSES_PLACEHOLDER "\""), out);
	} else {
		/* A json-c that lays the keys out otherwise: build them in the document,
		 * whatever it costs in memory. */
		json_object *all = json_object_new_array();
		size_t n = r->tree ? cpw_tree_size(r->tree) : 0;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(all, process_object(cpw_tree_proc(r->tree, i)));
		add(root, "timeline", cpw_timeline_to_json(r->timeline, r->cfg->interval_ms / 1000.0));
		add(root, "processes", all);
		fputs(json_object_to_json_string_ext(root, JSON_FLAGS), out);
	}
	int rc = fputc('\n', out) == EOF || ferror(out) ? (errno ? -errno : -EIO) : 0;
	json_object_put(root);
	return rc;
}
