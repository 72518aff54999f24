/*
 * test_process_verdict.c: a verdict per process (classify/process_verdict.c), from fixtures
 * modelled on the composite run of issue 27 (sh -c "sleep 1; dd ... iflag=direct; python3
 * with threads on the GIL") as the model holds it at the end: each process that matters gets
 * its own class and finding; the shell, which only waits for its children, does not matter;
 * the tree's advice never recommends threads that a process's finding rules out.
 */
#include "config.h"
#include "classify/process_verdict.h"
#include "classify/verdict.h"
#include "model/tree.h"
#include "model/waits.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static struct cpw_proc proc(pid_t pid, const char *comm, double from, double to, double user,
			    double sys, double runq)
{
	struct cpw_proc p;

	memset(&p, 0, sizeof p);
	p.pid = pid;
	p.ppid = 100;
	snprintf(p.comm, sizeof p.comm, "%s", comm);
	p.first_seen_s = from;
	p.last_seen_s = to;
	p.exited_s = to;
	p.missed_s = NAN;
	p.user_s = user;
	p.sys_s = sys;
	p.oncpu_s = user + sys;
	p.runq_wait_s = runq;
	p.read_bytes = p.write_bytes = 0;
	p.max_rss_kib = 2048;
	p.nthreads = p.max_threads = 1;
	p.cpu_threads = user + sys > 0.05 ? 1 : 0;
	p.samples_in = (uint64_t)((to - from) / 0.1);
	p.r_samples = (uint64_t)((double)p.samples_in * (user + sys) / (to - from));
	p.is_python = 0;
	return p;
}

static void wait_for(struct cpw_waits *w, pid_t pid, const char *comm, enum cpw_wait_kind kind,
		     double s, const char *target)
{
	struct cpw_wait_proc_time *p = NULL;

	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			p = &w->procs[i];
	if (p == NULL) {
		p = &w->procs[w->nprocs++];
		p->pid = pid;
		snprintf(p->comm, sizeof p->comm, "%s", comm);
	}
	p->seconds[kind] += s;
	p->total_s += s;
	w->seconds[kind] += s;
	w->total_s += s;
	if (target) {
		struct cpw_wait_target_time *t = &w->targets[w->ntargets++];

		t->kind = kind;
		snprintf(t->target, sizeof t->target, "%s", target);
		t->pid = pid;
		t->seconds = s;
	}
}

static double cores = NAN; /* the tree's usable CPUs in the next judge() */

static void judge(const struct cpw_proc *procs, size_t n, const struct cpw_waits *w, double now_s,
		  struct cpw_proc_verdicts *out)
{
	struct cpw_proc_verdict_ctx with = { .waits = w, .cores_usable = cores, .now_s = now_s };

	cpw_process_verdict_judge_array(procs, n, &with, out);
}

/* The composite run: sh (pid 100) waits for sleep 1 (101), dd with O_DIRECT (102) and
 * python3 with 5 threads on the GIL (103). */
enum { N_COMPOSITE = 4 };
static struct cpw_proc composite[N_COMPOSITE];
static struct cpw_waits composite_waits;

static void build_composite(void)
{
	struct cpw_proc *py;

	composite[0] = proc(100, "sh", 0.0, 7.2, 0.01, 0.01, 0);
	composite[1] = proc(101, "sleep", 0.0, 1.0, 0.0, 0.001, 0);
	composite[2] = proc(102, "dd", 1.0, 2.9, 0.05, 0.80, 0.02);
	composite[2].read_bytes = 160e6;
	composite[3] = proc(103, "python3", 2.9, 7.2, 4.2, 0.1, 0.6);
	py = &composite[3];
	py->is_python = 1;
	py->nthreads = py->max_threads = 6;
	py->cpu_threads = 5;
	py->samples_in = 43;
	py->r_samples = 48; /* about one runnable at a time */
	py->max_rss_kib = 12 * 1024;
	cpw_waits_init(&composite_waits);
	composite_waits.probed = true;
	wait_for(&composite_waits, 100, "sh", CPW_WAIT_CHILD, 7.2, NULL);
	wait_for(&composite_waits, 101, "sleep", CPW_WAIT_TIMER, 0.98, NULL);
	wait_for(&composite_waits, 102, "dd", CPW_WAIT_DISK, 1.03, "/tmp/x/big.dat");
	wait_for(&composite_waits, 103, "python3", CPW_WAIT_LOCK, 15.5, NULL);
}

static const struct cpw_proc_verdict *find(const struct cpw_proc_verdicts *pvs, pid_t pid)
{
	for (size_t i = 0; i < pvs->n; i++)
		if (pvs->v[i].pid == pid)
			return &pvs->v[i];
	return NULL;
}

