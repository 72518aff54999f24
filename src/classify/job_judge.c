/*
 * job_judge.c: what a job's ranks say together (see job.h): totals, the job's verdict,
 * and imbalance: the straggler that finished last, the spread of CPU time across ranks,
 * and ranks that waited while the others computed. The thresholds are the job_* entries
 * of the thresholds table (classify/thresholds.c), judgement rather than measurement.
 *
 * O(n log n) in the ranks: each figure is sorted once, and the median of all ranks but
 * one is read off the sorted figures (leaving one out moves the middle by at most one
 * place), so a job of 100,000 ranks is judged in a fraction of a second.
 */
#include "config.h"
#include "classify/job.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/thresholds.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The known values of v[0..n) into out, sorted; how many. */
static size_t sorted_known(const double *v, size_t n, double *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			out[k++] = v[i];
	qsort(out, k, sizeof(*out), compare_doubles);
	return k;
}

/* The median of the sorted s[0..k) less one value equal to skip (one of them; NAN to
 * leave none out); NAN when none is left. */
static double median_without(const double *s, size_t k, double skip)
{
	size_t gap = k; /* the place left out: past the end when none */
	if (!isnan(skip)) {
		size_t lo = 0, hi = k;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s[mid] < skip)
				lo = mid + 1;
			else
				hi = mid;
		}
		gap = lo;
		k--;
	}
	if (!k)
		return NAN;
#define AT(j) ((j) < gap ? s[(j)] : s[(j) + 1])
	return k % 2 ? AT(k / 2) : (AT(k / 2 - 1) + AT(k / 2)) / 2;
#undef AT
}

static double sum_known(double total, double v) { return isnan(v) ? total : (isnan(total) ? v : total + v); }

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* hosts: room for a pointer per rank, for counting the hosts by sorting their names. */
static void totals(struct cpw_job *job, const char **hosts)
{
	job->wall_s = job->cpu_s = job->user_s = job->sys_s = NAN;
	job->peak_rss_kib = job->peak_rss_sum_kib = NAN;
	job->nhosts = 0;
	job->failed = 0;
	for (size_t i = 0; i < job->nranks; i++) {
		const struct cpw_rank_report *r = &job->ranks[i].said;
		if (!isnan(r->wall_s) && (isnan(job->wall_s) || r->wall_s > job->wall_s))
			job->wall_s = r->wall_s;
		job->cpu_s = sum_known(job->cpu_s, r->cpu_s);
		job->user_s = sum_known(job->user_s, r->user_s);
		job->sys_s = sum_known(job->sys_s, r->sys_s);
		if (!isnan(r->peak_kib) && (isnan(job->peak_rss_kib) || r->peak_kib > job->peak_rss_kib))
			job->peak_rss_kib = r->peak_kib;
		job->peak_rss_sum_kib = sum_known(job->peak_rss_sum_kib, r->peak_kib);
		if (r->exit_signal || r->exit_code > 0)
			job->failed++;
		hosts[i] = r->host;
	}
	qsort(hosts, job->nranks, sizeof(*hosts), compare_strings);
	for (size_t i = 0; i < job->nranks; i++)
		if (i == 0 || strcmp(hosts[i - 1], hosts[i]) != 0)
			job->nhosts++;
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

static void straggler(struct cpw_job *job, const double *walls, double *sorted)
{
	long last = -1;
	for (size_t i = 0; i < job->nranks; i++)
		if (!isnan(walls[i]) && (last < 0 || walls[i] > walls[last]))
			last = (long)i;
	if (last < 0)
		return;
	size_t k = sorted_known(walls, job->nranks, sorted);
	double others = median_without(sorted, k, walls[last]);
	job->median_wall_s = median_without(sorted, k, NAN);
	if (isnan(others))
		return;
	job->straggler = last;
	job->straggler_lead_s = walls[last] - others;
	job->straggler_named = job->straggler_lead_s >= cpw_threshold(CPW_T_JOB_STRAGGLER_MIN_S) &&
			       job->straggler_lead_s >= cpw_threshold(CPW_T_JOB_STRAGGLER_SHARE) * others;
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
		double c = job->ranks[i].said.cpu_s;
		if (isnan(c))
			continue;
		if (job->cpu_min_i < 0 || c < job->ranks[job->cpu_min_i].said.cpu_s)
			job->cpu_min_i = (long)i;
		if (job->cpu_max_i < 0 || c > job->ranks[job->cpu_max_i].said.cpu_s)
			job->cpu_max_i = (long)i;
		sum += c;
		n++;
	}
	if (n < 2 || sum <= 0)
		return;
	job->cpu_mean_s = sum / (double)n;
	double lo = job->ranks[job->cpu_min_i].said.cpu_s, hi = job->ranks[job->cpu_max_i].said.cpu_s;
	job->cpu_spread = (hi - lo) / job->cpu_mean_s;
	if (job->cpu_spread > cpw_threshold(CPW_T_JOB_CPU_SPREAD)) {
		char lo_name[300], hi_name[300];
		cpw_job_rank_name(&job->ranks[job->cpu_min_i], lo_name, sizeof(lo_name));
		cpw_job_rank_name(&job->ranks[job->cpu_max_i], hi_name, sizeof(hi_name));
		finding(job, "CPU time is unevenly divided: from %.2f s (%s) to %.2f s (%s), a spread of %.0f%% "
			"of the mean %.2f s", lo, lo_name, hi, hi_name, 100 * job->cpu_spread, job->cpu_mean_s);
	}
}

