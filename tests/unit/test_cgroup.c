/*
 * test_cgroup.c: /proc/PID/cgroup parsing, limit parsing, and the figures and CPU quota read
 * from fixture cgroup trees (a hybrid v1 + unified layout and a pure v2 one). Creating real
 * groups is tests/unit/test_kernel_live.c's job; removing those of runs that are gone is
 * tested here on plain directories.
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define HYB FIXTURES "/cgroup-hybrid"
#define V2 FIXTURES "/cgroup-v2"

static const char self_text[] = "9:name=systemd:/\n8:pids:/\n4:memory:/box/job\n"
				"3:cpuset:/\n2:cpu,cpuacct:/box\n0::/box/job\n";

static void test_self_path(void)
{
	char path[256], list[64];
	size_t len = strlen(self_text);
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, "memory", path, sizeof path, list,
					     sizeof list), 0);
	CU_ASSERT_STRING_EQUAL(path, "/box/job");
	CU_ASSERT_STRING_EQUAL(list, "memory");
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, "cpuacct", path, sizeof path, list,
					     sizeof list), 0);
	CU_ASSERT_STRING_EQUAL(path, "/box");
	CU_ASSERT_STRING_EQUAL(list, "cpu,cpuacct");
	/* "cpu" must not be found in "cpuset". */
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, "cpu", path, sizeof path, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(path, "/box");
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, NULL, path, sizeof path, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(path, "/box/job");
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, "blkio", path, sizeof path, NULL, 0),
			-ENOENT);
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(self_text, len, "memory", path, 4, NULL, 0),
			-ENAMETOOLONG);
	/* A v1-only system has no "0::" line. */
	const char *v1 = "4:memory:/a\n";
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(v1, strlen(v1), NULL, path, sizeof path, NULL, 0),
			-ENOENT);
	const char *junk = "garbage\n::\n:\n";
	CU_ASSERT_EQUAL(cpw_cgroup_self_path(junk, strlen(junk), "memory", path, sizeof path,
					     NULL, 0), -ENOENT);
}

static void test_parse_limit(void)
{
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("9223372036854771712\n")));
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("1152921504606846976\n"))); /* 2^60 */
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("max\n")));
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("-1")));
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("")));
	CU_ASSERT_TRUE(isnan(cpw_cgroup_parse_limit_kib("12abc")));
	CU_ASSERT_DOUBLE_EQUAL(cpw_cgroup_parse_limit_kib("536870912\n"), 524288.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_cgroup_parse_limit_kib("1152921504606846975"),
			       1152921504606846975.0 / 1024.0, 1.0);
}

static void test_read_hybrid(void)
{
	struct cpw_cgroup *cg;
	char why[512];
	CU_ASSERT_EQUAL_FATAL(cpw_cgroup_open(&cg, HYB "/sys", HYB "/self-cgroup", why, sizeof why), 0);
	CU_ASSERT_STRING_EQUAL(why, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(cpw_cgroup_describe(cg), "unified/box/job"));
	struct cpw_cgroup_stats s;
	cpw_cgroup_read(cg, &s);
	CU_ASSERT_TRUE(s.memory_available);
	CU_ASSERT_DOUBLE_EQUAL(s.mem_peak_kib, 204800.0, 1e-9);
	/* The effective limit: hierarchical_memory_limit, not the child's "unlimited". */
	CU_ASSERT_DOUBLE_EQUAL(s.mem_limit_kib, 524288.0, 1e-9);
	/* total_ (hierarchical) refaults win over the group's own. */
	CU_ASSERT_DOUBLE_EQUAL(s.refaults, 100.0, 1e-9);
	CU_ASSERT_TRUE(s.psi.available);
	CU_ASSERT_EQUAL(s.psi.mem_full_us, 2500);
	pid_t pids[2];
	CU_ASSERT_EQUAL(cpw_cgroup_pids(cg, pids, 2), 3);
	CU_ASSERT_EQUAL(pids[0], 300);
	CU_ASSERT_EQUAL(pids[1], 301);
	cpw_cgroup_destroy(cg);
	/* An opened group is never removed. */
	struct stat st;
	CU_ASSERT_EQUAL(stat(HYB "/sys/memory/box/job", &st), 0);
}

