/*
 * test_python_stacks.c: the pure parts of the Python stack reader: the layout table of 3.11
 * and 3.12 (the figures offsetof() gives on their Include/internal headers), the
 * _Py_DebugOffsets of 3.13 read from a buffer built as 3.13 lays it out (and every way it
 * can be refused: cookie, version, cut short, an offset outside its structure), the version
 * and string-state decoding, the ELF lookup of data symbols the reader starts from (libc's
 * exported ones through its .gnu.hash, where the dynamic linker finds them), and the
 * frame chain parsed from a window of memory built as 3.11 lays its frames out (the pieces
 * a window is read in, what a partial read leaves, torn chains, random bytes).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/elf/elf_symbols.h"
#include "source/python/python_frames.h"
#include "source/python/python_layout.h"
#include "source/python/python_lines.h"
#include "cunit_tap.h"

static void test_table(void)
{
	struct cpw_py_layout l;
	char why[200] = "";
	CU_ASSERT_TRUE(cpw_python_layout_for(3, 11, &l, why, sizeof(why)));
	CU_ASSERT_EQUAL(l.runtime_interpreters_head, 40);
	CU_ASSERT_EQUAL(l.interp_threads_head, 16);
	CU_ASSERT_EQUAL(l.tstate_native_thread_id, 160);
	CU_ASSERT_EQUAL(l.tstate_cframe, 56);
	CU_ASSERT_EQUAL(l.cframe_current_frame, 8);
	CU_ASSERT_EQUAL(l.frame_code, 32);
	CU_ASSERT_EQUAL(l.frame_previous, 48);
	CU_ASSERT_EQUAL(l.frame_owner, 69);
	CU_ASSERT_EQUAL(l.code_firstlineno, 72);
	CU_ASSERT_EQUAL(l.code_qualname, 128);
	CU_ASSERT_EQUAL(l.unicode_ascii_size, 48);
	/* where a frame is (prev_instr), its code's location table and instructions, bytes */
	CU_ASSERT_EQUAL(l.frame_instr, 56);
	CU_ASSERT_EQUAL(l.code_linetable, 136);
	CU_ASSERT_EQUAL(l.code_adaptive, 184);
	CU_ASSERT_EQUAL(l.bytes_size, 16);
	CU_ASSERT_EQUAL(l.bytes_sval, 32);
	CU_ASSERT_TRUE(l.frame_size >= 70 && l.code_size >= 144);
	CU_ASSERT_TRUE(cpw_python_layout_for(3, 12, &l, why, sizeof(why)));
	CU_ASSERT_EQUAL(l.interp_threads_head, 72);
	CU_ASSERT_EQUAL(l.tstate_native_thread_id, 144);
	CU_ASSERT_EQUAL(l.cframe_current_frame, 0);
	CU_ASSERT_EQUAL(l.frame_code, 0);
	CU_ASSERT_EQUAL(l.frame_previous, 8);
	CU_ASSERT_EQUAL(l.frame_owner, 70);
	CU_ASSERT_EQUAL(l.code_firstlineno, 68);
	CU_ASSERT_EQUAL(l.unicode_ascii_size, 40);
	CU_ASSERT_EQUAL(l.frame_instr, 56);
	CU_ASSERT_EQUAL(l.code_linetable, 136);
	CU_ASSERT_EQUAL(l.code_adaptive, 192);
	/* Before 3.11 and past 3.12 the table has nothing: a reason, never a guess. */
	CU_ASSERT_FALSE(cpw_python_layout_for(3, 10, &l, why, sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "before 3.11"));
	CU_ASSERT_FALSE(cpw_python_layout_for(3, 14, &l, why, sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "_Py_DebugOffsets"));
	CU_ASSERT_FALSE(cpw_python_layout_for(2, 7, &l, why, sizeof(why)));
}

