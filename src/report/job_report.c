/*
 * job_report.c: the merged job report (see job_report.h): totals, a table of the ranks
 * (host, rank, wall, CPU, peak memory, class), the job's verdict, the imbalance findings
 * and the notes. Unmeasured figures are N/A in text, null in JSON, absent in Prometheus.
 *
 * JSON: every json-c result is checked, since each can fail for want of memory; the
 * document is then not written and the caller says so in one line. Prometheus: no two
 * series of a family ever have the same labels (node_exporter and the Pushgateway refuse
 * the whole exposition): a rank is told by its rank and host, a report without a rank by
 * its file, and a file name too long to keep whole by its tail and a hash of all of it.
 */
#include "config.h"
#include "report/job_report.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
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
	fprintf(out, "Verdict: %s (%zu of %zu ranks)\n\n", cpw_verdict_class_name(job->cls), job->cls_ranks, job->nranks);
	fprintf(out, "  %-16s %6s %9s %9s %10s  %s\n", "host", "rank", "wall s", "CPU s", "peak MiB", "class");
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_job_rank *r = &job->ranks[i];
		char rank[16], d[32];
		snprintf(rank, sizeof(rank), r->said.rank >= 0 ? "%d" : "-", r->said.rank);
		cpw_escape_for_terminal(r->said.host[0] ? r->said.host : "-", safe, sizeof(safe));
		fprintf(out, "  %-16s %6s %9s %9s %10s  %s%s\n", safe, rank, fixed(r->said.wall_s, 2, a, sizeof(a)),
			fixed(r->said.cpu_s, 2, b, sizeof(b)), fixed(r->said.peak_kib / 1024, 1, d, sizeof(d)),
			cpw_verdict_class_name(r->cls), (long)i == job->straggler && job->straggler_named ? "  <- straggler" : "");
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

/* A JSON document under construction: every json-c result checked. A value that could not
 * be made sets oom (a NULL that is no JSON null); adding to an object or array that could
 * not be made drops the value. */
struct doc {
	bool oom;
};

static json_object *made(struct doc *d, json_object *v)
{
	if (!v)
		d->oom = true;
	return v;
}

static json_object *new_object(struct doc *d) { return made(d, json_object_new_object()); }
static json_object *new_array(struct doc *d) { return made(d, json_object_new_array()); }
static json_object *new_text(struct doc *d, const char *s) { return made(d, cpw_json_value_string(s)); }
static json_object *new_count(struct doc *d, int64_t v) { return made(d, json_object_new_int64(v)); }

/* A figure, null where unknown. */
static json_object *new_figure(struct doc *d, double v)
{
	return isfinite(v) ? made(d, cpw_json_value_number(v)) : NULL;
}

/* Adds v (NULL: JSON null) to o as key. */
static void put(struct doc *d, json_object *o, const char *key, json_object *v)
{
	if (o && json_object_object_add(o, key, v) == 0)
		return;
	json_object_put(v);
	d->oom = true;
}

static void append(struct doc *d, json_object *a, json_object *v)
{
	if (a && json_object_array_add(a, v) == 0)
		return;
	json_object_put(v);
	d->oom = true;
}

static json_object *rank_ref(struct doc *d, const struct cpw_job *job, long i)
{
	if (i < 0)
		return NULL;
	const struct cpw_job_rank *r = &job->ranks[i];
	json_object *o = new_object(d);
	put(d, o, "file", new_text(d, r->said.file));
	put(d, o, "host", r->said.host[0] ? new_text(d, r->said.host) : NULL);
	put(d, o, "rank", r->said.rank >= 0 ? new_count(d, r->said.rank) : NULL);
	return o;
}

static json_object *json_totals(struct doc *d, const struct cpw_job *job)
{
	json_object *t = new_object(d);
	put(d, t, "ranks", new_count(d, (int64_t)job->nranks));
	put(d, t, "hosts", new_count(d, (int64_t)job->nhosts));
	put(d, t, "wall_s", new_figure(d, job->wall_s));
	put(d, t, "cpu_s", new_figure(d, job->cpu_s));
	put(d, t, "user_s", new_figure(d, job->user_s));
	put(d, t, "sys_s", new_figure(d, job->sys_s));
	put(d, t, "peak_rss_kib", new_figure(d, job->peak_rss_kib));
	put(d, t, "peak_rss_sum_kib", new_figure(d, job->peak_rss_sum_kib));
	put(d, t, "failed_ranks", new_count(d, (int64_t)job->failed));
	return t;
}