static void test_composite(void)
{
	struct cpw_proc_verdicts pvs;
	const struct cpw_proc_verdict *sleep_v, *dd, *py;
	char line[320];

	build_composite();
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_EQUAL(pvs.n, 3);
	CU_ASSERT_PTR_NULL(find(&pvs, 100)); /* the shell only waits for its children */
	sleep_v = find(&pvs, 101);
	dd = find(&pvs, 102);
	py = find(&pvs, 103);
	CU_ASSERT_FATAL(sleep_v && dd && py);
	CU_ASSERT_EQUAL(sleep_v->cls, CPW_CLASS_WAITING);
	CU_ASSERT_STRING_EQUAL(sleep_v->why, "time"); /* 6% of the tree's waits, but 1 s */
	CU_ASSERT_STRING_EQUAL(dd->why, "time");
	CU_ASSERT_PTR_NOT_NULL(strstr(sleep_v->finding, "a timer"));
	/* Its 0.8 s of system time (94% of its CPU) is its I/O's: no CPU class beside it. */
	CU_ASSERT_EQUAL(dd->cls, CPW_CLASS_IO_BOUND);
	CU_ASSERT_EQUAL(dd->secondary, CPW_CLASS_NONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(dd->finding, "reads 153 MiB of /tmp/x/big.dat"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dd->finding, "54% of its time waiting for the disk and 42% in the kernel doing that I/O"));
	CU_ASSERT_EQUAL(py->cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_TRUE(py->serialised);
	CU_ASSERT_STRING_EQUAL(py->why, "cpu");
	CU_ASSERT_PTR_NOT_NULL(strstr(py->finding, "5 threads take turns on the GIL"));
	CU_ASSERT(py->confidence > 0.5 && py->confidence <= 1);
	cpw_process_verdict_sentence(py, line, sizeof line);
	CU_ASSERT_STRING_EQUAL(line, "python3 (pid 103), 2.9-7.2 s: 5 threads take turns on the GIL, "
			       "1.0 core between them");
	/* In order of first sight: the run's story. */
	CU_ASSERT_EQUAL(pvs.v[0].pid, 101);
	CU_ASSERT_EQUAL(pvs.v[2].pid, 103);
}

/* Without the wait probe: no class from waits nobody named. */
static void test_unprobed(void)
{
	struct cpw_proc_verdicts pvs;

	build_composite();
	judge(composite, N_COMPOSITE, NULL, 7.2, &pvs);
	/* sleep matters by nothing measured; dd by its CPU time, python by its share */
	CU_ASSERT_EQUAL_FATAL(pvs.n, 2);
	CU_ASSERT_EQUAL(pvs.v[0].pid, 102);
	CU_ASSERT_STRING_EQUAL(pvs.v[0].why, "time");
	CU_ASSERT_EQUAL(pvs.v[1].pid, 103);
	CU_ASSERT_EQUAL(pvs.v[1].cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_TRUE(pvs.v[1].serialised);
}

/* A single-threaded pure Python process and a C program beside it; a CPU share near the
 * threshold beside disk waits is mixed, not a flip between two classes. */
static void test_cpu_and_margin(void)
{
	struct cpw_proc procs[3];
	struct cpw_waits w;
	struct cpw_proc_verdicts pvs;

	procs[0] = proc(200, "python3", 0.0, 3.0, 2.9, 0.05, 0.02);
	procs[0].is_python = 1;
	procs[1] = proc(201, "cc1", 0.0, 2.0, 1.9, 0.05, 0.6); /* queued for a CPU 24% */
	procs[2] = proc(202, "writer", 0.0, 2.0, 1.1, 0.0, 0);
	procs[2].write_bytes = 50e6;
	cpw_waits_init(&w);
	w.probed = true;
	wait_for(&w, 202, "writer", CPW_WAIT_DISK, 0.8, "/tmp/out");
	judge(procs, 3, &w, 3.0, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 3);
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[0].finding, "pure Python on one thread"));
	CU_ASSERT_EQUAL(pvs.v[1].cls, CPW_CLASS_CPU_BOUND); /* 24% queued: inside the margin */
	CU_ASSERT_EQUAL(pvs.v[2].cls, CPW_CLASS_MIXED);    /* 58% CPU beside 42% disk */
	CU_ASSERT_EQUAL(pvs.v[2].secondary, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[2].finding, "no single resource dominates"));
	/* Queued for most of it: starved. */
	procs[1].runq_wait_s = 1.9;
	judge(procs, 3, &w, 3.0, &pvs);
	CU_ASSERT_EQUAL(pvs.v[1].cls, CPW_CLASS_CPU_STARVED);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[1].finding, "queued for a CPU"));
}