/* _Py_DebugOffsets as 3.13.0 lays it out (Include/internal/pycore_runtime.h): 64-bit words. */
static void debug_offsets(uint8_t *buf, size_t len, uint64_t version)
{
	memset(buf, 0, len);
	uint64_t w[73] = { 0 };
	w[1] = version;
	w[3] = 2000; w[4] = 16; w[5] = 40;                 /* runtime: size, finalizing, interpreters_head */
	w[6] = 9000; w[8] = 8; w[9] = 7296;               /* interp: size, id, next, threads_head */
	w[19] = 300; w[21] = 8; w[23] = 72; w[25] = 152;  /* tstate: size, next, current_frame, native_thread_id */
	w[28] = 80; w[29] = 8; w[30] = 0; w[31] = 56; w[33] = 74; /* frame: size, previous, executable, instr_ptr, owner */
	w[34] = 208; w[35] = 112; w[36] = 120; w[37] = 128; w[38] = 136; w[39] = 68; /* code: ..., linetable, firstlineno */
	w[43] = 200;                                      /* code: co_code_adaptive */
	w[44] = 16; w[45] = 8;                            /* PyObject: ob_type */
	w[64] = 40; w[65] = 16; w[66] = 32;               /* bytes: size, ob_size, ob_sval */
	w[67] = 56; w[68] = 32; w[69] = 16; w[70] = 40;   /* unicode: size, state, length, asciiobject_size */
	memcpy(buf + 8, w + 1, sizeof(w) - 8);
	memcpy(buf, "xdebugpy", 8);
}

static void test_debug_offsets(void)
{
	uint8_t buf[CPW_PY_DEBUG_OFFSETS_READ];
	struct cpw_py_layout l;
	char why[200] = "";
	debug_offsets(buf, sizeof(buf), 0x030D00F0);
	CU_ASSERT_TRUE_FATAL(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	CU_ASSERT_EQUAL(l.major, 3);
	CU_ASSERT_EQUAL(l.minor, 13);
	CU_ASSERT_FALSE(l.has_cframe);
	CU_ASSERT_EQUAL(l.runtime_interpreters_head, 40);
	CU_ASSERT_EQUAL(l.interp_next, 8);
	CU_ASSERT_EQUAL(l.interp_threads_head, 7296);
	CU_ASSERT_EQUAL(l.tstate_next, 8);
	CU_ASSERT_EQUAL(l.tstate_current_frame, 72);
	CU_ASSERT_EQUAL(l.tstate_native_thread_id, 152);
	CU_ASSERT_EQUAL(l.frame_previous, 8);
	CU_ASSERT_EQUAL(l.frame_code, 0);
	CU_ASSERT_EQUAL(l.frame_owner, 74);
	CU_ASSERT_EQUAL(l.code_filename, 112);
	CU_ASSERT_EQUAL(l.code_qualname, 128);
	CU_ASSERT_EQUAL(l.code_firstlineno, 68);
	CU_ASSERT_EQUAL(l.ob_type, 8);
	CU_ASSERT_EQUAL(l.unicode_state, 32);
	CU_ASSERT_EQUAL(l.unicode_length, 16);
	CU_ASSERT_EQUAL(l.unicode_ascii_size, 40);
	CU_ASSERT_EQUAL(l.frame_instr, 56);
	CU_ASSERT_EQUAL(l.code_linetable, 136);
	CU_ASSERT_EQUAL(l.code_adaptive, 200);
	CU_ASSERT_EQUAL(l.bytes_size, 16);
	CU_ASSERT_EQUAL(l.bytes_sval, 32);
	/* Refused: another cookie, 3.14's structure (it grew), cut short, an offset outside. */
	memcpy(buf, "xdebugpz", 8);
	CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	debug_offsets(buf, sizeof(buf), 0x030E00F0);
	CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "3.14"));
	debug_offsets(buf, sizeof(buf), 0x030D00F0);
	CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, 100, &l, why, sizeof(why)));
	uint64_t bad = 9001; /* threads_head past the interpreter state's size */
	memcpy(buf + 9 * 8, &bad, 8);
	CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	uint64_t zero = 0; /* a size of 0 */
	debug_offsets(buf, sizeof(buf), 0x030D00F0);
	memcpy(buf + 28 * 8, &zero, 8);
	CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	/* Garbage never passes as a layout by chance. */
	srand(7);
	for (int i = 0; i < 2000; i++) {
		for (size_t k = 8; k < sizeof(buf); k++)
			buf[k] = (uint8_t)rand();
		memcpy(buf, "xdebugpy", 8);
		CU_ASSERT_FALSE(cpw_python_layout_from_debug(buf, sizeof(buf), &l, why, sizeof(why)));
	}
}