static json_object *json_imbalance(struct doc *d, const struct cpw_job *job)
{
	json_object *imb = new_object(d);
	/* The slowest rank always; the straggler only where its lead is worth naming, as in
	 * the text (a rank 5% behind is no straggler). */
	json_object *s = rank_ref(d, job, job->straggler);
	if (s) {
		put(d, s, "wall_s", new_figure(d, job->ranks[job->straggler].said.wall_s));
		put(d, s, "lead_s", new_figure(d, job->straggler_lead_s));
	}
	put(d, imb, "slowest", s);
	put(d, imb, "straggler", s && job->straggler_named ? json_object_get(s) : NULL);
	put(d, imb, "median_wall_s", new_figure(d, job->median_wall_s));
	json_object *cs = new_object(d);
	put(d, cs, "min", rank_ref(d, job, job->cpu_min_i));
	put(d, cs, "max", rank_ref(d, job, job->cpu_max_i));
	put(d, cs, "mean_s", new_figure(d, job->cpu_mean_s));
	put(d, cs, "spread", new_figure(d, job->cpu_spread));
	put(d, imb, "cpu", cs);
	json_object *w = new_array(d);
	for (int i = 0; i < job->nwaiting; i++)
		append(d, w, rank_ref(d, job, job->waiting[i]));
	put(d, imb, "waiting", w);
	put(d, imb, "waiting_ranks", new_count(d, (int64_t)job->waiting_ranks));
	json_object *f = new_array(d);
	for (int i = 0; i < job->nfindings; i++)
		append(d, f, new_text(d, job->findings[i]));
	put(d, imb, "findings", f);
	return imb;
}

static json_object *json_ranks(struct doc *d, const struct cpw_job *job)
{
	json_object *ranks = new_array(d);
	for (size_t i = 0; i < job->nranks && !d->oom; i++) {
		const struct cpw_rank_report *r = &job->ranks[i].said;
		json_object *o = rank_ref(d, job, (long)i);
		put(d, o, "wall_s", new_figure(d, r->wall_s));
		put(d, o, "cpu_s", new_figure(d, r->cpu_s));
		put(d, o, "user_s", new_figure(d, r->user_s));
		put(d, o, "sys_s", new_figure(d, r->sys_s));
		put(d, o, "peak_rss_kib", new_figure(d, r->peak_kib));
		put(d, o, "class", new_text(d, cpw_verdict_class_name(job->ranks[i].cls)));
		put(d, o, "exit_code", r->exit_code >= 0 ? new_count(d, r->exit_code) : NULL);
		put(d, o, "exit_signal", r->exit_signal ? new_count(d, r->exit_signal) : NULL);
		append(d, ranks, o);
	}
	return ranks;
}

static int write_json(const struct cpw_job *job, FILE *out)
{
	struct doc d = { false };
	json_object *root = new_object(&d);
	put(&d, root, "schema", new_text(&d, "cperfwatch-job/1"));
	put(&d, root, "version", new_text(&d, PACKAGE_VERSION));
	put(&d, root, "totals", json_totals(&d, job));
	json_object *v = new_object(&d);
	put(&d, v, "class", new_text(&d, cpw_verdict_class_name(job->cls)));
	put(&d, v, "ranks_with_class", new_count(&d, (int64_t)job->cls_ranks));
	put(&d, root, "verdict", v);
	put(&d, root, "imbalance", json_imbalance(&d, job));
	put(&d, root, "ranks", json_ranks(&d, job));
	json_object *notes = new_array(&d);
	for (int i = 0; i < job->nnotes; i++)
		append(&d, notes, new_text(&d, job->notes[i]));
	put(&d, root, "notes", notes);
	json_object *lo = new_object(&d);
	put(&d, lo, "cut_short", new_count(&d, (int64_t)job->left_out[CPW_JOB_CUT_SHORT]));
	put(&d, lo, "again", new_count(&d, (int64_t)job->left_out[CPW_JOB_AGAIN]));
	put(&d, root, "left_out", lo);
	const char *text = d.oom ? NULL : json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_SPACED |
									 JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = 0;
	if (!text) {
		rc = -ENOMEM;
	} else {
		errno = 0;
		fputs(text, out);
		fputc('\n', out);
		rc = ferror(out) ? (errno ? -errno : -EIO) : 0;
	}
	json_object_put(root);
	return rc;
}

