/*
 * job.c: a job's ranks read from their cperfwatch/1 JSON reports (see job.h): the figures
 * the merge needs, and the refusal of what is not such a report.
 */
#include "config.h"
#include "classify/job.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpw_job_init(struct cpw_job *job)
{
	memset(job, 0, sizeof(*job));
	job->straggler = job->cpu_min_i = job->cpu_max_i = -1;
}

void cpw_job_free(struct cpw_job *job)
{
	free(job->ranks);
	job->ranks = NULL;
	job->nranks = job->cap = 0;
}

void cpw_job_note(struct cpw_job *job, const char *fmt, ...)
{
	va_list ap;
	if (job->nnotes >= CPW_JOB_NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(job->notes[job->nnotes++], CPW_JOB_NOTE_LEN, fmt, ap);
	va_end(ap);
}

void cpw_job_rank_name(const struct cpw_job_rank *r, char *buf, size_t len)
{
	if (r->rank >= 0 && r->host[0])
		snprintf(buf, len, "rank %d (%s)", r->rank, r->host);
	else if (r->rank >= 0)
		snprintf(buf, len, "rank %d", r->rank);
	else
		snprintf(buf, len, "%s", r->file);
}

/* The number at path a.b in o; NAN where absent, null, not a number or not finite (json-c
 * reads Infinity). */
static double number_at(json_object *o, const char *a, const char *b)
{
	json_object *v;
	if (!json_object_object_get_ex(o, a, &v))
		return NAN;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NAN;
	if (!v || (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)))
		return NAN;
	double d = json_object_get_double(v);
	return isfinite(d) ? d : NAN;
}

static const char *string_at(json_object *o, const char *a, const char *b)
{
	json_object *v;
	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void fill_rank(struct cpw_job_rank *r, json_object *doc)
{
	const char *host = string_at(doc, "host", NULL);
	snprintf(r->host, sizeof(r->host), "%s", host ? host : "");
	double rank = number_at(doc, "rank", NULL);
	r->rank = isfinite(rank) && rank >= 0 && rank < 1e9 ? (int)rank : -1;
	r->wall_s = number_at(doc, "time", "wall_s");
	r->user_s = number_at(doc, "time", "user_s");
	r->sys_s = number_at(doc, "time", "sys_s");
	r->cpu_s = isnan(r->user_s) || isnan(r->sys_s) ? NAN : r->user_s + r->sys_s;
	/* The rank's memory with shared pages counted once where the report has it; the RSS
	 * sum (a page shared by forked workers in each of them), or the largest process, of
	 * older reports. */
	r->peak_rss_kib = number_at(doc, "memory", "tree_peak_kib");
	if (isnan(r->peak_rss_kib))
		r->peak_rss_kib = number_at(doc, "memory", "tree_peak_rss_kib");
	if (isnan(r->peak_rss_kib))
		r->peak_rss_kib = number_at(doc, "memory", "max_rss_kib");
	const char *cls = string_at(doc, "verdict", "class");
	int c = cls ? cpw_class_from_name(cls) : -1;
	r->cls = c >= 0 ? (enum cpw_class)c : CPW_CLASS_UNKNOWN;
	double code = number_at(doc, "exit", "code"), sig = number_at(doc, "exit", "signal");
	r->exit_code = code >= 0 && code <= 255 ? (int)code : -1;
	r->exit_signal = sig >= 0 && sig <= 128 ? (int)sig : 0;
}

enum cpw_job_add cpw_job_add_report(struct cpw_job *job, const char *name, const char *text,
				    size_t len, char *why, size_t whylen)
{
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		snprintf(why, whylen, "%s: out of memory", name);
		return CPW_JOB_REFUSED;
	}
	json_object *doc = len ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	enum json_tokener_error err = len ? json_tokener_get_error(tok) : json_tokener_continue;
	json_tokener_free(tok);
	if (!doc && err == json_tokener_continue) {
		/* A report cut short (a rank killed while it wrote, a full disk): the rest of the
		 * job still says something. */
		cpw_job_note(job, "%s is cut short (not a whole JSON document): left out of the merge", name);
		return CPW_JOB_LEFT_OUT;
	}
	const char *schema = doc && json_object_is_type(doc, json_type_object) ? string_at(doc, "schema", NULL) : NULL;
	if (!schema || strncmp(schema, "cperfwatch/", 11) != 0) {
		snprintf(why, whylen, "%s is not a cperfwatch JSON report (write them with --json)", name);
		json_object_put(doc);
		return CPW_JOB_REFUSED;
	}
	if (strcmp(schema, "cperfwatch/1") != 0) {
		snprintf(why, whylen, "%s has schema '%.40s', which this cperfwatch does not know "
			 "(it reads cperfwatch/1)", name, schema);
		json_object_put(doc);
		return CPW_JOB_REFUSED;
	}
	if (job->nranks == job->cap) {
		size_t cap = job->cap ? job->cap * 2 : 16;
		struct cpw_job_rank *more = realloc(job->ranks, cap * sizeof(*more));
		if (!more) {
			snprintf(why, whylen, "%s: out of memory", name);
			json_object_put(doc);
			return CPW_JOB_REFUSED;
		}
		job->ranks = more;
		job->cap = cap;
	}
	struct cpw_job_rank *r = &job->ranks[job->nranks];
	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", name);
	fill_rank(r, doc);
	json_object_put(doc);
	/* The same rank twice (a file given twice, two jobs' reports in one glob) would count
	 * its figures twice and repeat its series: the first one stands. */
	for (size_t i = 0; r->rank >= 0 && i < job->nranks; i++)
		if (job->ranks[i].rank == r->rank && strcmp(job->ranks[i].host, r->host) == 0) {
			cpw_job_note(job, "%s is rank %d of %s again (as %s): left out of the merge", name,
				     r->rank, r->host[0] ? r->host : "an unnamed host", job->ranks[i].file);
			return CPW_JOB_LEFT_OUT;
		}
	job->nranks++;
	return CPW_JOB_ADDED;
}
