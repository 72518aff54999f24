/*
 * job_judge.c: what a job's ranks say together (see job.h): totals, the job's verdict,
 * and imbalance: the straggler that finished last, the spread of CPU time across ranks,
 * and ranks that waited while the others computed.
 *
 * The thresholds are judgement, not measurement: a straggler is worth naming when it ran
 * at least 10% (and 50 ms) longer than the median rank, since below that the difference
 * is within what start-up and scheduling jitter give a job of identical ranks; CPU time
 * is unevenly divided when max - min exceeds a quarter of the mean; a rank waited when it
 * used less than half the cores the median other rank used, while that one used at least
 * half a core (else all of them were waiting, and the verdicts say so).
 */
#include "config.h"
#include "classify/job.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRAGGLER_MIN_SHARE 0.10
#define STRAGGLER_MIN_S 0.05
#define CPU_SPREAD_MIN 0.25
#define WAITING_CORES_RATIO 0.5
#define WAITING_OTHERS_MIN_CORES 0.5

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the known values of v[0..n) but skip (an index, or -1); NAN when none. */
static double median_but(const double *v, size_t n, long skip, double *scratch)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if ((long)i != skip && !isnan(v[i]))
			scratch[k++] = v[i];
	if (!k)
		return NAN;
	qsort(scratch, k, sizeof(*scratch), compare_doubles);
	return k % 2 ? scratch[k / 2] : (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
}

static double sum_known(double total, double v) { return isnan(v) ? total : (isnan(total) ? v : total + v); }

static void totals(struct cpw_job *job)
{
	job->wall_s = job->cpu_s = job->user_s = job->sys_s = NAN;
	job->peak_rss_kib = job->peak_rss_sum_kib = NAN;
	job->nhosts = 0;
	job->failed = 0;
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_job_rank *r = &job->ranks[i];
		if (!isnan(r->wall_s) && (isnan(job->wall_s) || r->wall_s > job->wall_s))
			job->wall_s = r->wall_s;
		job->cpu_s = sum_known(job->cpu_s, r->cpu_s);
		job->user_s = sum_known(job->user_s, r->user_s);
		job->sys_s = sum_known(job->sys_s, r->sys_s);
		if (!isnan(r->peak_rss_kib) && (isnan(job->peak_rss_kib) || r->peak_rss_kib > job->peak_rss_kib))
			job->peak_rss_kib = r->peak_rss_kib;
		job->peak_rss_sum_kib = sum_known(job->peak_rss_sum_kib, r->peak_rss_kib);
		if (r->exit_signal || r->exit_code > 0)
			job->failed++;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(job->ranks[j].host, r->host) == 0;
		if (!seen)
			job->nhosts++;
	}
}

/* The class most ranks have; mixed when no class has more than half of them. */
static void job_verdict(struct cpw_job *job)
{
	size_t count[CPW_CLASS_COUNT] = { 0 };
	for (size_t i = 0; i < job->nranks; i++)
		count[job->ranks[i].cls]++;
	size_t best = 0;
	for (size_t c = 1; c < CPW_CLASS_COUNT; c++)
		if (count[c] > count[best])
			best = c;
	job->cls_ranks = count[best];
	job->cls = job->nranks && 2 * count[best] > job->nranks ? (enum cpw_class)best
		 : (job->nranks ? CPW_CLASS_MIXED : CPW_CLASS_UNKNOWN);
}

