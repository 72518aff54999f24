/*
 * test_wait_functions.c: the waits by Python function (model/waits.c): a wait that carries
 * the function its thread waits in adds its thread-seconds to that function on that kind
 * and target; a wait named only after it began brings the time it had lasted; callers that
 * differ are said so; the table is bounded, the rest counted; time found idle by design
 * leaves the function too; the text writer says "fetch (f.py:3) waited N s on TARGET".
 */
#include "config.h"
#include "model/waits.h"
#include "report/waits_report.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One sample (0.1 s) of thread tid of pid in wait seq, named fn (NULL: not named). */
static void add(struct cpw_waits *w, pid_t pid, pid_t tid, uint64_t seq, enum cpw_wait_kind kind, const char *target,
		const char *fn, const char *caller)
{
	struct cpw_wait one;
	memset(&one, 0, sizeof(one));
	one.kind = kind;
	one.tid = tid;
	one.seq = seq;
	snprintf(one.target, sizeof(one.target), "%s", target);
	if (fn) {
		one.py_fn = fn;
		one.py_fn_where = "netwait.py:16";
		one.py_caller = caller;
		one.py_caller_where = caller ? "netwait.py:44" : NULL;
	}
	cpw_waits_add(w, pid, "python3", &one, 0.1);
}

static void test_named_wait(void)
{
	static struct cpw_waits w;
	cpw_waits_init(&w);
	/* Probed before the stack reader came: two samples unnamed, then named in the same
	 * wait (it did not run): all 0.4 s go to fetch. */
	add(&w, 100, 100, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", NULL, NULL);
	add(&w, 100, 100, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", NULL, NULL);
	add(&w, 100, 100, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", "fetch", "main");
	add(&w, 100, 100, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", "fetch", "main");
	CU_ASSERT_EQUAL_FATAL(w.nfns, 1);
	CU_ASSERT_STRING_EQUAL(w.fns[0].fn, "fetch (netwait.py:16)");
	CU_ASSERT_STRING_EQUAL(w.fns[0].caller, "main (netwait.py:44)");
	CU_ASSERT_STRING_EQUAL(w.fns[0].target, "TCP 127.0.0.1:41234");
	CU_ASSERT_EQUAL(w.fns[0].kind, CPW_WAIT_NETWORK);
	CU_ASSERT_EQUAL(w.fns[0].pid, 100);
	CU_ASSERT_DOUBLE_EQUAL(w.fns[0].seconds, 0.4, 1e-9);
	/* A new wait (it ran): only its own time. Unnamed, it adds nothing to the function. */
	add(&w, 100, 100, 2, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", NULL, NULL);
	add(&w, 100, 100, 3, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", "fetch", "main");
	CU_ASSERT_DOUBLE_EQUAL(w.fns[0].seconds, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.targets[0].seconds, 0.6, 1e-9);
	/* Another caller: said so, the caller no longer named. A lock has no target. */
	add(&w, 100, 101, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", "fetch", "retry");
	CU_ASSERT_TRUE(w.fns[0].several_callers);
	CU_ASSERT_STRING_EQUAL(w.fns[0].caller, "");
	add(&w, 100, 102, 1, CPW_WAIT_LOCK, "", "spin", NULL);
	add(&w, 100, 102, 1, CPW_WAIT_LOCK, "", "spin", NULL);
	CU_ASSERT_EQUAL_FATAL(w.nfns, 2);
	CU_ASSERT_STRING_EQUAL(w.fns[1].target, "");
	CU_ASSERT_STRING_EQUAL(w.fns[1].caller, "");
	cpw_waits_sort(&w);
	const struct cpw_wait_fn_time *f = cpw_waits_top_fn(&w, CPW_WAIT_LOCK, 100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_DOUBLE_EQUAL(f->seconds, 0.2, 1e-9);
	CU_ASSERT_PTR_NULL(cpw_waits_top_fn(&w, CPW_WAIT_LOCK, 200));
	CU_ASSERT_PTR_NULL(cpw_waits_top_fn(&w, CPW_WAIT_PIPE, 0));
	CU_ASSERT_STRING_EQUAL(cpw_waits_top_fn(&w, CPW_WAIT_NETWORK, 0)->fn, "fetch (netwait.py:16)");
}

/* A helper thread idle on a lock: its time leaves the function as it leaves the kind. */
static void test_idle_leaves_function(void)
{
	static struct cpw_waits w;
	cpw_waits_init(&w);
	for (int i = 0; i < 10; i++)
		add(&w, 100, 105, 7, CPW_WAIT_LOCK, "", "Condition.wait", "Thread.run");
	CU_ASSERT_EQUAL(w.idle_threads, 1);
	CU_ASSERT_EQUAL_FATAL(w.nfns, 1);
	CU_ASSERT_DOUBLE_EQUAL(w.fns[0].seconds, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], 0, 1e-9);
	CU_ASSERT_PTR_NULL(cpw_waits_top_fn(&w, CPW_WAIT_LOCK, 0));
}

/* Bounded: past CPW_WAIT_FNS_MAX functions the time is counted, not itemised. */
static void test_table_bounded(void)
{
	static struct cpw_waits w;
	char names[CPW_WAIT_FNS_MAX + 8][16];
	cpw_waits_init(&w);
	for (int i = 0; i < CPW_WAIT_FNS_MAX + 8; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		add(&w, 100, 100, (uint64_t)i + 1, CPW_WAIT_TIMER, "", names[i], NULL);
	}
	CU_ASSERT_EQUAL(w.nfns, CPW_WAIT_FNS_MAX);
	CU_ASSERT_DOUBLE_EQUAL(w.untracked_fn_s, 0.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_TIMER], 0.1 * (CPW_WAIT_FNS_MAX + 8), 1e-9);
}

static void test_text(void)
{
	static struct cpw_waits w;
	cpw_waits_init(&w);
	for (int i = 0; i < 29; i++)
		add(&w, 100, 100, 1, CPW_WAIT_NETWORK, "TCP 127.0.0.1:41234", "fetch", "main");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(cpw_waits_report_write_text(&w, out), 0);
	fclose(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\t    fetch (netwait.py:16) waited 2.90 s on TCP 127.0.0.1:41234 (called from "
					   "main (netwait.py:44)), pid 100\n"));
	free(buf);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("wait_functions", NULL, NULL);
	CU_add_test(s, "a wait's time by Python function, named late or not", test_named_wait);
	CU_add_test(s, "idle by design leaves the function", test_idle_leaves_function);
	CU_add_test(s, "the table is bounded", test_table_bounded);
	CU_add_test(s, "the text says who waited on what", test_text);
	return cpw_cunit_run_tap();
}
