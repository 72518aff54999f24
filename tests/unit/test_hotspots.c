/*
 * test_hotspots.c: the pure parts of the hotspots: the ELF reader (on this test's own
 * binary, a stripped system binary, every truncation and corruption of it), the perf-map
 * parser (garbage lines), the ring-buffer record parser, /proc/PID/maps lines, and the
 * model's tables (shares against the truth, recursion, the memory bound under a flood of
 * distinct functions, the folded stacks, the time slices), and the symbol table's processes
 * (ended ones dropped, their room taken again).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify/hotspot_advice.h"
#include "model/gpu.h"
#include "model/hotspots.h"
#include "model/metrics.h"
#include "source/elf/elf_symbols.h"
#include "source/sample/kallsyms.h"
#include "source/sample/sample_private.h"
#include "cunit_tap.h"

int cpw_test_marker_function(int x);
__attribute__((noinline, used)) int cpw_test_marker_function(int x)
{
	return x * 3 + 1;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const struct cpw_elf_sym *find_named(const struct cpw_elf_info *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (strcmp(cpw_elf_sym_name(e, &e->syms[i]), name) == 0)
			return &e->syms[i];
	return NULL;
}

static void test_elf_own_binary(void)
{
	size_t len;
	unsigned char *buf = slurp("/proc/self/exe", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	struct cpw_elf_info e;
	CU_ASSERT_EQUAL_FATAL(cpw_elf_symbols_parse(buf, len, &e), 0);
	CU_ASSERT_TRUE(e.has_symtab);
	CU_ASSERT_TRUE(e.nseg >= 1);
	CU_ASSERT_TRUE(e.build_id_len == 20 || e.build_id_len == 0);
	const struct cpw_elf_sym *s = find_named(&e, "cpw_test_marker_function");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_EQUAL(cpw_elf_symbols_lookup(&e, s->value), s);
	CU_ASSERT_PTR_EQUAL(cpw_elf_symbols_lookup(&e, s->value + s->size - 1), s);
	/* Past its end: another function or nothing, never the nearest before. */
	const struct cpw_elf_sym *after = cpw_elf_symbols_lookup(&e, s->value + s->size);
	CU_ASSERT_TRUE(after == NULL || after->value == s->value + s->size);
	/* Sorted, no two at one address. */
	int unsorted = 0;
	for (size_t i = 1; i < e.nsyms; i++)
		unsorted += e.syms[i].value <= e.syms[i - 1].value;
	CU_ASSERT_EQUAL(unsorted, 0);
	/* The segment mapping is the identity inside the text of a PIE built by ld. */
	uint64_t v;
	CU_ASSERT_TRUE(cpw_elf_offset_to_vaddr(&e, e.seg[0].offset, &v));
	CU_ASSERT_EQUAL(v, e.seg[0].vaddr);
	cpw_elf_symbols_info_free(&e);
	free(buf);
}

