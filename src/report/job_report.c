/*
 * job_report.c: the merged job report (see job_report.h): totals, a table of the ranks
 * (host, rank, wall, CPU, peak memory, class), the job's verdict, the imbalance findings
 * and the notes. Unmeasured figures are N/A in text, null in JSON, absent in Prometheus.
 */
#include "config.h"
#include "report/job_report.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "report/exposition.h"
#include "report/report.h"
#include "report/json_value.h"

/* A figure for the text table, or N/A. */
static const char *fixed(double v, int decimals, char *buf, size_t len)
{
	if (isnan(v))
		return "N/A";
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static int write_text(const struct cpw_job *job, FILE *out)
{
	char a[32], b[32], c[32], safe[CPW_JOB_FINDING_LEN * 4];
	fprintf(out, "cperfwatch: job of %zu rank%s on %zu host%s\n", job->nranks, job->nranks == 1 ? "" : "s",
		job->nhosts, job->nhosts == 1 ? "" : "s");
	fprintf(out, "  Elapsed (wall clock) time of the slowest rank (s): %s\n", fixed(job->wall_s, 2, a, sizeof(a)));
	fprintf(out, "  CPU time of all ranks (s): %s (user %s, system %s)\n", fixed(job->cpu_s, 2, a, sizeof(a)),
		fixed(job->user_s, 2, b, sizeof(b)), fixed(job->sys_s, 2, c, sizeof(c)));
	fprintf(out, "  Peak memory of the largest rank (MiB): %s (all ranks' peaks summed: %s)\n",
		fixed(job->peak_rss_kib / 1024, 1, a, sizeof(a)), fixed(job->peak_rss_sum_kib / 1024, 1, b, sizeof(b)));
	if (job->failed)
		fprintf(out, "  Ranks whose command failed: %zu\n", job->failed);
	fprintf(out, "Verdict: %s (%zu of %zu ranks)\n\n", cpw_class_name(job->cls), job->cls_ranks, job->nranks);
	fprintf(out, "  %-16s %6s %9s %9s %10s  %s\n", "host", "rank", "wall s", "CPU s", "peak MiB", "class");
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_job_rank *r = &job->ranks[i];
		char rank[16], d[32];
		snprintf(rank, sizeof(rank), r->rank >= 0 ? "%d" : "-", r->rank);
		cpw_escape_for_terminal(r->host[0] ? r->host : "-", safe, sizeof(safe));
		fprintf(out, "  %-16s %6s %9s %9s %10s  %s%s\n", safe, rank, fixed(r->wall_s, 2, a, sizeof(a)),
			fixed(r->cpu_s, 2, b, sizeof(b)), fixed(r->peak_rss_kib / 1024, 1, d, sizeof(d)),
			cpw_class_name(r->cls), (long)i == job->straggler && job->straggler_named ? "  <- straggler" : "");
	}
	if (job->nfindings) {
		fputs("\nImbalance:\n", out);
		for (int i = 0; i < job->nfindings; i++) {
			cpw_escape_for_terminal(job->findings[i], safe, sizeof(safe));
			fprintf(out, "  - %s\n", safe);
		}
	}
	if (job->nnotes) {
		fputs("\nNotes:\n", out);
		for (int i = 0; i < job->nnotes; i++) {
			char note[CPW_JOB_NOTE_LEN * 4];
			cpw_escape_for_terminal(job->notes[i], note, sizeof(note));
			fprintf(out, "  - %s\n", note);
		}
	}
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

static json_object *rank_ref(const struct cpw_job *job, long i)
{
	if (i < 0)
		return NULL;
	const struct cpw_job_rank *r = &job->ranks[i];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "file", cpw_json_string(r->file));
	json_object_object_add(o, "host", r->host[0] ? cpw_json_string(r->host) : NULL);
	json_object_object_add(o, "rank", r->rank >= 0 ? json_object_new_int(r->rank) : NULL);
	return o;
}

