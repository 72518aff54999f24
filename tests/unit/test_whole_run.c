/*
 * test_whole_run.c: the whole run's figures folded from its readings (model/whole_run.c),
 * with no kernel: pressure deltas from the system or the group, refaults, the group's
 * peak, wait4's rusage over the samples, and the note each missing reading leaves.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/whole_run.h"
#include "cunit_tap.h"

static void readings(struct cpw_run_readings *in)
{
	memset(in, 0, sizeof(*in));
	in->wall_s = 2.0;
	in->interval_ms = 100;
	in->cores_usable = 2;
}

static bool has_note(const struct cpw_run_notes *n, const char *part)
{
	for (int i = 0; i < n->n; i++)
		if (strstr(n->line[i], part))
			return true;
	return false;
}

static void psi(struct cpw_psi *p, uint64_t cpu, uint64_t io, uint64_t mem)
{
	memset(p, 0, sizeof(*p));
	p->available = true;
	p->cpu_some_us = cpu;
	p->io_some_us = io;
	p->io_full_us = io / 2;
	p->mem_some_us = mem;
}

static void test_system_pressure_and_refaults(void)
{
	struct cpw_run_readings in;
	readings(&in);
	in.system_psi = true;
	psi(&in.psi_start, 1000000, 0, 0);
	psi(&in.psi_end, 1500000, 2000000, 100000);
	in.vmstat = true;
	in.vmstat_start.has_refaults = in.vmstat_end.has_refaults = true;
	in.vmstat_start.refaults = 10;
	in.vmstat_end.refaults = 35;
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_metrics m;
	struct cpw_run_notes notes = { .n = 0 };
	double peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_cpu_some_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_io_some_s, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_io_full_s, 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_mem_some_s, 0.1, 1e-9);
	CU_ASSERT_FALSE(m.psi_from_cgroup);
	CU_ASSERT_DOUBLE_EQUAL(m.refaults, 25, 1e-9);
	CU_ASSERT_TRUE(has_note(&notes, "refaults are system-wide"));
	CU_ASSERT_TRUE(isnan(peak));
	CU_ASSERT_DOUBLE_EQUAL(m.wall_s, 2.0, 1e-9);
	cpw_tree_free(t);
}

static void test_missing_pressure_is_a_note_not_a_zero(void)
{
	struct cpw_run_readings in;
	readings(&in);
	in.system_psi = true;
	in.psi_start.available = false;
	snprintf(in.psi_start.reason, sizeof(in.psi_start.reason), "no /proc/pressure (kernel without PSI)");
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_metrics m;
	struct cpw_run_notes notes = { .n = 0 };
	double peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_TRUE(isnan(m.psi_cpu_some_s));
	CU_ASSERT_TRUE(has_note(&notes, "pressure (PSI) unavailable: no /proc/pressure"));
	cpw_tree_free(t);
}

static void test_cgroup_figures_win(void)
{
	struct cpw_run_readings in;
	readings(&in);
	in.cgroup = true;
	psi(&in.cgroup_psi_start, 0, 0, 0);
	in.cgroup_end.memory_available = true;
	in.cgroup_end.refaults = 7;
	in.cgroup_end.mem_peak_kib = 4096;
	in.cgroup_end.mem_limit_kib = NAN;
	psi(&in.cgroup_end.psi, 250000, 0, 0);
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_metrics m;
	struct cpw_run_notes notes = { .n = 0 };
	double peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_TRUE(m.psi_from_cgroup);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_cpu_some_s, 0.25, 1e-9);
	CU_ASSERT_TRUE(m.refaults_from_cgroup);
	CU_ASSERT_DOUBLE_EQUAL(m.refaults, 7, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(peak, 4096, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.tree_peak_kib, 4096, 1e-9);
	CU_ASSERT_STRING_EQUAL(m.tree_peak_source, "cgroup");
	CU_ASSERT_FALSE(has_note(&notes, "refaults are system-wide"));
	cpw_tree_free(t);
}

static void test_rusage_is_exact_in_run_mode(void)
{
	struct cpw_run_readings in;
	readings(&in);
	in.rusage_known = true;
	in.ru.ru_utime.tv_sec = 1;
	in.ru.ru_utime.tv_usec = 500000;
	in.ru.ru_stime.tv_usec = 500000;
	in.ru.ru_maxrss = 9000;
	in.ru.ru_minflt = 123;
	struct cpw_tree *t = cpw_tree_new(false);
	/* The samples saw less than wait4: wait4 wins. */
	cpw_tree_record_exit(t, 101, 100, "cc1", 0.5, 0.1, 10, 0, 0, 0.45);
	struct cpw_metrics m;
	struct cpw_run_notes notes = { .n = 0 };
	double peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_DOUBLE_EQUAL(m.user_s, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.sys_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.cores_used, 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.max_rss_kib, 9000, 1e-9);
	CU_ASSERT_EQUAL(m.minor_faults, 123);
	/* Attach mode: no rusage, the tree's sums. */
	in.attach = true;
	cpw_metrics_init(&m);
	notes.n = 0;
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_DOUBLE_EQUAL(m.user_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.sys_s, 0.1, 1e-9);
	cpw_tree_free(t);
}

static void test_lost_exit_records_are_noted(void)
{
	struct cpw_run_readings in;
	readings(&in);
	in.exit_records = true;
	in.exit_record_overflows = 3;
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_metrics m;
	struct cpw_run_notes notes = { .n = 0 };
	double peak;
	cpw_metrics_init(&m);
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_TRUE(has_note(&notes, "exit records were lost 3 time(s)"));
	in.exit_record_overflows = 0;
	notes.n = 0;
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_FALSE(has_note(&notes, "exit records were lost"));
	in.samples_failed = 2;
	in.sample_errno = EMFILE;
	notes.n = 0;
	cpw_whole_run_fold(&in, t, &m, &peak, &notes);
	CU_ASSERT_TRUE(has_note(&notes, "2 sample(s) of the tree could not be read (Too many open files)"));
	/* No sample was taken: said so. */
	CU_ASSERT_TRUE(has_note(&notes, "no sample of the tree was taken"));
	cpw_tree_free(t);
}

static void test_so_far_sums_the_tree(void)
{
	struct cpw_run_readings in;
	readings(&in);
	struct cpw_tree *t = cpw_tree_new(false);
	cpw_tree_record_exit(t, 101, 100, "a", 0.3, 0.1, 10, 0, 0, 0.2);
	cpw_tree_record_exit(t, 102, 100, "b", 0.2, 0.2, 10, 0, 0, 0.3);
	struct cpw_metrics m;
	cpw_whole_run_so_far(&in, t, 0.8, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.user_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.sys_s, 0.3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.cores_used, 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.cores_usable, 2, 1e-9);
	cpw_tree_free(t);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("whole_run", NULL, NULL);
	CU_add_test(s, "system pressure and refaults are deltas", test_system_pressure_and_refaults);
	CU_add_test(s, "missing pressure is a note, not a zero", test_missing_pressure_is_a_note_not_a_zero);
	CU_add_test(s, "the command's cgroup's figures win", test_cgroup_figures_win);
	CU_add_test(s, "run mode's rusage is exact; attach mode sums the tree", test_rusage_is_exact_in_run_mode);
	CU_add_test(s, "lost exit records are noted", test_lost_exit_records_are_noted);
	CU_add_test(s, "the figures so far sum the tree", test_so_far_sums_the_tree);
	return cpw_cunit_run_tap();
}
