/*
 * test_proc_parse.c: the /proc parsers, on text as the kernel writes it and as a hostile
 * program can make it (command names with spaces, parentheses, newlines).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "source/proc/proc_parse.h"
#include "cunit_tap.h"

static const char *STAT_TAIL =
	" 0 0 0 0 0 0 0 0 0 0 17 0 0 0 7 0 0 0 0 0 0 0 0 0 0";

static void parse(const char *head, struct cpw_stat_fields *st, int expect)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s%s\n", head, STAT_TAIL);
	CU_ASSERT_EQUAL(cpw_proc_parse_stat(buf, strlen(buf), st), expect);
}

static void test_stat_plain(void)
{
	struct cpw_stat_fields st;
	parse("42 (bash) S 1 42 42 0 -1 4194304 111 0 3 0 250 75 0 0 20 0 3 0 9999 1000 321 18446744073709551615 4194304 0", &st, 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "bash");
	CU_ASSERT_EQUAL(st.state, 'S');
	CU_ASSERT_EQUAL(st.ppid, 1);
	CU_ASSERT_EQUAL(st.minflt, 111);
	CU_ASSERT_EQUAL(st.majflt, 3);
	CU_ASSERT_EQUAL(st.utime_ticks, 250);
	CU_ASSERT_EQUAL(st.stime_ticks, 75);
	CU_ASSERT_EQUAL(st.num_threads, 3);
	CU_ASSERT_EQUAL(st.starttime_ticks, 9999);
	CU_ASSERT_EQUAL(st.rss_pages, 321);
	CU_ASSERT_EQUAL(st.startcode, 4194304);
	CU_ASSERT_TRUE(st.has_blkio);
	CU_ASSERT_EQUAL(st.blkio_ticks, 7);
}

static void test_stat_hostile_comm(void)
{
	struct cpw_stat_fields st;
	/* The real end of comm is the last ')': "a) R 9 (" is part of the name. */
	parse("7 (a) R 9 (x)) D 3 7 7 0 -1 0 5 0 0 0 1 2 0 0 20 0 1 0 50 1000 10 0 0 0", &st, 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "a) R 9 (x)");
	CU_ASSERT_EQUAL(st.state, 'D');
	CU_ASSERT_EQUAL(st.ppid, 3);
	CU_ASSERT_EQUAL(st.utime_ticks, 1);
	parse("8 (new\nline sp ace) S 1 8 8 0 -1 0 0 0 0 0 4 0 0 0 20 0 1 0 50 1000 10 0 0 0", &st, 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "new\nline sp ace");
	CU_ASSERT_EQUAL(st.utime_ticks, 4);
	parse("9 () S 1 9 9 0 -1 0 0 0 0 0 4 0 0 0 20 0 1 0 50 1000 10 0 0 0", &st, 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "");
}