static void test_version_and_strings(void)
{
	int major, minor;
	cpw_python_layout_version(0x030B02F0, &major, &minor);
	CU_ASSERT_EQUAL(major, 3);
	CU_ASSERT_EQUAL(minor, 11);
	cpw_python_layout_version(0x030D00F0, &major, &minor);
	CU_ASSERT_EQUAL(minor, 13);
	/* interned:2, kind:3, compact:1, ascii:1 */
	CU_ASSERT_TRUE(cpw_python_layout_compact_ascii(1u << 2 | 1u << 5 | 1u << 6));
	CU_ASSERT_TRUE(cpw_python_layout_compact_ascii(1u << 2 | 1u << 5 | 1u << 6 | 3u));     /* interned */
	CU_ASSERT_FALSE(cpw_python_layout_compact_ascii(1u << 2 | 1u << 5));                   /* latin-1 */
	CU_ASSERT_FALSE(cpw_python_layout_compact_ascii(2u << 2 | 1u << 5 | 1u << 6));         /* 2-byte */
	CU_ASSERT_FALSE(cpw_python_layout_compact_ascii(1u << 2 | 1u << 6));                   /* not compact */
}

/* A file mapped read-only; its length in *len. */
static const unsigned char *map_file(const char *path, size_t *len)
{
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	*len = (size_t)st.st_size;
	return p == MAP_FAILED ? NULL : p;
}

/* This test's own executable. */
static const unsigned char *map_self(size_t *len)
{
	return map_file("/proc/self/exe", len);
}

int cpw_test_python_data;
int cpw_test_python_data = 42;

static void test_elf_wanted(void)
{
	size_t len = 0;
	const unsigned char *buf = map_self(&len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	struct cpw_elf_wanted w[] = { { "cpw_test_python_data", 0, false }, { "main", 0, false },
				      { "no_such_symbol_here", 0, false } };
	uint64_t load0 = 1;
	CU_ASSERT_EQUAL(cpw_elf_symbols_find(buf, len, w, 3, &load0), 2);
	CU_ASSERT_TRUE(w[0].found && w[1].found && !w[2].found);
	CU_ASSERT_EQUAL(load0, 0); /* a PIE: offset 0 at address 0 */
	/* The load bias: where offset 0 is mapped, less load0, puts the symbol on the variable. */
	extern char __executable_start;
	CU_ASSERT_EQUAL((uintptr_t)&__executable_start - load0 + w[0].value, (uintptr_t)&cpw_test_python_data);
	/* Every truncation: in bounds, never more found. */
	for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
		struct cpw_elf_wanted v[] = { { "cpw_test_python_data", 0, false } };
		int n = cpw_elf_symbols_find(buf, cut, v, 1, &load0);
		CU_ASSERT_TRUE(n <= 1);
	}
	munmap((void *)(uintptr_t)buf, len);
}

/* The table the parser builds from libc and from this test's own file, against one built
 * here the plain way: their function symbols (.symtab, then .dynsym) sorted with qsort by
 * value, the larger first among aliases, then as seen, and one kept per value. libc's
 * thousands in the order its linker left them: the parser's own sort must give the same. */
struct ref_sym {
	uint64_t value, size;
	size_t seen;
	const char *name;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->seen < y->seen ? -1 : x->seen > y->seen;
}