static void test_elf_stripped(void)
{
	/* Debian's binaries are stripped: .dynsym only, or nothing. */
	size_t len;
	unsigned char *buf = slurp("/bin/true", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	struct cpw_elf_info e;
	CU_ASSERT_EQUAL_FATAL(cpw_elf_symbols_parse(buf, len, &e), 0);
	CU_ASSERT_FALSE(e.has_symtab);
	/* A stripped file's code between exported functions is nobody's. */
	size_t named = 0;
	for (uint64_t a = e.seg[0].vaddr; a < e.seg[0].vaddr + e.seg[0].filesz; a += 16)
		named += cpw_elf_symbols_lookup(&e, a) != NULL;
	CU_ASSERT_TRUE(named < e.seg[0].filesz / 16);
	cpw_elf_symbols_info_free(&e);
	free(buf);
}

static void test_elf_truncated_and_corrupt(void)
{
	size_t len;
	unsigned char *buf = slurp("/proc/self/exe", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	int bad = 0;
	/* Every short prefix, then prefixes across the file: each is refused or read, never
	 * read past (ASan) and never a symbol outside the prefix's tables. */
	for (size_t n = 0; n < len; n = n < 256 ? n + 1 : n + len / 97 + 1) {
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, buf, n);
		struct cpw_elf_info e;
		int rc = cpw_elf_symbols_parse(cut, n, &e);
		bad += rc != 0 && rc != -EINVAL;
		if (n < 64)
			bad += rc != -EINVAL;
		cpw_elf_symbols_info_free(&e);
		free(cut);
	}
	/* Header fields corrupted one byte at a time. */
	unsigned char *copy = malloc(len);
	for (size_t i = 0; i < 64; i++) {
		for (int v = 0; v < 256; v += 51) {
			memcpy(copy, buf, len);
			copy[i] = (unsigned char)v;
			struct cpw_elf_info e;
			int rc = cpw_elf_symbols_parse(copy, len, &e);
			bad += rc != 0 && rc != -EINVAL;
			cpw_elf_symbols_info_free(&e);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(copy);
	free(buf);
}

/* /proc/kallsyms: code symbols only (t T w W), modules' out of order, hostile lines
 * skipped; an address is named by the symbol at or below it, not past a symbol's reach;
 * a kernel that hides its addresses (all 0) leaves the table empty. */
static void test_kallsyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 t read_zero\n"
		"ffffffff81001400 D some_data\n"                  /* data: not code */
		"ffffffff81002000 W weak_fn\n"
		"ffffffffc0a01000 t ext4_fn\t[ext4]\n"           /* a module's, after the core */
		"ffffffff81003000 T clear_user_erms\n"            /* out of order */
		"garbage line\n"
		"ffffffff81004000 T\n"                            /* no name */
		"ffffffffffffffffff T too_long_address\n"
		"ffffffff81005000 T last_core";                    /* no newline at the end */
	struct cpw_kallsyms k;

	CU_ASSERT_EQUAL_FATAL(cpw_kallsyms_parse(text, sizeof(text) - 1, &k), 0);
	CU_ASSERT_EQUAL(k.n, 6);
	CU_ASSERT_PTR_NULL(cpw_kallsyms_lookup(&k, 0xffffffff80ffffffULL));
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81000010ULL), "_stext");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff810013ffULL), "read_zero");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81001500ULL), "read_zero"); /* data skipped */
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81002004ULL), "weak_fn");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81003010ULL), "clear_user_erms");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffffc0a01020ULL), "ext4_fn");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81005010ULL), "last_core");
	CU_ASSERT_PTR_NULL(cpw_kallsyms_lookup(&k, 0xffffffff81005000ULL + 512 * 1024)); /* past its reach */
	cpw_kallsyms_free(&k);
	/* Hidden: every address 0. */
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t read_zero\n";
	CU_ASSERT_EQUAL(cpw_kallsyms_parse(hidden, sizeof(hidden) - 1, &k), 0);
	CU_ASSERT_EQUAL(k.n, 0);
	CU_ASSERT_PTR_NULL(cpw_kallsyms_lookup(&k, 0xffffffff81000010ULL));
	cpw_kallsyms_free(&k);
	CU_ASSERT_EQUAL(cpw_kallsyms_parse("", 0, &k), 0);
	CU_ASSERT_EQUAL(k.n, 0);
	/* A proc root without the file: -ENOENT, an empty table. */
	CU_ASSERT_EQUAL(cpw_kallsyms_load("/nonexistent-proc-root", &k), -ENOENT);
	CU_ASSERT_EQUAL(k.n, 0);
	/* A function's padding (__pfx_X, call-depth tracking's thunk) is named X: with X right
	 * after it, one entry from the padding on; without, an entry of its own named X. */
	static const char padded[] =
		"ffffffff81000ff0 T __pfx_read_zero\n"
		"ffffffff81001000 T read_zero\n"
		"ffffffff81001ff0 t __pfx_orphan\n"  /* X does not follow */
		"ffffffff81002000 t other\n"
		"ffffffff81002ff0 t __pfx_\n"        /* nothing after the prefix: a name as it is */
		"ffffffff81003ff0 t __pfx_last";      /* the last line: X never comes */
	CU_ASSERT_EQUAL_FATAL(cpw_kallsyms_parse(padded, sizeof(padded) - 1, &k), 0);
	CU_ASSERT_EQUAL(k.n, 5);
	CU_ASSERT_PTR_NULL(cpw_kallsyms_lookup(&k, 0xffffffff81000fefULL));
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81000ff4ULL), "read_zero");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81001008ULL), "read_zero");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81001ff4ULL), "orphan");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81002004ULL), "other");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81002ff4ULL), "__pfx_");
	CU_ASSERT_STRING_EQUAL(cpw_kallsyms_lookup(&k, 0xffffffff81003ff4ULL), "last");
	cpw_kallsyms_free(&k);
	/* Each entry is 12 bytes (64,000 of them on a 6.x kernel). */
	CU_ASSERT_EQUAL(sizeof(struct cpw_kallsyms_sym), 12);
}

