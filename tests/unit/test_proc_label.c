/*
 * test_proc_label.c: a process as people tell it apart (model/proc_label.c): arguments
 * shortened (the program by its name; path arguments by their last part where long; cut
 * with "..."), sizes as people read them, and a wrapper's short-lived helpers folded into
 * the process they ran for, never a process that worked, nor the root.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "model/proc_label.h"
#include "model/tree.h"
#include "cunit_tap.h"

static const char *args_of(const char *cmdline, const char *comm, size_t max)
{
	static struct cpw_proc p;
	static char buf[128];
	memset(&p, 0, sizeof p);
	snprintf(p.cmdline, sizeof p.cmdline, "%s", cmdline);
	snprintf(p.comm, sizeof p.comm, "%s", comm);
	return cpw_proc_label_args(&p, max, buf, sizeof buf);
}

static void test_args(void)
{
	CU_ASSERT_STRING_EQUAL(args_of("/usr/bin/python3 -m pytest -k slow", "python3", 60),
			       "python3 -m pytest -k slow");
	CU_ASSERT_STRING_EQUAL(args_of("", "kworker/0:1", 60), "kworker/0:1");
	/* Long: path arguments by their last part, an option's name kept. */
	CU_ASSERT_STRING_EQUAL(args_of("/usr/bin/python3 /home/someone/projects/x/tests/test_io.py --out=/var/tmp/a/b.log",
				       "python3", 40),
			       "python3 .../test_io.py --out=.../b.log");
	/* Still too long: cut, and the cut shows. */
	const char *cut = args_of("/bin/prog aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "prog", 20);
	CU_ASSERT_EQUAL(strlen(cut), 20);
	CU_ASSERT_STRING_EQUAL(cut + 17, "...");
	/* A process that named itself: its name first. */
	CU_ASSERT_STRING_EQUAL(args_of("/usr/bin/python3 serve.py", "worker-3", 60), "[worker-3] python3 serve.py");
	CU_ASSERT_STRING_EQUAL(args_of("/bin/bash /tmp/x/runner", "runner", 60), "bash /tmp/x/runner");
	/* Short enough: paths stay whole. */
	CU_ASSERT_STRING_EQUAL(args_of("sh /tmp/x/run.sh", "sh", 60), "sh /tmp/x/run.sh");
}

static void test_size(void)
{
	char b[24];
	CU_ASSERT_STRING_EQUAL(cpw_proc_label_size(900, b, sizeof b), "900 KiB");
	CU_ASSERT_STRING_EQUAL(cpw_proc_label_size(13.2 * 1024, b, sizeof b), "13.2 MiB");
	CU_ASSERT_STRING_EQUAL(cpw_proc_label_size(120 * 1024, b, sizeof b), "120 MiB");
	CU_ASSERT_STRING_EQUAL(cpw_proc_label_size(3.0 * 1024 * 1024, b, sizeof b), "3.0 GiB");
}