/* GIL threads beside heavy other load: the woken threads queue for a CPU (2 runnable),
 * yet the lock waits say they take turns: starved, and the finding names the GIL. */
static void test_turns_starved(void)
{
	struct cpw_proc_verdicts pvs;

	build_composite();
	composite[3].user_s = 0.87;
	composite[3].sys_s = 0;
	composite[3].runq_wait_s = 3.83;
	composite[3].r_samples = 88; /* 2.05 runnable */
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 3);
	CU_ASSERT_TRUE(pvs.v[2].serialised);
	CU_ASSERT_EQUAL(pvs.v[2].cls, CPW_CLASS_CPU_STARVED);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[2].finding, "5 threads take turns on the GIL, queued for a CPU 81%"));
	/* Without the lock waits to say so, 2 runnable threads do not take turns. */
	composite_waits.procs[3].seconds[CPW_WAIT_LOCK] = 0;
	composite_waits.procs[3].total_s = 0;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_FALSE(pvs.v[2].serialised);
}

/* GIL threads on a quiet host whose 16 samples caught a turn's hand-off often (1.56
 * runnable, past serial_runnable_max): the lock waits say they take turns, and fewer
 * runnable than the usable CPUs is not starvation (CI saw "waiting" once in 15 runs). */
static void test_turns_handoff_sampled(void)
{
	struct cpw_proc_verdicts pvs;
	double saved = cores;

	build_composite();
	composite[3].r_samples = 67; /* 1.56 runnable */
	cores = 2;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 3);
	CU_ASSERT_TRUE(pvs.v[2].serialised);
	CU_ASSERT_EQUAL(pvs.v[2].cls, CPW_CLASS_CPU_BOUND);
	/* As many runnable as the usable CPUs: that is not one turn at a time. */
	composite[3].r_samples = 86;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_FALSE(pvs.v[2].serialised);
	/* Without the lock waits to say so, 1.56 runnable threads do not take turns. */
	composite[3].r_samples = 67;
	composite_waits.procs[3].seconds[CPW_WAIT_LOCK] = 0;
	composite_waits.procs[3].total_s = 0;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_FALSE(pvs.v[2].serialised);
	cores = saved;
}

/* A DataLoader worker as a real GPU host showed it: its main thread computes all along,
 * its queue feeder and listener wake every few ms (never idle by design): 2 of its 3
 * threads wait. Their waits are a helper's, beside the work: cpu-bound. The same waits
 * by its working threads, or in a process that does not compute all along, still count. */
static void test_helper_waits(void)
{
	struct cpw_proc procs[2];
	struct cpw_waits w;
	struct cpw_wait one;
	struct cpw_proc_verdicts pvs;

	procs[0] = proc(300, "pt_data_worker", 0.0, 30.0, 29.5, 0.3, 0.2);
	procs[0].nthreads = procs[0].max_threads = 3;
	procs[1] = proc(301, "python3", 0.0, 30.0, 8.0, 0.5, 0.1); /* computes 28% of its life */
	procs[1].nthreads = procs[1].max_threads = 3;
	cpw_waits_init(&w);
	w.probed = true;
	memset(&one, 0, sizeof(one));
	for (int i = 0; i < 300; i++) {
		one.seq = 1000 + (uint64_t)i; /* they run between samples: never idle */
		one.kind = CPW_WAIT_LOCK;
		one.tid = 1;
		cpw_waits_add_thread(&w, 300, "pt_data_worker", &one, 0.1, true);
		cpw_waits_add_thread(&w, 301, "python3", &one, 0.1, true);
		one.kind = CPW_WAIT_NETWORK;
		one.tid = 2;
		cpw_waits_add_thread(&w, 300, "pt_data_worker", &one, 0.1, true);
		cpw_waits_add_thread(&w, 301, "python3", &one, 0.1, true);
	}
	cpw_waits_add_thread(&w, 301, "python3", &(struct cpw_wait){ .kind = CPW_WAIT_PIPE, .tid = 301, .seq = 7 },
			     21.0, true); /* the main thread's: never a helper's */
	judge(procs, 2, &w, 30.0, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 2);
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[0].finding, "on one thread"));
	CU_ASSERT_EQUAL(pvs.v[1].cls, CPW_CLASS_WAITING); /* not computing all along */
	/* The same waits from working threads count. */
	cpw_waits_init(&w);
	w.probed = true;
	for (int i = 0; i < 300; i++) {
		one.seq = 1000 + (uint64_t)i;
		one.kind = CPW_WAIT_LOCK;
		one.tid = 1;
		cpw_waits_add_thread(&w, 300, "pt_data_worker", &one, 0.1, false);
		one.kind = CPW_WAIT_NETWORK;
		one.tid = 2;
		cpw_waits_add_thread(&w, 300, "pt_data_worker", &one, 0.1, false);
	}
	judge(procs, 1, &w, 30.0, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 1);
	CU_ASSERT_NOT_EQUAL(pvs.v[0].cls, CPW_CLASS_CPU_BOUND);
}