static void test_perf_map_garbage(void)
{
	const char text[] = "7f0000001000 40 jit_hot\n"
			    "garbage line\n"
			    "0x7f0000002000 0x20 LazyCompile:*foo bar.js:3\n"
			    "7f0000003000 0 zero_size\n"
			    "7f0000004000 10\n"
			    "12345678901234567 10 too_long_number\n"
			    "\n"
			    "7f0000000800 100 earlier_one\r\n"
			    "7f0000005000 10 cut sh";
	struct cpw_perf_map m;
	CU_ASSERT_EQUAL_FATAL(cpw_elf_symbols_perf_map_parse(text, sizeof(text) - 1, 1000, &m), 0);
	CU_ASSERT_EQUAL(m.nsyms, 4);
	CU_ASSERT_EQUAL(m.bad_lines, 4);
	const struct cpw_jit_sym *s = cpw_elf_symbols_perf_map_lookup(&m, 0x7f0000001010);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(m.names + s->name, "jit_hot");
	s = cpw_elf_symbols_perf_map_lookup(&m, 0x7f000000201f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(m.names + s->name, "LazyCompile:*foo bar.js:3");
	CU_ASSERT_PTR_NULL(cpw_elf_symbols_perf_map_lookup(&m, 0x7f0000002020)); /* just past it */
	CU_ASSERT_PTR_NULL(cpw_elf_symbols_perf_map_lookup(&m, 0x10));
	s = cpw_elf_symbols_perf_map_lookup(&m, 0x7f00000008ff);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(m.names + s->name, "earlier_one"); /* the \r dropped */
	cpw_elf_symbols_perf_map_free(&m);
	/* The cap. */
	CU_ASSERT_EQUAL(cpw_elf_symbols_perf_map_parse(text, sizeof(text) - 1, 1, &m), 0);
	CU_ASSERT_EQUAL(m.nsyms, 1);
	cpw_elf_symbols_perf_map_free(&m);
}

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void test_record_parse(void)
{
	unsigned char rec[256], *p = rec + sizeof(struct perf_event_header);
	put64(&p, 0x401000);                          /* ip */
	put64(&p, (uint64_t)7 << 32 | 5);             /* pid 5, tid 7 */
	put64(&p, 123456789);                         /* time */
	put64(&p, 1);                                 /* cpu */
	put64(&p, 2);                                 /* nr */
	put64(&p, 0x401000);
	put64(&p, 0x402000);
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)(p - rec) };
	memcpy(rec, &h, sizeof(h));
	struct cpw_rec r;
	CU_ASSERT_EQUAL_FATAL(cpw_sample_parse(rec, h.size, &r), 0);
	CU_ASSERT_EQUAL(r.pid, 5);
	CU_ASSERT_EQUAL(r.tid, 7);
	CU_ASSERT_EQUAL(r.time, 123456789);
	CU_ASSERT_EQUAL(r.nr, 2);
	CU_ASSERT_EQUAL(cpw_sample_rec_ip(&r, 1), 0x402000);
	/* A chain longer than the record, and every cut: refused. */
	uint64_t big = 1000;
	memcpy(rec + 8 + 32, &big, 8);
	CU_ASSERT_EQUAL(cpw_sample_parse(rec, h.size, &r), -EINVAL);
	for (size_t n = 0; n < h.size; n++)
		CU_ASSERT_EQUAL(cpw_sample_parse(rec, n, &r), -EINVAL);
	/* COMM without its NUL. */
	memset(rec, 'x', sizeof(rec));
	struct perf_event_header c = { PERF_RECORD_COMM, 0, 32 };
	memcpy(rec, &c, sizeof(c));
	CU_ASSERT_EQUAL(cpw_sample_parse(rec, 32, &r), -EINVAL);
	struct perf_event_header other = { PERF_RECORD_THROTTLE, 0, 8 };
	memcpy(rec, &other, sizeof(other));
	CU_ASSERT_EQUAL(cpw_sample_parse(rec, 8, &r), 1);
}

static void comm_rec(struct cpw_symtab *t, uint32_t pid, const char *comm)
{
	struct cpw_rec r = { .type = PERF_RECORD_COMM, .pid = pid, .tid = pid, .comm = comm };
	cpw_sample_symtab_comm(t, &r);
}

static const char *comm_of(struct cpw_symtab *t, uint32_t pid, struct cpw_stack *st)
{
	struct cpw_rec r = { .type = PERF_RECORD_SAMPLE, .pid = pid, .tid = pid, .ip = 0x1000 };
	cpw_sample_symtab_resolve(t, &r, st);
	return st->comm;
}

/* This process's addresses, named through its mappings as PROCMAP_QUERY gives them (/proc,
 * Linux 6.11 on) and as its maps text gives them (a root whose maps is a copy of that text,
 * a plain file the ioctl fails on): the same frames. On an older kernel both read the text. */
