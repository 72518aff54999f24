/*
 * test_tree.c: the model over a fake proc root (tests/fixtures/procroot-basic), read by
 * the /proc reader and folded by the model as a session does: discovery through children
 * files, per-process and per-thread figures, thread states, banking of threads that end,
 * processes that exit, and the attach-mode baseline.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/metrics.h"
#include "model/whole_run.h"
#include "source/proc/procps.h"
#include "source/proc/proc_reader.h"
#include "model/tree.h"
#include "model/timeline.h"
#include "cunit_tap.h"
#include "fixture_root.h"

static char root[512];

/* The reader of the tree in use (one at a time), as the session pairs them. */
static struct cpw_proc_reader *reader;

static struct cpw_tree *watch_new(const char *proc_root, bool baseline_existing)
{
	reader = cpw_proc_reader_new(proc_root);
	return reader ? cpw_tree_new(baseline_existing) : NULL;
}

static void watch_free(struct cpw_tree *t)
{
	cpw_tree_free(t);
	cpw_proc_reader_free(reader);
	reader = NULL;
}

/* One sample, read then folded. */
static int sample(struct cpw_tree *t, const pid_t *roots, size_t nroots, double now_s)
{
	struct cpw_proc_sample s;
	int rc = cpw_proc_reader_sample(reader, roots, nroots, &s);
	return rc < 0 ? rc : cpw_tree_apply(t, &s, now_s);
}

/* The run's metrics from the tree as it stands. */
static void metrics_of(const struct cpw_tree *t, struct cpw_metrics *m)
{
	cpw_metrics_init(m);
	cpw_metrics_from_tree(m, t);
}

static void write_file(const char *rel, const char *text)
{
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, rel, text), 0);
}

static void test_discovery_and_figures(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.1), 2);
	CU_ASSERT_EQUAL(cpw_tree_size(t), 2);

	const struct cpw_proc *make = cpw_tree_find(t, 100), *cc1 = cpw_tree_find(t, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(make);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cc1);
	CU_ASSERT_STRING_EQUAL(make->comm, "we ird) (name)");
	CU_ASSERT_STRING_EQUAL(make->cmdline, "make -j2 all");
	CU_ASSERT_EQUAL(cc1->ppid, 100);
	long hz = sysconf(_SC_CLK_TCK);
	CU_ASSERT_DOUBLE_EQUAL(cc1->user_s, 300.0 / (double)hz, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cc1->sys_s, 100.0 / (double)hz, 1e-9);
	CU_ASSERT_EQUAL(cc1->minflt, 1000);
	CU_ASSERT_EQUAL(cc1->majflt, 5);
	CU_ASSERT_EQUAL(cc1->nthreads, 2);
	/* schedstat and context switches: the sum of both threads */
	CU_ASSERT_DOUBLE_EQUAL(cc1->oncpu_s, 4.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cc1->runq_wait_s, 0.5, 1e-9);
	CU_ASSERT_EQUAL(cc1->vol_ctxsw, 6);
	CU_ASSERT_EQUAL(cc1->invol_ctxsw, 8);
	CU_ASSERT_EQUAL(cc1->max_rss_kib, 8192); /* VmHWM of the main thread */
	/* What its threads wait on: thread 102 in D on io_schedule (no syscall file here: the
	 * kind from the wait channel), one of its two threads. */
	CU_ASSERT_STRING_EQUAL(cc1->wait_now, "disk:1");
	CU_ASSERT_TRUE(cc1->waits_now);
	/* io: readable for make, absent for cc1 -> N/A, never 0 */
	CU_ASSERT_DOUBLE_EQUAL(make->read_bytes, 4096, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(make->write_bytes, 8192, 1e-9);
	CU_ASSERT_TRUE(isnan(cc1->read_bytes));

	const struct cpw_tree_totals *tt = cpw_tree_totals(t);
	CU_ASSERT_EQUAL(tt->samples, 1);
	CU_ASSERT_EQUAL(tt->thread_samples, 3);
	CU_ASSERT_EQUAL(tt->st_running, 1);
	CU_ASSERT_EQUAL(tt->st_disk_wait, 1); /* D in io_schedule */
	CU_ASSERT_EQUAL(tt->st_sleeping, 1);
	long page_kib = sysconf(_SC_PAGESIZE) / 1024;
	CU_ASSERT_EQUAL(tt->rss_kib, (uint64_t)(256 + 1024) * (uint64_t)page_kib);
	CU_ASSERT_EQUAL(tt->peak_rss_kib, tt->rss_kib);
	/* The threads sampling arms, listed up to a limit, and how many there are past it. */
	pid_t tids[2];
	CU_ASSERT_EQUAL(cpw_tree_live_tids(t, tids, 2), 2);
	CU_ASSERT_EQUAL(cpw_tree_live_thread_count(t), 3);

	struct cpw_metrics m;
	metrics_of(t, &m);
	CU_ASSERT_EQUAL(m.nprocs, 2);
	CU_ASSERT_DOUBLE_EQUAL(m.oncpu_s, 5.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.read_bytes, 4096, 1e-9); /* the readable part */
	CU_ASSERT_EQUAL(m.top_process_pid, 101);
	CU_ASSERT_DOUBLE_EQUAL(m.top_process_cpu_share, 400.0 / 600.0, 1e-9);
	watch_free(t);
}