/* multiprocessing.Pool(2): the parent's main thread waits on the result's event (a lock)
 * and its result handler on the workers' pipes, while the two workers compute: the parent
 * waits for its workers' work, as a shell in wait4 does, and is not "waiting" itself. */
static void test_pool_parent(void)
{
	struct cpw_proc procs[3] = { proc(400, "python3", 0.0, 4.0, 0.04, 0.01, 0) };
	struct cpw_waits w;
	struct cpw_proc_verdicts pvs;

	for (int k = 1; k <= 2; k++) {
		procs[k] = proc(400 + k, "python3", 0.1, 3.9, 3.7, 0.01, 0.05);
		procs[k].ppid = 400;
	}
	cpw_waits_init(&w);
	w.probed = true;
	wait_for(&w, 400, "python3", CPW_WAIT_LOCK, 3.9, NULL);
	wait_for(&w, 400, "python3", CPW_WAIT_PIPE, 3.5, "pipe from python3 (pid 401) and 3 other fds");
	judge(procs, 3, &w, 4.0, &pvs);
	CU_ASSERT_PTR_NULL(find(&pvs, 400));
	CU_ASSERT_PTR_NOT_NULL(find(&pvs, 401));
	/* Its workers idle: the same waits are its own. */
	procs[1].user_s = procs[2].user_s = procs[1].oncpu_s = procs[2].oncpu_s = 0.1;
	judge(procs, 3, &w, 4.0, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(find(&pvs, 400));
	CU_ASSERT_EQUAL(find(&pvs, 400)->cls, CPW_CLASS_WAITING);
	/* Busy workers, but a lock alone (no pipe from them): a wait of its own. */
	procs[1].user_s = procs[2].user_s = procs[1].oncpu_s = procs[2].oncpu_s = 3.7;
	cpw_waits_init(&w);
	w.probed = true;
	wait_for(&w, 400, "python3", CPW_WAIT_LOCK, 3.9, NULL);
	judge(procs, 3, &w, 4.0, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(find(&pvs, 400));
	CU_ASSERT_EQUAL(find(&pvs, 400)->cls, CPW_CLASS_WAITING);
	/* ... beside handler threads idle by design (long chunks): a pool's parent again. */
	w.procs[0].idle_s = 7.5;
	judge(procs, 3, &w, 4.0, &pvs);
	CU_ASSERT_PTR_NULL(find(&pvs, 400));
}

/* taskset -c 0 on 3 spinning threads: they queue behind each other on the one CPU they
 * may use, which is their own doing, not other load's; on 2 CPUs the same wait is. */
static void test_own_queue(void)
{
	struct cpw_proc p = proc(500, "spin_threads", 0.0, 2.0, 2.0, 0.0, 4.0);
	struct cpw_proc_verdicts pvs;

	p.cpu_threads = p.max_threads = p.nthreads = 3;
	p.samples_in = 20;
	p.r_samples = 60; /* 3 runnable */
	cores = 1;
	judge(&p, 1, NULL, 2.0, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 1);
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[0].finding, "3 threads on 1 core,"));
	cores = 2.5;
	judge(&p, 1, NULL, 2.0, &pvs);
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_CPU_STARVED);
	cores = NAN;
}

/* Memory alone makes a process matter; too little of anything is unknown. */
static void test_memory_and_short(void)
{
	struct cpw_proc procs[2];
	struct cpw_proc_verdicts pvs;

	procs[0] = proc(300, "cache", 0.0, 4.0, 0.1, 0.0, 0);
	procs[0].max_rss_kib = 512 * 1024;
	procs[1] = proc(301, "worker", 0.0, 4.0, 3.9, 0.0, 0);
	judge(procs, 2, NULL, 4.0, &pvs);
	CU_ASSERT_EQUAL_FATAL(pvs.n, 2);
	CU_ASSERT_STRING_EQUAL(pvs.v[0].why, "memory");
	/* Unprobed: its time off the CPU is a wait nobody could name. */
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_WAITING);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[0].finding, "not probed"));
	CU_ASSERT_STRING_EQUAL(pvs.v[1].why, "cpu");
	procs[0].first_seen_s = 3.9; /* 0.1 s */
	judge(procs, 2, NULL, 4.0, &pvs);
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_UNKNOWN);
	CU_ASSERT_PTR_NOT_NULL(strstr(pvs.v[0].finding, "too little to judge"));
}