static size_t sorted_as_qsort_would(const unsigned char *buf, size_t len)
{
	struct cpw_elf_info info;
	CU_ASSERT_EQUAL_FATAL(cpw_elf_symbols_parse(buf, len, &info), 0);
	Elf64_Ehdr eh;
	memcpy(&eh, buf, sizeof(eh));
	Elf64_Shdr *sh = malloc((size_t)eh.e_shnum * sizeof(*sh));
	CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
	memcpy(sh, buf + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
	size_t total = 0, n = 0;
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
			total += sh[i].sh_size / sizeof(Elf64_Sym);
	struct ref_sym *ref = malloc((total + 1) * sizeof(*ref));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < eh.e_shnum; i++) {
			if (sh[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
				continue;
			const char *str = (const char *)buf + sh[sh[i].sh_link].sh_offset;
			for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
				Elf64_Sym sym;
				memcpy(&sym, buf + sh[i].sh_offset + k * sizeof(sym), sizeof(sym));
				int type = ELF64_ST_TYPE(sym.st_info);
				if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_size && sym.st_shndx != SHN_UNDEF &&
				    str[sym.st_name])
					ref[n] = (struct ref_sym){ sym.st_value, sym.st_size, n, str + sym.st_name }, n++;
			}
		}
	qsort(ref, n, sizeof(*ref), ref_cmp);
	size_t kept = n ? 1 : 0;
	for (size_t i = 1; i < n; i++)
		if (ref[i].value != ref[kept - 1].value)
			ref[kept++] = ref[i];
	CU_ASSERT_EQUAL(info.nsyms, kept);
	size_t same = 0;
	for (size_t i = 0; i < kept && i < info.nsyms; i++)
		same += info.syms[i].value == ref[i].value && info.syms[i].size == ref[i].size &&
			strncmp(cpw_elf_sym_name(&info, &info.syms[i]), ref[i].name, CPW_ELF_NAME_MAX) == 0;
	CU_ASSERT_EQUAL(same, kept);
	free(ref);
	free(sh);
	cpw_elf_symbols_info_free(&info);
	munmap((void *)(uintptr_t)buf, len);
	return kept;
}