static void test_stat_garbage(void)
{
	struct cpw_stat_fields st;
	CU_ASSERT_EQUAL(cpw_proc_parse_stat("", 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_stat("12 (x", 5, &st), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_stat("12 (x) S 1 2", 12, &st), -EINVAL); /* truncated read */
	CU_ASSERT_EQUAL(cpw_proc_parse_stat("12 (x)", 6, &st), -EINVAL);
	const char *huge = "1 (x) S 99999999999999999999999 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 50 1 1 0 0 0";
	CU_ASSERT_EQUAL(cpw_proc_parse_stat(huge, strlen(huge), &st), 0); /* saturates, no overflow */
}

static void test_schedstat(void)
{
	struct cpw_schedstat ss;
	CU_ASSERT_EQUAL(cpw_proc_parse_schedstat("123456789 987654 42\n", 20, &ss), 0);
	CU_ASSERT_EQUAL(ss.oncpu_ns, 123456789);
	CU_ASSERT_EQUAL(ss.runq_ns, 987654);
	CU_ASSERT_EQUAL(ss.slices, 42);
	CU_ASSERT_EQUAL(cpw_proc_parse_schedstat("x", 1, &ss), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_schedstat("5", 1, &ss), -EINVAL);
}

static void test_status(void)
{
	const char *text = "Name:\tx\nPid:\t5\nVmHWM:\t  2048 kB\nVmRSS:\t 1000 kB\n"
			   "voluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t3\n";
	struct cpw_status_fields sf;
	CU_ASSERT_EQUAL(cpw_proc_parse_status(text, strlen(text), &sf), 0);
	CU_ASSERT_TRUE(sf.has_ctxsw);
	CU_ASSERT_EQUAL(sf.vol_ctxsw, 17);
	CU_ASSERT_EQUAL(sf.invol_ctxsw, 3);
	CU_ASSERT_TRUE(sf.has_hwm);
	CU_ASSERT_EQUAL(sf.vm_hwm_kib, 2048);
	CU_ASSERT_EQUAL(sf.vm_rss_kib, 1000);
	/* A kernel thread has no VmHWM; a name that looks like a key is not one. */
	const char *kthread = "Name:\tVmHWM: 99\nPid:\t2\n";
	CU_ASSERT_EQUAL(cpw_proc_parse_status(kthread, strlen(kthread), &sf), 0);
	CU_ASSERT_FALSE(sf.has_hwm);
	CU_ASSERT_EQUAL(cpw_proc_parse_status("junk", 4, &sf), -EINVAL);
}

static void test_smaps_rollup(void)
{
	const char *text = "00400000-7ffd0000 ---p 00000000 00:00 0      [rollup]\n"
			   "Rss:   40000 kB\nPss:    2000 kB\nPss_Anon:   1500 kB\n";
	uint64_t pss = 1;
	CU_ASSERT_EQUAL(cpw_proc_parse_smaps_rollup_pss(text, strlen(text), &pss), 0);
	CU_ASSERT_EQUAL(pss, 2000); /* Pss, not Pss_Anon */
	/* A zombie's or a kernel thread's file is empty. */
	CU_ASSERT_EQUAL(cpw_proc_parse_smaps_rollup_pss("", 0, &pss), -EINVAL);
	const char *anon_only = "Pss_Anon:   1500 kB\n";
	CU_ASSERT_EQUAL(cpw_proc_parse_smaps_rollup_pss(anon_only, strlen(anon_only), &pss), -EINVAL);
}

static void test_io(void)
{
	const char *text = "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\n"
			   "write_bytes: 8192\ncancelled_write_bytes: 0\n";
	struct cpw_io_fields io;
	CU_ASSERT_EQUAL(cpw_proc_parse_io(text, strlen(text), &io), 0);
	CU_ASSERT_EQUAL(io.read_bytes, 4096);
	CU_ASSERT_EQUAL(io.write_bytes, 8192);
	CU_ASSERT_EQUAL(io.rchar, 10);
	CU_ASSERT_EQUAL(cpw_proc_parse_io("rchar: 1\n", 9, &io), -EINVAL);
}

static void test_pid_list(void)
{
	pid_t pids[3];
	size_t more = 99;
	CU_ASSERT_EQUAL(cpw_proc_parse_pid_list("12 34 56 78 ", 12, pids, 3, &more), 3);
	CU_ASSERT_EQUAL(pids[0], 12);
	CU_ASSERT_EQUAL(pids[2], 56);
	CU_ASSERT_EQUAL(more, 1);
	CU_ASSERT_EQUAL(cpw_proc_parse_pid_list("", 0, pids, 3, NULL), 0);
	CU_ASSERT_EQUAL(cpw_proc_parse_pid_list("12 x", 4, pids, 3, NULL), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_pid_list("0", 1, pids, 3, NULL), -EINVAL);
}

static void test_cmdline(void)
{
	char out[16];
	cpw_proc_parse_cmdline("ls\0-l\0/tmp\0", 11, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "ls -l /tmp");
	cpw_proc_parse_cmdline("averyveryverylongname\0", 22, out, sizeof(out));
	CU_ASSERT_EQUAL(strlen(out), sizeof(out) - 1);
	cpw_proc_parse_cmdline("", 0, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "");
}

static void test_wchan(void)
{
	CU_ASSERT_TRUE(cpw_proc_parse_wchan_is_storage("io_schedule"));
	CU_ASSERT_TRUE(cpw_proc_parse_wchan_is_storage("folio_wait_bit_common"));
	CU_ASSERT_TRUE(cpw_proc_parse_wchan_is_storage("jbd2_log_wait_commit"));
	CU_ASSERT_TRUE(cpw_proc_parse_wchan_is_storage(""));
	CU_ASSERT_FALSE(cpw_proc_parse_wchan_is_storage("rwsem_down_read_slowpath"));
	CU_ASSERT_FALSE(cpw_proc_parse_wchan_is_storage("__mutex_lock"));
	CU_ASSERT_FALSE(cpw_proc_parse_wchan_is_storage("nfs_wait_bit_killable"));
}

/* LIST parses to COUNT CPUs and prints back as WANT. */
static void list_prints(const char *list, int count, const char *want)
{
	struct cpw_cpuset set;
	char out[64];

	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list(list, strlen(list), &set), count);
	cpw_proc_parse_cpuset_format(&set, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, want);
}

