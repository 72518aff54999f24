/*
 * test_tui_hot.c: the lines of the live view's panel of the top functions so far (f,
 * view/tui_hot.c): why there are none (--no-hotspots, not sampled, not armed yet, no
 * samples); the samples and their rate, the kinds of code most first, the table as the
 * report's (self%, total%, function, file, process), the rows under 1% left out past the
 * first three; every line within its width from 20 to 130 cells, columns giving way on
 * narrow widths (total%, the process, the file), a long name cut with a mark, a file
 * cut from its start so that its line stays, the pid kept where the process's name is
 * cut; names escaped; in the C locale nothing but ASCII.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "view/tui.h"
#include "cunit_tap.h"

#define MAXL 24
static char rows[MAXL][CPW_TUI_HOT_ROW];

static void add_fn(struct cpw_view_hotspots *hs, const char *name, const char *file, const char *comm, pid_t pid,
		   unsigned nprocs, uint64_t self, uint64_t total)
{
	struct cpw_view_hot_fn *f = &hs->fn[hs->n++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->file, sizeof(f->file), "%s", file);
	snprintf(f->comm, sizeof(f->comm), "%s", comm);
	f->pid = pid;
	f->nprocs = nprocs;
	f->self = self;
	f->total = total;
}

/* 1000 samples at 199 Hz from 0.5 s: python 90.0%, interpreter 9.6%, kernel 0.4%. */
static void sampled(struct cpw_view_hotspots *hs)
{
	memset(hs, 0, sizeof(*hs));
	hs->state = CPW_VIEW_HOT_SAMPLED;
	hs->hz = 199;
	hs->armed_at_s = 0.5;
	hs->samples = 1000;
	hs->kind[CPW_CODE_PYTHON] = 900;
	hs->kind[CPW_CODE_INTERPRETER] = 96;
	hs->kind[CPW_CODE_KERNEL] = 4;
	add_fn(hs, "calculate_z_serial_purepython", "julia.py:9", "python3", 4242, 1, 880, 900);
	add_fn(hs, "_PyEval_EvalFrameDefault", "libpython3.11.so.1.0", "python3", 4242, 3, 60, 996);
	add_fn(hs, "main", "julia.py:31", "python3", 4242, 1, 20, 990);
	add_fn(hs, "PyObject_Free", "libpython3.11.so.1.0", "python3", 4242, 1, 12, 12);
	add_fn(hs, "tiny", "libc.so.6", "python3", 4242, 1, 4, 4); /* 0.4%: left out */
}

/* The cells of a line (UTF-8: every byte but continuation bytes). */
static int cells(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static int find(int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (strstr(rows[i], what))
			return i;
	return -1;
}

static void dump(int n)
{
	for (int i = 0; i < n; i++)
		fprintf(stderr, "# |%s|\n", rows[i]);
}

static void test_why_none(void)
{
	struct cpw_view_hotspots hs;
	int head;
	memset(&hs, 0, sizeof(hs));
	hs.state = CPW_VIEW_HOT_OFF;
	CU_ASSERT_EQUAL(cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head), 1);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions: not sampled (--no-hotspots)");
	CU_ASSERT_EQUAL(head, -1);

	hs.state = CPW_VIEW_HOT_UNAVAILABLE;
	snprintf(hs.why, sizeof(hs.why), "perf_event_paranoid is 3: cpu-clock sampling needs CAP_PERFMON");
	CU_ASSERT_EQUAL(cpw_tui_hot_lines(&hs, 120, true, rows, MAXL, &head), 1);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions: not sampled: perf_event_paranoid is 3: cpu-clock sampling "
					"needs CAP_PERFMON");
	/* Wrapped on a narrow screen, never cut. */
	int n = cpw_tui_hot_lines(&hs, 40, true, rows, MAXL, &head);
	CU_ASSERT_TRUE(n > 1);
	for (int i = 0; i < n; i++)
		CU_ASSERT_TRUE(cells(rows[i]) <= 40);
	CU_ASSERT_TRUE(find(n, "CAP_PERFMON") == n - 1);
	/* The reason comes from the kernel's side: escaped. */
	snprintf(hs.why, sizeof(hs.why), "bad\x1b[2J");
	cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head);
	CU_ASSERT_PTR_NULL(strchr(rows[0], '\x1b'));

	hs.state = CPW_VIEW_HOT_NOT_ARMED;
	hs.arms_at_s = 0.5;
	CU_ASSERT_EQUAL(cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head), 1);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions: sampling not armed yet (it starts 0.5 s into the run)");
	hs.arms_at_s = 0;
	cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions: sampling not armed yet (it starts at the next sample)");

	hs.state = CPW_VIEW_HOT_SAMPLED;
	hs.hz = 199;
	hs.armed_at_s = 0.5;
	CU_ASSERT_EQUAL(cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head), 2);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions so far: 0 cpu-clock samples at 199 Hz, from 0.5 s");
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[1], "no samples yet"));
	CU_ASSERT_EQUAL(head, -1);
}

