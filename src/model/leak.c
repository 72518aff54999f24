/*
 * leak.c: a resident-set series at bounded memory, and the pure detector that tells a leak
 * (memory that grows steadily up to the end and is not given back) from a warm-up (memory
 * that grows, then levels off). See leak.h.
 */
#include "model/leak.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

void cpw_leak_series_add(struct cpw_rss_series *s, double t_s, double rss_kib)
{
	if (s->stride == 0)
		s->stride = 1;
	if (s->samples % s->stride == 0) {
		if (s->n == CPW_RSS_POINTS) {
			/* Keep points 0, 2, 4 ...: every (2 x stride)-th sample. */
			for (uint32_t i = 0; i < CPW_RSS_POINTS / 2; i++) {
				s->t_s[i] = s->t_s[2 * i];
				s->rss_kib[i] = s->rss_kib[2 * i];
			}
			s->n = CPW_RSS_POINTS / 2;
			s->stride *= 2;
		}
		if (s->samples % s->stride == 0) {
			s->t_s[s->n] = (float)t_s;
			s->rss_kib[s->n] = (float)rss_kib;
			s->n++;
		}
	}
	s->samples++;
	s->last_t_s = (float)t_s;
	s->last_rss_kib = (float)rss_kib;
}

size_t cpw_leak_series_points(const struct cpw_rss_series *s, double *t, double *rss)
{
	size_t n = 0;
	for (uint32_t i = 0; i < s->n && i < CPW_RSS_POINTS; i++, n++) {
		t[n] = s->t_s[i];
		rss[n] = s->rss_kib[i];
	}
	if (s->samples && (n == 0 || t[n - 1] < s->last_t_s)) {
		t[n] = s->last_t_s;
		rss[n] = s->last_rss_kib;
		n++;
	}
	return n;
}

/* The series at time x (t[0] <= x <= t[n-1]), linearly between its points. */
static double value_at(const double *t, const double *rss, size_t n, double x)
{
	size_t i = 1;
	while (i < n - 1 && t[i] < x)
		i++;
	double dt = t[i] - t[i - 1];
	if (dt <= 0)
		return rss[i];
	double f = (x - t[i - 1]) / dt;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return rss[i - 1] + f * (rss[i] - rss[i - 1]);
}

/* Whether the points from k to the end grew steadily: enough, over long enough, each third
 * of the time adding its part, and the end keeping the peak. *third3 says whether the last
 * third alone failed. */
static bool steady_from(const double *t, const double *rss, size_t n, size_t k,
			const struct cpw_leak_limits *lim, bool *only_tail_failed)
{
	double t0 = t[k], t1 = t[n - 1];
	double g = rss[n - 1] - rss[k];
	double span = t1 - t0;
	*only_tail_failed = false;
	if (g < lim->min_growth_kib || span < lim->min_span_s)
		return false;
	double peak = rss[k];
	for (size_t i = k; i < n; i++)
		if (rss[i] > peak)
			peak = rss[i];
	if (rss[n - 1] - rss[k] < lim->kept_share * (peak - rss[k]))
		return false; /* given back */
	double a = value_at(t, rss, n, t0 + span / 3), b = value_at(t, rss, n, t0 + 2 * span / 3);
	double need = lim->steady_share * g / 3;
	bool ok1 = a - rss[k] >= need, ok2 = b - a >= need, ok3 = rss[n - 1] - b >= need;
	*only_tail_failed = ok1 && !ok3;
	return ok1 && ok2 && ok3;
}

/* The least-squares slope of the points from k to the end: a rate that a start-up step
 * (a process first seen before its exec) does not inflate. */
static double slope_from(const double *t, const double *rss, size_t n, size_t k)
{
	double st = 0, sr = 0, m = (double)(n - k);
	for (size_t i = k; i < n; i++) {
		st += t[i];
		sr += rss[i];
	}
	double num = 0, den = 0;
	for (size_t i = k; i < n; i++) {
		num += (t[i] - st / m) * (rss[i] - sr / m);
		den += (t[i] - st / m) * (t[i] - st / m);
	}
	return den > 0 ? num / den : NAN;
}

enum cpw_leak_kind cpw_leak_detect(const double *t, const double *rss, size_t n,
				   const struct cpw_leak_limits *lim, struct cpw_leak *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = CPW_LEAK_NONE;
	if (n < 4)
		return CPW_LEAK_NONE;
	size_t imin = 0;
	for (size_t i = 1; i < n; i++)
		if (rss[i] < rss[imin])
			imin = i;
	double base = rss[imin];
	double g = rss[n - 1] - base;
	if (!(g >= lim->min_growth_kib))
		return CPW_LEAK_NONE;
	/* Where the growth began: the last point before it first passed 5% of it. */
	size_t s = imin;
	while (s + 1 < n && rss[s + 1] <= base + 0.05 * g)
		s++;
	/* The earliest start from which it grew steadily to the end: a leak behind a warm-up
	 * (a quick rise, then a steady climb) is found from the climb's start. */
	bool tail_failed_first = false;
	for (size_t k = s; k + 3 < n; k++) {
		bool tail_failed;
		if (steady_from(t, rss, n, k, lim, &tail_failed)) {
			out->kind = CPW_LEAK_GROWING;
			out->start_s = t[k];
			out->start_kib = rss[k];
			out->end_s = t[n - 1];
			out->end_kib = rss[n - 1];
			out->rate_kib_s = slope_from(t, rss, n, k);
			return out->kind;
		}
		if (k == s)
			tail_failed_first = tail_failed;
	}
	/* It grew and the growth stopped: where it reached 90% of its peak. */
	double peak = base;
	for (size_t i = s; i < n; i++)
		if (rss[i] > peak)
			peak = rss[i];
	if (!tail_failed_first || rss[n - 1] - base < lim->kept_share * (peak - base))
		return CPW_LEAK_NONE;
	size_t e = s + 1;
	while (e + 1 < n && rss[e] < base + 0.9 * (peak - base))
		e++;
	out->kind = CPW_LEAK_LEVELLED;
	out->start_s = t[s];
	out->start_kib = rss[s];
	out->end_s = t[e];
	out->end_kib = rss[e];
	out->rate_kib_s = t[e] > t[s] ? (rss[e] - rss[s]) / (t[e] - t[s]) : NAN;
	return out->kind;
}

enum cpw_leak_kind cpw_leak_detect_series(const struct cpw_rss_series *s,
					  const struct cpw_leak_limits *lim, struct cpw_leak *out)
{
	double t[CPW_RSS_POINTS + 1], rss[CPW_RSS_POINTS + 1];
	size_t n = cpw_leak_series_points(s, t, rss);
	return cpw_leak_detect(t, rss, n, lim, out);
}

enum cpw_leak_kind cpw_leak_detect_ended(const struct cpw_rss_series *s, const struct cpw_leak_limits *lim,
					 struct cpw_leak *out)
{
	double t[CPW_RSS_POINTS + 1], rss[CPW_RSS_POINTS + 1];
	size_t n = cpw_leak_series_points(s, t, rss);
	size_t top = n ? n - 1 : 0;
	while (top > 0 && rss[top] < rss[top - 1])
		top--;
	if (n && top < n - 1) {
		double tail = t[n - 1] - t[top], life = t[n - 1] - t[0];
		if (tail <= CPW_LEAK_ENDING_S || tail <= CPW_LEAK_ENDING_SHARE * life)
			n = top + 1;
	}
	return cpw_leak_detect(t, rss, n, lim, out);
}