static void test_cpu_list(void)
{
	struct cpw_cpuset set, other;
	char out[64];

	list_prints("0-3,8,10-11\n", 7, "0-3,8,10-11");
	list_prints("0", 1, "0");
	list_prints("", 0, "");
	list_prints("8191", 1, "8191");
	/* Ranges across and past the 64-CPU words the format skips when empty. */
	list_prints("60-70,127-128,4000", 14, "60-70,127-128,4000");
	list_prints("63,64", 2, "63-64");
	/* Malformed: reversed, out of range, junk, trailing comma, empty range ends. */
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("3-1", 3, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("8192", 4, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("99999999999999999999", 20, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("0-", 2, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("-1", 2, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("1,", 2, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("1,,2", 4, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("a", 1, &set), -EINVAL);
	/* The length bounds the text: no NUL needed. */
	CU_ASSERT_EQUAL(cpw_proc_parse_cpu_list("0-1XYZ", 3, &set), 2);

	/* Union and a list too long to print whole. */
	cpw_proc_parse_cpu_list("0", 1, &set);
	cpw_proc_parse_cpu_list("2-3", 3, &other);
	cpw_proc_parse_cpuset_union(&set, &other);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpuset_count(&set), 3);
	cpw_proc_parse_cpuset_format(&set, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "0,2-3");
	cpw_proc_parse_cpu_list("0,2,4,6,8,10,12,14,16,18", 24, &set);
	cpw_proc_parse_cpuset_format(&set, out, 12);
	CU_ASSERT_STRING_EQUAL(out, "0,2,4,6...");
}

static void test_cpus_allowed(void)
{
	static const char status[] =
		"Name:\tspin_threads\nPid:\t42\nCpus_allowed:\t3\nCpus_allowed_list:\t0\n"
		"Mems_allowed_list:\t0\n";
	static const char none[] = "Name:\tx\nPid:\t1\nCpus_allowed:\t3\n";
	static const char bad[] = "Pid:\t1\nCpus_allowed_list:\t0-x\n";
	struct cpw_cpuset set;

	CU_ASSERT_EQUAL(cpw_proc_parse_cpus_allowed(status, sizeof(status) - 1, &set), 1);
	CU_ASSERT_EQUAL(set.bits[0], 1);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpus_allowed(none, sizeof(none) - 1, &set), -EINVAL);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpus_allowed(bad, sizeof(bad) - 1, &set), -EINVAL);
	/* The fuzz seed of a real status file: 0-1. */
	char buf[8192];
	long n = cpw_proc_parse_read_file(FUZZ_CORPUS "/status/self", buf, sizeof(buf));
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_EQUAL(cpw_proc_parse_cpus_allowed(buf, (size_t)n, &set), 2);
}

static void test_read_file(void)
{
	char buf[8];
	CU_ASSERT_EQUAL(cpw_proc_parse_read_file("/nonexistent/cpw", buf, sizeof(buf)), -ENOENT);
	long n = cpw_proc_parse_read_file("/proc/self/stat", buf, sizeof(buf));
	CU_ASSERT_EQUAL(n, (long)sizeof(buf) - 1); /* truncated to fit, NUL-terminated */
	CU_ASSERT_EQUAL(buf[sizeof(buf) - 1], '\0');
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("proc_parse", NULL, NULL);
	CU_add_test(s, "stat fields by number", test_stat_plain);
	CU_add_test(s, "stat with a hostile command name", test_stat_hostile_comm);
	CU_add_test(s, "stat that is not stat", test_stat_garbage);
	CU_add_test(s, "schedstat", test_schedstat);
	CU_add_test(s, "status context switches and VmHWM", test_status);
	CU_add_test(s, "smaps_rollup's Pss", test_smaps_rollup);
	CU_add_test(s, "io", test_io);
	CU_add_test(s, "children pid lists", test_pid_list);
	CU_add_test(s, "cmdline joined", test_cmdline);
	CU_add_test(s, "wait channels: storage or not", test_wchan);
	CU_add_test(s, "CPU lists (Cpus_allowed_list)", test_cpu_list);
	CU_add_test(s, "Cpus_allowed_list in a status file", test_cpus_allowed);
	CU_add_test(s, "reading a file", test_read_file);
	return cpw_cunit_run_tap();
}