static void test_symtab_query_as_text(void)
{
	char root[] = "/tmp/cpw-symtab-XXXXXX", dir[64], path[128], *text = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/%d", root, (int)getpid());
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
	FILE *in = fopen("/proc/self/maps", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, '\0', in);
	fclose(in);
	CU_ASSERT_FATAL(n > 0);
	snprintf(path, sizeof(path), "%s/maps", dir);
	FILE *out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	fwrite(text, 1, (size_t)n, out);
	fclose(out);
	snprintf(path, sizeof(path), "%s/root", dir); /* the files themselves, through / */
	CU_ASSERT_EQUAL(symlink("/", path), 0);
	struct cpw_symtab *q = cpw_sample_symtab_new("/proc"), *x = cpw_sample_symtab_new(root);
	CU_ASSERT_FATAL(q && x);
	const uint64_t addrs[] = { (uint64_t)(uintptr_t)&test_symtab_query_as_text, (uint64_t)(uintptr_t)&qsort,
				   (uint64_t)(uintptr_t)&getdelim, (uint64_t)(uintptr_t)&cpw_sample_symtab_new };
	static struct cpw_stack a, b;
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct cpw_rec r = { .type = PERF_RECORD_SAMPLE, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				     .ip = addrs[i] + 1 };
		cpw_sample_symtab_resolve(q, &r, &a);
		cpw_sample_symtab_resolve(x, &r, &b);
		CU_ASSERT_TRUE_FATAL(a.nframes >= 1 && b.nframes == a.nframes);
		CU_ASSERT_STRING_EQUAL(a.frames[0].func, b.frames[0].func);
		CU_ASSERT_STRING_EQUAL(a.frames[0].file, b.frames[0].file);
		CU_ASSERT_EQUAL(a.frames[0].kind, b.frames[0].kind);
	}
	struct cpw_rec own = { .type = PERF_RECORD_SAMPLE, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
			       .ip = addrs[0] + 1 };
	cpw_sample_symtab_resolve(q, &own, &a);
	CU_ASSERT_STRING_EQUAL(a.frames[0].func, "test_symtab_query_as_text");
	cpw_sample_symtab_resolve(q, &(struct cpw_rec){ .type = PERF_RECORD_SAMPLE, .pid = (uint32_t)getpid(),
							.tid = (uint32_t)getpid(), .ip = addrs[1] + 1 }, &a);
	CU_ASSERT_PTR_NOT_NULL(strstr(a.frames[0].func, "qsort")); /* libc's, or ASan's interceptor */
	cpw_sample_symtab_free(q);
	cpw_sample_symtab_free(x);
	free(text);
	unlink(path);
	snprintf(path, sizeof(path), "%s/maps", dir);
	unlink(path);
	rmdir(dir);
	rmdir(root);
}

/* The table holds 4,096 processes. Those that ended leave at the end of a drain, and their
 * room is taken again: a run of make -j starts many more than 4,096 over its life. */
static void test_symtab_processes(void)
{
	char root[] = "/tmp/cpw-symtab-XXXXXX"; /* an empty /proc: no maps, no comm read */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	struct cpw_symtab *t = cpw_sample_symtab_new(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	static struct cpw_stack st;
	char name[16];
	for (uint32_t pid = 1; pid <= 4096; pid++) {
		snprintf(name, sizeof(name), "p%u", pid);
		comm_rec(t, pid, name);
	}
	CU_ASSERT_STRING_EQUAL(comm_of(t, 1, &st), "p1");
	CU_ASSERT_STRING_EQUAL(comm_of(t, 4096, &st), "p4096");
	comm_rec(t, 5000, "full");
	CU_ASSERT_STRING_EQUAL(comm_of(t, 5000, &st), "?"); /* no room: unnamed */
	/* All but two end; one of those pids is taken again by a fork before the drain. */
	for (uint32_t pid = 1; pid <= 4094; pid++) {
		struct cpw_rec ex = { .type = PERF_RECORD_EXIT, .pid = pid, .tid = pid, .ppid = 1 };
		cpw_sample_symtab_exit(t, &ex);
	}
	struct cpw_rec fk = { .type = PERF_RECORD_FORK, .pid = 7, .tid = 7, .ppid = 4095 };
	cpw_sample_symtab_fork(t, &fk);
	cpw_sample_symtab_end_drain(t);
	CU_ASSERT_STRING_EQUAL(comm_of(t, 4095, &st), "p4095");
	CU_ASSERT_STRING_EQUAL(comm_of(t, 7, &st), "p4095"); /* the fork's child, its parent's name */
	CU_ASSERT_STRING_EQUAL(comm_of(t, 3, &st), "?");     /* ended: dropped */
	/* The room they left is taken by 4,000 new ones (the 3 just looked at hold slots too). */
	for (uint32_t pid = 10001; pid <= 14000; pid++) {
		snprintf(name, sizeof(name), "n%u", pid);
		comm_rec(t, pid, name);
	}
	CU_ASSERT_STRING_EQUAL(comm_of(t, 10001, &st), "n10001");
	CU_ASSERT_STRING_EQUAL(comm_of(t, 14000, &st), "n14000");
	/* A second drain with nothing ended keeps them all. */
	cpw_sample_symtab_end_drain(t);
	CU_ASSERT_STRING_EQUAL(comm_of(t, 12345, &st), "n12345");
	CU_ASSERT_STRING_EQUAL(comm_of(t, 4095, &st), "p4095");
	cpw_sample_symtab_free(t);
	rmdir(root);
}

static void test_maps_lines(void)
{
	struct cpw_maps_line m;
	CU_ASSERT_TRUE(cpw_sample_maps_parse_line("55d0c0a00000-55d0c0a05000 r-xp 00002000 08:01 1234   /usr/bin/x y", &m));
	CU_ASSERT_EQUAL(m.start, 0x55d0c0a00000);
	CU_ASSERT_EQUAL(m.pgoff, 0x2000);
	CU_ASSERT_EQUAL(m.ino, 1234);
	CU_ASSERT_STRING_EQUAL(m.path, "/usr/bin/x y");
	CU_ASSERT_FALSE(cpw_sample_maps_parse_line("55d0c0a00000-55d0c0a05000 rw-p 00000000 08:01 1234 /usr/bin/x", &m));
	CU_ASSERT_TRUE(cpw_sample_maps_parse_line("7f00-8f00 r-xp 00000000 00:00 0 ", &m));
	CU_ASSERT_STRING_EQUAL(m.path, "");
	CU_ASSERT_FALSE(cpw_sample_maps_parse_line("garbage", &m));
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("/usr/lib/x86_64-linux-gnu/libc.so.6"), CPW_CODE_LIBC);
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"), CPW_CODE_INTERPRETER);
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("/usr/bin/python3.11"), CPW_CODE_INTERPRETER);
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("/usr/lib/x86_64-linux-gnu/libz.so.1"), CPW_CODE_NATIVE);
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("//anon"), CPW_CODE_JIT);
	CU_ASSERT_EQUAL(cpw_sample_code_kind_of_path("[vdso]"), CPW_CODE_KERNEL);
}