static void test_elf_sorted(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	struct link_map *lm = NULL;
	CU_ASSERT_FATAL(libc && dlinfo(libc, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name[0] == '/');
	size_t len = 0;
	const unsigned char *buf = map_file(lm->l_name, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_TRUE(sorted_as_qsort_would(buf, len) > 1000);
	buf = map_self(&len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_TRUE(sorted_as_qsort_would(buf, len) > 10);
}

/* libc's exported symbols through its .gnu.hash: where dlsym() finds them. This test's own
 * variable, not exported, is not in the hash (cpw_elf_symbols_find scans for it). */
static void test_elf_exported(void)
{
	/* libc itself, not a sanitizer's interceptor of its functions: its link map gives its
	 * file and its load bias. */
	void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(libc);
	struct link_map *lm = NULL;
	CU_ASSERT_FATAL(dlinfo(libc, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name[0] == '/');
	size_t len = 0;
	const unsigned char *buf = map_file(lm->l_name, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	const char *names[] = { "qsort", "getenv", "environ", "no_such_symbol_here" };
	struct cpw_elf_wanted w[4];
	for (int i = 0; i < 4; i++)
		w[i] = (struct cpw_elf_wanted){ names[i], 0, false };
	CU_ASSERT_EQUAL(cpw_elf_symbols_find_exported(buf, len, w, 4), 3);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_TRUE(w[i].found);
		CU_ASSERT_EQUAL((uintptr_t)lm->l_addr + w[i].value, (uintptr_t)dlsym(libc, names[i]));
	}
	CU_ASSERT_FALSE(w[3].found);
	/* Every truncation of libc: in bounds, and what is found is found right. */
	for (size_t cut = 0; cut < len; cut += len / 89 + 1) {
		struct cpw_elf_wanted v[] = { { "getenv", 0, false } };
		int n = cpw_elf_symbols_find_exported(buf, cut, v, 1);
		CU_ASSERT_TRUE(n <= 1);
		CU_ASSERT_TRUE(n <= 0 || v[0].value == w[1].value);
	}
	munmap((void *)(uintptr_t)buf, len);
	dlclose(libc);
	size_t own_len = 0;
	const unsigned char *own = map_self(&own_len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(own);
	struct cpw_elf_wanted mine[] = { { "cpw_test_python_data", 0, false } };
	CU_ASSERT_EQUAL(cpw_elf_symbols_find_exported(own, own_len, mine, 1), 0);
	munmap((void *)(uintptr_t)own, own_len);
}

/* Location tables as each CPython compiled the same function (its co_linetable, and the
 * lines co_lines() gives, as /usr/bin/python3, pyenv's 3.12 and 3.13 printed them) of
 *
 *     def fetch(addr, n):          # line 2
 *         total = 0
 *         for i in range(n):
 *             if i % 3 == 0:
 *                 total += i
 *             else:
 *                 total -= 1
 *         s = connect(addr,
 *                     timeout=5)   # line 10
 *         return s.recv(64) + total
 *
 * ): each instruction's line as co_lines() gives it. */
struct lt_row {
	int start, end, line;
};
/* Python 3.11: fetch() of the test source, first line 2 */
static const uint8_t LT_311[] = {
	0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c, 0x58,
	0xf0, 0x00, 0x04, 0x05, 0x17, 0xf0, 0x00, 0x04, 0x05, 0x17, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88,
	0x71, 0x89, 0x35, 0x90, 0x41, 0x8a, 0x3a, 0x88, 0x3a, 0xd8, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a,
	0x88, 0x45, 0x88, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xdd,
	0x08, 0x0f, 0x90, 0x04, 0xd8, 0x18, 0x19, 0xf0, 0x03, 0x01, 0x09, 0x1b, 0xf1, 0x00, 0x01, 0x09,
	0x1b, 0xf4, 0x00, 0x01, 0x09, 0x1b, 0x80, 0x41, 0xe0, 0x0b, 0x0c, 0x8f, 0x36, 0x8a, 0x36, 0x90,
	0x22, 0x89, 0x3a, 0x8c, 0x3a, 0x98, 0x05, 0xd1, 0x0b, 0x1d, 0xd0, 0x04, 0x1d
};
static const struct lt_row ROWS_311[] = {
	{ 0, 2, 2 }, { 2, 4, 3 }, { 4, 6, 3 }, { 6, 18, 4 }, { 18, 20, 4 }, { 20, 24, 4 }, { 24, 34, 4 },
	{ 34, 36, 4 }, { 36, 38, 4 }, { 38, 40, 4 }, { 40, 42, 5 }, { 42, 44, 5 }, { 44, 48, 5 },
	{ 48, 50, 5 }, { 50, 56, 5 }, { 56, 58, 5 }, { 58, 60, 6 }, { 60, 62, 6 }, { 62, 66, 6 },
	{ 66, 68, 6 }, { 68, 70, 6 }, { 70, 72, 8 }, { 72, 74, 8 }, { 74, 78, 8 }, { 78, 80, 8 },
	{ 80, 82, 8 }, { 82, 94, 9 }, { 94, 96, 9 }, { 96, 98, 10 }, { 98, 100, 9 }, { 100, 104, 9 },
	{ 104, 114, 9 }, { 114, 116, 9 }, { 116, 118, 11 }, { 118, 134, 11 }, { 134, 140, 11 },
	{ 140, 142, 11 }, { 142, 146, 11 }, { 146, 156, 11 }, { 156, 158, 11 }, { 158, 162, 11 },
	{ 162, 164, 11 }
};
/* Python 3.12: fetch() of the test source, first line 2 */
static const uint8_t LT_312[] = {
	0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdc, 0x0d, 0x12, 0x90, 0x31, 0x8b, 0x58, 0xf2, 0x00,
	0x04, 0x05, 0x17, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0x90, 0x41, 0x8a, 0x3a,
	0xd8, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x89, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a,
	0x89, 0x45, 0xf0, 0x09, 0x04, 0x05, 0x17, 0xf4, 0x0a, 0x00, 0x09, 0x10, 0x90, 0x04, 0xd8, 0x18,
	0x19, 0xf4, 0x03, 0x01, 0x09, 0x1b, 0x80, 0x41, 0xe0, 0x0b, 0x0c, 0x8f, 0x36, 0x89, 0x36, 0x90,
	0x22, 0x8b, 0x3a, 0x98, 0x05, 0xd1, 0x0b, 0x1d, 0xd0, 0x04, 0x1d
};
static const struct lt_row ROWS_312[] = {
	{ 0, 2, 2 }, { 2, 6, 3 }, { 6, 34, 4 }, { 34, 50, 5 }, { 50, 62, 6 }, { 62, 74, 8 }, { 74, 76, 4 },
	{ 76, 88, 9 }, { 88, 90, 10 }, { 90, 102, 9 }, { 102, 142, 11 }
};
/* Python 3.13: fetch() of the test source, first line 2 */
static const uint8_t LT_313[] = {
	0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdc, 0x0d, 0x12, 0x90, 0x31, 0x8e, 0x58, 0x88, 0x01,
	0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0x90, 0x41, 0x8b, 0x3a, 0xd8, 0x0c, 0x11, 0x89, 0x4a,
	0x8a, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x8a, 0x45, 0xf1, 0x09, 0x00, 0x0e, 0x16,
	0xf4, 0x0a, 0x00, 0x09, 0x10, 0x90, 0x04, 0xd8, 0x18, 0x19, 0xf1, 0x03, 0x01, 0x09, 0x1b, 0x80,
	0x41, 0xe0, 0x0b, 0x0c, 0x8f, 0x36, 0x89, 0x36, 0x90, 0x22, 0x8b, 0x3a, 0x98, 0x05, 0xd1, 0x0b,
	0x1d, 0xd0, 0x04, 0x1d
};
static const struct lt_row ROWS_313[] = {
	{ 0, 2, 2 }, { 2, 6, 3 }, { 6, 34, 4 }, { 34, 52, 5 }, { 52, 64, 6 }, { 64, 78, 8 }, { 78, 82, 4 },
	{ 82, 94, 9 }, { 94, 96, 10 }, { 96, 102, 9 }, { 102, 142, 11 }
};

static void check_table(const uint8_t *lt, size_t len, const struct lt_row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++)
		for (int a = rows[i].start; a < rows[i].end; a += 2)
			CU_ASSERT_EQUAL(cpw_python_lines_at(lt, len, 2, (uint64_t)a), rows[i].line);
	/* past the table, an odd offset: none */
	CU_ASSERT_EQUAL(cpw_python_lines_at(lt, len, 2, (uint64_t)rows[nrows - 1].end), -1);
	CU_ASSERT_EQUAL(cpw_python_lines_at(lt, len, 2, 3), -1);
	/* cut anywhere, or a byte changed: a line or -1, never a read past the end (ASan) */
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, lt, cut);
		for (int a = 0; a < rows[nrows - 1].end; a += 2)
			CU_ASSERT_TRUE(cpw_python_lines_at(copy, cut, 2, (uint64_t)a) >= -1);
		free(copy);
	}
}

static void test_lines(void)
{
	check_table(LT_311, sizeof(LT_311), ROWS_311, sizeof(ROWS_311) / sizeof(ROWS_311[0]));
	check_table(LT_312, sizeof(LT_312), ROWS_312, sizeof(ROWS_312) / sizeof(ROWS_312[0]));
	check_table(LT_313, sizeof(LT_313), ROWS_313, sizeof(ROWS_313) / sizeof(ROWS_313[0]));
	/* The call on two lines waits on its first: 3.12's CALL at 98 is line 9. */
	CU_ASSERT_EQUAL(cpw_python_lines_at(LT_312, sizeof(LT_312), 2, 98), 9);
	/* Garbage: an entry without its top bit, a varint that runs off the end. */
	static const uint8_t bad[] = { 0x10, 0x80 }, runs_off[] = { 0xf0, 0x40, 0x40 };
	CU_ASSERT_EQUAL(cpw_python_lines_at(bad, sizeof(bad), 2, 0), -1);
	CU_ASSERT_EQUAL(cpw_python_lines_at(runs_off, sizeof(runs_off), 2, 0), -1);
	CU_ASSERT_EQUAL(cpw_python_lines_at(NULL, 0, 2, 0), -1);
	/* A line that would go below 0 is none. */
	static const uint8_t down[] = { 0xe8, 0x09 }; /* no columns, delta -4 */
	CU_ASSERT_EQUAL(cpw_python_lines_at(down, sizeof(down), 2, 0), -1);
}

static void test_frames_plan(void)
{
	struct cpw_py_piece p[CPW_PY_WINDOW_PIECES];
	uint64_t base = 0;
	/* The frame's page whole first, then each page below. */
	size_t n = cpw_python_frames_plan(0x7f0000003010, 72, 0, &base, p);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(p[0].addr, 0x7f0000003000);
	CU_ASSERT_EQUAL(p[0].len, 4096);
	CU_ASSERT_EQUAL(p[1].addr, 0x7f0000002000);
	CU_ASSERT_EQUAL(p[1].len, 4096);
	CU_ASSERT_EQUAL(p[2].addr, 0x7f0000001000);
	CU_ASSERT_EQUAL(base, 0x7f0000001000);
	/* A frame across a page's end: its first piece is both pages. */
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x7f0000003ff0, 72, 0, &base, p), 3);
	CU_ASSERT_EQUAL(p[0].addr, 0x7f0000003000);
	CU_ASSERT_EQUAL(p[0].len, 8192);
	/* Down to lo's page only (the frames the last reading found), never above the frame. */
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x7f0000003010, 72, 0x7f0000003008, &base, p), 1);
	CU_ASSERT_EQUAL(base, 0x7f0000003000);
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x7f0000003010, 72, 0x7f0000002ff8, &base, p), 2);
	CU_ASSERT_EQUAL(base, 0x7f0000002000);
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x7f0000013010, 72, 0x7f0000001000, &base, p), 3); /* at most */
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x7f0000003010, 72, 0x7f0000009000, &base, p), 3); /* above: ignored */
	/* Never the first page. */
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x1010, 72, 0, &base, p), 1);
	CU_ASSERT_EQUAL(base, 0x1000);
	CU_ASSERT_EQUAL(cpw_python_frames_plan(0x2010, 72, 0, &base, p), 2);
	CU_ASSERT_EQUAL(base, 0x1000);

	/* What a read of got bytes leaves: whole pieces, from the frame's down. */
	n = cpw_python_frames_plan(0x7f0000003010, 72, 0, &base, p);
	uint8_t buf[CPW_PY_WINDOW_MAX];
	struct cpw_py_window w = { 0, buf, 0 };
	CU_ASSERT_TRUE(cpw_python_frames_window(p, n, base, 3 * 4096, &w));
	CU_ASSERT_EQUAL(w.base, 0x7f0000001000);
	CU_ASSERT_EQUAL(w.len, 3 * 4096);
	CU_ASSERT_PTR_EQUAL(w.buf, buf);
	w = (struct cpw_py_window){ 0, buf, 0 };
	CU_ASSERT_TRUE(cpw_python_frames_window(p, n, base, 2 * 4096 + 100, &w)); /* the last page unmapped */
	CU_ASSERT_EQUAL(w.base, 0x7f0000002000);
	CU_ASSERT_EQUAL(w.len, 2 * 4096);
	CU_ASSERT_PTR_EQUAL(w.buf, buf + 0x1000);
	w = (struct cpw_py_window){ 0, buf, 0 };
	CU_ASSERT_TRUE(cpw_python_frames_window(p, n, base, 4096, &w)); /* only the frame's page */
	CU_ASSERT_EQUAL(w.base, 0x7f0000003000);
	CU_ASSERT_EQUAL(w.len, 4096);
	CU_ASSERT_PTR_EQUAL(w.buf, buf + 0x2000);
	CU_ASSERT_FALSE(cpw_python_frames_window(p, n, base, 4095, &w)); /* the frame's page cut */
	CU_ASSERT_FALSE(cpw_python_frames_window(p, n, base, 0, &w));
}

