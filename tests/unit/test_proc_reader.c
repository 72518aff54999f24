/*
 * test_proc_reader.c: the /proc reader over fake proc roots: what one sample hands the
 * model, what it skips for a thread that did not run, reused pids, stale cached children,
 * processes missed between two parents, many processes coming and going (the handle
 * map's removals), and an idle process costing one read a thread while its figures stay
 * exact when it runs again.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source/proc/proc_pid.h"
#include "source/proc/proc_reader.h"
#include "cunit_tap.h"
#include "fixture_root.h"

static char root[512];

static void write_file(const char *rel, const char *text)
{
	CU_ASSERT_EQUAL_FATAL(cpw_fixture_write(root, rel, text), 0);
}

static void remove_path(const char *rel)
{
	char cmd[800];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void make_proc(pid_t pid, pid_t parent, const char *kids);

static const struct cpw_proc_reading *find_reading(const struct cpw_proc_sample *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static const struct cpw_thread_reading *find_thread(const struct cpw_proc_sample *s, pid_t pid, pid_t tid)
{
	const struct cpw_proc_reading *pr = find_reading(s, pid);
	for (size_t i = 0; pr && i < pr->nthreads; i++)
		if (s->threads[pr->first_thread + i].tid == tid)
			return &s->threads[pr->first_thread + i];
	return NULL;
}

static void test_first_sample(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.nprocs, 2);
	CU_ASSERT_EQUAL(s.procs[0].pid, 100); /* breadth first from the root */
	CU_ASSERT_EQUAL(s.procs[1].pid, 101);
	CU_ASSERT_TRUE(s.procs[0].first);
	CU_ASSERT_STRING_EQUAL(s.procs[0].cmdline, "make -j2 all");
	CU_ASSERT_STRING_EQUAL(s.procs[0].user, ""); /* no libproc2 on a fixture root */
	CU_ASSERT_TRUE(s.procs[0].io_read);
	CU_ASSERT_EQUAL(s.procs[0].io.read_bytes, 4096);
	CU_ASSERT_FALSE(s.procs[1].io_read); /* cc1 has no io file */
	CU_ASSERT_NOT_EQUAL(s.procs[1].io_errno, 0);
	CU_ASSERT_EQUAL(s.procs[1].nthreads, 2);
	CU_ASSERT_EQUAL(s.nthreads, 3);
	const struct cpw_thread_reading *t102 = find_thread(&s, 101, 102);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t102);
	CU_ASSERT_EQUAL(t102->state, 'D');
	CU_ASSERT_STRING_EQUAL(t102->wchan, "io_schedule");
	CU_ASSERT_TRUE(t102->ran); /* new */
	CU_ASSERT_EQUAL(t102->sched.oncpu_ns, 1000000000ULL);
	CU_ASSERT_EQUAL(s.nstill_there, 0);
	CU_ASSERT_PTR_NULL(cpw_proc_reader_identity_error(r));

	/* The second sample is not a first reading, and the cmdline is not read again. */
	CU_ASSERT_EQUAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_FALSE(find_reading(&s, 100)->first);
	CU_ASSERT_STRING_EQUAL(find_reading(&s, 100)->cmdline, "");
	cpw_proc_reader_free(r);
}

/* A thread that was not scheduled since the last sample costs its schedstat alone: its
 * state, context switches and children are the last ones read. (Fixture files are
 * rewritten in place: a kept descriptor reads the new text, as on /proc.) */