static void one_stack(struct cpw_hotspots *h, pid_t pid, const char *comm, double t, int n, const char *const *names)
{
	struct cpw_stack st;
	memset(&st, 0, sizeof(st));
	st.pid = st.tid = pid;
	st.comm = comm;
	st.mono_s = 100 + t;
	st.nframes = n < CPW_STACK_MAX ? n : CPW_STACK_MAX;
	for (int i = 0; i < st.nframes; i++)
		st.frames[i] = (struct cpw_frame){ names[i], "prog", CPW_CODE_NATIVE };
	cpw_hotspots_take(h, &st);
}

struct folded_sum {
	uint64_t total;
	int lines;
	int max_depth;
};

static int sum_line(void *ctx, const char *comm, const char *const *frames, int n, uint64_t count)
{
	struct folded_sum *f = ctx;
	(void)comm;
	(void)frames;
	f->total += count;
	f->lines++;
	if (n > f->max_depth)
		f->max_depth = n;
	return 0;
}

/* The host's spin in the GPU driver (model/gpu.c): its share of the on-CPU samples, none
 * from a handful (a host asleep in a blocking synchronize). */
static void test_gpu_spin_share(void)
{
	struct cpw_gpu g;
	struct cpw_metrics m;
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 100);
	cpw_gpu_init(&g);
	struct cpw_stack st;
	for (int i = 0; i < 40; i++) {
		memset(&st, 0, sizeof(st));
		st.pid = st.tid = 10;
		st.comm = "gpu_work";
		st.mono_s = 100 + i * 0.01;
		st.nframes = 1;
		st.frames[0] = i % 2 ? (struct cpw_frame){ "libcuda.so.580.159.04+0x460854", "libcuda.so.580.159.04", CPW_CODE_NATIVE }
				     : (struct cpw_frame){ "main", "gpu_work", CPW_CODE_NATIVE };
		cpw_hotspots_take(h, &st);
		if (i == 1) { /* two samples, one in libcuda: too few to say */
			cpw_metrics_init(&m);
			cpw_gpu_metrics(&g, NULL, h, 1.0, &m);
			CU_ASSERT_TRUE(isnan(m.gpu_driver_spin_share));
		}
	}
	cpw_metrics_init(&m);
	cpw_gpu_metrics(&g, NULL, h, 1.0, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.gpu_driver_spin_share, 0.5, 1e-9);
	cpw_hotspots_free(h);
}

static void test_model_shares(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 100);
	const char *heavy[] = { "heavy", "main" }, *light[] = { "light", "main" };
	for (int i = 0; i < 1000; i++) /* two workers of one pool, then the first alone */
		one_stack(h, i < 500 ? 10 + i % 2 : 10, "worker", i * 0.01, 2, i % 10 < 7 ? heavy : light);
	CU_ASSERT_EQUAL(cpw_hotspots_samples(h), 1000);
	struct cpw_hot_fn top[4];
	CU_ASSERT_EQUAL_FATAL(cpw_hotspots_top(h, top, 4), 2);
	CU_ASSERT_STRING_EQUAL(top[0].name, "heavy");
	CU_ASSERT_EQUAL(top[0].self, 700);
	CU_ASSERT_EQUAL(top[0].nprocs, 2); /* summed over the pool's two workers */
	CU_ASSERT_STRING_EQUAL(top[1].name, "light");
	CU_ASSERT_EQUAL(top[1].self, 300);
	CU_ASSERT_EQUAL(cpw_hotspots_kind_samples(h, CPW_CODE_NATIVE), 1000);
	/* main is on every stack: total 100%, self 0 (not in the top by self). */
	struct folded_sum f = { 0, 0, 0 };
	cpw_hotspots_each_stack(h, sum_line, &f);
	CU_ASSERT_EQUAL(f.total, 1000);
	CU_ASSERT_EQUAL(f.lines, 2);
	/* The second half's top is heavy as well; with a phase of light only after 10 s: */
	for (int i = 0; i < 100; i++)
		one_stack(h, 12, "worker", 12 + i * 0.01, 2, light);
	struct cpw_hot_fn ph;
	uint64_t in;
	CU_ASSERT_TRUE(cpw_hotspots_top_between(h, 11.5, 14, &ph, &in));
	CU_ASSERT_STRING_EQUAL(ph.name, "light");
	CU_ASSERT_EQUAL(in, 100);
	cpw_hotspots_free(h);
}