static int write_json(const struct cpw_job *job, FILE *out)
{
	json_object *root = json_object_new_object(), *ranks = json_object_new_array();
	json_object_object_add(root, "schema", json_object_new_string("cperfwatch-job/1"));
	json_object_object_add(root, "version", json_object_new_string(PACKAGE_VERSION));
	json_object *t = json_object_new_object();
	json_object_object_add(t, "ranks", json_object_new_int64((int64_t)job->nranks));
	json_object_object_add(t, "hosts", json_object_new_int64((int64_t)job->nhosts));
	json_object_object_add(t, "wall_s", cpw_json_number(job->wall_s));
	json_object_object_add(t, "cpu_s", cpw_json_number(job->cpu_s));
	json_object_object_add(t, "user_s", cpw_json_number(job->user_s));
	json_object_object_add(t, "sys_s", cpw_json_number(job->sys_s));
	json_object_object_add(t, "peak_rss_kib", cpw_json_number(job->peak_rss_kib));
	json_object_object_add(t, "peak_rss_sum_kib", cpw_json_number(job->peak_rss_sum_kib));
	json_object_object_add(t, "failed_ranks", json_object_new_int64((int64_t)job->failed));
	json_object_object_add(root, "totals", t);
	json_object *v = json_object_new_object();
	json_object_object_add(v, "class", json_object_new_string(cpw_class_name(job->cls)));
	json_object_object_add(v, "ranks_with_class", json_object_new_int64((int64_t)job->cls_ranks));
	json_object_object_add(root, "verdict", v);
	json_object *imb = json_object_new_object();
	/* The slowest rank always; the straggler only where its lead is worth naming, as in
	 * the text (a rank 5% behind is no straggler). */
	json_object *s = rank_ref(job, job->straggler);
	if (s) {
		json_object_object_add(s, "wall_s", cpw_json_number(job->ranks[job->straggler].wall_s));
		json_object_object_add(s, "lead_s", cpw_json_number(job->straggler_lead_s));
	}
	json_object_object_add(imb, "slowest", s);
	json_object_object_add(imb, "straggler", s && job->straggler_named ? json_object_get(s) : NULL);
	json_object_object_add(imb, "median_wall_s", cpw_json_number(job->median_wall_s));
	json_object *cs = json_object_new_object();
	json_object_object_add(cs, "min", rank_ref(job, job->cpu_min_i));
	json_object_object_add(cs, "max", rank_ref(job, job->cpu_max_i));
	json_object_object_add(cs, "mean_s", cpw_json_number(job->cpu_mean_s));
	json_object_object_add(cs, "spread", cpw_json_number(job->cpu_spread));
	json_object_object_add(imb, "cpu", cs);
	json_object *w = json_object_new_array();
	for (int i = 0; i < job->nwaiting; i++)
		json_object_array_add(w, rank_ref(job, job->waiting[i]));
	json_object_object_add(imb, "waiting", w);
	json_object *f = json_object_new_array();
	for (int i = 0; i < job->nfindings; i++)
		json_object_array_add(f, cpw_json_string(job->findings[i]));
	json_object_object_add(imb, "findings", f);
	json_object_object_add(root, "imbalance", imb);
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_job_rank *r = &job->ranks[i];
		json_object *o = rank_ref(job, (long)i);
		json_object_object_add(o, "wall_s", cpw_json_number(r->wall_s));
		json_object_object_add(o, "cpu_s", cpw_json_number(r->cpu_s));
		json_object_object_add(o, "user_s", cpw_json_number(r->user_s));
		json_object_object_add(o, "sys_s", cpw_json_number(r->sys_s));
		json_object_object_add(o, "peak_rss_kib", cpw_json_number(r->peak_rss_kib));
		json_object_object_add(o, "class", json_object_new_string(cpw_class_name(r->cls)));
		json_object_object_add(o, "exit_code", r->exit_code >= 0 ? json_object_new_int(r->exit_code) : NULL);
		json_object_object_add(o, "exit_signal", r->exit_signal ? json_object_new_int(r->exit_signal) : NULL);
		json_object_array_add(ranks, o);
	}
	json_object_object_add(root, "ranks", ranks);
	json_object *notes = json_object_new_array();
	for (int i = 0; i < job->nnotes; i++)
		json_object_array_add(notes, cpw_json_string(job->notes[i]));
	json_object_object_add(root, "notes", notes);
	errno = 0;
	fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(root);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

/* The rank's labels, escaped: rank="2",host="node1"; a report without a rank is told by
 * its file instead (rank="",file="r.json"), so that no two series are the same. */
