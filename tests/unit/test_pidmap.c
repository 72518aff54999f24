/*
 * test_pidmap.c: the pid to index map (util/pidmap.c): lookups through growth, a reused
 * pid maps to its newest owner, and removal keeps every other entry findable (entries past
 * a gap move back into it), checked against a plain array on a churning workload.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>

#include "util/pidmap.h"
#include "cunit_tap.h"

static void test_empty_and_growth(void)
{
	struct cpw_pidmap m;
	cpw_pidmap_init(&m);
	CU_ASSERT_EQUAL(cpw_pidmap_get(&m, 1), -1);
	cpw_pidmap_remove(&m, 1); /* nothing there: nothing happens */
	for (int i = 0; i < 5000; i++)
		CU_ASSERT_EQUAL_FATAL(cpw_pidmap_put(&m, 100 + i * 7, i), 0);
	CU_ASSERT_EQUAL(m.used, 5000);
	CU_ASSERT_TRUE(m.size >= 10000);
	int bad = 0;
	for (int i = 0; i < 5000; i++)
		bad += cpw_pidmap_get(&m, 100 + i * 7) != i;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(cpw_pidmap_get(&m, 101), -1);
	cpw_pidmap_free(&m);
	CU_ASSERT_EQUAL(cpw_pidmap_get(&m, 100), -1);
}

static void test_reused_pid_maps_to_newest(void)
{
	struct cpw_pidmap m;
	cpw_pidmap_init(&m);
	cpw_pidmap_put(&m, 42, 0);
	cpw_pidmap_put(&m, 42, 9);
	CU_ASSERT_EQUAL(cpw_pidmap_get(&m, 42), 9);
	CU_ASSERT_EQUAL(m.used, 1);
	cpw_pidmap_free(&m);
}

/* Random puts and removes against the truth in an array: every pid is found or not found
 * as it should be, whatever gaps the removals leave in the probe chains. */
static void test_churn_against_truth(void)
{
	enum { PIDS = 3000 };
	static int truth[PIDS];
	struct cpw_pidmap m;
	cpw_pidmap_init(&m);
	for (int i = 0; i < PIDS; i++)
		truth[i] = -1;
	unsigned seed = 12345;
	int bad = 0;
	for (int step = 0; step < 200000; step++) {
		seed = seed * 1103515245u + 12345u;
		/* Pids that collide on purpose: multiples of the table sizes' powers of two. */
		int k = (int)((seed >> 8) % PIDS);
		pid_t pid = (pid_t)(k * 1024 + 1);
		if ((seed >> 4) & 1) {
			cpw_pidmap_put(&m, pid, step);
			truth[k] = step;
		} else {
			cpw_pidmap_remove(&m, pid);
			truth[k] = -1;
		}
		if (step % 997 == 0)
			for (int i = 0; i < PIDS; i++)
				bad += cpw_pidmap_get(&m, (pid_t)(i * 1024 + 1)) != truth[i];
	}
	CU_ASSERT_EQUAL(bad, 0);
	size_t live = 0;
	for (int i = 0; i < PIDS; i++)
		live += truth[i] >= 0;
	CU_ASSERT_EQUAL(m.used, live);
	cpw_pidmap_free(&m);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("pidmap", NULL, NULL);
	CU_add_test(s, "empty, then 5,000 pids through growth", test_empty_and_growth);
	CU_add_test(s, "a reused pid maps to its newest owner", test_reused_pid_maps_to_newest);
	CU_add_test(s, "200,000 puts and removes agree with the truth", test_churn_against_truth);
	return cpw_cunit_run_tap();
}
