/*
 * test_dwarf_lines.c: source lines of native functions (source/elf/dwarf_lines.c): the
 * model's renaming of a function's file at the end (model/hotspots.c), the build-id debug
 * file's path, the ELF reader's finding of .debug_info, and, where libdw.so.1 is installed
 * and this test was built with -g, the declaration line of a function of this file read
 * from its own DWARF.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/hotspots.h"
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

/* The model's renaming: each function asked once, those of one file in a row; the renamed
 * keep their samples, and a later sample of one under its new file lands on it. */
struct asked {
	char seq[64];
};

static bool name_lib1(void *ctx, const char *func, const char *file, enum cpw_code_kind kind, char *out,
		      size_t len)
{
	struct asked *a = ctx;
	strncat(a->seq, func, sizeof(a->seq) - strlen(a->seq) - 1);
	if (strcmp(file, "lib1.so") != 0 || kind != CPW_CODE_NATIVE)
		return false;
	snprintf(out, len, "one.c:%d", func[0] == 'a' ? 10 : 30);
	return true;
}

static void take(struct cpw_hotspots *h, const char *func, const char *file, int times)
{
	struct cpw_stack st;
	memset(&st, 0, sizeof(st));
	st.pid = 42;
	st.tid = 42;
	st.comm = "prog";
	st.nframes = 1;
	st.frames[0] = (struct cpw_frame){ func, file, CPW_CODE_NATIVE };
	for (int i = 0; i < times; i++) {
		st.mono_s = 1.0 + i * 0.01;
		cpw_hotspots_take(h, &st);
	}
}

static bool count_asked(void *ctx, const char *func, const char *file, enum cpw_code_kind kind, char *out,
			size_t len)
{
	(void)file;
	(void)kind;
	(void)out;
	(void)len;
	int *asked = ctx;
	asked[atoi(func + 1)]++;
	return false;
}

/* Only what a report can show is asked for: the top 32 by self samples, and each time
 * slice's top ones. */
static void test_rename_only_shown(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 0);
	char name[16];
	for (int i = 39; i >= 0; i--) { /* the largest first: a slice keeps its first 8 */
		snprintf(name, sizeof(name), "f%d", i);
		take(h, name, "lib.so", i + 1);
	}
	int asked[40] = { 0 };
	CU_ASSERT_EQUAL(cpw_hotspots_rename_files(h, count_asked, asked), 0);
	CU_ASSERT_EQUAL(asked[0], 0);  /* 1 sample: neither in the top 32 nor a slice's top */
	CU_ASSERT_EQUAL(asked[39], 1);
	CU_ASSERT_EQUAL(asked[8], 1);  /* the 32nd */
	cpw_hotspots_free(h);
}

/* A function under 1% of the samples keeps its file's name, though it is in the top 32 and
 * its slice's top: its lines could cost more than the function does (libc6-dbg's DWARF is
 * inflated at open). */
static void test_rename_not_under_one_percent(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 0);
	take(h, "f1", "lib.so", 197);
	take(h, "f2", "libc.so.6", 2); /* 1%: asked */
	take(h, "f3", "libc.so.6", 1); /* 0.5% */
	int asked[4] = { 0 };
	CU_ASSERT_EQUAL(cpw_hotspots_rename_files(h, count_asked, asked), 0);
	CU_ASSERT_EQUAL(asked[1], 1);
	CU_ASSERT_EQUAL(asked[2], 1);
	CU_ASSERT_EQUAL(asked[3], 0);
	cpw_hotspots_free(h);
}

static void test_rename_files(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 0);
	take(h, "a", "lib1.so", 5);
	take(h, "b", "lib2.so", 3);
	take(h, "c", "lib1.so", 2);
	struct asked asked = { "" };
	CU_ASSERT_EQUAL(cpw_hotspots_rename_files(h, name_lib1, &asked), 2);
	CU_ASSERT_STRING_EQUAL(asked.seq, "acb");
	struct cpw_hot_fn top[8];
	CU_ASSERT_EQUAL_FATAL(cpw_hotspots_top(h, top, 8), 3);
	CU_ASSERT_STRING_EQUAL(top[0].name, "a");
	CU_ASSERT_STRING_EQUAL(top[0].file, "one.c:10");
	CU_ASSERT_EQUAL(top[0].self, 5);
	CU_ASSERT_STRING_EQUAL(top[1].file, "lib2.so");
	CU_ASSERT_STRING_EQUAL(top[2].file, "one.c:30");
	take(h, "a", "one.c:10", 1);
	CU_ASSERT_EQUAL_FATAL(cpw_hotspots_top(h, top, 8), 3);
	CU_ASSERT_EQUAL(top[0].self, 6);
	cpw_hotspots_free(h);
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
	int rc = cpw_dwarf_lines_open(-1, "/proc", getpid(), exe, e.build_id, e.build_id_len, e.has_debug_info, &d);
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
		CU_ASSERT_EQUAL(cpw_dwarf_lines_open(-1, "/proc", getpid(), exe, other, sizeof(other), true, &d), -ENODATA);
		CU_ASSERT_PTR_NULL(d);
	}
	cpw_elf_symbols_info_free(&e);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("dwarf_lines", NULL, NULL);
	CU_add_test(s, "the model renames each function's file once, a file's in a row", test_rename_files);
	CU_add_test(s, "only the functions a report can show are asked for", test_rename_only_shown);
	CU_add_test(s, "a function under 1% of the samples is not asked for", test_rename_not_under_one_percent);
	CU_add_test(s, "the build-id debug file's path", test_debug_path);
	CU_add_test(s, "a stripped binary has no .debug_info", test_stripped_has_no_debug_info);
	CU_add_test(s, "this test's own function: its declaration line, from its DWARF", test_own_declaration_line);
	return cpw_cunit_run_tap();
}