/* Ranks that used less than job_waiting_ratio of the cores the median other rank used:
 * each named while the findings have room, the rest counted in one more. */
static void waiting(struct cpw_job *job, const double *cores, double *sorted)
{
	size_t k = sorted_known(cores, job->nranks, sorted);
	size_t room = (size_t)(CPW_JOB_FINDINGS_MAX - job->nfindings), named = 0;
	job->waiting_ranks = 0;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < job->nranks; i++) {
			if (isnan(cores[i]))
				continue;
			double others = median_without(sorted, k, cores[i]);
			if (isnan(others) || others < cpw_threshold(CPW_T_JOB_WAITING_OTHERS_CORES) ||
			    cores[i] >= cpw_threshold(CPW_T_JOB_WAITING_RATIO) * others)
				continue;
			if (pass == 0) {
				if (job->nwaiting < CPW_JOB_WAITING_MAX)
					job->waiting[job->nwaiting++] = (long)i;
				job->waiting_ranks++;
				continue;
			}
			/* The second pass names them: all where they fit, else all but the room
			 * for the line that counts the others. */
			if (named + (job->waiting_ranks > room) >= room)
				break;
			char name[300];
			cpw_job_rank_name(&job->ranks[i], name, sizeof(name));
			finding(job, "%s waited while the others computed: it used %.2f cores, the median other "
				"rank %.2f", name, cores[i], others);
			named++;
		}
		if (pass == 0 && !job->waiting_ranks)
			return;
	}
	if (named < job->waiting_ranks)
		finding(job, "... and %zu more rank%s waited while the others computed", job->waiting_ranks - named,
			job->waiting_ranks - named == 1 ? "" : "s");
}

int cpw_job_judge(struct cpw_job *job)
{
	job->nfindings = job->nwaiting = 0;
	job->waiting_ranks = 0;
	job->straggler = job->cpu_min_i = job->cpu_max_i = -1;
	job->straggler_named = false;
	job->straggler_lead_s = job->median_wall_s = job->cpu_mean_s = job->cpu_spread = NAN;
	/* One block for every figure that is sorted or looked up: a wall, a core count, the
	 * sorted copy and a host name per rank. */
	size_t n = job->nranks ? job->nranks : 1;
	double *walls = malloc(n * (3 * sizeof(double) + sizeof(const char *)));
	if (!walls)
		return -ENOMEM;
	double *cores = walls + n, *sorted = cores + n;
	const char **hosts = (const char **)(void *)(sorted + n);
	totals(job, hosts);
	job_verdict(job);
	if (job->nranks >= 2) {
		for (size_t i = 0; i < job->nranks; i++) {
			const struct cpw_rank_report *r = &job->ranks[i].said;
			walls[i] = r->wall_s;
			cores[i] = !isnan(r->cpu_s) && !isnan(r->wall_s) && r->wall_s > 0 ? r->cpu_s / r->wall_s : NAN;
		}
		straggler(job, walls, sorted);
		cpu_spread(job);
		waiting(job, cores, sorted);
	}
	free(walls);
	return 0;
}
