/*
 * test_dwarf_lines.c: source lines of native functions (source/elf/dwarf_lines.c): the
 * bounded cache of the answers, the build-id debug file's path, the ELF reader's finding of
 * .debug_info, and, where libdw.so.1 is installed and this test was built with -g, the
 * declaration line of a function of this file read from its own DWARF.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/elf/dwarf_lines.h"
#include "source/elf/elf_file.h"
#include "source/elf/elf_symbols.h"
#include "cunit_tap.h"

int cpw_test_lines_marker(int x);
static const int marker_line = __LINE__ + 1; /* the line the definition below starts on */
__attribute__((noinline, used)) int cpw_test_lines_marker(int x)
{
	return x * 5 + 2;
}

static void test_cache(void)
{
	struct cpw_dwarf_lines_cache *c = cpw_dwarf_lines_cache_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const char *w = "x";
	CU_ASSERT_FALSE(cpw_dwarf_lines_cache_get(c, 1, 2, &w));
	CU_ASSERT_STRING_EQUAL(cpw_dwarf_lines_cache_put(c, 1, 2, "a.c:10"), "a.c:10");
	CU_ASSERT_PTR_NULL(cpw_dwarf_lines_cache_put(c, 1, 3, NULL)); /* known to have none */
	CU_ASSERT_STRING_EQUAL(cpw_dwarf_lines_cache_put(c, 2, 2, "b.c:7"), "b.c:7");
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_get(c, 1, 2, &w));
	CU_ASSERT_STRING_EQUAL(w, "a.c:10");
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_get(c, 1, 3, &w));
	CU_ASSERT_PTR_NULL(w);
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_get(c, 2, 2, &w));
	CU_ASSERT_STRING_EQUAL(w, "b.c:7");
	CU_ASSERT_FALSE(cpw_dwarf_lines_cache_get(c, 2, 3, &w));
	/* Flooded: what does not fit is not kept, and counted; what was kept stays. */
	char text[64];
	size_t kept = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		snprintf(text, sizeof(text), "some_long_file_name_%u.c:%u", i, i);
		kept += cpw_dwarf_lines_cache_put(c, 7, i, text) != NULL;
	}
	CU_ASSERT_TRUE(kept > 1000 && kept < 20000);
	CU_ASSERT_EQUAL(cpw_dwarf_lines_cache_full(c), 20000 - kept);
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_get(c, 7, 0, &w));
	CU_ASSERT_STRING_EQUAL(w, "some_long_file_name_0.c:0");
	CU_ASSERT_FALSE(cpw_dwarf_lines_cache_get(c, 7, 19999, &w));
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_get(c, 1, 2, &w));
	CU_ASSERT_STRING_EQUAL(w, "a.c:10");
	CU_ASSERT_TRUE(cpw_dwarf_lines_cache_memory() <= 256 * 1024);
	cpw_dwarf_lines_cache_free(c);
}

static void test_debug_path(void)
{
	const uint8_t bid[20] = { 0xf2, 0x25, 0xdb, 0x26, 0x35, 0xcf, 0x58, 0x30, 0x56, 0x59,
				  0x7d, 0xdf, 0x03, 0x7e, 0xfc, 0x2e, 0x6f, 0x39, 0x0b, 0x0f };
	char p[128];
	CU_ASSERT_TRUE(cpw_elf_file_debug_path(bid, sizeof(bid), p, sizeof(p)));
	CU_ASSERT_STRING_EQUAL(p, "/usr/lib/debug/.build-id/f2/25db2635cf583056597ddf037efc2e6f390b0f.debug");
	CU_ASSERT_FALSE(cpw_elf_file_debug_path(bid, 1, p, sizeof(p)));
	CU_ASSERT_FALSE(cpw_elf_file_debug_path(bid, sizeof(bid), p, 40)); /* no room: refused */
}

static void test_stripped_has_no_debug_info(void)
{
	struct cpw_elf_info e;
	char why[256];
	CU_ASSERT_EQUAL_FATAL(cpw_elf_file_load("/proc", getpid(), "/bin/true", NULL, 0, 0, &e, why, sizeof(why)), 0);
	CU_ASSERT_FALSE(e.has_debug_info);
	cpw_elf_symbols_info_free(&e);
}

static void test_own_declaration_line(void)
{
	char exe[PATH_MAX], why[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CU_ASSERT_TRUE_FATAL(n > 0);
	exe[n] = '\0';
	struct cpw_elf_info e;
	CU_ASSERT_EQUAL_FATAL(cpw_elf_file_load("/proc", getpid(), exe, NULL, 0, 0, &e, why, sizeof(why)), 0);
	const struct cpw_elf_sym *s = NULL;
	for (size_t i = 0; i < e.nsyms && !s; i++)
		if (strcmp(cpw_elf_sym_name(&e, &e.syms[i]), "cpw_test_lines_marker") == 0)
			s = &e.syms[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	struct cpw_dwarf_lines *d = NULL;
	int rc = cpw_dwarf_lines_open("/proc", getpid(), exe, e.build_id, e.build_id_len, e.has_debug_info, &d);
	if (!e.has_debug_info || rc == -ENOSYS) {
		/* Built without -g, or no libdw.so.1 here: nothing to read, and it says so. */
		printf("# no declaration line read: %s\n", !e.has_debug_info ? "built without -g" : cpw_dwarf_lines_why());
		CU_ASSERT_TRUE(rc == -ENODATA || rc == -ENOSYS);
		cpw_elf_symbols_info_free(&e);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	char where[128], want[64];
	snprintf(want, sizeof(want), "test_dwarf_lines.c:%d", marker_line);
	CU_ASSERT_TRUE(cpw_dwarf_lines_decl(d, s->value, where, sizeof(where)));
	CU_ASSERT_STRING_EQUAL(where, want);
	/* Its last byte is the same function; an address no function holds has no line. */
	CU_ASSERT_TRUE(cpw_dwarf_lines_decl(d, s->value + s->size - 1, where, sizeof(where)));
	CU_ASSERT_STRING_EQUAL(where, want);
	CU_ASSERT_FALSE(cpw_dwarf_lines_decl(d, 8, where, sizeof(where)));
	CU_ASSERT_PTR_NULL(cpw_dwarf_lines_why());
	cpw_dwarf_lines_close(d);
	/* Another build-id than the file's: refused, as a replaced file would be. */
	uint8_t other[20];
	memcpy(other, e.build_id, sizeof(other));
	other[0] ^= 0xff;
	if (e.build_id_len == sizeof(other)) {
		CU_ASSERT_EQUAL(cpw_dwarf_lines_open("/proc", getpid(), exe, other, sizeof(other), true, &d), -ENODATA);
		CU_ASSERT_PTR_NULL(d);
	}
	cpw_elf_symbols_info_free(&e);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("dwarf_lines", NULL, NULL);
	CU_add_test(s, "the cache: stored answers and none, bounded, counted when full", test_cache);
	CU_add_test(s, "the build-id debug file's path", test_debug_path);
	CU_add_test(s, "a stripped binary has no .debug_info", test_stripped_has_no_debug_info);
	CU_add_test(s, "this test's own function: its declaration line, from its DWARF", test_own_declaration_line);
	return cpw_cunit_run_tap();
}