/* Many equal workers: none has a notable share of the CPU nor of the waits; busy as long
 * as a phase they matter, the busiest kept, and past the table they are counted. */
static void test_left_out(void)
{
	enum { N = CPW_PROC_VERDICTS_MAX + 3 };
	struct cpw_proc procs[N];
	struct cpw_waits w;
	struct cpw_proc_verdicts pvs;

	for (size_t i = 0; i < N; i++)
		procs[i] = proc((pid_t)(400 + i), "w", 0.0, 2.0, 0.3, 0.0, 0);
	judge(procs, N, NULL, 2.0, &pvs);
	CU_ASSERT_EQUAL(pvs.n, 0);
	cpw_waits_init(&w);
	w.probed = true;
	for (size_t i = 0; i < N; i++)
		wait_for(&w, procs[i].pid, "w", CPW_WAIT_NETWORK, 1.0, NULL);
	judge(procs, N, &w, 2.0, &pvs);
	CU_ASSERT_EQUAL(pvs.n, CPW_PROC_VERDICTS_MAX);
	CU_ASSERT_EQUAL(pvs.left_out, 3);
	CU_ASSERT_STRING_EQUAL(pvs.v[0].why, "time");
	CU_ASSERT_EQUAL(pvs.v[0].cls, CPW_CLASS_WAITING);
	CU_ASSERT_EQUAL(pvs.v[0].pid, 400); /* equals: the first seen stay */
	/* One that waited longer takes the place of one that waited least, in its order (each
	 * single-threaded, its time off the CPU is its life's: it lived longer, or shorter). */
	procs[N - 1].last_seen_s = procs[N - 1].exited_s = 3.0;
	w.procs[N - 1].seconds[CPW_WAIT_NETWORK] += 2;
	w.procs[N - 1].total_s += 2;
	procs[0].last_seen_s = procs[0].exited_s = 1.5;
	w.procs[0].seconds[CPW_WAIT_NETWORK] -= 0.5;
	w.procs[0].total_s -= 0.5;
	judge(procs, N, &w, 2.0, &pvs);
	CU_ASSERT_EQUAL(pvs.n, CPW_PROC_VERDICTS_MAX);
	/* 416 takes 400's place, 418 the first of the equals' (401), 417 stays out */
	CU_ASSERT_EQUAL(pvs.left_out, 3);
	CU_ASSERT_EQUAL(pvs.v[0].pid, 402);
	CU_ASSERT_EQUAL(pvs.v[CPW_PROC_VERDICTS_MAX - 2].pid, 416);
	CU_ASSERT_EQUAL(pvs.v[CPW_PROC_VERDICTS_MAX - 1].pid, 418);
}

/* The tree's advice holds for every process: no threads for the GIL process, and the
 * processes judged otherwise named. */
static void test_guard_advice(void)
{
	struct cpw_proc_verdicts pvs;
	struct cpw_verdict v;

	build_composite();
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	memset(&v, 0, sizeof v);
	v.cls = CPW_CLASS_CPU_BOUND;
	v.secondary = CPW_CLASS_NONE;
	snprintf(v.advice, sizeof v.advice, "CPU-bound: profile it. It uses 1.0 of 2 usable cores: "
		 "parallelise (threads, processes, make -j) to use the rest.");
	cpw_process_verdict_guard_advice(&pvs, &v);
	CU_ASSERT_PTR_NULL(strstr(v.advice, "threads, processes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, "parallelise with processes (multiprocessing"));
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, " to use the rest."));
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, "Per process: sleep (pid 101) waiting, dd (pid 102) "
				      "io-bound: see its finding."));
	/* A C program alone may still be advised threads. */
	composite[3].is_python = 0;
	snprintf(composite[3].comm, sizeof composite[3].comm, "worker");
	composite[3].cpu_threads = 1;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	snprintf(v.advice, sizeof v.advice, "parallelise (threads, processes, make -j) to use the rest.");
	cpw_process_verdict_guard_advice(&pvs, &v);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.advice, "parallelise (threads, processes, make -j)"));
	/* Twelve processes judged otherwise: three named, the rest counted. */
	memset(&pvs, 0, sizeof pvs);
	for (int i = 0; i < 12; i++) {
		pvs.v[i].pid = 8000 + i;
		pvs.v[i].cls = CPW_CLASS_WAITING;
		snprintf(pvs.v[i].comm, sizeof pvs.v[i].comm, "cperfwatch");
	}
	pvs.n = 12;
	snprintf(v.advice, sizeof v.advice, "CPU-bound.");
	cpw_process_verdict_guard_advice(&pvs, &v);
	CU_ASSERT_STRING_EQUAL(v.advice, "CPU-bound. Per process: cperfwatch (pid 8000) waiting, cperfwatch (pid 8001) "
				 "waiting, cperfwatch (pid 8002) waiting and 9 more (under Processes): see its finding.");
}