static void test_model_recursion_and_bound(void)
{
	CU_ASSERT_TRUE(cpw_hotspots_memory() <= 1024 * 1024);
	struct cpw_hotspots *h = cpw_hotspots_new();
	const char *deep[CPW_STACK_MAX];
	for (int i = 0; i < CPW_STACK_MAX; i++)
		deep[i] = "recurse";
	one_stack(h, 1, "deep", 0, CPW_STACK_MAX, deep);
	struct cpw_hot_fn top[2];
	CU_ASSERT_EQUAL_FATAL(cpw_hotspots_top(h, top, 2), 1);
	CU_ASSERT_EQUAL(top[0].self, 1);
	CU_ASSERT_EQUAL(top[0].total, 1); /* once per sample, however deep */
	/* A flood of distinct functions and processes, over a long run: the tables stay as
	 * they are, the overflow is counted under [other], the shares still add up. (A
	 * function first seen after the table filled is counted there too.) */
	const char *hot[1] = { "hot" };
	one_stack(h, 7, "hotproc", 0, 1, hot);
	char name[64];
	for (int i = 0; i < 300000; i++) {
		snprintf(name, sizeof(name), "fn_%d_with_a_longish_name", i);
		const char *frames[2] = { name, "main" };
		one_stack(h, 1000 + i % 5000, i % 3 ? "a" : "b", i * 0.5, 2, frames);
	}
	for (int i = 0; i < 4999; i++)
		one_stack(h, 7, "hotproc", 150000 + i, 1, hot);
	CU_ASSERT_EQUAL(cpw_hotspots_samples(h), 305001);
	struct cpw_hot_fn t[3];
	CU_ASSERT_TRUE(cpw_hotspots_top(h, t, 3) >= 2);
	CU_ASSERT_STRING_EQUAL(t[0].name, "[other]");
	CU_ASSERT_STRING_EQUAL(t[1].name, "hot");
	CU_ASSERT_EQUAL(t[1].self, 5000);
	struct folded_sum f = { 0, 0, 0 };
	cpw_hotspots_each_stack(h, sum_line, &f);
	CU_ASSERT_EQUAL(f.total, 305001);
	CU_ASSERT_TRUE(f.max_depth <= 32);
	cpw_hotspots_free(h);
}

static void test_advice(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	const char *heavy[] = { "heavy" }, *light[] = { "light" };
	struct cpw_verdict v;
	memset(&v, 0, sizeof(v));
	v.cls = CPW_CLASS_CPU_BOUND;
	snprintf(v.advice, sizeof(v.advice), "Profile it.");
	cpw_hotspot_advice_append(h, &v); /* nothing sampled: unchanged */
	CU_ASSERT_STRING_EQUAL(v.advice, "Profile it.");
	for (int i = 0; i < 100; i++)
		one_stack(h, 1, "prog", i, 1, i % 10 < 7 ? heavy : light);
	cpw_hotspot_advice_append(h, &v);
	CU_ASSERT_STRING_EQUAL(v.advice, "Profile it. Hotspots: 70% of the CPU in heavy (prog): native code: the "
					 "algorithm there; 30% of the CPU in light (prog): native code: the algorithm there.");
	/* The cpu-bound advice no longer sends people to perf for what is named after it. */
	snprintf(v.advice, sizeof(v.advice), "CPU-bound. Profile it (perf record -g) and look for a better algorithm.");
	cpw_hotspot_advice_append(h, &v);
	CU_ASSERT_PTR_NULL(strstr(v.advice, "perf record"));
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, "CPU-bound. In the functions the Hotspots name, look for a better "
					   "algorithm. Hotspots: 70% of the CPU in heavy"));
	v.cls = CPW_CLASS_IO_BOUND;
	v.secondary = CPW_CLASS_NONE;
	snprintf(v.advice, sizeof(v.advice), "Disk.");
	cpw_hotspot_advice_append(h, &v);
	CU_ASSERT_STRING_EQUAL(v.advice, "Disk.");
	/* cpu-starved beside other load, cpu-bound second: the functions still named. */
	v.cls = CPW_CLASS_CPU_STARVED;
	v.secondary = CPW_CLASS_CPU_BOUND;
	snprintf(v.advice, sizeof(v.advice), "CPU-starved. Also, for the CPU part, profile and use a better algorithm.");
	cpw_hotspot_advice_append(h, &v);
	CU_ASSERT_STRING_EQUAL(v.advice, "CPU-starved. Also, for the CPU part, use a better algorithm. Hotspots: 70% of "
					 "the CPU in heavy (prog): native code: the algorithm there; 30% of the CPU in "
					 "light (prog): native code: the algorithm there.");
	cpw_hotspots_free(h);
}