/* A process that waits uses nothing, yet the timeline names it for the seconds it waited
 * (a waiting phase is about it); a parent that only waits for its child is not named. */
static void test_timeline_names_a_waiter(void)
{
	struct cpw_tree *t = watch_new(root, false);
	struct cpw_timeline *tl = cpw_timeline_new();
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	write_file("100/task/100/wchan", "do_wait\n"); /* make waits for cc1 */
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	CU_ASSERT_FALSE(cpw_tree_find(t, 100)->waits_now);
	cpw_timeline_record(tl, t, 0.1, NULL);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.2), 2); /* nothing moved */
	cpw_timeline_record(tl, t, 0.2, NULL);
	CU_ASSERT_EQUAL_FATAL(cpw_timeline_count(tl), 2);
	const struct cpw_tl_point *p1 = cpw_timeline_point(tl, 1);
	CU_ASSERT_EQUAL(p1->top[0].pid, 101);
	CU_ASSERT_DOUBLE_EQUAL(p1->top[0].cpu_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p1->top[0].wait_s, 0.1, 1e-9);
	CU_ASSERT_EQUAL(p1->top[1].pid, 0);
	cpw_timeline_free(tl);
	watch_free(t);
}

/* An exec (the name changes): the command line is read again, as the new program's. */
static void test_exec_rereads_cmdline(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	char was[64];
	snprintf(was, sizeof(was), "%s", cpw_tree_find(t, 101)->cmdline);
	/* In place (the reader keeps stat open): the same file, the new name. */
	char path[700], text[1024] = "";
	snprintf(path, sizeof(path), "%s/101/stat", root);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	CU_ASSERT_EQUAL_FATAL(strncmp(text, "101 (cc1) ", 10), 0);
	char renamed[1100];
	snprintf(renamed, sizeof(renamed), "101 (python3) %s", text + 10);
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/stat", renamed), 0);
	/* An exec runs: the reader reads the stat of a process that ran. */
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/task/101/schedstat", "3100000000 500000000 101\n"), 0);
	char cmd[800];
	snprintf(cmd, sizeof(cmd), "printf 'python3\\0train.py\\0' >'%s/101/cmdline'", root);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.2), 2);
	const struct cpw_proc *p = cpw_tree_find(t, 101);
	CU_ASSERT_STRING_EQUAL(p->comm, "python3");
	CU_ASSERT_STRING_EQUAL(p->cmdline, "python3 train.py");
	CU_ASSERT_STRING_NOT_EQUAL(was, p->cmdline);
	/* Not renamed: not read again (an unchanged file would not tell). */
	snprintf(cmd, sizeof(cmd), "printf 'other\\0' >'%s/101/cmdline'", root);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_STRING_EQUAL(cpw_tree_find(t, 101)->cmdline, "python3 train.py");
	/* A script's interpreter exec'd under the script's name (a #!/usr/bin/env shim named
	 * python3 becoming python3): the name stays, where its code starts (field 26) moves. */
	static const char stat_fmt[] = "101 (python3) R 100 100 100 0 -1 4194304 1000 0 5 0 300 100 0 0 20 0 2 0 "
				       "1010 10000000 1024 18446744073709551615 %s 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 "
				       "0 0 0 0 0 0 0 0 0 0\n";
	snprintf(renamed, sizeof(renamed), stat_fmt, "4194304");
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/stat", renamed), 0);
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/task/101/schedstat", "3200000000 500000000 102\n"), 0);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.4), 2);
	snprintf(renamed, sizeof(renamed), stat_fmt, "94066718232576");
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/stat", renamed), 0);
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, "101/task/101/schedstat", "3300000000 500000000 103\n"), 0);
	snprintf(cmd, sizeof(cmd), "printf 'python3\\0eval.py\\0' >'%s/101/cmdline'", root);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.5), 2);
	CU_ASSERT_STRING_EQUAL(cpw_tree_find(t, 101)->cmdline, "python3 eval.py");
	watch_free(t);
}

