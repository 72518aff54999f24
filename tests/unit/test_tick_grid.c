/*
 * test_tick_grid.c: the shared grid of the session's samples and the Python reader's
 * readings (util/tick_grid.c): the next point after a time, and the reader's period fitted
 * to the sampling interval.
 */
#include "config.h"

#include <CUnit/CUnit.h>

#include "util/tick_grid.h"
#include "cunit_tap.h"

static struct timespec at(time_t s, long ns)
{
	struct timespec t = { .tv_sec = s, .tv_nsec = ns };
	return t;
}

static void assert_at(struct timespec t, time_t s, long ns)
{
	CU_ASSERT_EQUAL(t.tv_sec, s);
	CU_ASSERT_EQUAL(t.tv_nsec, ns);
}

static void test_next(void)
{
	struct timespec o = at(100, 900000000);
	/* strictly after now: a point reached is passed */
	assert_at(cpw_tick_grid_next(o, 100000000, at(100, 900000000)), 101, 0);
	assert_at(cpw_tick_grid_next(o, 100000000, at(100, 950000000)), 101, 0);
	assert_at(cpw_tick_grid_next(o, 100000000, at(101, 0)), 101, 100000000);
	/* far on, across seconds, the points stay on the grid */
	assert_at(cpw_tick_grid_next(o, 50000000, at(3700, 123456789)), 3700, 150000000);
	/* before the origin: the origin */
	assert_at(cpw_tick_grid_next(o, 100000000, at(99, 0)), 100, 900000000);
	/* no period: now */
	assert_at(cpw_tick_grid_next(o, 0, at(105, 7)), 105, 7);
}

static void test_period(void)
{
	/* the default: 99 Hz / 4 = 24.75 a second beside 100 ms samples: every 50 ms */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(24.75, 100000000), 50000000);
	/* --freq 1999: 499.75 a second: 2 ms, 50 to an interval */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(499.75, 100000000), 2000000);
	/* slower than the samples: a whole number of intervals */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(5, 100000000), 200000000);
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(0.25, 1000000000), 4000000000ull);
	/* 24.75 a second beside 10 ms samples: every 40 ms */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(24.75, 10000000), 40000000);
	/* thirds of 100 ms are not whole ns: the nearest count that does (4: 25 ms, not 2) */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(30, 100000000), 25000000);
	/* 7 a second beside 1 s: 7 parts of 1 s are not whole ns, 8 are */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(7, 1000000000), 125000000);
	/* every period divides or is a multiple of the interval, and is within a quarter of
	 * 1/per_s where the interval allows */
	for (double hz = 0.5; hz < 3000; hz *= 1.37) {
		for (uint64_t iv = 10000000; iv <= 2000000000; iv *= 3) {
			uint64_t p = cpw_tick_grid_period_ns(hz, iv);
			CU_ASSERT_TRUE(p > 0 && (iv % p == 0 || p % iv == 0));
			double want = 1e9 / hz;
			CU_ASSERT_TRUE((double)p >= want * 0.66 - 1 && (double)p <= want * 1.5 + 1);
		}
	}
	/* nothing wanted, or no interval: as given */
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(0, 100000000), 100000000);
	CU_ASSERT_EQUAL(cpw_tick_grid_period_ns(20, 0), 50000000);
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("tick_grid", NULL, NULL);
	CU_add_test(s, "the next point of the grid after a time", test_next);
	CU_add_test(s, "the reader's period divides the interval or is a multiple of it", test_period);
	return cpw_cunit_run_tap();
}