static void test_read_v2(void)
{
	struct cpw_cgroup *cg;
	char why[512];
	CU_ASSERT_EQUAL_FATAL(cpw_cgroup_open(&cg, V2 "/sys", V2 "/self-cgroup", why, sizeof why), 0);
	CU_ASSERT_STRING_EQUAL(why, "");
	struct cpw_cgroup_stats s;
	cpw_cgroup_read(cg, &s);
	CU_ASSERT_EQUAL(cpw_cgroup_pids(cg, NULL, 0), 2);
	CU_ASSERT_TRUE(s.memory_available);
	CU_ASSERT_DOUBLE_EQUAL(s.mem_peak_kib, 71680.0, 1e-9);
	/* The group says max; its parent's 1 GiB binds. */
	CU_ASSERT_DOUBLE_EQUAL(s.mem_limit_kib, 1048576.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.refaults, 12.0, 1e-9);
	CU_ASSERT_TRUE(s.psi.available);
	CU_ASSERT_EQUAL(s.psi.io_some_us, 11);
	cpw_cgroup_destroy(cg);
}

static void test_open_nothing_mounted(void)
{
	struct cpw_cgroup *cg = (struct cpw_cgroup *)1;
	char why[512];
	CU_ASSERT_EQUAL(cpw_cgroup_open(&cg, FIXTURES "/psi-absent", HYB "/self-cgroup", why,
					sizeof why), -ENOENT);
	CU_ASSERT_PTR_NULL(cg);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no cgroup hierarchy"));
	CU_ASSERT_EQUAL(cpw_cgroup_open(&cg, HYB "/sys", HYB "/no-such-file", why, sizeof why),
			-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no-such-file"));
}

/* A cgroup path longer than cperfwatch handles: refused with that reason, not cut short
 * and not mistaken for no hierarchy at all. */
static void test_open_path_too_long(void)
{
	char file[] = "/tmp/cpw-cgroup-long-XXXXXX";
	int fd = mkstemp(file);
	CU_ASSERT_FATAL(fd >= 0);
	char text[1400] = "0::";
	memset(text + 3, 'a', 1200);
	for (int i = 3; i < 1200; i += 100)
		text[i] = '/';
	strcpy(text + 1203, "\n");
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct cpw_cgroup *cg = (struct cpw_cgroup *)1;
	char why[512];
	CU_ASSERT_EQUAL(cpw_cgroup_open(&cg, V2 "/sys", file, why, sizeof why), -ENAMETOOLONG);
	CU_ASSERT_PTR_NULL(cg);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "longer than"));
	unlink(file);
}

/* Complete only when the child is in each group the placement has: the v2 clone and every
 * v1 join (run mode notes a command that was moved in after it started otherwise). */
static void test_placement_complete(void)
{
	struct cpw_cgroup_placement pl;
	memset(&pl, 0, sizeof pl);
	pl.v2_dir_fd = -1;
	CU_ASSERT_TRUE(cpw_cgroup_placement_complete(NULL));
	CU_ASSERT_TRUE(cpw_cgroup_placement_complete(&pl)); /* no group at all */
	pl.v2_wanted = true;
	CU_ASSERT_FALSE(cpw_cgroup_placement_complete(&pl));
	pl.v2_done = true;
	CU_ASSERT_TRUE(cpw_cgroup_placement_complete(&pl));
	pl.v1_group[1] = (const struct cpw_cg_dir *)&pl; /* any non-NULL group */
	CU_ASSERT_FALSE(cpw_cgroup_placement_complete(&pl));
	pl.v1_done[0] = true; /* the wrong slot */
	CU_ASSERT_FALSE(cpw_cgroup_placement_complete(&pl));
	pl.v1_done[1] = true;
	CU_ASSERT_TRUE(cpw_cgroup_placement_complete(&pl));
	pl.v2_done = false;
	CU_ASSERT_FALSE(cpw_cgroup_placement_complete(&pl));
}