static void rank_labels(const struct cpw_job_rank *r, char *buf, size_t len)
{
	char host[200];
	cpw_expo_label_value(r->host, host, sizeof(host));
	if (r->rank >= 0) {
		snprintf(buf, len, "rank=\"%d\",host=\"%s\"", r->rank, host);
	} else {
		char file[200];
		cpw_expo_label_value(r->file, file, sizeof(file));
		snprintf(buf, len, "rank=\"\",file=\"%s\",host=\"%s\"", file, host);
	}
}

static double rank_wall(const struct cpw_job_rank *r) { return r->wall_s; }
static double rank_cpu(const struct cpw_job_rank *r) { return r->cpu_s; }
static double rank_rss_bytes(const struct cpw_job_rank *r) { return r->peak_rss_kib * 1024; }

/* One family with a sample per rank where figure() is known; nothing where none is. */
static void per_rank(struct cpw_expo *e, const struct cpw_job *job, const char *base, bool counter,
		     const char *unit, const char *help, double (*figure)(const struct cpw_job_rank *))
{
	bool any = false;
	for (size_t i = 0; i < job->nranks && !any; i++)
		any = !isnan(figure(&job->ranks[i]));
	if (!any)
		return;
	cpw_expo_family(e, base, counter, unit, help);
	for (size_t i = 0; i < job->nranks; i++) {
		double v = figure(&job->ranks[i]);
		char labels[512];
		if (isnan(v))
			continue;
		rank_labels(&job->ranks[i], labels, sizeof(labels));
		cpw_expo_sample(e, base, counter, labels, v);
	}
}

static int write_prometheus(const struct cpw_job *job, const struct cpw_config *cfg, FILE *out)
{
	struct cpw_expo e;
	cpw_expo_init(&e, out, CPW_EXPO_PROMETHEUS);
	cpw_expo_add_config_labels(&e, cfg);
	cpw_expo_gauge(&e, "cperfwatch_job_ranks", NULL, "Ranks merged into the job.", (double)job->nranks);
	cpw_expo_gauge(&e, "cperfwatch_job_wall_seconds", "seconds", "Wall-clock time of the slowest rank.",
		       job->wall_s);
	cpw_expo_counter(&e, "cperfwatch_job_cpu_seconds", "seconds", "User and system CPU time of all ranks.",
			 job->cpu_s);
	cpw_expo_gauge(&e, "cperfwatch_job_peak_rss_bytes", "bytes", "Peak resident set of the largest rank.",
		       isnan(job->peak_rss_kib) ? NAN : job->peak_rss_kib * 1024);
	cpw_expo_gauge(&e, "cperfwatch_job_failed_ranks", NULL, "Ranks whose command failed.", (double)job->failed);
	cpw_expo_gauge(&e, "cperfwatch_job_straggler_lead_seconds", "seconds",
		       "How much longer the slowest rank ran than the median other rank.", job->straggler_lead_s);
	cpw_expo_gauge(&e, "cperfwatch_job_cpu_spread_ratio", NULL,
		       "CPU time across ranks: (max - min) / mean.", job->cpu_spread);
	cpw_expo_family(&e, "cperfwatch_job_verdict", false, NULL, "What bounds the job (1 for its class).");
	for (int c = 0; c < CPW_CLASS_COUNT; c++) {
		char label[64];
		snprintf(label, sizeof(label), "class=\"%s\"", cpw_class_name((enum cpw_class)c));
		cpw_expo_sample(&e, "cperfwatch_job_verdict", false, label, job->cls == (enum cpw_class)c);
	}
	per_rank(&e, job, "cperfwatch_rank_wall_seconds", false, "seconds", "Wall-clock time of the rank.",
		 rank_wall);
	per_rank(&e, job, "cperfwatch_rank_cpu_seconds", true, "seconds", "User and system CPU time of the rank.",
		 rank_cpu);
	per_rank(&e, job, "cperfwatch_rank_peak_rss_bytes", false, "bytes", "Peak resident set of the rank.",
		 rank_rss_bytes);
	return cpw_expo_end(&e);
}

int cpw_job_report_write(const struct cpw_job *job, const struct cpw_config *cfg, FILE *out)
{
	errno = 0;
	switch (cfg->format) {
	case CPW_FORMAT_JSON:
		return write_json(job, out);
	case CPW_FORMAT_PROMETHEUS:
		return write_prometheus(job, cfg, out);
	default:
		return write_text(job, out);
	}
}