static void test_threads_end_and_process_exits(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);

	/* Thread 102 ends: its schedstat stays counted (banked). Thread 101 runs on. */
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/101/task/102'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
	write_file("101/task/101/schedstat", "3500000000 500000000 120\n");
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.2), 2);
	const struct cpw_proc *cc1 = cpw_tree_find(t, 101);
	CU_ASSERT_DOUBLE_EQUAL(cc1->oncpu_s, 4.5, 1e-9);
	CU_ASSERT_EQUAL(cc1->vol_ctxsw, 6);

	/* A racing read that goes backwards does not lower a figure. */
	write_file("101/task/101/schedstat", "100 0 1\n");
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->oncpu_s, 4.5, 1e-9);

	/* 101 exits: its parent runs to reap it, so it leaves the children list and /proc. */
	write_file("100/task/100/children", "");
	write_file("100/task/100/schedstat", "1600000000 20000000 31\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/101'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.4), 1);
	cc1 = cpw_tree_find(t, 101);
	CU_ASSERT_FALSE(cc1->alive);
	CU_ASSERT_DOUBLE_EQUAL(cc1->exited_s, 0.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cc1->oncpu_s, 4.5, 1e-9); /* kept */
	CU_ASSERT_EQUAL(cpw_tree_totals(t)->alive, 1);
	CU_ASSERT_EQUAL(cpw_tree_totals(t)->seen, 2);

	/* Exact figures from a reaped process are taken, and never lower the sampled ones. */
	cpw_tree_record_exit(t, 101, 100, "cc1", 0.01, 0.01, 10, 0, 0, 0.45);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->user_s, 300.0 / (double)sysconf(_SC_CLK_TCK), 1e-9);
	CU_ASSERT_TRUE(cpw_tree_find(t, 101)->reaped);
	/* A process never sampled (shorter than an interval) is added. */
	cpw_tree_record_exit(t, 555, 100, "short", 0.02, 0.01, 50, 1, 900, 0.46);
	CU_ASSERT_EQUAL(cpw_tree_size(t), 3);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 555)->user_s, 0.02, 1e-9);
	CU_ASSERT_EQUAL(cpw_tree_find(t, 555)->max_rss_kib, 900);

	/* history holds one point per sample, oldest first */
	const struct cpw_history *h = cpw_tree_history(t);
	CU_ASSERT_EQUAL(h->count, 4);
	CU_ASSERT_TRUE(isnan(cpw_tree_history_at(h, h->cpu_pct, 4)));
	watch_free(t);
}

static void test_attach_baseline(void)
{
	struct cpw_tree *t = watch_new(root, true);
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.0), 2);
	const struct cpw_proc *cc1 = cpw_tree_find(t, 101);
	/* What existed before the watch counts from zero at the first sample. */
	CU_ASSERT_TRUE(cc1->preexisting);
	CU_ASSERT_DOUBLE_EQUAL(cc1->user_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cc1->oncpu_s, 0, 1e-9);
	CU_ASSERT_EQUAL(cc1->minflt, 0);

	write_file("101/stat", "101 (cc1) R 100 100 100 0 -1 4194304 1100 0 5 0 400 100 0 0 20 0 2 0 1010 "
			       "10000000 1024 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("101/task/101/schedstat", "3800000000 500000000 100\n");
	CU_ASSERT_EQUAL(sample(t, &top, 1, 1.0), 2);
	cc1 = cpw_tree_find(t, 101);
	long hz = sysconf(_SC_CLK_TCK);
	CU_ASSERT_DOUBLE_EQUAL(cc1->user_s, 100.0 / (double)hz, 1e-9);
	CU_ASSERT_EQUAL(cc1->minflt, 100);
	CU_ASSERT_DOUBLE_EQUAL(cc1->oncpu_s, 0.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cc1->cpu_pct, 100.0 * 100.0 / (double)hz, 1e-6); /* over 1 s */
	watch_free(t);
}