/* The kernel's samples that no name was read for ("[kernel]", file [kernel]) are told as
 * the kernel's, not as a function called "[kernel]" of a file "[kernel]". */
static void test_advice_kernel_unnamed(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	for (int i = 0; i < 100; i++) {
		struct cpw_stack st;
		memset(&st, 0, sizeof(st));
		st.pid = st.tid = 1;
		st.comm = "dd";
		st.mono_s = 100 + i;
		st.nframes = 1;
		st.frames[0] = i % 10 < 6 ? (struct cpw_frame){ "[kernel]", "[kernel]", CPW_CODE_KERNEL }
					  : (struct cpw_frame){ "read_zero", "[kernel]", CPW_CODE_KERNEL };
		cpw_hotspots_take(h, &st);
	}
	char text[512];
	CU_ASSERT_TRUE(cpw_hotspot_advice(h, text, sizeof(text)) > 0);
	CU_ASSERT_STRING_EQUAL(text, "Hotspots: 60% of the CPU in the kernel (its functions not named: see Notes): "
				     "system calls or page faults on the program's behalf; batch them; 40% of the CPU "
				     "in read_zero ([kernel]): system calls or page faults on the program's "
				     "behalf; batch them.");
	cpw_hotspots_free(h);
}

/* An advice near full (a tree's "Per process:" list after it): the longer words in place
 * of perf's and the functions stay inside it. They once ran past it into the report's next
 * field, and the cperfwatch that watched a shell loop of cperfwatch runs crashed. */
static void test_advice_full(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	const char *heavy[] = { "heavy" };
	for (int i = 0; i < 100; i++)
		one_stack(h, 1, "prog", i, 1, heavy);
	struct {
		struct cpw_verdict v;
		char after[64];
	} guarded;
	static const char perf[] = "CPU-bound. Profile it (perf record -g) and look for a better algorithm.";
	for (size_t fill = 0; fill + sizeof perf < sizeof guarded.v.advice + 8; fill++) {
		memset(&guarded, 0, sizeof(guarded));
		memset(guarded.after, 'z', sizeof(guarded.after));
		guarded.v.cls = CPW_CLASS_CPU_BOUND;
		size_t n = snprintf(guarded.v.advice, sizeof(guarded.v.advice), "%s", perf);
		for (size_t i = 0; i < fill && n + 1 < sizeof(guarded.v.advice); i++)
			guarded.v.advice[n++] = i % 9 == 8 ? ' ' : 'x';
		guarded.v.advice[n] = '\0';
		cpw_hotspot_advice_append(h, &guarded.v);
		CU_ASSERT_TRUE(strnlen(guarded.v.advice, sizeof(guarded.v.advice)) < sizeof(guarded.v.advice));
		bool intact = true;
		for (size_t i = 0; i < sizeof(guarded.after); i++)
			intact = intact && guarded.after[i] == 'z';
		CU_ASSERT_TRUE(intact);
		/* the functions named in full, or cut where it shows, or not at all */
		const char *hs = strstr(guarded.v.advice, "Hotspots: ");
		size_t len = strlen(guarded.v.advice);
		CU_ASSERT_TRUE(!hs || strstr(hs, "heavy (prog)") ||
			       (len >= 3 && strcmp(guarded.v.advice + len - 3, "...") == 0));
		if (!intact)
			break;
	}
	cpw_hotspots_free(h);
}

/* The whole advice of a cpu-bound Python pool whose parent sleeps and whose workers are
 * judged otherwise (real runs' words before "Hotspots:", ~600 bytes) with its two functions
 * after it: all of it fits. In 768 bytes the second function's words were cut (a run of
 * a Python loop and zlib: "... or with cheaper se..."). */