static void test_cpu_quota(void)
{
	char why[512];
	double q = cpw_cgroup_cpu_quota_at(HYB "/sys", HYB "/self-cgroup", why, sizeof why);
	CU_ASSERT_DOUBLE_EQUAL(q, 1.5, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "1.50 cores"));
	q = cpw_cgroup_cpu_quota_at(HYB "/sys", HYB "/root-cgroup", why, sizeof why);
	CU_ASSERT_TRUE(isnan(q));
	CU_ASSERT_STRING_EQUAL(why, "no cgroup CPU quota");
	/* The smallest quota up the tree: the group's 0.5, not its parent's 2. */
	q = cpw_cgroup_cpu_quota_at(V2 "/sys", V2 "/self-cgroup", why, sizeof why);
	CU_ASSERT_DOUBLE_EQUAL(q, 0.5, 1e-9);
	q = cpw_cgroup_cpu_quota_at(FIXTURES "/psi-absent", HYB "/self-cgroup", why, sizeof why);
	CU_ASSERT_TRUE(isnan(q));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "unknown"));
}

/* A PID that no process has: a child's, once it is reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CU_ASSERT_FATAL(pid > 0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void make_group(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	CU_ASSERT_EQUAL(mkdir(path, 0755), 0);
}

static bool group_exists(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Groups left by runs that are gone are removed; nothing else is. Plain directories stand
 * in for groups: rmdir refuses a non-empty one as cgroupfs refuses one that holds a
 * process. */
static void test_remove_stale(void)
{
	char dir[] = "/tmp/cpw-stale.XXXXXX", path[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	pid_t dead = gone_pid(), dead_busy = gone_pid(), alive = getppid(), self = getpid();
	char dead_name[64], busy_name[64], alive_name[64], self_name[64], file_name[64];
	snprintf(dead_name, sizeof dead_name, "cperfwatch-%ld", (long)dead);
	snprintf(busy_name, sizeof busy_name, "cperfwatch-%ld", (long)dead_busy);
	snprintf(alive_name, sizeof alive_name, "cperfwatch-%ld", (long)alive);
	snprintf(self_name, sizeof self_name, "cperfwatch-%ld", (long)self);
	snprintf(file_name, sizeof file_name, "cperfwatch-%ld", (long)gone_pid());
	make_group(dir, dead_name);
	make_group(dir, busy_name);
	snprintf(path, sizeof path, "%s/%s/cgroup.procs", dir, busy_name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	make_group(dir, alive_name);
	make_group(dir, self_name);
	const char *odd[] = { "cperfwatch-", "cperfwatch-0", "cperfwatch-12x", "other-1", "cperfwatch--5" };
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
		make_group(dir, odd[i]);
	snprintf(path, sizeof path, "%s/%s", dir, file_name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);

	/* Made just now: too young to be taken for a leftover. */
	CU_ASSERT_EQUAL(cpw_cgroup_remove_stale_in(dir, self, (double)time(NULL) - 60), 0);
	CU_ASSERT_TRUE(group_exists(dir, dead_name));

	CU_ASSERT_EQUAL(cpw_cgroup_remove_stale_in(dir, self, (double)time(NULL) + 60), 1);
	CU_ASSERT_FALSE(group_exists(dir, dead_name));
	CU_ASSERT_TRUE(group_exists(dir, busy_name));  /* not empty */
	CU_ASSERT_TRUE(group_exists(dir, alive_name)); /* its run goes on */
	CU_ASSERT_TRUE(group_exists(dir, self_name));  /* ours */
	CU_ASSERT_TRUE(group_exists(dir, file_name));  /* not a directory */
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
		CU_ASSERT_TRUE(group_exists(dir, odd[i]));
	CU_ASSERT_EQUAL(cpw_cgroup_remove_stale_in("/nonexistent/cpw", self, (double)time(NULL)), -ENOENT);

	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(path), 0);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("cgroup", NULL, NULL);
	CU_add_test(s, "parse /proc/PID/cgroup", test_self_path);
	CU_add_test(s, "parse limits (v1 unlimited, v2 max)", test_parse_limit);
	CU_add_test(s, "read a hybrid v1 + unified fixture", test_read_hybrid);
	CU_add_test(s, "read a pure v2 fixture", test_read_v2);
	CU_add_test(s, "nothing mounted: a reason", test_open_nothing_mounted);
	CU_add_test(s, "a path too long: a reason", test_open_path_too_long);
	CU_add_test(s, "CPU quota up the hierarchy", test_cpu_quota);
	CU_add_test(s, "a placement is complete only with every group joined", test_placement_complete);
	CU_add_test(s, "groups of runs that are gone are removed, no other", test_remove_stale);
	return cpw_cunit_run_tap();
}