static void test_idle_thread_costs_one_read(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	/* Samples 1 and 2 (2 refreshes thread 102's state: (2 + 102) % 8 == 0). */
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	const struct cpw_thread_reading *t102 = find_thread(&s, 101, 102);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t102);
	CU_ASSERT_FALSE(t102->ran);

	/* Its stat, status and children change behind its back (as they cannot without a
	 * run): the reading is the last one, so they were not read. */
	write_file("101/task/102/stat", "102 (cc1) S 100 100 100 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 2 0 1010 "
					"10000000 1024 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("101/task/102/status", "Name:\tcc1\nPid:\t102\nvoluntary_ctxt_switches:\t50\n"
					  "nonvoluntary_ctxt_switches:\t60\n");
	write_file("101/task/102/children", "4242");
	make_proc(4242, 101, ""); /* a child it forked: there, but not looked for yet */
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	t102 = find_thread(&s, 101, 102);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t102);
	CU_ASSERT_FALSE(t102->ran);
	CU_ASSERT_EQUAL(t102->state, 'D');
	CU_ASSERT_FALSE(t102->has_status);
	CU_ASSERT_EQUAL(t102->status.vol_ctxsw, 1);
	CU_ASSERT_EQUAL(s.nprocs, 2); /* 4242 not looked for */

	/* It runs (its schedstat moved): all of it is read again. */
	write_file("101/task/102/schedstat", "2000000000 0 11\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	t102 = find_thread(&s, 101, 102);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t102);
	CU_ASSERT_TRUE(t102->ran);
	CU_ASSERT_EQUAL(t102->state, 'S');
	CU_ASSERT_STRING_EQUAL(t102->wchan, "");
	CU_ASSERT_EQUAL(t102->status.vol_ctxsw, 50);
	CU_ASSERT_EQUAL(s.nprocs, 3); /* its children read again: 4242 found */
	CU_ASSERT_PTR_NOT_NULL(find_reading(&s, 4242));
	cpw_proc_reader_free(r);
}

/* The context switches of a thread that ran are read again; of one that did not, the last
 * ones read are handed on. */
static void test_status_follows_runs(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(find_thread(&s, 101, 101)->status.vol_ctxsw, 5);
	write_file("101/task/101/status", "Name:\tcc1\nPid:\t101\nvoluntary_ctxt_switches:\t9\nnonvoluntary_ctxt_switches:\t7\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(find_thread(&s, 101, 101)->status.vol_ctxsw, 5); /* did not run */
	write_file("101/task/101/schedstat", "3500000000 500000000 120\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_TRUE(find_thread(&s, 101, 101)->ran);
	CU_ASSERT_EQUAL(find_thread(&s, 101, 101)->status.vol_ctxsw, 9);
	cpw_proc_reader_free(r);
}

/* The CPUs the threads may use: the union over the threads whose status was read now. */
static void test_cpus_allowed_union(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	write_file("101/task/101/status", "Name:\tcc1\nPid:\t101\nCpus_allowed_list:\t0\n");
	write_file("101/task/102/status", "Name:\tcc1\nPid:\t102\nCpus_allowed_list:\t2-3\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.cpus_threads, 2); /* make's status has no such line */
	CU_ASSERT_EQUAL(cpw_proc_parse_cpuset_count(s.cpus_allowed), 3);
	/* Nobody ran: nothing is known of this sample. */
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.cpus_threads, 0);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpuset_count(s.cpus_allowed), 0);
	/* 101 ran, and narrowed itself to CPU 1. */
	write_file("101/task/101/status", "Name:\tcc1\nPid:\t101\nCpus_allowed_list:\t1\n");
	write_file("101/task/101/schedstat", "3500000000 500000000 120\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.cpus_threads, 1);
	char list[32];
	cpw_proc_parse_cpuset_format(s.cpus_allowed, list, sizeof(list));
	CU_ASSERT_STRING_EQUAL(list, "1");
	cpw_proc_reader_free(r);
}

/* A pid reused by another process (another start time) is read as a new process; a cached
 * child whose pid now belongs to someone else's process is not read at all. */
static void test_reused_pid_and_stale_child(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);

	/* On /proc the kept descriptors of the process that ended fail; here the new one's
	 * counters are not the old one's. */
	write_file("101/stat", "101 (other) S 100 100 100 0 -1 4194304 0 0 0 0 1 1 0 0 20 0 1 0 5555 "
			       "10000000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("101/task/101/schedstat", "7000 0 2\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	const struct cpw_proc_reading *pr = find_reading(&s, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
	CU_ASSERT_TRUE(pr->first);
	CU_ASSERT_EQUAL(pr->stat.starttime_ticks, 5555);
	CU_ASSERT_STRING_EQUAL(pr->cmdline, "cc1 -O2 x.c");

	/* 100's children list still names 101 (100 did not run), but 101 is someone else's. */
	write_file("101/stat", "101 (other) S 999 999 999 0 -1 4194304 0 0 0 0 1 1 0 0 20 0 1 0 7777 "
			       "10000000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("101/task/101/schedstat", "9000 0 3\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_PTR_NULL(find_reading(&s, 101));
	CU_ASSERT_EQUAL(s.nprocs, 1);
	cpw_proc_reader_free(r);
}

/* A process not reached but still running is listed once as still there, then dropped. */
static void test_still_there_once(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	write_file("100/task/100/children", "");
	write_file("100/task/100/schedstat", "1600000000 20000000 31\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.nprocs, 1);
	CU_ASSERT_EQUAL_FATAL(s.nstill_there, 1);
	CU_ASSERT_EQUAL(s.still_there[0], 101);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.nstill_there, 0);
	/* Found again later: a new reading, its cmdline read again. */
	pid_t both[2] = { 100, 101 };
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, both, 2, &s), 0);
	CU_ASSERT_TRUE(find_reading(&s, 101)->first);
	cpw_proc_reader_free(r);
}

/* Writes a single-threaded process pid under parent into the fake root. */
static void make_proc(pid_t pid, pid_t parent, const char *kids)
{
	char rel[128], text[512];
	snprintf(rel, sizeof(rel), "%s/%d", root, (int)pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%d/task", root, (int)pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%d/task/%d", root, (int)pid, (int)pid);
	mkdir(rel, 0755);
	snprintf(text, sizeof(text), "%d (w) S %d 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 %d 1000 10 "
		 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 (int)pid, (int)parent, 100 + (int)pid);
	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	write_file(rel, text);
	snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)pid, (int)pid);
	write_file(rel, "1000 0 1\n");
	snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)pid, (int)pid);
	write_file(rel, kids);
}