/* A tree known only from exit records: none was found alive by a sample. */
static void test_fold(void)
{
	struct cpw_tree *t = cpw_tree_new(false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	cpw_tree_record_exit(t, 10, 1, "bash", 0.001, 0, 1, 0, 100, 0.1);    /* the root */
	cpw_tree_record_exit(t, 11, 10, "readlink", 0.001, 0, 1, 0, 100, 0.1); /* helper */
	cpw_tree_record_exit(t, 12, 10, "bash", 0.001, 0, 1, 0, 100, 0.1);     /* helper ... */
	cpw_tree_record_exit(t, 13, 12, "readlink", 0.001, 0, 1, 0, 100, 0.1); /* ... and its own */
	cpw_tree_record_exit(t, 14, 10, "bash", 0.001, 0, 1, 0, 100, 0.1);     /* no helper: ... */
	cpw_tree_record_exit(t, 15, 14, "python3", 2.0, 0, 1, 0, 100, 0.2);    /* ... it ran work */
	size_t n = cpw_tree_size(t);
	bool *folded = calloc(n, sizeof *folded);
	CU_ASSERT_PTR_NOT_NULL_FATAL(folded);
	CU_ASSERT_EQUAL(cpw_proc_label_fold(t, folded), 3);
	CU_ASSERT_FALSE(folded[0]); /* the root never folds */
	CU_ASSERT_TRUE(folded[1]);
	CU_ASSERT_TRUE(folded[2]);
	CU_ASSERT_TRUE(folded[3]);
	CU_ASSERT_FALSE(folded[4]);
	CU_ASSERT_FALSE(folded[5]);
	/* Each folds into its nearest ancestor that is not folded. */
	CU_ASSERT_EQUAL(cpw_proc_label_folded_into(t, folded, cpw_tree_proc(t, 3))->pid, 10);
	CU_ASSERT_EQUAL(cpw_proc_label_folded_into(t, folded, cpw_tree_proc(t, 1))->pid, 10);
	free(folded);
	cpw_tree_free(t);
}

/* exec args: a runner's short tests, known only from their exit records and their exec
 * (root), keep their rows with their arguments; what a wrapper exec'd before its own exec
 * folds; a fork without an exec folds as before. */
static void test_fold_by_exec_times(void)
{
	struct cpw_tree *t = cpw_tree_new(false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	cpw_tree_record_exit(t, 10, 1, "python3", 1.0, 0, 1, 0, 100, 2.0);       /* the root */
	cpw_tree_exec_args(t, 10, "bash /shims/python3 runner.py", 0.01);
	cpw_tree_exec_args(t, 10, "/usr/bin/python3 runner.py", 0.5);           /* its exec */
	cpw_tree_exec_args(t, 10, "bash /shims/python3 runner.py", 0.01);       /* older: no */
	cpw_tree_record_exit(t, 11, 10, "readlink", 0.001, 0, 1, 0, 100, 0.3);
	cpw_tree_exec_args(t, 11, "readlink -f /usr/bin/python3", 0.2);          /* before it */
	cpw_tree_record_exit(t, 12, 10, "python3", 0.02, 0, 1, 0, 100, 0.8);
	cpw_tree_exec_args(t, 12, "/usr/bin/python3 -c pass test_1", 0.7);      /* after it */
	cpw_tree_exit_began(t, 12, 0.7, 0.03);
	cpw_tree_record_exit(t, 13, 10, "bash", 0.001, 0, 1, 0, 100, 0.3);      /* a subshell */
	CU_ASSERT_STRING_EQUAL(cpw_tree_find(t, 10)->cmdline, "/usr/bin/python3 runner.py");
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 12)->first_seen_s, 0.7, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 12)->exited_s, 0.73, 1e-9);
	size_t n = cpw_tree_size(t);
	bool *folded = calloc(n, sizeof *folded);
	CU_ASSERT_PTR_NOT_NULL_FATAL(folded);
	CU_ASSERT_EQUAL(cpw_proc_label_fold(t, folded), 2);
	CU_ASSERT_FALSE(folded[0]);
	CU_ASSERT_TRUE(folded[1]);  /* the wrapper's readlink */
	CU_ASSERT_FALSE(folded[2]); /* the test */
	CU_ASSERT_TRUE(folded[3]);  /* the subshell */
	char b[64];
	CU_ASSERT_STRING_EQUAL(cpw_proc_label_args(cpw_tree_find(t, 12), 40, b, sizeof b),
			       "python3 -c pass test_1");
	free(folded);
	cpw_tree_free(t);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("proc_label", NULL, NULL);
	CU_add_test(s, "arguments shortened: name, path arguments, the cut shown", test_args);
	CU_add_test(s, "sizes as people read them", test_size);
	CU_add_test(s, "helpers fold into their ancestor; work and the root do not", test_fold);
	CU_add_test(s, "exec times tell a runner's short tests from a wrapper's helpers", test_fold_by_exec_times);
	return cpw_cunit_run_tap();
}
