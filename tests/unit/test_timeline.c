/*
 * test_timeline.c: the run's time series (model/timeline.c): sums stay exact through
 * compaction, memory stays fixed for any run length, the main processes survive merging,
 * and a record takes the deltas of the tree's cumulative figures.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <string.h>

#include "model/timeline.h"
#include "model/tree.h"
#include "cunit_tap.h"

/* One sample's point, with figures that vary with i so that sums test something. */
static void sample_point(struct cpw_tl_point *p, size_t i, double interval)
{
	cpw_timeline_point_init(p, (double)i * interval);
	p->dt_s = interval;
	p->samples = 1;
	p->user_s = 0.01 * (double)(i % 7);
	p->sys_s = 0.001 * (double)(i % 3);
	p->oncpu_s = p->user_s + p->sys_s;
	p->runq_s = 0.002;
	p->states[CPW_TL_RUNNING] = i % 2;
	p->states[CPW_TL_SLEEPING] = 1;
	p->rss_kib_max = (double)(1000 + (i * 37) % 5000);
	p->read_bytes = (double)(4096 * (i % 5));
	p->write_bytes = 512;
	p->majflt = i % 4;
	p->minflt = 10;
	p->psi_cpu_s = p->psi_io_s = p->psi_mem_s = 0.001;
	p->top[0].pid = 100 + (int)(i % 3);
	snprintf(p->top[0].comm, sizeof(p->top[0].comm), "p%zu", i % 3);
	p->top[0].cpu_s = p->user_s + p->sys_s;
	p->top[0].io_bytes = p->read_bytes + p->write_bytes;
}

/* A timeline of n sample points 0.1 s apart; NULL when out of memory. */
static struct cpw_timeline *filled(size_t n)
{
	struct cpw_timeline *tl = cpw_timeline_new();
	for (size_t i = 0; tl && i < n; i++) {
		struct cpw_tl_point p;
		sample_point(&p, i, 0.1);
		cpw_timeline_add(tl, &p);
	}
	return tl;
}

