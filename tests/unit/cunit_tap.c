/*
 * cunit_tap.c: a CUnit runner that speaks TAP (see cunit_tap.h).
 *
 * CUnit's basic interface prints a summary table that automake cannot count; running each
 * test alone with CU_run_test() and looking at the failure count after it gives one exact
 * "ok"/"not ok" per test, with the failed assertions as TAP diagnostics.
 */
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <stdio.h>

static unsigned count_tests(CU_pTestRegistry registry)
{
	unsigned n = 0;
	for (CU_pSuite suite = registry->pSuite; suite; suite = suite->pNext)
		for (CU_pTest test = suite->pTest; test; test = test->pNext)
			n++;
	return n;
}

static void print_failures(void)
{
	for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext)
		printf("# %s:%u: %s\n", f->strFileName ? f->strFileName : "?", f->uiLineNumber,
		       f->strCondition ? f->strCondition : "?");
}

int cpw_cunit_run_tap(void)
{
	CU_pTestRegistry registry = CU_get_registry();
	unsigned number = 0;
	int failed = 0;

	CU_basic_set_mode(CU_BRM_SILENT);
	printf("1..%u\n", count_tests(registry));
	for (CU_pSuite suite = registry->pSuite; suite; suite = suite->pNext) {
		for (CU_pTest test = suite->pTest; test; test = test->pNext) {
			CU_ErrorCode rc = CU_run_test(suite, test);
			unsigned failures = CU_get_number_of_failures();
			if (rc == CUE_SUCCESS && failures == 0) {
				printf("ok %u - %s: %s\n", ++number, suite->pName, test->pName);
			} else {
				printf("not ok %u - %s: %s\n", ++number, suite->pName, test->pName);
				print_failures();
				failed = 1;
			}
		}
	}
	fflush(stdout);
	CU_cleanup_registry();
	return failed;
}
