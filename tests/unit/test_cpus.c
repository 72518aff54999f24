/*
 * test_cpus.c: cores usable = affinity ∩ cgroup quota, and the reason naming the limit.
 */
#include "config.h"
#include "source/kernel/cpus.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static void test_affinity_only(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(4, 4, NAN, "no cgroup CPU quota", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 4.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "all 4 CPUs"));
}

static void test_online_not_read(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(3, 0, NAN, "no cgroup CPU quota", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 3.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "3 CPUs in the affinity mask"));
}

static void test_affinity_limits(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(1, 8, 2.0, "cgroup CPU quota of 2.00 cores (x)", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 1.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "affinity: 1 of 8"));
}

static void test_quota_limits(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(8, 8, 1.5, "cgroup CPU quota of 1.50 cores (x)", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.quota_cores, 1.5, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "limited by cgroup CPU quota of 1.50"));
}

static void test_quota_equal_to_affinity(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(2, 2, 2.0, "cgroup CPU quota of 2.00 cores (x)", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 2.0, 1e-9);
}

static void test_unknown_affinity(void)
{
	struct cpw_cpus c;
	cpw_cpus_combine(0, 6, NAN, "", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 6.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "affinity unreadable"));
	cpw_cpus_combine(0, 0, NAN, "", &c);
	CU_ASSERT_TRUE(isnan(c.cores_usable));
	cpw_cpus_combine(0, 6, 0.5, "q", &c);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, 0.5, 1e-9);
}

static void test_fixture_quota(void)
{
	struct cpw_cpus c;
	CU_ASSERT_EQUAL(cpw_cpus_usable(0, FIXTURES "/cgroup-hybrid/sys",
					FIXTURES "/cgroup-hybrid/self-cgroup", &c), 0);
	CU_ASSERT_TRUE(c.affinity_cpus >= 1);
	CU_ASSERT_DOUBLE_EQUAL(c.cores_usable, c.affinity_cpus < 1.5 ? c.affinity_cpus : 1.5, 1e-9);
}

static void test_live(void)
{
	struct cpw_cpus c;
	CU_ASSERT_EQUAL(cpw_cpus_usable(0, "/sys/fs/cgroup", NULL, &c), 0);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	CU_ASSERT_TRUE(c.affinity_cpus >= 1 && c.affinity_cpus <= online);
	CU_ASSERT_EQUAL(c.online_cpus, 0); /* the mask was read: no need for the count */
	CU_ASSERT_TRUE(c.cores_usable > 0 && c.cores_usable <= (double)c.affinity_cpus);
	CU_ASSERT_NOT_EQUAL(c.reason[0], '\0');
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("cpus", NULL, NULL);
	CU_add_test(s, "affinity only", test_affinity_only);
	CU_add_test(s, "online count not read: the mask's count", test_online_not_read);
	CU_add_test(s, "affinity is the limit", test_affinity_limits);
	CU_add_test(s, "quota is the limit", test_quota_limits);
	CU_add_test(s, "quota equal to affinity", test_quota_equal_to_affinity);
	CU_add_test(s, "affinity unknown", test_unknown_affinity);
	CU_add_test(s, "quota from a fixture cgroup tree", test_fixture_quota);
	CU_add_test(s, "live: this process", test_live);
	return cpw_cunit_run_tap();
}