/* Adds n sample points and checks every sum against the one computed alongside. */
static void check_sums(size_t n, double interval)
{
	struct cpw_timeline *tl = cpw_timeline_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	double user = 0, sys = 0, read = 0, rss = 0, psi = 0;
	uint64_t running = 0, majflt = 0;
	for (size_t i = 0; i < n; i++) {
		struct cpw_tl_point p;
		sample_point(&p, i, interval);
		user += p.user_s;
		sys += p.sys_s;
		read += p.read_bytes;
		running += p.states[CPW_TL_RUNNING];
		majflt += p.majflt;
		psi += p.psi_io_s;
		if (p.rss_kib_max > rss)
			rss = p.rss_kib_max;
		cpw_timeline_add(tl, &p);
	}
	CU_ASSERT_TRUE(cpw_timeline_count(tl) <= CPW_TIMELINE_CAPACITY);
	double u = 0, s = 0, r = 0, mx = 0, dt = 0, ps = 0;
	uint64_t run = 0, mj = 0, samples = 0;
	for (size_t i = 0; i < cpw_timeline_count(tl); i++) {
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		u += p->user_s;
		s += p->sys_s;
		r += p->read_bytes;
		run += p->states[CPW_TL_RUNNING];
		mj += p->majflt;
		ps += p->psi_io_s;
		dt += p->dt_s;
		samples += p->samples;
		if (p->rss_kib_max > mx)
			mx = p->rss_kib_max;
		if (i > 0) /* contiguous */
			CU_ASSERT_DOUBLE_EQUAL(cpw_timeline_point(tl, i - 1)->start_s +
					       cpw_timeline_point(tl, i - 1)->dt_s, p->start_s, 1e-6);
	}
	CU_ASSERT_DOUBLE_EQUAL(u, user, 1e-6 * (1 + user));
	CU_ASSERT_DOUBLE_EQUAL(s, sys, 1e-6 * (1 + sys));
	CU_ASSERT_DOUBLE_EQUAL(r, read, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(ps, psi, 1e-6 * (1 + psi));
	CU_ASSERT_EQUAL(run, running);
	CU_ASSERT_EQUAL(mj, majflt);
	CU_ASSERT_EQUAL(samples, n);
	CU_ASSERT_DOUBLE_EQUAL(mx, rss, 0);
	CU_ASSERT_DOUBLE_EQUAL(dt, (double)n * interval, 1e-6 * (double)n);
	cpw_timeline_free(tl);
}

static void test_short_run_one_point_per_sample(void)
{
	struct cpw_timeline *tl = filled(100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	CU_ASSERT_EQUAL(cpw_timeline_count(tl), 100);
	CU_ASSERT_EQUAL(cpw_timeline_stride(tl), 1);
	CU_ASSERT_PTR_NULL(cpw_timeline_point(tl, 100));
	cpw_timeline_free(tl);
	check_sums(100, 0.1);
}

static void test_compaction_keeps_sums(void)
{
	check_sums(CPW_TIMELINE_CAPACITY, 0.1);
	check_sums(CPW_TIMELINE_CAPACITY + 1, 0.1);
	check_sums(5000, 0.1);
}

/* 10 hours at 0.1 s: 360,000 samples in the same fixed array, points evenly wide. */
static void test_ten_hours_stay_flat(void)
{
	struct cpw_timeline *tl = filled(360000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	size_t n = cpw_timeline_count(tl);
	CU_ASSERT_TRUE(n > CPW_TIMELINE_CAPACITY / 2 && n <= CPW_TIMELINE_CAPACITY);
	CU_ASSERT_EQUAL(cpw_timeline_stride(tl), 1024); /* 360000 / 512 < 1024 */
	const struct cpw_tl_point *last = cpw_timeline_point(tl, n - 1);
	CU_ASSERT_DOUBLE_EQUAL(last->start_s + last->dt_s, 36000.0, 1e-3);
	for (size_t i = 0; i + 1 < n; i++)
		CU_ASSERT_EQUAL(cpw_timeline_point(tl, i)->samples, 1024);
	cpw_timeline_free(tl);
	check_sums(360000, 0.1);
}

/* A reader with little CPU but all the bytes is named beside the process with the CPU,
 * and one pid in two points is one entry with the sums. */
static void test_top_processes_merge(void)
{
	struct cpw_tl_point a, b;
	cpw_timeline_point_init(&a, 0);
	a.dt_s = 0.1;
	a.samples = 1;
	a.user_s = 0.1;
	a.read_bytes = 1e6;
	a.write_bytes = 0;
	a.top[0] = (struct cpw_tl_proc){ .pid = 10, .comm = "spin", .cpu_s = 0.099 };
	a.top[1] = (struct cpw_tl_proc){ .pid = 11, .comm = "dd", .cpu_s = 0.001, .io_bytes = 1e6 };
	b = a;
	b.start_s = 0.1;
	b.top[0] = (struct cpw_tl_proc){ .pid = 11, .comm = "dd", .cpu_s = 0.1, .io_bytes = 1e6 };
	memset(&b.top[1], 0, sizeof(b.top[1]));
	cpw_timeline_point_merge(&a, &b);
	CU_ASSERT_EQUAL(a.samples, 2);
	CU_ASSERT_DOUBLE_EQUAL(a.dt_s, 0.2, 1e-9);
	CU_ASSERT_EQUAL(a.top[0].pid, 11);
	CU_ASSERT_STRING_EQUAL(a.top[0].comm, "dd");
	CU_ASSERT_DOUBLE_EQUAL(a.top[0].cpu_s, 0.101, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.top[0].io_bytes, 2e6, 1e-3);
	CU_ASSERT_EQUAL(a.top[1].pid, 10);
	CU_ASSERT_EQUAL(a.top[2].pid, 0);
}

/* Unknown stays unknown: bytes NAN in both stay NAN, pressure NAN in one makes the merged
 * point's NAN (a partial sum would pass for the whole). */
static void test_unknowns(void)
{
	struct cpw_tl_point a, b;
	cpw_timeline_point_init(&a, 0);
	a.dt_s = 0.1;
	a.samples = 1;
	cpw_timeline_point_init(&b, 0.1);
	b.dt_s = 0.1;
	b.samples = 1;
	b.psi_io_s = 0.05;
	cpw_timeline_point_merge(&a, &b);
	CU_ASSERT_TRUE(isnan(a.read_bytes));
	CU_ASSERT_TRUE(isnan(a.psi_io_s));
	CU_ASSERT_TRUE(isnan(a.rss_kib_max));
	CU_ASSERT_EQUAL(cpw_timeline_point_thread_samples(&a), 0);
}

/* Records take deltas of the tree's cumulative figures, per point and per process. */
static void test_record_from_tree(void)
{
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_timeline *tl = cpw_timeline_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	cpw_tree_record_exit(t, 100, 1, "first", 0.5, 0.25, 10, 1, 2048, 0.1);
	cpw_timeline_record(tl, t, 0.1, NULL);
	cpw_tree_record_exit(t, 101, 100, "second", 0.2, 0.0, 5, 0, 512, 0.2);
	struct cpw_tl_pressure psi = { 0.01, 0.02, NAN, true };
	cpw_timeline_record(tl, t, 0.2, &psi);
	CU_ASSERT_EQUAL_FATAL(cpw_timeline_count(tl), 2);
	const struct cpw_tl_point *p0 = cpw_timeline_point(tl, 0), *p1 = cpw_timeline_point(tl, 1);
	CU_ASSERT_DOUBLE_EQUAL(p0->start_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p0->dt_s, 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p0->user_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p0->sys_s, 0.25, 1e-9);
	CU_ASSERT_EQUAL(p0->minflt, 10);
	CU_ASSERT_EQUAL(p0->majflt, 1);
	CU_ASSERT_EQUAL(p0->top[0].pid, 100);
	CU_ASSERT_TRUE(isnan(p0->psi_cpu_s));
	CU_ASSERT_DOUBLE_EQUAL(p1->user_s, 0.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p1->sys_s, 0, 1e-9);
	CU_ASSERT_EQUAL(p1->minflt, 5);
	CU_ASSERT_EQUAL(p1->top[0].pid, 101);
	CU_ASSERT_STRING_EQUAL(p1->top[0].comm, "second");
	CU_ASSERT_EQUAL(p1->top[1].pid, 0); /* 100 did nothing more */
	CU_ASSERT_DOUBLE_EQUAL(p1->psi_io_s, 0.02, 1e-9);
	CU_ASSERT_TRUE(isnan(p1->psi_mem_s));
	CU_ASSERT_TRUE(p1->psi_from_cgroup);
	CU_ASSERT_FALSE(p0->psi_from_cgroup);
	/* A third point from the system's files: merged with the second, the sum is no longer
	 * the group's alone. */
	struct cpw_tl_point m = *p1, sys = *p1;
	sys.start_s = 0.2;
	sys.psi_from_cgroup = false;
	cpw_timeline_point_merge(&m, &sys);
	CU_ASSERT_DOUBLE_EQUAL(m.psi_io_s, 0.04, 1e-9);
	CU_ASSERT_FALSE(m.psi_from_cgroup);
	cpw_timeline_free(tl);
	cpw_tree_free(t);
}

/* The GPU's busy share: carried by each record until it changes, none once it is NAN
 * again, summed by a merge; the first share known fills the second before it. */
static void test_gpu_busy(void)
{
	struct cpw_tree *t = cpw_tree_new(false);
	struct cpw_timeline *tl = cpw_timeline_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	cpw_timeline_record(tl, t, 0.1, NULL);
	cpw_timeline_set_gpu(tl, 0.97);
	cpw_timeline_record(tl, t, 0.2, NULL);
	cpw_timeline_record(tl, t, 0.4, NULL);
	cpw_timeline_set_gpu(tl, NAN);
	cpw_timeline_record(tl, t, 0.5, NULL);
	CU_ASSERT_EQUAL_FATAL(cpw_timeline_count(tl), 4);
	const struct cpw_tl_point *p = cpw_timeline_point(tl, 0);
	CU_ASSERT_DOUBLE_EQUAL(p[0].gpu_s, 0.1, 1e-9); /* the first share fills the second before */
	CU_ASSERT_DOUBLE_EQUAL(p[0].gpu_busy_s, 0.097, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p[1].gpu_s, 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p[1].gpu_busy_s, 0.097, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p[2].gpu_busy_s, 0.194, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p[3].gpu_s, 0, 1e-12);
	struct cpw_tl_point m = p[0];
	for (int i = 1; i < 4; i++)
		cpw_timeline_point_merge(&m, &p[i]);
	CU_ASSERT_DOUBLE_EQUAL(m.gpu_s, 0.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.gpu_busy_s, 0.388, 1e-9);
	/* The first share known filled the second before it: point 0 ends at 0.1, within 1 s. */
	struct cpw_timeline *t2 = cpw_timeline_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	for (int i = 1; i <= 20; i++)
		cpw_timeline_record(t2, t, 0.1 * i, NULL); /* 2 s, no GPU read yet */
	cpw_timeline_set_gpu(t2, 0.9);
	cpw_timeline_record(t2, t, 2.1, NULL);
	const struct cpw_tl_point *q = cpw_timeline_point(t2, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[8].gpu_s, 0, 1e-12);       /* 0.8-0.9 s: more than 1 s back */
	CU_ASSERT_DOUBLE_EQUAL(q[10].gpu_s, 0.1, 1e-9);     /* 1.0-1.1 s: filled */
	CU_ASSERT_DOUBLE_EQUAL(q[19].gpu_busy_s, 0.09, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(q[20].gpu_busy_s, 0.09, 1e-9); /* the record after it */
	cpw_timeline_set_gpu(t2, NAN);
	cpw_timeline_set_gpu(t2, 0.1); /* only the first fills */
	CU_ASSERT_DOUBLE_EQUAL(q[19].gpu_busy_s, 0.09, 1e-9);
	cpw_timeline_free(t2);
	cpw_timeline_set_gpu(tl, 1.5); /* a share: at most 1 */
	cpw_timeline_record(tl, t, 0.6, NULL);
	CU_ASSERT_DOUBLE_EQUAL(cpw_timeline_point(tl, 4)->gpu_busy_s, 0.1, 1e-9);
	cpw_timeline_free(tl);
	cpw_tree_free(t);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("timeline", NULL, NULL);
	CU_add_test(s, "a short run keeps one point per sample", test_short_run_one_point_per_sample);
	CU_add_test(s, "compaction keeps every sum exact", test_compaction_keeps_sums);
	CU_add_test(s, "ten hours at 0.1 s stay in the fixed capacity", test_ten_hours_stay_flat);
	CU_add_test(s, "main processes merge by pid", test_top_processes_merge);
	CU_add_test(s, "unknown figures stay unknown", test_unknowns);
	CU_add_test(s, "records are deltas of the tree", test_record_from_tree);
	CU_add_test(s, "the GPU's busy share in the points", test_gpu_busy);
	return cpw_cunit_run_tap();
}
