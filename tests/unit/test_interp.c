/*
 * test_interp.c: is a process Python? The executable-name and maps parsers on their own,
 * and the reader on the fixture /proc root tests/fixtures/procroot-python:
 *   100  exe -> python3.11                          Python
 *   200  exe -> uwsgi, libpython3.11 mapped          Python (embedded)
 *   300  exe -> bash, look-alike names only          not Python
 *   500  no exe (another user's), libpython mapped   Python
 *   600  exe -> "python3.11 (deleted)"              Python (upgraded since exec)
 *   700  does not exist                              unknown (-ENOENT)
 */
#include "config.h"
#include "source/proc/interp.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define ROOT FIXTURES "/procroot-python"

static void test_exe_names(void)
{
	static const char *const yes[] = {
		"/usr/bin/python3.11", "/usr/bin/python3", "python", "/opt/py/bin/python3.13d",
		"/usr/bin/python3.7m", "/usr/bin/python2.7", "/usr/bin/pypy3", "/usr/bin/pypy3.9",
		"/usr/bin/python3.11 (deleted)", NULL,
	};
	static const char *const no[] = {
		"/usr/bin/bash", "/usr/bin/python-config", "/usr/bin/python3-config", "/usr/bin/pythonista",
		"/usr/bin/ipython3", "/usr/bin/pythond", "/usr/bin/", "", "/usr/bin/python3.11/x",
		"/usr/bin/python3.11 (deleted) (deleted)", NULL,
	};

	for (const char *const *p = yes; *p; p++)
		if (!cpw_interp_exe_is_python(*p))
			CU_FAIL(*p);
	for (const char *const *p = no; *p; p++)
		if (cpw_interp_exe_is_python(*p))
			CU_FAIL(*p);
	CU_ASSERT_FALSE(cpw_interp_exe_is_python(NULL));
}

static void test_maps_text(void)
{
	static const char embedded[] =
		"7f3a1d200000-7f3a1d2a6000 r--p 00000000 08:01 1836001   /usr/lib/libpython3.11.so.1.0\n";
	static const char pypy[] = "7f-80 r--p 00000000 08:01 1 /opt/pypy/bin/libpypy3.9-c.so";
	static const char deleted[] = "7f-80 r--p 0 08:01 1 /usr/lib/libpython3.12.so.1.0 (deleted)\n";
	static const char lookalikes[] =
		"7f-80 r--p 0 08:01 1 /tmp/libpython-evil.so\n"
		"7f-80 r--p 0 08:01 1 /home/u/libpython3.11.a\n"
		"7f-80 r--p 0 08:01 1 /home/u/libpython3.11.so\\012evil\n"
		"7f-80 r--p 0 08:01 1 /home/u/libpython3.11.sox\n"
		"7f-80 rw-p 0 00:00 0 [heap]\n"
		"7f-80 rw-p 0 00:00 0 libpython3.11.so\n"; /* no path: not a file mapping */

	CU_ASSERT_TRUE(cpw_interp_maps_have_libpython(embedded, sizeof(embedded) - 1));
	CU_ASSERT_TRUE(cpw_interp_maps_have_libpython(pypy, sizeof(pypy) - 1)); /* no final newline */
	CU_ASSERT_TRUE(cpw_interp_maps_have_libpython(deleted, sizeof(deleted) - 1));
	CU_ASSERT_FALSE(cpw_interp_maps_have_libpython(lookalikes, sizeof(lookalikes) - 1));
	/* The length bounds the text: a cut name is not a match. */
	CU_ASSERT_FALSE(cpw_interp_maps_have_libpython(embedded, 60));
	CU_ASSERT_FALSE(cpw_interp_maps_have_libpython("", 0));
	CU_ASSERT_FALSE(cpw_interp_maps_have_libpython(NULL, 0));
}

static void test_fixture_root(void)
{
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 100), 1);
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 200), 1);
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 300), 0);
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 500), 1);
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 600), 1);
	CU_ASSERT_EQUAL(cpw_interp_process_is_python(ROOT, 700), -ENOENT);
}

static void test_live(void)
{
	/* This test program is not Python; its maps are read whole, in pieces. */
	CU_ASSERT_EQUAL(cpw_interp_process_is_python("/proc", getpid()), 0);
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("interp", NULL, NULL);
	CU_add_test(s, "python executable names", test_exe_names);
	CU_add_test(s, "libpython in maps text", test_maps_text);
	CU_add_test(s, "fixture /proc root", test_fixture_root);
	CU_add_test(s, "this process", test_live);
	return cpw_cunit_run_tap();
}