/* A process's CPU% over a 0.1 s sample: schedstat's exact on-CPU time where the ticks
 * agree with it to one tick (11 ticks with 100 ms on the CPU is 100%, not 110%); the ticks
 * where they hold more (a thread that ended between two samples); schedstat's few
 * milliseconds where the ticks did not move. */
static void write_cc1_cpu(long ticks, const char *schedstat)
{
	char stat[512];
	snprintf(stat, sizeof(stat),
		 "101 (cc1) R 100 100 100 0 -1 4194304 1100 0 5 0 %ld 0 0 0 20 0 2 0 1010 "
		 "10000000 1024 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 ticks);
	write_file("101/stat", stat);
	write_file("101/task/101/schedstat", schedstat);
}

static void test_cpu_pct_exact(void)
{
	CU_ASSERT_EQUAL_FATAL(sysconf(_SC_CLK_TCK), 100);
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	write_cc1_cpu(1000, "10000000000 0 500\n");
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.0), 2);
	write_cc1_cpu(1011, "10100000000 0 510\n");
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->cpu_pct, 100.0, 1e-6);
	write_cc1_cpu(1041, "10200000000 0 520\n");
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.2), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->cpu_pct, 300.0, 1e-6);
	write_cc1_cpu(1041, "10205000000 0 521\n");
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->cpu_pct, 5.0, 1e-6);
	watch_free(t);
}

/* cc1's stat as the fixture has it but for 100 more minor faults, then for a larger resident
 * size too. */
#define CC1_STAT_FAULTED                                                                          \
	"101 (cc1) R 100 100 100 0 -1 4194304 1100 0 5 0 300 100 0 0 20 0 2 0 1010 10000000 1024 " \
	"18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
#define CC1_STAT_GREW                                                                             \
	"101 (cc1) R 100 100 100 0 -1 4194304 1100 0 5 0 300 100 0 0 20 0 2 0 1010 10000000 2048 " \
	"18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

/* The tree's proportional set sizes, at the samples that read them: their sum, its peak,
 * and processes whose PSS cannot be read counted, never taken as 0; re-read for a process
 * that faulted or changed its resident size since its last reading. */
static void test_pss_sum(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	const struct cpw_tree_totals *tt = cpw_tree_totals(t);
	CU_ASSERT_EQUAL(tt->pss_samples, 1);
	CU_ASSERT_DOUBLE_EQUAL(tt->pss_kib, 3000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->pss_kib, 2000, 1e-9);

	/* cc1 runs without a page fault or a change of size: its reading stands. */
	write_file("101/smaps_rollup", "Pss: 9000 kB\n");
	write_file("101/task/101/schedstat", "3400000000 500000000 110\n"); /* cc1 ran */
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.15), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->pss_kib, 2000, 1e-9);

	/* A sample that does not read them leaves them be, even after a fault. */
	write_file("101/stat", CC1_STAT_FAULTED);
	write_file("101/task/101/schedstat", "3500000000 500000000 120\n"); /* cc1 ran */
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.2), 2);
	CU_ASSERT_EQUAL(tt->pss_samples, 2);
	cpw_proc_reader_want_pss(reader); /* it faulted since its reading: read again */
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(tt->peak_pss_kib, 10000, 1e-9);

	/* A process that did not run since its last reading keeps it (not read again). */
	write_file("101/smaps_rollup", "Pss: 7777 kB\n");
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.35), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->pss_kib, 9000, 1e-9);

	/* cc1's cannot be read: the sum is partial, and says so. */
	write_file("101/smaps_rollup", "garbage\n");
	write_file("101/stat", CC1_STAT_GREW);
	write_file("101/task/101/schedstat", "3600000000 500000000 121\n");
	write_file("100/smaps_rollup", "Pss: 500 kB\n");
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.4), 2);
	CU_ASSERT_EQUAL(tt->pss_unreadable, 1);
	CU_ASSERT_DOUBLE_EQUAL(tt->peak_pss_kib, 10000, 1e-9);
	struct cpw_metrics m;
	metrics_of(t, &m);
	CU_ASSERT_TRUE(isnan(m.tree_peak_pss_kib));
	CU_ASSERT_STRING_EQUAL(m.tree_peak_source, "");
	watch_free(t);
}

/* The PSS read as the tree started, and the tree grown fourfold since with no reading
 * (a run with its own group reads it only once a second): its peak stands for nothing, and
 * says unknown rather than the start's; read again near the peak, it stands. */
