/*
 * test_leak.c: memory that grows and is not given back (model/leak.c): the bounded series
 * spans the whole life and reaches the last sample, and the detector tells a leak from a
 * warm-up that levels off, a step, noise, a small growth and memory given back, on
 * synthetic series sampled every 0.1 s, with the thresholds of classify/thresholds.c.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "classify/leak_finding.h"
#include "model/leak.h"
#include "cunit_tap.h"

#define MIB 1024.0

/* A wobble of a few hundred KiB, as an allocator's arenas give. */
static double noise(int i) { return (double)((i * 7919) % 400) - 200.0; }

typedef double (*shape_fn)(double t);

/* The series of f sampled every 0.1 s for seconds, read as alive or as ended. */
static enum cpw_leak_kind sampled(shape_fn f, double seconds, bool ended, struct cpw_leak *out)
{
	struct cpw_rss_series s;
	struct cpw_leak_limits lim;
	memset(&s, 0, sizeof s);
	cpw_leak_finding_limits(&lim);
	int n = (int)(seconds * 10 + 0.5);
	for (int i = 0; i <= n; i++)
		cpw_leak_series_add(&s, i * 0.1, f(i * 0.1) + noise(i));
	CU_ASSERT(s.n <= CPW_RSS_POINTS);
	return ended ? cpw_leak_detect_ended(&s, &lim, out) : cpw_leak_detect_series(&s, &lim, out);
}

static enum cpw_leak_kind run(shape_fn f, double seconds, struct cpw_leak *out)
{
	return sampled(f, seconds, false, out);
}

static enum cpw_leak_kind run_ended(shape_fn f, double seconds, struct cpw_leak *out)
{
	return sampled(f, seconds, true, out);
}

static double leak_10(double t) { return 20 * MIB + 10 * MIB * t; }
static double warm_up(double t) { return 20 * MIB + 40 * MIB * (t < 1 ? t : 1); }
static double flat(double t) { (void)t; return 300 * MIB; }
static double given_back(double t) { return t < 4 ? 20 * MIB + 10 * MIB * t : 20 * MIB; }
static double step(double t) { return t < 3 ? 20 * MIB : 70 * MIB; }
static double small(double t) { return 20 * MIB + 2 * MIB * t; }
static double warm_then_leak(double t) { return 20 * MIB + (t < 0.3 ? 333 * MIB * t : 100 * MIB + 8 * MIB * (t - 0.3)); }
static double late_leak(double t) { return 50 * MIB + (t < 5 ? 0 : 10 * MIB * (t - 5)); }

static void test_leak_found(void)
{
	struct cpw_leak k;
	CU_ASSERT_EQUAL(run(leak_10, 4, &k), CPW_LEAK_GROWING);
	CU_ASSERT(fabs(k.rate_kib_s - 10 * MIB) < 1 * MIB);
	CU_ASSERT(k.start_s < 0.5);
	CU_ASSERT_DOUBLE_EQUAL(k.end_s, 4.0, 1e-6);
	CU_ASSERT(k.end_kib > 55 * MIB);
}

static void test_warm_up_levels_off(void)
{
	struct cpw_leak k;
	CU_ASSERT_EQUAL(run(warm_up, 4, &k), CPW_LEAK_LEVELLED);
	CU_ASSERT(k.end_s >= 0.7 && k.end_s <= 1.3);
	/* The same shape over a long run, the series compacted many times. */
	CU_ASSERT_EQUAL(run(warm_up, 600, &k), CPW_LEAK_LEVELLED);
}

static void test_no_leak(void)
{
	struct cpw_leak k;
	CU_ASSERT_EQUAL(run(flat, 10, &k), CPW_LEAK_NONE);
	CU_ASSERT_EQUAL(run(given_back, 5, &k), CPW_LEAK_NONE);
	CU_ASSERT_NOT_EQUAL(run(step, 4, &k), CPW_LEAK_GROWING);
	CU_ASSERT_EQUAL(run(small, 4, &k), CPW_LEAK_NONE); /* 8 MiB in all: below leak_min_growth */
	/* Too short: 10 MiB/s for 1.5 s is a step. */
	CU_ASSERT_NOT_EQUAL(run(leak_10, 1.5, &k), CPW_LEAK_GROWING);
	/* Too few points. */
	double t[3] = { 0, 1, 2 }, rss[3] = { 0, 50 * MIB, 100 * MIB };
	struct cpw_leak_limits lim;
	cpw_leak_finding_limits(&lim);
	CU_ASSERT_EQUAL(cpw_leak_detect(t, rss, 3, &lim, &k), CPW_LEAK_NONE);
}

