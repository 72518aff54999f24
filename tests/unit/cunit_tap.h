/*
 * cunit_tap.h: runs every registered CUnit suite and prints one TAP line per test, so that
 * automake's TAP driver (and .ci/run's summary) count test cases, not programs.
 */
#ifndef CPW_CUNIT_TAP_H
#define CPW_CUNIT_TAP_H

/* Call after CU_initialize_registry() and the suites' registration. Returns the process exit
 * status: 0 when every test passed, 1 otherwise. Cleans up the registry. */
int cpw_cunit_run_tap(void);

#endif