#define CC1_STAT_BIG                                                                              \
	"101 (cc1) R 100 100 100 0 -1 4194304 1100 0 5 0 300 100 0 0 20 0 2 0 1010 10000000 8192 " \
	"18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
static void test_pss_covers_peak(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	write_file("101/stat", CC1_STAT_BIG);
	write_file("101/task/101/schedstat", "3400000000 500000000 110\n");
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.2), 2);
	struct cpw_metrics m;
	metrics_of(t, &m);
	CU_ASSERT_TRUE(isnan(m.tree_peak_pss_kib));
	CU_ASSERT_TRUE(isnan(m.tree_peak_kib));
	/* No group of its own: the note says why the tree's peak memory is unknown. */
	struct cpw_run_readings in;
	memset(&in, 0, sizeof(in));
	struct cpw_run_notes notes = { .n = 0 };
	double group_peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &group_peak, &notes);
	bool said = false;
	for (int i = 0; i < notes.n; i++)
		said = said || strstr(notes.line[i], "unknown: it grew after its last proportional set size reading");
	CU_ASSERT_TRUE(said);
	write_file("101/smaps_rollup", "Pss: 30000 kB\n");
	write_file("101/task/101/schedstat", "3500000000 500000000 120\n");
	cpw_proc_reader_want_pss(reader);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	metrics_of(t, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.tree_peak_pss_kib, 31000, 1e-9);
	CU_ASSERT_STRING_EQUAL(m.tree_peak_source, "pss");
	watch_free(t);
}

/* A run so short that its one sample found the command a zombie (sh -c 'exit 3'): no
 * memory was measured, and the tree's peaks say unknown, not 0 KiB. */
static void test_zombie_only_sample(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	write_file("100/stat", "100 (sh) Z 1 100 100 0 -1 4194304 500 0 2 0 0 0 0 0 20 0 1 0 1000 0 0 "
			       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("100/task/100/children", "");
	write_file("100/task/100/status", "Name:\tsh\nState:\tZ (zombie)\nPid:\t100\nPPid:\t1\n");
	write_file("100/status", "Name:\tsh\nState:\tZ (zombie)\nPid:\t100\nPPid:\t1\n");
	write_file("100/smaps_rollup", "");
	cpw_proc_reader_want_pss(reader);
	sample(t, &top, 1, 0.01);
	const struct cpw_tree_totals *tt = cpw_tree_totals(t);
	CU_ASSERT_EQUAL(tt->peak_rss_kib, 0);
	struct cpw_metrics m;
	metrics_of(t, &m);
	CU_ASSERT_TRUE(isnan(m.tree_peak_rss_kib));
	CU_ASSERT_TRUE(isnan(m.tree_peak_pss_kib));
	CU_ASSERT_TRUE(isnan(m.tree_peak_kib));
	watch_free(t);
}

/* The kernel adds a reaped child's IO to its parent's /proc/PID/io: those bytes are the
 * child's, and count once. Only what the child did after its last sample (here 100 bytes)
 * stays under the parent. */
static void test_reaped_child_io_counts_once(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	write_file("101/io", "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 5000\n"
			     "write_bytes: 700\ncancelled_write_bytes: 0\n");
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->read_bytes, 5000, 1e-9);

	/* cc1 ends and make reaps it: make's counters gain cc1's 5000 (and 100 more). */
	write_file("100/task/100/children", "");
	write_file("100/task/100/schedstat", "1600000000 20000000 31\n");
	write_file("100/io", "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 9196\n"
			     "write_bytes: 8892\ncancelled_write_bytes: 0\n");
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/101'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.2), 1);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->read_bytes, 4096 + 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->write_bytes, 8192, 1e-9);
	struct cpw_metrics m;
	metrics_of(t, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.read_bytes, 4096 + 100 + 5000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.write_bytes, 8192 + 700, 1e-9);
	/* No rate spike at the reaping either. */
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->read_rate, 100 / 0.1, 1e-6);
	watch_free(t);
}

static void test_missing_root(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t gone = 4242;
	CU_ASSERT_EQUAL(sample(t, &gone, 1, 0.1), 0);
	CU_ASSERT_EQUAL(cpw_tree_size(t), 0);
	watch_free(t);
}

/* The real /proc: libproc2 is opened at the first new process and names its user; when it
 * cannot be opened the tree says why (the report turns that into a note). */