static void test_leak_behind_warm_up(void)
{
	struct cpw_leak k;
	CU_ASSERT_EQUAL(run(warm_then_leak, 10, &k), CPW_LEAK_GROWING);
	CU_ASSERT(k.start_s >= 0.2);
	CU_ASSERT(fabs(k.rate_kib_s - 8 * MIB) < 1.5 * MIB);
	CU_ASSERT_EQUAL(run(late_leak, 10, &k), CPW_LEAK_GROWING);
	CU_ASSERT(k.start_s >= 4.5 && k.start_s <= 5.5);
}

static double slow_leak(double t) { return 100 * MIB + 100 * t; } /* 100 KiB/s */

static void test_long_run_bounded(void)
{
	struct cpw_rss_series s;
	memset(&s, 0, sizeof s);
	for (int i = 0; i < 36000; i++) /* an hour at 0.1 s */
		cpw_leak_series_add(&s, i * 0.1, slow_leak(i * 0.1));
	CU_ASSERT(s.n <= CPW_RSS_POINTS && s.n >= CPW_RSS_POINTS / 2);
	double t[CPW_RSS_POINTS + 1], rss[CPW_RSS_POINTS + 1];
	size_t n = cpw_leak_series_points(&s, t, rss);
	CU_ASSERT_DOUBLE_EQUAL(t[0], 0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(t[n - 1], 3599.9, 0.01); /* the last sample is always there */
	for (size_t i = 1; i < n; i++)
		CU_ASSERT(t[i] > t[i - 1]);
	struct cpw_leak k;
	struct cpw_leak_limits lim;
	cpw_leak_finding_limits(&lim);
	CU_ASSERT_EQUAL(cpw_leak_detect_series(&s, &lim, &k), CPW_LEAK_GROWING);
	CU_ASSERT(fabs(k.rate_kib_s - 100) < 5);
}

/* A leak whose process frees it all in its last 0.4 s (an interpreter's shutdown). */
static double leak_then_shutdown(double t) { return t < 5 ? 20 * MIB + 10 * MIB * t : 5 * MIB; }
/* Grows 10 s, then gives it all back over 4 s: not a leak, ended or not. */
static double leak_then_freed(double t) { return t < 10 ? 20 * MIB + 10 * MIB * t : 120 * MIB - 25 * MIB * (t - 10); }

static void test_ended(void)
{
	struct cpw_leak k;
	CU_ASSERT_EQUAL(run_ended(leak_then_shutdown, 5.4, &k), CPW_LEAK_GROWING);
	CU_ASSERT(fabs(k.rate_kib_s - 10 * MIB) < 1.5 * MIB);
	CU_ASSERT_NOT_EQUAL(run(leak_then_shutdown, 5.4, &k), CPW_LEAK_GROWING); /* alive: given back */
	CU_ASSERT_NOT_EQUAL(run_ended(leak_then_freed, 14, &k), CPW_LEAK_GROWING);
	CU_ASSERT_EQUAL(run_ended(leak_10, 4, &k), CPW_LEAK_GROWING); /* no tail: as it is */
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("leak", NULL, NULL);
	CU_add_test(s, "10 MiB/s for 4 s is a leak, with its rate and start", test_leak_found);
	CU_add_test(s, "a warm-up that levels off is not a leak", test_warm_up_levels_off);
	CU_add_test(s, "flat, given back, a step, small or short: no leak", test_no_leak);
	CU_add_test(s, "a leak behind a warm-up or after a flat start is found from its start",
		    test_leak_behind_warm_up);
	CU_add_test(s, "an hour stays in the bounded series and its slow leak is found",
		    test_long_run_bounded);
	CU_add_test(s, "an ended process's shutdown is no giving back; freeing it over seconds is",
		    test_ended);
	return cpw_cunit_run_tap();
}