/* dd with O_DIRECT as six real runs of `sh -c "dd if=big.dat of=/dev/null bs=4k
 * count=40000 iflag=direct"` left it (their JSON reports, on the project's 2-CPU VM with
 * other sessions' builds beside them): its life, user and system seconds, run-queue wait,
 * bytes read and the disk waits the probe caught. Its 4 KiB reads block ~50 us each and
 * are seldom caught in D: the probe found 0.30-2.63 s of disk waits, and the verdicts were
 * cpu-bound, mixed and io-bound by chance. Its time off the CPU is exact (its life less
 * its CPU and run-queue time): the first three runs, on the host as it was, are io-bound,
 * the last three, beside `stress-ng --cpu 1 --cpu-load 30`, queued for a CPU 41-47% of
 * their lives, were cpu-starved: the queue was their largest part while its system time
 * was taken for CPU work. That system time is its I/O's (rule 2b: 95-99% of its CPU in
 * the kernel, storage read, the disk 30-35% of its life): they are io-bound beside the
 * load too, cpu-starved their second class. */
static const struct dd_run {
	double from, to, user, sys, runq, bytes, disk;
	enum cpw_class cls;
} dd_runs[] = {
	{ 0.0019, 1.8989, 0.0148, 0.6868, 0.0365, 152686592, 0.2999, CPW_CLASS_IO_BOUND },   /* was cpu-bound */
	{ 0.1044, 1.7414, 0.0170, 0.7521, 0.0313, 161325056, 0.7046, CPW_CLASS_IO_BOUND },   /* was mixed */
	{ 0.1043, 3.6162, 0.0096, 0.8512, 0.1092, 162807808, 2.0002, CPW_CLASS_IO_BOUND },
	{ 0.0074, 4.7706, 0.0561, 1.0980, 1.9406, 163594240, 2.6324, CPW_CLASS_IO_BOUND }, /* was mixed */
	{ 0.0031, 5.6761, 0.0777, 1.1524, 2.6600, 162000896, 1.7063, CPW_CLASS_IO_BOUND }, /* was cpu-starved */
	{ 0.1540, 5.4014, 0.0413, 1.1699, 2.4640, 161931264, 0.8302, CPW_CLASS_IO_BOUND }, /* was cpu-starved */
};

static void dd_run(const struct dd_run *r, struct cpw_proc procs[2], struct cpw_waits *w)
{
	procs[0] = proc(100, "sh", 0.0, r->to, 0.0, 0.001, 0);
	procs[1] = proc(101, "dd", r->from, r->to, r->user, r->sys, r->runq);
	procs[1].ppid = 100;
	procs[1].read_bytes = r->bytes;
	procs[1].reaped = true;           /* its exit record's end */
	procs[1].last_seen_s = r->to - 0.06; /* the last sample that found it */
	cpw_waits_init(w);
	w->probed = true;
	wait_for(w, 100, "sh", CPW_WAIT_CHILD, r->to - 0.01, NULL);
	if (r->disk > 0)
		wait_for(w, 101, "dd", CPW_WAIT_DISK, r->disk, "/tmp/big.dat");
}

/* dd's verdict in the tree built by dd_run() (and changed since). */
static const struct cpw_proc_verdict *judge_dd(const struct dd_run *r, const struct cpw_proc procs[2],
					       const struct cpw_waits *w, struct cpw_proc_verdicts *pvs)
{
	judge(procs, 2, w, r->to, pvs);
	return find(pvs, 101);
}