static void test_identity_through_libproc2(void)
{
	pid_t self = getpid();

	cpw_procps_use_library("libcpw-no-such-library.so.0");
	struct cpw_tree *t = watch_new("/proc", true);
	CU_ASSERT_PTR_NULL(cpw_proc_reader_identity_error(reader)); /* nothing tried before a sample */
	CU_ASSERT_EQUAL(sample(t, &self, 1, 0.1), 1);
	const char *why = cpw_proc_reader_identity_error(reader);
	CU_ASSERT_PTR_NOT_NULL(why);
	CU_ASSERT_PTR_NOT_NULL(why ? strstr(why, "libcpw-no-such-library.so.0") : NULL);
	CU_ASSERT_STRING_EQUAL(cpw_tree_find(t, self)->user, "");
	watch_free(t);

	cpw_procps_use_library(NULL);
	t = watch_new("/proc", true);
	CU_ASSERT_EQUAL(sample(t, &self, 1, 0.1), 1);
	CU_ASSERT_PTR_NULL(cpw_proc_reader_identity_error(reader));
	CU_ASSERT_NOT_EQUAL(cpw_tree_find(t, self)->user[0], '\0');
	watch_free(t);
}

/* An orphan between its parent and its new one (cperfwatch, a subreaper) is under neither
 * for a sample: it is kept alive for that sample, and found again it is the same entry.
 * Marked exited at once, it was listed twice (test_races saw it). */
static void test_orphan_between_parents(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	pid_t both[2] = { 100, 101 };
	CU_ASSERT_EQUAL_FATAL(sample(t, &top, 1, 0.1), 2);

	/* 101 leaves 100 but still runs (100 ran, so its children are read again). */
	write_file("100/task/100/children", "");
	write_file("100/task/100/schedstat", "1600000000 20000000 31\n");
	sample(t, &top, 1, 0.2);
	const struct cpw_proc *p = cpw_tree_find(t, 101);
	CU_ASSERT_TRUE(p->alive);
	CU_ASSERT_DOUBLE_EQUAL(p->missed_s, 0.2, 1e-9);

	sample(t, both, 2, 0.3); /* found again, as a root of ours */
	CU_ASSERT_EQUAL(cpw_tree_size(t), 2);
	p = cpw_tree_find(t, 101);
	CU_ASSERT_TRUE(p->alive);
	CU_ASSERT_TRUE(isnan(p->missed_s));

	/* Not found twice running: it ended when it was first missed. */
	sample(t, &top, 1, 0.4);
	sample(t, &top, 1, 0.5);
	p = cpw_tree_find(t, 101);
	CU_ASSERT_FALSE(p->alive);
	CU_ASSERT_DOUBLE_EQUAL(p->exited_s, 0.4, 1e-9);
	CU_ASSERT_EQUAL(cpw_tree_size(t), 2);
	watch_free(t);
}

static int setup(void) { return cpw_fixture_copy("procroot-basic", root, sizeof(root)); }
/* Exit records are matched to the tree by the time their process began: a pid reused by
 * a process outside the tree is not taken for the one the tree knew, nor for its parent. */
static void test_kinship_by_begin_time(void)
{
	struct cpw_tree *t = watch_new(root, false);
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.1), 2);
	/* 100 began at 1000 ticks after boot, 101 at 1010: on the tree's clock 0 s and 0.1 s
	 * with this offset. */
	double hz = (double)sysconf(_SC_CLK_TCK), off = -1000.0 / hz;
	double b101 = 1010.0 / hz + off;
	struct cpw_begin_window during = { 0.5, 0.6 }, before = { -3.0, -2.0 };
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &during, off), CPW_KIN_YES);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &before, off), CPW_KIN_NO);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 4242, &during, off), CPW_KIN_NO); /* not in the tree */
	struct cpw_begin_window itself = { b101 - 0.05, b101 + 0.05 }, later = { 3.0, 3.1 };
	CU_ASSERT_TRUE(cpw_tree_same_process(t, 101, &itself, off));
	CU_ASSERT_FALSE(cpw_tree_same_process(t, 101, &later, off)); /* its pid, reused */
	/* Once gone, a parent forks nothing: a child that began after is another's. */
	cpw_tree_end(t, 2.0);
	struct cpw_begin_window after = { 2.5, 2.6 }, just_before = { 1.9, 2.0 }, across = { 1.5, 2.5 };
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &after, off), CPW_KIN_NO);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &just_before, off), CPW_KIN_YES);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &across, off), CPW_KIN_UNSURE);
	/* Its exit record says it lived 1.2 s: it ended at 1.2 s, not when found gone. */
	cpw_tree_exit_after(t, 100, 1.2, off);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->exited_s, 1.2, 1e-9);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 100, &just_before, off), CPW_KIN_NO);
	/* A process known only from its exit record: no start time, the end still bounds. */
	cpw_tree_record_exit(t, 555, 100, "short", 0.02, 0.01, 50, 1, 900, 2.1);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 555, &just_before, off), CPW_KIN_YES);
	CU_ASSERT_EQUAL(cpw_tree_may_be_parent(t, 555, &after, off), CPW_KIN_NO);
	CU_ASSERT_TRUE(cpw_tree_same_process(t, 555, &after, off));
	watch_free(t);
}

