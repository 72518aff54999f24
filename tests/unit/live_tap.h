/*
 * live_tap.h: plain TAP for the tests against the real kernel (test_kernel_live,
 * test_sampler_live), which must be able to SKIP saying why, as CUnit cannot: ok(), skip()
 * and diag(), counting into tap_tests and tap_failures; the plan is printed by the caller.
 */
#ifndef CPW_TESTS_UNIT_LIVE_TAP_H
#define CPW_TESTS_UNIT_LIVE_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_tests, tap_failures;

static inline void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failures++;
}

static inline void skip(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_tests, why);
}

static inline void diag(const char *what, const char *text)
{
	printf("# %s: %s\n", what, text);
}

#endif