/* Many processes come and go: every live one is read once, gone ones are dropped, and the
 * handles of those that stay are still found (removals from the pid map keep it whole). */
static void test_many_come_and_go(void)
{
	enum { N = 700 };
	char kids[N * 8] = "";
	size_t len = 0;
	for (int i = 0; i < N; i++) {
		make_proc(1000 + i * 3, 900, "");
		len += (size_t)snprintf(kids + len, sizeof(kids) - len, "%d ", 1000 + i * 3);
	}
	make_proc(900, 1, kids);

	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 900;
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.nprocs, N + 1);

	/* Two in three end: gone from /proc and from the children list. */
	len = 0;
	kids[0] = '\0';
	for (int i = 0; i < N; i++) {
		char rel[32];
		if (i % 3 != 0) {
			snprintf(rel, sizeof(rel), "%d", 1000 + i * 3);
			remove_path(rel);
		} else {
			len += (size_t)snprintf(kids + len, sizeof(kids) - len, "%d ", 1000 + i * 3);
		}
	}
	write_file("900/task/900/children", kids);
	write_file("900/task/900/schedstat", "2000 0 2\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.nprocs, 1 + (N + 2) / 3);
	CU_ASSERT_EQUAL(s.nstill_there, 0);
	/* The survivors are known processes, not first readings. */
	size_t firsts = 0;
	for (size_t i = 0; i < s.nprocs; i++)
		firsts += s.procs[i].first;
	CU_ASSERT_EQUAL(firsts, 0);
	cpw_proc_reader_free(r);
}