/* A file name kept whole in a label up to this many bytes; past it, its tail and a hash. */
#define LABEL_FILE_MAX 200
#define LABEL_TAIL 120

/* The value that tells r from the other ranks (its file where it has no rank, else its
 * host), for a label: whole where short, else "...TAIL #HASH", the tail starting at a
 * character, the hash of the whole name. hashed forces the second form. */
static void telling_name(const struct cpw_job_rank *r, bool hashed, char *buf, size_t len)
{
	const char *name = r->said.rank >= 0 ? r->said.host : r->said.file;
	size_t n = strlen(name);
	if (!hashed && n <= LABEL_FILE_MAX) {
		snprintf(buf, len, "%s", name);
		return;
	}
	const char *tail = name + (n > LABEL_TAIL ? n - LABEL_TAIL : 0);
	while (tail > name && ((unsigned char)*tail & 0xc0) == 0x80)
		tail--; /* not inside a UTF-8 sequence */
	snprintf(buf, len, "%s%s #%016" PRIx64, tail > name ? "..." : "", tail, cpw_job_hash(name, CPW_JOB_HASH_START));
}

/* The rank's labels, escaped: rank="2",host="node1"; a report without a rank is told by
 * its file instead (rank="",file="r.json",host=""). malloc'ed; NULL when out of memory. */
static char *rank_labels(const struct cpw_job_rank *r, bool hashed)
{
	/* The escaper writes at most 5 bytes (\\xNN) per byte of what it is given: room for
	 * 8, so that nothing is cut. */
	char name[LABEL_FILE_MAX + 64], esc[8 * sizeof(name)];
	telling_name(r, hashed, name, sizeof(name));
	cpw_exposition_label_value(name, esc, sizeof(esc));
	char *labels = NULL;
	int rc;
	if (r->said.rank >= 0) {
		rc = asprintf(&labels, "rank=\"%d\",host=\"%s\"", r->said.rank, esc);
	} else {
		char host[8 * (CPW_JOB_READ_HOST_MAX + 1)];
		cpw_exposition_label_value(r->said.host, host, sizeof(host));
		rc = asprintf(&labels, "rank=\"\",file=\"%s\",host=\"%s\"", esc, host);
	}
	return rc < 0 ? NULL : labels;
}

struct labelled {
	char *labels;
	size_t rank;
};

static int compare_labelled(const void *a, const void *b)
{
	const struct labelled *x = a, *y = b;
	int c = strcmp(x->labels, y->labels);
	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Marks in same[] the ranks whose labels (sorted in l) another rank has too; how many. */
static size_t mark_same(const struct labelled *l, size_t n, bool *same)
{
	size_t count = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(l[i].labels, l[i + 1].labels) == 0) {
			count += !same[l[i].rank] + !same[l[i + 1].rank];
			same[l[i].rank] = same[l[i + 1].rank] = true;
		}
	return count;
}

static void free_labels(char **labels, size_t n)
{
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
}

/* Each rank's labels, none the same as another's: where two escaped names come out the
 * same (names cut, or bytes the escaper writes alike), both are told by their tail and the
 * hash of their whole name. 0, -ENOMEM, or -EEXIST where even the hashes are the same. */
static int unique_labels(const struct cpw_job *job, char ***out)
{
	size_t n = job->nranks;
	char **labels = calloc(n ? n : 1, sizeof(*labels));
	struct labelled *l = calloc(n ? n : 1, sizeof(*l));
	bool *same = calloc(n ? n : 1, sizeof(*same));
	int rc = labels && l && same ? 0 : -ENOMEM;
	for (int round = 0; rc == 0 && round < 2; round++) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (round && !same[i])
				continue;
			free(labels[i]);
			labels[i] = rank_labels(&job->ranks[i], round > 0);
			if (!labels[i])
				rc = -ENOMEM;
		}
		for (size_t i = 0; i < n && rc == 0; i++)
			l[i] = (struct labelled){ labels[i], i };
		if (rc != 0)
			break;
		qsort(l, n, sizeof(*l), compare_labelled);
		memset(same, 0, n * sizeof(*same));
		if (!mark_same(l, n, same))
			break;
		if (round)
			rc = -EEXIST;
	}
	free(l);
	free(same);
	if (rc != 0) {
		free_labels(labels, n);
		labels = NULL;
	}
	*out = labels;
	return rc;
}