static void test_table(void)
{
	struct cpw_view_hotspots hs;
	int head;
	sampled(&hs);
	int n = cpw_tui_hot_lines(&hs, 110, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[0], "top functions so far: 1000 cpu-clock samples at 199 Hz, from 0.5 s");
	CU_ASSERT_STRING_EQUAL(rows[1], "by kind of code: python 90%, interpreter 10%, kernel <1%");
	CU_ASSERT_EQUAL(head, 2);
	/* Each column as wide as its widest entry, two blanks between them, none at the end. */
	CU_ASSERT_STRING_EQUAL(rows[2], " self% total%  function                       file                  process");
	CU_ASSERT_STRING_EQUAL(rows[3], "  88.0   90.0  calculate_z_serial_purepython  julia.py:9            "
					"python3 (4242)");
	CU_ASSERT_STRING_EQUAL(rows[4], "   6.0   99.6  _PyEval_EvalFrameDefault       libpython3.11.so.1.0  "
					"python3 (4242) +2 more");
	/* At 78 (an 80-column screen's box): one blank between the columns; the process gives
	 * way first (what ran it besides), then the file (from its start). */
	cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[2], " self% total%  function                      file             process");
	CU_ASSERT_STRING_EQUAL(rows[3], "  88.0   90.0  calculate_z_serial_purepython julia.py:9       python3 (4242)");
	CU_ASSERT_STRING_EQUAL(rows[4], "   6.0   99.6  _PyEval_EvalFrameDefault      \xe2\x80\xa6thon3.11.so.1.0 "
					"python3 (4242)");
	/* Past the first three, those under 1% are left out, and the panel says so. */
	CU_ASSERT_TRUE(find(n, "PyObject_Free") == 6);
	CU_ASSERT_EQUAL(find(n, "tiny"), -1);
	CU_ASSERT_EQUAL(n, 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[7], "under 1%"));
	/* Fewer lines asked for: the function rows, which come last, are the ones left out. */
	CU_ASSERT_EQUAL(cpw_tui_hot_lines(&hs, 78, true, rows, 4, &head), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[3], "calculate_z"));
}

/* Every width from 20 to 130: no line wider; the function's name and its share always in
 * sight; total%, the process and the file give way in that order from the right. */
static void test_widths(void)
{
	struct cpw_view_hotspots hs;
	int head;
	sampled(&hs);
	for (int w = 20; w <= 130; w++) {
		int n = cpw_tui_hot_lines(&hs, w, true, rows, MAXL, &head);
		bool fits = true;
		for (int i = 0; i < n; i++)
			fits &= cells(rows[i]) <= (w < 128 ? w : 128);
		bool named = head >= 0 && head + 1 < n && strstr(rows[head + 1], "88.0") && strstr(rows[head + 1], "calc");
		bool total = strstr(rows[head], "total%") != NULL, proc = strstr(rows[head], "process") != NULL,
		     file = strstr(rows[head], "file") != NULL;
		/* The pid of the process stays whenever the process is shown. */
		bool pid = !proc || strstr(rows[head + 1], "(4242)");
		/* The file keeps its line where it is cut (from its start). */
		bool line = !file || strstr(rows[head + 1], ":9");
		if (!fits || !named || !pid || !line || (proc && !file) || (w >= 30) != total) {
			fprintf(stderr, "# width %d\n", w);
			dump(n);
			CU_FAIL("the panel at a width");
		}
	}
	/* At 58: the process gives way before the function's name is cut. */
	cpw_tui_hot_lines(&hs, 58, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[head + 1], "  88.0   90.0  calculate_z_serial_purepython julia.py:9");
	/* At 44: the function cut with an ellipsis, the file whole. */
	cpw_tui_hot_lines(&hs, 44, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[head + 1], "  88.0   90.0  calculate_z_ser\xe2\x80\xa6 julia.py:9");
	/* The kinds wrap between kinds, never inside one. */
	cpw_tui_hot_lines(&hs, 40, true, rows, MAXL, &head);
	CU_ASSERT_STRING_EQUAL(rows[2], "by kind of code: python 90%,");
	CU_ASSERT_STRING_EQUAL(rows[3], "  interpreter 10%, kernel <1%");
}

/* Names from the program's files: escaped; cut, never inside a character; in the C locale
 * ASCII only, "..." as the mark. */
static void test_names(void)
{
	struct cpw_view_hotspots hs;
	int head;
	sampled(&hs);
	snprintf(hs.fn[0].name, sizeof(hs.fn[0].name), "evil\x1b]0;title\x07_\xc3\xa9t\xc3\xa9_%s",
		 "a_very_long_name_that_goes_on_and_on_and_on_and_on_and_on_and_on");
	int n = cpw_tui_hot_lines(&hs, 78, true, rows, MAXL, &head);
	for (int i = 0; i < n; i++) {
		CU_ASSERT_PTR_NULL(strchr(rows[i], '\x1b'));
		CU_ASSERT_PTR_NULL(strchr(rows[i], '\x07'));
		CU_ASSERT_TRUE(cells(rows[i]) <= 78);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[head + 1], "evil\\x1b]0;title\\x07_\xc3\xa9t\xc3\xa9_"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[head + 1], "\xe2\x80\xa6 julia.py:9"));

	setlocale(LC_CTYPE, "C");
	n = cpw_tui_hot_lines(&hs, 78, false, rows, MAXL, &head);
	for (int i = 0; i < n; i++) {
		bool ascii = true;
		for (const char *c = rows[i]; *c; c++)
			ascii &= (unsigned char)*c < 0x80;
		CU_ASSERT_TRUE(ascii);
		CU_ASSERT_TRUE((int)strlen(rows[i]) <= 78);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[head + 1], "_??t??_"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[head + 1], "... julia.py:9"));
	setlocale(LC_CTYPE, "C.UTF-8");
}

int main(void)
{
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "en_US.UTF-8");
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("tui_hot", NULL, NULL);
	CU_add_test(s, "why there are no functions to show", test_why_none);
	CU_add_test(s, "the table, as the report's", test_table);
	CU_add_test(s, "every width from 20 to 130", test_widths);
	CU_add_test(s, "names escaped, cut, ASCII in the C locale", test_names);
	return cpw_cunit_run_tap();
}
