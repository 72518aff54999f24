/*
 * test_vmstat.c: /proc/vmstat refaults and major faults, new and old kernel formats.
 */
#include "config.h"
#include "source/kernel/vmstat.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <string.h>

static void test_read_modern(void)
{
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL_FATAL(cpw_vmstat_read(FIXTURES "/procroot-vmstat", NULL, &v), 0);
	CU_ASSERT_TRUE(v.has_refaults);
	CU_ASSERT_EQUAL(v.refault_anon, 40);
	CU_ASSERT_EQUAL(v.refault_file, 5334);
	CU_ASSERT_EQUAL(v.refaults, 5374);
	CU_ASSERT_TRUE(v.has_pgmajfault);
	CU_ASSERT_EQUAL(v.pgmajfault, 747);
	CU_ASSERT_STRING_EQUAL(v.reason, "");
}

static void test_read_old(void)
{
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL_FATAL(cpw_vmstat_read(FIXTURES "/procroot-vmstat-old", NULL, &v), 0);
	CU_ASSERT_EQUAL(v.refaults, 9001);
	CU_ASSERT_EQUAL(v.refault_anon, 0);
	CU_ASSERT_EQUAL(v.pgmajfault, 42);
}

static void test_parse_prefixes_do_not_match(void)
{
	/* workingset_refault_x must not be taken for workingset_refault, nor pgmajfault_s. */
	const char *t = "workingset_refaults 5\npgmajfault_s 9\nnr_x 1\n";
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL(cpw_vmstat_parse(t, strlen(t), &v), -ENOENT);
	CU_ASSERT_FALSE(v.has_refaults);
	CU_ASSERT_FALSE(v.has_pgmajfault);
	CU_ASSERT_NOT_EQUAL(v.reason[0], '\0');
}

static void test_parse_partial(void)
{
	const char *t = "pgmajfault 3";
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL(cpw_vmstat_parse(t, strlen(t), &v), 0);
	CU_ASSERT_EQUAL(v.pgmajfault, 3);
	CU_ASSERT_FALSE(v.has_refaults);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.reason, "workingset_refault"));
}

static void test_read_missing(void)
{
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL(cpw_vmstat_read(FIXTURES "/psi-absent", NULL, &v), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.reason, "vmstat"));
}

static void test_live(void)
{
	struct cpw_vmstat v;
	CU_ASSERT_EQUAL(cpw_vmstat_read("/proc", NULL, &v), 0);
	CU_ASSERT_TRUE(v.has_pgmajfault);
}

/* /proc/vmstat is ~8 KiB: a held descriptor re-read from offset 0 gives the whole text
 * again, with counters that never go back. */
static void test_live_held(void)
{
	struct cpw_held_file held = { .fd = -1, .open = false };
	struct cpw_vmstat a, b;
	CU_ASSERT_EQUAL_FATAL(cpw_vmstat_read("/proc", &held, &a), 0);
	CU_ASSERT_TRUE(held.open);
	int fd = held.fd;
	CU_ASSERT_EQUAL_FATAL(cpw_vmstat_read("/proc", &held, &b), 0);
	CU_ASSERT_EQUAL(held.fd, fd);
	CU_ASSERT_TRUE(b.has_pgmajfault && b.has_refaults);
	CU_ASSERT_TRUE(b.pgmajfault >= a.pgmajfault && b.refaults >= a.refaults);
	cpw_kfile_held_close(&held);
	CU_ASSERT_FALSE(held.open);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("vmstat", NULL, NULL);
	CU_add_test(s, "read 5.9+ fixture", test_read_modern);
	CU_add_test(s, "read pre-5.9 fixture", test_read_old);
	CU_add_test(s, "longer keys do not match", test_parse_prefixes_do_not_match);
	CU_add_test(s, "partial text names what is missing", test_parse_partial);
	CU_add_test(s, "missing file has a reason", test_read_missing);
	CU_add_test(s, "live /proc/vmstat", test_live);
	CU_add_test(s, "live /proc/vmstat, held", test_live_held);
	return cpw_cunit_run_tap();
}