static double rank_wall(const struct cpw_job_rank *r) { return r->said.wall_s; }
static double rank_cpu(const struct cpw_job_rank *r) { return r->said.cpu_s; }
static double rank_rss_bytes(const struct cpw_job_rank *r) { return r->said.peak_kib * 1024; }

/* One family with a sample per rank where figure() is known; nothing where none is. */
static void per_rank(struct cpw_expo *e, const struct cpw_job *job, char *const *labels, const char *base,
		     bool counter, const char *unit, const char *help, double (*figure)(const struct cpw_job_rank *))
{
	bool any = false;
	for (size_t i = 0; i < job->nranks && !any; i++)
		any = !isnan(figure(&job->ranks[i]));
	if (!any)
		return;
	cpw_exposition_family(e, base, counter, unit, help);
	for (size_t i = 0; i < job->nranks; i++) {
		double v = figure(&job->ranks[i]);
		if (!isnan(v))
			cpw_exposition_sample(e, base, counter, labels[i], v);
	}
}

static int write_prometheus(const struct cpw_job *job, const struct cpw_config *cfg, FILE *out)
{
	char **labels;
	int rc = unique_labels(job, &labels);
	if (rc != 0)
		return rc;
	struct cpw_expo e;
	cpw_exposition_init(&e, out, CPW_EXPO_PROMETHEUS);
	cpw_exposition_add_config_labels(&e, cfg);
	cpw_exposition_gauge(&e, "cperfwatch_job_ranks", NULL, "Ranks merged into the job.", (double)job->nranks);
	cpw_exposition_gauge(&e, "cperfwatch_job_wall_seconds", "seconds", "Wall-clock time of the slowest rank.",
		       job->wall_s);
	cpw_exposition_counter(&e, "cperfwatch_job_cpu_seconds", "seconds", "User and system CPU time of all ranks.",
			 job->cpu_s);
	cpw_exposition_gauge(&e, "cperfwatch_job_peak_rss_bytes", "bytes", "Peak resident set of the largest rank.",
		       isnan(job->peak_rss_kib) ? NAN : job->peak_rss_kib * 1024);
	cpw_exposition_gauge(&e, "cperfwatch_job_failed_ranks", NULL, "Ranks whose command failed.", (double)job->failed);
	cpw_exposition_gauge(&e, "cperfwatch_job_straggler_lead_seconds", "seconds",
		       "How much longer the slowest rank ran than the median other rank.", job->straggler_lead_s);
	cpw_exposition_gauge(&e, "cperfwatch_job_cpu_spread_ratio", NULL,
		       "CPU time across ranks: (max - min) / mean.", job->cpu_spread);
	cpw_exposition_family(&e, "cperfwatch_job_verdict", false, NULL, "What bounds the job (1 for its class).");
	for (int c = 0; c < CPW_CLASS_COUNT; c++) {
		char label[64];
		snprintf(label, sizeof(label), "class=\"%s\"", cpw_verdict_class_name((enum cpw_class)c));
		cpw_exposition_sample(&e, "cperfwatch_job_verdict", false, label, job->cls == (enum cpw_class)c);
	}
	per_rank(&e, job, labels, "cperfwatch_rank_wall_seconds", false, "seconds", "Wall-clock time of the rank.",
		 rank_wall);
	per_rank(&e, job, labels, "cperfwatch_rank_cpu_seconds", true, "seconds",
		 "User and system CPU time of the rank.", rank_cpu);
	per_rank(&e, job, labels, "cperfwatch_rank_peak_rss_bytes", false, "bytes", "Peak resident set of the rank.",
		 rank_rss_bytes);
	free_labels(labels, job->nranks);
	return cpw_exposition_end(&e);
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