/* A process a sample finds first began before it: its first_seen_s is its start (the
 * stat's, on the tree's clock), and a start cut down to the tick before the watch began is
 * 0; without the clock's offset, the sample's time. */
static void test_first_seen_at_start(void)
{
	pid_t top = 100;
	double hz = (double)sysconf(_SC_CLK_TCK);
	/* 100 began at 1000 ticks after boot, 101 at 1010. */
	struct cpw_tree *t = watch_new(root, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	cpw_tree_set_boot_offset(t, -1000.0 / hz - 0.5 / hz); /* 100: half a tick before 0 */
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->first_seen_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->first_seen_s, 9.5 / hz, 1e-9);
	watch_free(t);
	/* 100 began long before the watch (attach mode's target, say): the sample's time. */
	t = watch_new(root, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	cpw_tree_set_boot_offset(t, -1000.0 / hz - 5.0);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 100)->first_seen_s, 0.3, 1e-9);
	watch_free(t);
	/* No offset given: the sample's time. */
	t = watch_new(root, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(sample(t, &top, 1, 0.3), 2);
	CU_ASSERT_DOUBLE_EQUAL(cpw_tree_find(t, 101)->first_seen_s, 0.3, 1e-9);
	watch_free(t);
}

static int teardown(void) { return cpw_fixture_remove(root); }

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s1 = CU_add_suite("tree", setup, teardown);
	CU_add_test(s1, "discovery and figures from a fake proc root", test_discovery_and_figures);
	CU_add_test(s1, "the timeline names a process that only waits", test_timeline_names_a_waiter);
	CU_add_test(s1, "exit records are matched by when their process began", test_kinship_by_begin_time);
	CU_add_test(s1, "a process found first began at its start, not at that sample", test_first_seen_at_start);
	CU_pSuite s2 = CU_add_suite("tree over time", setup, teardown);
	CU_add_test(s2, "threads end, process exits, figures never go back", test_threads_end_and_process_exits);
	CU_pSuite s2a = CU_add_suite("tree exec", setup, teardown);
	CU_add_test(s2a, "an exec reads the command line again", test_exec_rereads_cmdline);
	CU_pSuite s2b = CU_add_suite("tree orphans", setup, teardown);
	CU_add_test(s2b, "an orphan between parents is kept, and listed once", test_orphan_between_parents);
	CU_pSuite s3 = CU_add_suite("tree attach", setup, teardown);
	CU_add_test(s3, "attach mode counts from the first sample", test_attach_baseline);
	CU_add_test(s3, "a process's CPU%: schedstat where the ticks agree to a tick, else the ticks", test_cpu_pct_exact);
	CU_add_test(s3, "a root that does not exist", test_missing_root);
	CU_pSuite s3b = CU_add_suite("tree memory", setup, teardown);
	CU_add_test(s3b, "proportional set sizes: sum, peak, unreadable ones", test_pss_sum);
	CU_add_test(s3b, "a zombie's one sample: the tree's memory peaks unknown, not 0", test_zombie_only_sample);
	CU_add_test(s3b, "a PSS read far below the tree's peak stands for nothing", test_pss_covers_peak);
	CU_pSuite s3c = CU_add_suite("tree io", setup, teardown);
	CU_add_test(s3c, "a reaped child's IO counts once, not again under its parent", test_reaped_child_io_counts_once);
	CU_pSuite s4 = CU_add_suite("tree on the real /proc", NULL, NULL);
	CU_add_test(s4, "users through libproc2, and why when it cannot be opened", test_identity_through_libproc2);
	return cpw_cunit_run_tap();
}