static void finding(struct cpw_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding(struct cpw_job *job, const char *fmt, ...)
{
	va_list ap;
	if (job->nfindings >= CPW_JOB_FINDINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(job->findings[job->nfindings++], CPW_JOB_FINDING_LEN, fmt, ap);
	va_end(ap);
}

static void straggler(struct cpw_job *job, double *walls, double *scratch)
{
	long last = -1;
	for (size_t i = 0; i < job->nranks; i++)
		if (!isnan(walls[i]) && (last < 0 || walls[i] > walls[last]))
			last = (long)i;
	if (last < 0)
		return;
	double others = median_but(walls, job->nranks, last, scratch);
	job->median_wall_s = median_but(walls, job->nranks, -1, scratch);
	if (isnan(others))
		return;
	job->straggler = last;
	job->straggler_lead_s = walls[last] - others;
	job->straggler_named = job->straggler_lead_s >= STRAGGLER_MIN_S &&
			       job->straggler_lead_s >= STRAGGLER_MIN_SHARE * others;
	if (job->straggler_named) {
		char name[300];
		cpw_job_rank_name(&job->ranks[last], name, sizeof(name));
		finding(job, "straggler: %s finished last, %.2f s after the median other rank (%.2f s against "
			"%.2f s, +%.0f%%): the job waited for it", name, job->straggler_lead_s, walls[last], others,
			others > 0 ? 100 * job->straggler_lead_s / others : 0);
	}
}

static void cpu_spread(struct cpw_job *job)
{
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < job->nranks; i++) {
		double c = job->ranks[i].cpu_s;
		if (isnan(c))
			continue;
		if (job->cpu_min_i < 0 || c < job->ranks[job->cpu_min_i].cpu_s)
			job->cpu_min_i = (long)i;
		if (job->cpu_max_i < 0 || c > job->ranks[job->cpu_max_i].cpu_s)
			job->cpu_max_i = (long)i;
		sum += c;
		n++;
	}
	if (n < 2 || sum <= 0)
		return;
	job->cpu_mean_s = sum / (double)n;
	double lo = job->ranks[job->cpu_min_i].cpu_s, hi = job->ranks[job->cpu_max_i].cpu_s;
	job->cpu_spread = (hi - lo) / job->cpu_mean_s;
	if (job->cpu_spread > CPU_SPREAD_MIN) {
		char lo_name[300], hi_name[300];
		cpw_job_rank_name(&job->ranks[job->cpu_min_i], lo_name, sizeof(lo_name));
		cpw_job_rank_name(&job->ranks[job->cpu_max_i], hi_name, sizeof(hi_name));
		finding(job, "CPU time is unevenly divided: from %.2f s (%s) to %.2f s (%s), a spread of %.0f%% "
			"of the mean %.2f s", lo, lo_name, hi, hi_name, 100 * job->cpu_spread, job->cpu_mean_s);
	}
}

static void waiting(struct cpw_job *job, double *cores, double *scratch)
{
	for (size_t i = 0; i < job->nranks; i++) {
		double others = median_but(cores, job->nranks, (long)i, scratch);
		if (isnan(cores[i]) || isnan(others) || others < WAITING_OTHERS_MIN_CORES ||
		    cores[i] >= WAITING_CORES_RATIO * others)
			continue;
		if (job->nwaiting < (int)(sizeof(job->waiting) / sizeof(job->waiting[0])))
			job->waiting[job->nwaiting++] = (long)i;
		char name[300];
		cpw_job_rank_name(&job->ranks[i], name, sizeof(name));
		finding(job, "%s waited while the others computed: it used %.2f cores, the median other rank %.2f",
			name, cores[i], others);
	}
}

void cpw_job_judge(struct cpw_job *job)
{
	job->nfindings = job->nwaiting = 0;
	job->straggler = job->cpu_min_i = job->cpu_max_i = -1;
	job->straggler_lead_s = job->median_wall_s = job->cpu_mean_s = job->cpu_spread = NAN;
	totals(job);
	job_verdict(job);
	if (job->nranks < 2)
		return;
	double *walls = calloc(job->nranks * 3, sizeof(double));
	if (!walls)
		return; /* no findings rather than wrong ones */
	double *cores = walls + job->nranks, *scratch = cores + job->nranks;
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_job_rank *r = &job->ranks[i];
		walls[i] = r->wall_s;
		cores[i] = !isnan(r->cpu_s) && !isnan(r->wall_s) && r->wall_s > 0 ? r->cpu_s / r->wall_s : NAN;
	}
	straggler(job, walls, scratch);
	cpu_spread(job);
	waiting(job, cores, scratch);
	free(walls);
}