/* A frame laid out as 3.11 does, at addr in a window buffer starting at base. */
static void put_frame(uint8_t *buf, uint64_t base, const struct cpw_py_layout *l, uint64_t addr, uint64_t code,
		      uint64_t previous, uint8_t owner)
{
	uint8_t *f = buf + (addr - base);
	memcpy(f + l->frame_code, &code, 8);
	memcpy(f + l->frame_previous, &previous, 8);
	f[l->frame_owner] = owner;
}

static void test_frames_walk(void)
{
	struct cpw_py_layout l;
	char why[200];
	CU_ASSERT_TRUE_FATAL(cpw_python_layout_for(3, 11, &l, why, sizeof(why)));
	enum { LEN = 3 * 4096 };
	static uint8_t buf[LEN];
	const uint64_t B = 0x7f0000001000, F1 = B + 0x2800, F2 = B + 0x2400, F3 = B + 0x100, OUT = 0x7f00000f0000;
	memset(buf, 0, sizeof(buf));
	put_frame(buf, B, &l, F1, 0x1111110, F2, 0);                         /* the innermost */
	put_frame(buf, B, &l, F2, 0x2222220, F3, 0);
	put_frame(buf, B, &l, F3, 0x3333330, OUT, CPW_PY_FRAME_OWNED_BY_CSTACK); /* an entry shim */
	struct cpw_py_window w = { B, buf, LEN };
	struct cpw_py_frame_rec r[8];
	uint64_t f = F1;
	/* Every frame in the window, then the one outside is left to read. */
	CU_ASSERT_EQUAL_FATAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 3);
	CU_ASSERT_EQUAL(f, OUT);
	CU_ASSERT_EQUAL(r[0].addr, F1);
	CU_ASSERT_EQUAL(r[0].code, 0x1111110);
	CU_ASSERT_EQUAL(r[0].previous, F2);
	CU_ASSERT_EQUAL(r[1].code, 0x2222220);
	CU_ASSERT_EQUAL(r[2].owner, CPW_PY_FRAME_OWNED_BY_CSTACK);
	/* At most max records; none past the want-th Python function (a shim does not count). */
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 2, 48), 2);
	CU_ASSERT_EQUAL(f, F3);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 1), 1);
	CU_ASSERT_EQUAL(f, F2);
	f = F3;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 1), 1); /* the shim, then out */
	CU_ASSERT_EQUAL(f, OUT);
	/* The chain's end. */
	put_frame(buf, B, &l, F3, 0x3333330, 0, 0);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 3);
	CU_ASSERT_EQUAL(f, 0);
	/* A frame not whole in the window: none taken, left to read. */
	f = B + LEN - l.frame_size + 8;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 0);
	CU_ASSERT_EQUAL(f, B + LEN - l.frame_size + 8);
	f = B - 4096;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 0);
	f = B + LEN - l.frame_size; /* whole, at the very end */
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 1);
	/* Torn: an owner out of range, a frame its own caller, a caller misaligned or in the
	 * kernel's half. */
	put_frame(buf, B, &l, F2, 0x2222220, F3, 9);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), -1);
	put_frame(buf, B, &l, F2, 0x2222220, F2, 0);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), -1);
	put_frame(buf, B, &l, F2, 0x2222220, F3 + 4, 0);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), -1);
	put_frame(buf, B, &l, F2, 0x2222220, 0xffff800000001000ull, 0);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), -1);
	/* A cycle through two frames ends at max. */
	put_frame(buf, B, &l, F2, 0x2222220, F1, 0);
	f = F1;
	CU_ASSERT_EQUAL(cpw_python_frames_walk(&l, &w, &f, r, 8, 48), 8);
	/* Random bytes: bounded, in the window, never past max. */
	srand(26);
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(rand() & 0xff);
		for (int k = 0; k < 64; k++) { /* pointers into the window, so that chains form */
			uint64_t a = B + ((uint64_t)rand() % (LEN / 8)) * 8, p = B + ((uint64_t)rand() % (LEN / 8)) * 8;
			if (a + 16 <= B + LEN)
				memcpy(buf + (a - B), &p, 8);
		}
		f = B + ((uint64_t)rand() % (LEN / 8)) * 8;
		int n = cpw_python_frames_walk(&l, &w, &f, r, 8, 1 + rand() % 8);
		CU_ASSERT_TRUE(n >= -1 && n <= 8);
		for (int i = 0; i < n; i++)
			CU_ASSERT_TRUE(r[i].addr >= B && r[i].addr + l.frame_size <= B + LEN);
	}
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("python_stacks", NULL, NULL);
	CU_add_test(s, "layout table: 3.11 and 3.12 as their headers lay them out; none before or after", test_table);
	CU_add_test(s, "_Py_DebugOffsets: 3.13 read, another version or garbage refused", test_debug_offsets);
	CU_add_test(s, "version and string state decoded", test_version_and_strings);
	CU_add_test(s, "elf: data symbols found by name, load bias, truncations in bounds", test_elf_wanted);
	CU_add_test(s, "elf: exported symbols through .gnu.hash where dlsym finds them", test_elf_exported);
	CU_add_test(s, "elf: the function table sorted by address, aliases dropped, as qsort would", test_elf_sorted);
	CU_add_test(s, "lines: 3.11, 3.12 and 3.13's location tables as co_lines() reads them; cut or garbage", test_lines);
	CU_add_test(s, "frames: a window read in whole pages down from the frame's; what a partial read leaves",
		    test_frames_plan);
	CU_add_test(s, "frames: a chain walked in a window (3.11's layout), shims, ends, torn, random bytes",
		    test_frames_walk);
	return cpw_cunit_run_tap();
}