static void test_advice_room(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	const char *load[] = { "load_and_decode_every_record_of_the_input_file_in_one_pass" },
		   *pack[] = { "pack_the_decoded_records_into_the_output_buffer_in_one_pass" };
	for (int i = 0; i < 100; i++)
		one_stack(h, 1, "prog", i, 1, i % 3 ? load : pack);
	struct cpw_verdict v;
	memset(&v, 0, sizeof(v));
	v.cls = CPW_CLASS_CPU_BOUND;
	snprintf(v.advice, sizeof(v.advice), "%s",
		 "CPU-bound: the time goes to computing. Profile it (perf record -g) and look for a better "
		 "algorithm, compiled libraries (numpy, a C extension) instead of interpreted loops, and compiler "
		 "optimisation (-O2, -march=native). It uses 1.0 of 2 usable cores: parallelise with processes "
		 "(multiprocessing, concurrent.futures.ProcessPoolExecutor) to use the rest; Python threads take "
		 "turns on the GIL. Also, for the waits, find what it sleeps on and overlap the waits. Per process: "
		 "python3 (pid 27248) cpu-starved, python3 (pid 27249) cpu-starved, python3 (pid 27250) cpu-starved "
		 "and 1 more (under Processes): see its finding.");
	cpw_hotspot_advice_append(h, &v);
	size_t len = strlen(v.advice);
	CU_ASSERT_TRUE(len > 768);
	CU_ASSERT_FALSE(len >= 3 && strcmp(v.advice + len - 3, "...") == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, "of the CPU in pack_the_decoded_records_into_the_output_buffer_in_one_pass (prog): "
						"native code: the algorithm there."));
	cpw_hotspots_free(h);
}

static void test_advice_turns(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	const char *spin[] = { "spin" }, *other[] = { "other" };
	struct cpw_verdict v;
	memset(&v, 0, sizeof(v));
	v.cls = CPW_CLASS_CPU_STARVED; /* any class */
	snprintf(v.findings[0], sizeof(v.findings[0]), "uses 1.0 of 2 usable cores");
	snprintf(v.findings[1], sizeof(v.findings[1]), "4 threads, about one core at a time: they take turns on a lock");
	v.nfindings = 2;
	cpw_hotspot_advice_name_turns(h, &v); /* nothing sampled: unchanged */
	CU_ASSERT_STRING_EQUAL(v.findings[1], "4 threads, about one core at a time: they take turns on a lock");
	for (int i = 0; i < 100; i++)
		one_stack(h, 1, "prog", i, 1, i % 10 < 9 ? spin : other);
	cpw_hotspot_advice_name_turns(h, &v);
	CU_ASSERT_STRING_EQUAL(v.findings[0], "uses 1.0 of 2 usable cores");
	CU_ASSERT_STRING_EQUAL(v.findings[1], "4 threads, about one core at a time: they take turns on a lock, "
					      "running spin (prog), 90% of the CPU");
	cpw_hotspot_advice_name_turns(h, &v); /* once */
	CU_ASSERT_STRING_EQUAL(v.findings[1], "4 threads, about one core at a time: they take turns on a lock, "
					      "running spin (prog), 90% of the CPU");
	/* What does not fit whole is left out, never cut. */
	memset(v.findings[1], 'x', sizeof(v.findings[1]) - 40);
	snprintf(v.findings[1] + sizeof(v.findings[1]) - 40, 40, "they take turns on a lock");
	char before[sizeof(v.findings[1])];
	memcpy(before, v.findings[1], sizeof(before));
	cpw_hotspot_advice_name_turns(h, &v);
	CU_ASSERT_STRING_EQUAL(v.findings[1], before);
	cpw_hotspots_free(h);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("hotspots", NULL, NULL);
	CU_add_test(s, "elf: this binary's symbols, only inside [value, value+size)", test_elf_own_binary);
	CU_add_test(s, "elf: a stripped binary names little", test_elf_stripped);
	CU_add_test(s, "elf: truncated and corrupted files refused or read in bounds", test_elf_truncated_and_corrupt);
	CU_add_test(s, "perf map: garbage lines skipped and counted", test_perf_map_garbage);
	CU_add_test(s, "kallsyms: the kernel's code symbols", test_kallsyms);
	CU_add_test(s, "records: a sample parsed, every cut refused", test_record_parse);
	CU_add_test(s, "maps lines and kinds of code", test_maps_lines);
	CU_add_test(s, "symbol table: ended processes dropped, their room taken again", test_symtab_processes);
	CU_add_test(s, "symbol table: mappings through PROCMAP_QUERY name as the maps text does",
		    test_symtab_query_as_text);
	CU_add_test(s, "model: 70/30 shares, a pool summed, phases' top", test_model_shares);
	CU_add_test(s, "model: the host's spin in the GPU driver, none from a handful", test_gpu_spin_share);
	CU_add_test(s, "model: recursion counted once, 1 MiB bound under a flood", test_model_recursion_and_bound);
	CU_add_test(s, "advice: cpu-bound names the top functions and their kind", test_advice);
	CU_add_test(s, "advice: the kernel's unnamed samples told as the kernel's", test_advice_kernel_unnamed);
	CU_add_test(s, "advice: an advice near full: the functions stay inside it", test_advice_full);
	CU_add_test(s, "advice: the whole advice of a run with every part fits", test_advice_room);
	CU_add_test(s, "advice: threads taking turns on a lock, what they run", test_advice_turns);
	return cpw_cunit_run_tap();
}