/* 100's stat with these fault and CPU counts, in this state. */
static void write_stat_100(char state, unsigned minflt, unsigned utime)
{
	char text[400];
	snprintf(text, sizeof(text), "100 (we ird) (name)) %c 1 100 100 0 -1 4194304 %u 0 2 0 %u 50 0 0 20 0 1 0 1000 "
		 "10000000 256 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 state, minflt, utime);
	write_file("100/stat", text);
}

/* 100's reading in s, with its stat and io read now: these faults, CPU ticks and bytes. */
static const struct cpw_proc_reading *assert_read_100(const struct cpw_proc_sample *s, unsigned minflt,
						      unsigned utime, unsigned long long read_bytes)
{
	const struct cpw_proc_reading *pr = find_reading(s, 100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
	CU_ASSERT_EQUAL(pr->stat.minflt, minflt);
	CU_ASSERT_EQUAL(pr->stat.utime_ticks, utime);
	CU_ASSERT_TRUE(pr->io_read);
	CU_ASSERT_EQUAL(pr->io.read_bytes, read_bytes);
	return pr;
}

/* A process none of whose threads ran since the last sample costs one read a thread (its
 * schedstat): its stat, IO, task directory and children are the last ones read. When it
 * runs again every figure is read: CPU, faults and IO, exactly. Its stat is read anyway
 * one sample in eight (100's: (generation + 100) % 8 == 0), where a state set without a
 * run (woken, waiting for a CPU) shows. */
static void test_idle_process_costs_one_read(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 1 */
	CU_ASSERT_EQUAL(find_reading(&s, 100)->stat.minflt, 500);
	/* Its threads were new at 1: listed once more (test_thread_made_at_first_sight). */
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 2 */

	/* Its stat and io change behind its back (as they cannot without a run): sample 3
	 * hands on the last ones, so they were not read. */
	write_stat_100('S', 900, 400);
	write_file("100/io", "rchar: 9000\nwchar: 100\nsyscr: 9\nsyscw: 1\nread_bytes: 65536\n"
			     "write_bytes: 8192\ncancelled_write_bytes: 0\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 3 */
	const struct cpw_proc_reading *pr = find_reading(&s, 100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
	CU_ASSERT_FALSE(pr->first);
	CU_ASSERT_EQUAL(pr->stat.minflt, 500);
	CU_ASSERT_EQUAL(pr->stat.utime_ticks, 150);
	CU_ASSERT_STRING_EQUAL(pr->stat.comm, "we ird) (name)");
	CU_ASSERT_FALSE(pr->io_read);
	CU_ASSERT_EQUAL(pr->nthreads, 1);
	CU_ASSERT_FALSE(s.threads[pr->first_thread].ran);
	CU_ASSERT_EQUAL(s.nprocs, 2); /* its child still reached through the kept list */

	/* It ran: everything it did is read. */
	write_file("100/task/100/schedstat", "1700000000 20000000 35\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 4 */
	pr = assert_read_100(&s, 900, 400, 65536);
	CU_ASSERT_EQUAL(pr->io.rchar, 9000);
	CU_ASSERT_TRUE(s.threads[pr->first_thread].ran);
	CU_ASSERT_EQUAL(s.threads[pr->first_thread].sched.oncpu_ns, 1700000000ULL);

	/* Idle again for samples 5 to 11; woken at 10 without running: R shows at 12, the
	 * refresh, and the figures never move. */
	for (unsigned gen = 5; gen <= 12; gen++) {
		if (gen == 10)
			write_stat_100('R', 900, 400);
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
		pr = find_reading(&s, 100);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
		CU_ASSERT_EQUAL(pr->stat.minflt, 900);
		CU_ASSERT_EQUAL(pr->stat.utime_ticks, 400);
		CU_ASSERT_FALSE(pr->io_read);
		CU_ASSERT_EQUAL(pr->stat.state, gen == 12 ? 'R' : 'S');
		CU_ASSERT_EQUAL(s.threads[pr->first_thread].state, gen == 12 ? 'R' : 'S');
	}

	/* Busy after those idle samples: its new figures, all of them. */
	write_stat_100('R', 5000, 2400);
	write_file("100/io", "rchar: 19000\nwchar: 100\nsyscr: 19\nsyscw: 1\nread_bytes: 1048576\n"
			     "write_bytes: 8192\ncancelled_write_bytes: 0\n");
	write_file("100/task/100/schedstat", "3700000000 20000000 36\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 13 */
	assert_read_100(&s, 5000, 2400, 1048576);
	cpw_proc_reader_free(r);
}

/* 101 gets a third thread, tid, in thread_state, its stat (in proc_state) saying three. */
static void add_third_thread_101(int tid, char proc_state, char thread_state, const char *schedstat)
{
	char path[600], text[512];
	snprintf(path, sizeof(path), "%s/101/task/%d", root, tid);
	CU_ASSERT_EQUAL(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "101 (cc1) %c 100 100 100 0 -1 4194304 1000 0 5 0 300 100 0 0 20 0 3 0 1010 10000000 1024 "
		 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", proc_state);
	write_file("101/stat", text);
	snprintf(path, sizeof(path), "101/task/%d/stat", tid);
	snprintf(text, sizeof(text), "%d (cc1) %c 100 100 100 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 3 0 1020 "
		 "10000000 1024 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", tid, thread_state);
	write_file(path, text);
	snprintf(path, sizeof(path), "101/task/%d/schedstat", tid);
	write_file(path, schedstat);
}

/* A child forked by a parent that looked idle: the fork made the parent run, so its
 * children are read again and the child is found. A thread made by an idle-looking
 * process (a clone makes it run too) is listed the same way. */
static void test_idle_parent_forks(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (int i = 0; i < 3; i++) /* 1 to 3: idle after the first */
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(s.nprocs, 2);

	make_proc(4343, 100, "");
	write_file("100/task/100/children", "101 4343");
	write_file("100/task/100/schedstat", "1500500000 20000000 31\n");
	/* 101 starts a third thread. */
	add_third_thread_101(103, 'R', 'S', "1000 0 1\n");
	write_file("101/task/101/schedstat", "3000000000 500000000 101\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 4 */
	CU_ASSERT_EQUAL(s.nprocs, 3);
	const struct cpw_proc_reading *child = find_reading(&s, 4343);
	CU_ASSERT_PTR_NOT_NULL_FATAL(child);
	CU_ASSERT_TRUE(child->first);
	CU_ASSERT_EQUAL(child->stat.ppid, 100);
	CU_ASSERT_PTR_NOT_NULL(find_thread(&s, 101, 103));
	CU_ASSERT_EQUAL(find_reading(&s, 101)->nthreads, 3);
	cpw_proc_reader_free(r);
}

/* A process's first sample lists its threads, then reads their schedstat: a thread it made
 * in between is in no list, and the clone's run is already in the schedstat the next sample
 * compares with, so the process looks idle (CI: a thread never sampled for a whole run).
 * Threads seen for the first time have their process listed once more. */
static void test_thread_made_at_first_sight(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 1: first sight */
	CU_ASSERT_EQUAL(find_reading(&s, 101)->nthreads, 2);
	add_third_thread_101(998, 'S', 'R', "5000000 0 3\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 2 */
	CU_ASSERT_PTR_NOT_NULL(find_thread(&s, 101, 998));
	CU_ASSERT_EQUAL(find_reading(&s, 101)->nthreads, 3);
	cpw_proc_reader_free(r);
}

/* An idle process's stat read again at its refresh (101's: (3 + 101) % 8 == 0) shows a
 * state set without a run, and its thread count, the same, keeps its threads: the task
 * directory is not listed (a thread appears only through a clone, which runs). */
static void test_idle_refresh_keeps_threads(void)
{
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t top = 100;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	write_file("101/stat", "101 (cc1) S 100 100 100 0 -1 4194304 1000 0 5 0 300 100 0 0 20 0 2 0 1010 10000000 1024 "
			       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/101/task/999", root);
	CU_ASSERT_EQUAL(mkdir(dir, 0755), 0);
	write_file("101/task/999/stat", "999 (cc1) S 100 100 100 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 2 0 1020 "
					"10000000 1024 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	write_file("101/task/999/schedstat", "1000 0 1\n");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0); /* 3 */
	const struct cpw_proc_reading *pr = find_reading(&s, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
	CU_ASSERT_EQUAL(pr->stat.state, 'S');
	CU_ASSERT_EQUAL(pr->nthreads, 2);
	CU_ASSERT_PTR_NULL(find_thread(&s, 101, 999));
	CU_ASSERT_FALSE(find_thread(&s, 101, 101)->ran);
	/* Its count moved: listed, and the third thread read. */
	write_file("101/stat", "101 (cc1) S 100 100 100 0 -1 4194304 1000 0 5 0 300 100 0 0 20 0 3 0 1010 10000000 1024 "
			       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	for (int gen = 4; gen <= 11; gen++)
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
	CU_ASSERT_EQUAL(find_reading(&s, 101)->nthreads, 3); /* at 11, its next refresh */
	CU_ASSERT_PTR_NOT_NULL(find_thread(&s, 101, 999));
	cpw_proc_reader_free(r);
}

/* Attach mode's check of its target at each sample: the start time from the main
 * thread's stat, without the process's sum over its threads. */
static void test_pid_start_ticks(void)
{
	uint64_t ticks = 0;
	struct cpw_stat_fields st;
	CU_ASSERT_EQUAL(cpw_proc_pid_start_ticks(root, 101, &ticks), 0);
	CU_ASSERT_EQUAL(cpw_proc_pid_stat(root, 101, &st), 0);
	CU_ASSERT_EQUAL(ticks, st.starttime_ticks);
	CU_ASSERT_EQUAL(ticks, 1010);
	CU_ASSERT_EQUAL(cpw_proc_pid_start_ticks(root, 4321, &ticks), -ENOENT);
	write_file("101/task/101/stat", "101 (cc1");
	CU_ASSERT_EQUAL(cpw_proc_pid_start_ticks(root, 101, &ticks), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_pid_start_ticks("/proc", getpid(), &ticks), 0);
	CU_ASSERT_EQUAL(cpw_proc_pid_stat("/proc", getpid(), &st), 0);
	CU_ASSERT_EQUAL(ticks, st.starttime_ticks);
}

/* cperfwatch's own children, through the file it keeps open between samples: a child
 * forked since is there at the next read, one reaped is gone; a text changed in place is
 * read anew; a process with no such file leaves no descriptor. */
static void test_pid_children_kept(void)
{
	pid_t kids[8];
	int fd = -1;
	CU_ASSERT_EQUAL(cpw_proc_pid_children("/proc", getpid(), &fd, kids, 8), 0);
	CU_ASSERT_TRUE_FATAL(fd >= 0);
	int kept = fd;
	pid_t child = fork();
	CU_ASSERT_TRUE_FATAL(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	CU_ASSERT_EQUAL(cpw_proc_pid_children("/proc", getpid(), &fd, kids, 8), 1);
	CU_ASSERT_EQUAL(kids[0], child);
	CU_ASSERT_EQUAL(fd, kept); /* the same descriptor, read again */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL(cpw_proc_pid_children("/proc", getpid(), &fd, kids, 8), 0);
	close(fd);

	/* Under the fixture root: its text, read again after it changed in place. */
	fd = -1;
	make_proc(700, 1, "701 702");
	CU_ASSERT_EQUAL(cpw_proc_pid_children(root, 700, &fd, kids, 8), 2);
	CU_ASSERT_EQUAL(kids[1], 702);
	write_file("700/task/700/children", "703 ");
	CU_ASSERT_EQUAL(cpw_proc_pid_children(root, 700, &fd, kids, 8), 1);
	CU_ASSERT_EQUAL(kids[0], 703);
	close(fd);
	fd = -1;
	CU_ASSERT_EQUAL(cpw_proc_pid_children(root, 4321, &fd, kids, 8), -ENOENT);
	CU_ASSERT_EQUAL(fd, -1);
}

/* How many of this process's descriptors read a schedstat under the fixture root. */
static int kept_schedstats(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *de; (de = readdir(d));) {
		char link[600], target[700];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += strncmp(target, root, strlen(root)) == 0 && strstr(target, "/schedstat") != NULL;
	}
	closedir(d);
	return n;
}

/* Within a budget of descriptors too small for all of a pool's files, every thread's
 * schedstat is kept before any other file: an idle thread then costs one read, not an
 * open, a read and a close (and its process a listing of its task directory). */
static void test_budget_keeps_schedstat_first(void)
{
	enum { THREADS = 60 };
	struct rlimit old, low;
	char rel[128], text[512];

	make_proc(700, 1, "");
	snprintf(text, sizeof(text), "700 (pool) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 %d 0 800 1000 10 "
		 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", THREADS);
	write_file("700/stat", text);
	for (int i = 1; i < THREADS; i++) {
		snprintf(rel, sizeof(rel), "%s/700/task/%d", root, 700 + i);
		CU_ASSERT_EQUAL(mkdir(rel, 0755), 0);
		snprintf(rel, sizeof(rel), "700/task/%d/stat", 700 + i);
		snprintf(text, sizeof(text), "%d (pool) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 %d 0 800 1000 10 "
			 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
			 700 + i, THREADS);
		write_file(rel, text);
		snprintf(rel, sizeof(rel), "700/task/%d/schedstat", 700 + i);
		write_file(rel, "1000 0 1\n");
		snprintf(rel, sizeof(rel), "700/task/%d/status", 700 + i);
		write_file(rel, "Name:\tpool\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t0\n");
	}
	/* 86 kept descriptors: ((300 - 128) / 2), fewer than the pool's 3 files a thread. */
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 300;
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_NOFILE, &old), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	struct cpw_proc_sample s;
	pid_t top = 700;
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, &top, 1, &s), 0);
		CU_ASSERT_EQUAL(s.nthreads, THREADS);
		CU_ASSERT_EQUAL(kept_schedstats(), THREADS);
	}
	cpw_proc_reader_free(r);
	CU_ASSERT_EQUAL(kept_schedstats(), 0);
}

/* Seen in the middle of an exec (its name already the new program's, its arguments not yet
 * in place), a process's command line reads empty: it is read again at the next samples,
 * a few times at most. A kernel thread's stays empty and is not read again. */
static void test_cmdline_read_mid_exec(void)
{
	make_proc(600, 1, "");
	write_file("600/cmdline", "");
	make_proc(601, 1, "");
	write_file("601/cmdline", "");
	make_proc(602, 1, "");
	write_file("602/cmdline", "");
	/* 602 is a kernel thread: PF_KTHREAD (0x200000) in the flags, field 9. */
	write_file("602/stat", "602 (kworker/0:1) S 2 0 0 0 -1 2097216 0 0 0 0 1 1 0 0 20 0 1 0 702 0 0 "
		   "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	struct cpw_proc_reader *r = cpw_proc_reader_new(root);
	struct cpw_proc_sample s;
	pid_t tops[] = { 600, 601, 602 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, tops, 3, &s), 0);
	CU_ASSERT_TRUE(find_reading(&s, 600)->first);
	CU_ASSERT_STRING_EQUAL(find_reading(&s, 600)->cmdline, "");

	/* The exec is done: 600's arguments are there, and read. */
	char path[600];
	snprintf(path, sizeof(path), "%s/600/cmdline", root);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite("sleeper\0005\000", 1, 10, f), 10);
	CU_ASSERT_EQUAL(fclose(f), 0);
	write_file("602/cmdline", "not read");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, tops, 3, &s), 0);
	CU_ASSERT_TRUE(find_reading(&s, 600)->cmdline_read);
	CU_ASSERT_STRING_EQUAL(find_reading(&s, 600)->cmdline, "sleeper 5");
	CU_ASSERT_FALSE(find_reading(&s, 602)->cmdline_read);
	/* Once read, it is not read again. */
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, tops, 3, &s), 0);
	CU_ASSERT_FALSE(find_reading(&s, 600)->cmdline_read);

	/* 601 stays empty: read at the five samples after the first (the second and third
	 * above, three more here), then no more. */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, tops, 3, &s), 0);
	write_file("601/cmdline", "late");
	CU_ASSERT_EQUAL_FATAL(cpw_proc_reader_sample(r, tops, 3, &s), 0);
	CU_ASSERT_FALSE(find_reading(&s, 601)->cmdline_read);
	cpw_proc_reader_free(r);
	remove_path("600");
	remove_path("601");
	remove_path("602");
}

static int setup(void) { return cpw_fixture_copy("procroot-basic", root, sizeof(root)); }
static int teardown(void) { return cpw_fixture_remove(root); }

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s1 = CU_add_suite("reader", setup, teardown);
	CU_add_test(s1, "the first sample hands over every process and thread", test_first_sample);
	CU_add_test(s1, "a command line read empty mid-exec is read again", test_cmdline_read_mid_exec);
	CU_pSuite s2 = CU_add_suite("reader idle", setup, teardown);
	CU_add_test(s2, "a thread that did not run costs its schedstat alone", test_idle_thread_costs_one_read);
	CU_pSuite s3 = CU_add_suite("reader status", setup, teardown);
	CU_add_test(s3, "context switches are read again only after a run", test_status_follows_runs);
	CU_pSuite s3b = CU_add_suite("reader cpus", setup, teardown);
	CU_add_test(s3b, "the CPUs the threads may use, from those that ran", test_cpus_allowed_union);
	CU_pSuite s4 = CU_add_suite("reader pids", setup, teardown);
	CU_add_test(s4, "a reused pid is new; a stale cached child is not read", test_reused_pid_and_stale_child);
	CU_pSuite s5 = CU_add_suite("reader missed", setup, teardown);
	CU_add_test(s5, "a process missed is still there once, then dropped", test_still_there_once);
	CU_pSuite s6 = CU_add_suite("reader many", setup, teardown);
	CU_add_test(s6, "700 processes, two in three end", test_many_come_and_go);
	CU_pSuite s7 = CU_add_suite("reader idle process", setup, teardown);
	CU_add_test(s7, "an idle process costs its schedstat; exact when it runs", test_idle_process_costs_one_read);
	CU_pSuite s8 = CU_add_suite("reader idle parent", setup, teardown);
	CU_add_test(s8, "a child forked by an idle-looking parent is found", test_idle_parent_forks);
	CU_pSuite s8a = CU_add_suite("reader first sight", setup, teardown);
	CU_add_test(s8a, "a thread made as the process is first seen is listed at the next sample",
		    test_thread_made_at_first_sight);
	CU_pSuite s8b = CU_add_suite("reader idle refresh", setup, teardown);
	CU_add_test(s8b, "an idle process's refresh reads its stat, not its task directory",
		    test_idle_refresh_keeps_threads);
	CU_pSuite s8c = CU_add_suite("reader start time", setup, teardown);
	CU_add_test(s8c, "a process's start time from its main thread's stat", test_pid_start_ticks);
	CU_add_test(s8c, "a process's children, through the file kept open", test_pid_children_kept);
	CU_pSuite s9 = CU_add_suite("reader budget", setup, teardown);
	CU_add_test(s9, "a thread's schedstat is kept before any other file", test_budget_keeps_schedstat_first);
	return cpw_cunit_run_tap();
}