static void test_dd_direct_recorded(void)
{
	struct cpw_proc procs[2];
	struct cpw_waits w;
	struct cpw_proc_verdicts pvs;
	const struct cpw_proc_verdict *dd;

	for (size_t i = 0; i < sizeof dd_runs / sizeof dd_runs[0]; i++) {
		dd_run(&dd_runs[i], procs, &w);
		dd = judge_dd(&dd_runs[i], procs, &w, &pvs);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
		CU_ASSERT_EQUAL(dd->cls, dd_runs[i].cls);
		if (dd->cls != dd_runs[i].cls)
			fprintf(stderr, "# dd run %zu: %s, cpu %.2f runq %.2f disk %.2f\n", i + 1,
				cpw_verdict_class_name(dd->cls), dd->cpu_share, dd->runq_share, dd->disk_share);
		/* Beside the load, the queue is its second class. */
		if (dd_runs[i].runq > 1.0)
			CU_ASSERT_EQUAL(dd->secondary, CPW_CLASS_CPU_STARVED);
		/* Its lanes add up to its life: none of it left out, none counted twice. */
		CU_ASSERT_DOUBLE_EQUAL(dd->cpu_share + dd->runq_share + dd->disk_share, 1.0, 1e-6);
	}
	/* The first run: 61% of its life off the CPU, in its finding. */
	dd_run(&dd_runs[0], procs, &w);
	dd = judge_dd(&dd_runs[0], procs, &w, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
	CU_ASSERT_PTR_NOT_NULL(strstr(dd->finding, "reads 146 MiB of /tmp/big.dat, 61% of its time waiting for the disk"));
	/* Its waits caught on two files (a cat of many): the bytes are not that one file's. */
	dd_run(&dd_runs[0], procs, &w);
	wait_for(&w, 101, "dd", CPW_WAIT_DISK, 0.05, "/tmp/small.txt");
	dd = judge_dd(&dd_runs[0], procs, &w, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
	CU_ASSERT_PTR_NULL(strstr(dd->finding, "MiB of /tmp/big.dat"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dd->finding, "reads 146 MiB (its disk waits mostly on /tmp/big.dat), "));
}

/* The time off the CPU the probe did not catch goes to the disk only where it is the disk's:
 * storage bytes moved, and no other wait probed longer than the disk's; a process with
 * several threads keeps what was probed. */
static void test_unseen_off_cpu(void)
{
	const struct dd_run *first = &dd_runs[0], *loaded = &dd_runs[3];
	struct cpw_proc procs[2];
	struct cpw_waits w;
	struct cpw_proc_verdicts pvs;
	const struct cpw_proc_verdict *dd;

	/* No storage traffic: its D states are waits on something else, not the disk, and
	 * the rest of its time off the CPU is shared as they were. */
	dd_run(first, procs, &w);
	procs[1].read_bytes = 0;
	dd = judge_dd(first, procs, &w, &pvs);
	CU_ASSERT(dd && dd->cls == CPW_CLASS_WAITING && dd->disk_share == 0);
	/* Probed waiting on a pipe longer than on the disk: the rest is shared between the
	 * two as they were caught, and its lanes add up to its life. */
	dd_run(first, procs, &w);
	wait_for(&w, 101, "dd", CPW_WAIT_PIPE, 0.4, NULL);
	dd = judge_dd(first, procs, &w, &pvs);
	CU_ASSERT(dd && dd->disk_share < 0.3 && dd->wait_share > dd->disk_share);
	CU_ASSERT(dd && fabs(dd->cpu_share + dd->runq_share + dd->disk_share + dd->wait_share - 1.0) < 1e-6);
	/* No wait probed at all, yet 146 MiB read: its time off the CPU is the disk's. */
	dd_run(first, procs, &w);
	w.procs[1].seconds[CPW_WAIT_DISK] = w.procs[1].total_s = 0;
	dd = judge_dd(first, procs, &w, &pvs);
	CU_ASSERT(dd && dd->cls == CPW_CLASS_IO_BOUND);
	/* The shell that ran dd: its /proc/PID/io holds dd's bytes once dd is reaped, and the
	 * probe caught a fifth of its wait for dd. Its time off the CPU is not the disk's: it
	 * has no verdict of its own (it was "io-bound, 100% waiting for the disk" in CI). */
	dd_run(first, procs, &w);
	procs[0].read_bytes = 6e6;
	w.procs[0].seconds[CPW_WAIT_CHILD] = w.procs[0].total_s = first->to / 5;
	judge(procs, 2, &w, first->to, &pvs);
	CU_ASSERT_PTR_NULL(find(&pvs, 100));
	/* Several threads: their lives are not kept, so what was probed stands (0.30 s of disk
	 * waits beside 0.70 s of CPU and 0.04 s queued). */
	dd_run(first, procs, &w);
	procs[1].max_threads = 2;
	dd = judge_dd(first, procs, &w, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
	CU_ASSERT_DOUBLE_EQUAL(dd->disk_share, 0.2999 / (0.2999 + 0.0148 + 0.6868 + 0.0365), 0.01);
	/* Probed waits past its time off the CPU (each stands for a whole interval) are scaled
	 * down to it: the fourth run's 2.63 s of disk waits in 1.67 s off the CPU. */
	dd_run(loaded, procs, &w);
	dd = judge_dd(loaded, procs, &w, &pvs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
	CU_ASSERT_DOUBLE_EQUAL(dd->disk_share, (4.7632 - 1.1541 - 1.9406) / 4.7632, 0.01);
}

/* sleep 1 whose waits the probe caught thinly (under half its second: it had no
 * verdict at all, as test_process_verdict.sh 1 and 7 found): its second off the CPU is
 * exact, and shared as the waits caught were, all on a timer. Caught not at all (seen from
 * its exit record alone), it is as without the probe: no verdict from waits nobody named. */
static void test_thinly_caught(void)
{
	struct cpw_proc_verdicts pvs;
	const struct cpw_proc_verdict *sleep_v;

	build_composite();
	composite_waits.procs[1].seconds[CPW_WAIT_TIMER] = composite_waits.procs[1].total_s = 0.2;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	sleep_v = find(&pvs, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sleep_v);
	CU_ASSERT_EQUAL(sleep_v->cls, CPW_CLASS_WAITING);
	CU_ASSERT_STRING_EQUAL(sleep_v->why, "time");
	CU_ASSERT_PTR_NOT_NULL(strstr(sleep_v->finding, "a timer"));
	CU_ASSERT(sleep_v->wait_share > 0.99);
	/* The others as before: the shell none, dd io-bound. */
	CU_ASSERT_PTR_NULL(find(&pvs, 100));
	CU_ASSERT(find(&pvs, 102) && find(&pvs, 102)->cls == CPW_CLASS_IO_BOUND);

	composite_waits.procs[1].seconds[CPW_WAIT_TIMER] = composite_waits.procs[1].total_s = 0;
	judge(composite, N_COMPOSITE, &composite_waits, 7.2, &pvs);
	CU_ASSERT_PTR_NULL(find(&pvs, 101));
}

/* A process whose CPU went to first-touch page faults (fault_churn: 1.4 s, 60% of it in
 * the kernel, 100,000 minor faults a CPU-second) is memory-bound by the tree's own rule,
 * as a run of it alone is: its line said "cpu-bound" under a "memory-bound" verdict. A
 * parent's faults are its forks' (a fork storm): it stays cpu-bound. */
static void test_faulting(void)
{
	struct cpw_proc procs[2];
	struct cpw_proc_verdicts pvs;
	const struct cpw_proc_verdict *pv;

	procs[0] = proc(100, "sh", 0.0, 1.6, 0.0, 0.01, 0);
	procs[1] = proc(101, "fault_churn", 0.05, 1.5, 0.56, 0.84, 0.01);
	procs[1].minflt = 140000;
	judge(procs, 2, NULL, 1.6, &pvs);
	pv = find(&pvs, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pv);
	CU_ASSERT_EQUAL(pv->cls, CPW_CLASS_MEMORY_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(pv->finding, "100000 minor page faults per CPU-second, 60% of its CPU in the kernel"));
	/* The same faults in a parent of a tree process: computing, not memory. */
	procs[0].ppid = 101;
	judge(procs, 2, NULL, 1.6, &pvs);
	pv = find(&pvs, 101);
	CU_ASSERT(pv && pv->cls == CPW_CLASS_CPU_BOUND);
	/* Few faults: computing. */
	procs[0].ppid = 99;
	procs[1].minflt = 2000;
	judge(procs, 2, NULL, 1.6, &pvs);
	pv = find(&pvs, 101);
	CU_ASSERT(pv && pv->cls == CPW_CLASS_CPU_BOUND);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("process_verdict", NULL, NULL);
	CU_add_test(s, "composite run: a class and finding per process", test_composite);
	CU_add_test(s, "without the wait probe", test_unprobed);
	CU_add_test(s, "cpu-bound, starved and the margin", test_cpu_and_margin);
	CU_add_test(s, "taking turns beside other load", test_turns_starved);
	CU_add_test(s, "taking turns: a hand-off sampled often", test_turns_handoff_sampled);
	CU_add_test(s, "a helper's waits beside a process that computes", test_helper_waits);
	CU_add_test(s, "own threads queued past the usable CPUs", test_own_queue);
	CU_add_test(s, "a pool's parent waits for its workers", test_pool_parent);
	CU_add_test(s, "memory matters; too short is unknown", test_memory_and_short);
	CU_add_test(s, "many equal processes", test_left_out);
	CU_add_test(s, "the tree's advice holds for every process", test_guard_advice);
	CU_add_test(s, "dd with O_DIRECT: six recorded runs", test_dd_direct_recorded);
	CU_add_test(s, "time off the CPU the probe did not catch", test_unseen_off_cpu);
	CU_add_test(s, "a sleep the probe caught thinly", test_thinly_caught);
	CU_add_test(s, "a process that faults in fresh memory", test_faulting);
	return cpw_cunit_run_tap();
}
