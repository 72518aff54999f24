/*
 * report_fixture.c: the fixed report of report_fixture.h, as test_report always built it:
 * every figure is set here, none read from the machine or the clock.
 */
#include "config.h"

#include "report_fixture.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static char arg0[] = "prog", arg1[] = "arg\x1b[31m";
static char *command[] = { arg0, arg1, NULL };

void report_fixture_build(struct cpw_report *r, struct cpw_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cgroup_mem_peak_kib = NAN;
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = CPW_MODE_RUN;
	cfg->interval_ms = 100;
	cfg->command = command;
	cfg->command_argc = 2;
	cfg->host = "node1";
	cfg->rank = 2;
	r->cfg = cfg;
	r->mode = CPW_MODE_RUN;
	r->pid = 4321;
	r->exit_known = true;
	r->exit_code = 3;
	r->rusage_known = true;
	r->ru.ru_utime.tv_sec = 1;
	r->ru.ru_utime.tv_usec = 500000;
	r->ru.ru_stime.tv_usec = 250000;
	r->ru.ru_maxrss = 2048;
	r->ru.ru_minflt = 77;
	r->page_size = 4096;
	cpw_metrics_init(&r->metrics);
	r->metrics.wall_s = 2.0;
	r->metrics.user_s = 1.5;
	r->metrics.sys_s = 0.25;
	r->metrics.samples = 10;
	r->metrics.thread_samples = 10;
	r->metrics.st_running = 8;
	r->metrics.st_sleeping = 2;
	r->metrics.oncpu_s = 1.5;
	r->metrics.runq_wait_s = 0.5;
	/* Four forked workers sharing what their parent filled: the RSS sum counts it 4x. */
	r->metrics.tree_peak_rss_kib = 819200;
	r->metrics.tree_peak_kib = 212716;
	r->metrics.tree_peak_pss_kib = 212559;
	snprintf(r->metrics.tree_peak_source, sizeof(r->metrics.tree_peak_source), "cgroup");
	r->verdict.cls = CPW_CLASS_CPU_BOUND;
	r->verdict.confidence = 0.9;
	r->verdict.secondary = CPW_CLASS_NONE;
	r->verdict.nevidence = 1;
	snprintf(r->verdict.evidence[0].metric, 48, "cpu_share");
	r->verdict.evidence[0].value = 0.875;
	r->verdict.evidence[0].threshold = 0.8;
	snprintf(r->verdict.evidence[0].source, 64, "wait4 rusage");
	snprintf(r->verdict.evidence[0].text, 160, "bad \xff byte");
	snprintf(r->verdict.advice, sizeof(r->verdict.advice), "think");
	cpw_report_note(r, "a note %d", 1);
	r->waits = report_fixture_waits();
}

const struct cpw_waits *report_fixture_waits(void)
{
	static struct cpw_waits w;
	static const struct { pid_t pid; const char *comm; enum cpw_wait_kind kind; const char *target;
			      pid_t peer; double s; } adds[] = {
		{ 4321, "prog", CPW_WAIT_NETWORK, "TCP 127.0.0.1:8080", 0, 2.25 },
		{ 4321, "prog", CPW_WAIT_NETWORK, "TCP [::1]:5432", 0, 0.125 },
		{ 4321, "prog", CPW_WAIT_CHILD, "", 0, 0.5 },
		{ 4322, "wc", CPW_WAIT_PIPE, "pipe from xz (pid 4323)", 4323, 0.75 },
		{ 4323, "xz", CPW_WAIT_DISK, "/data/a\nfile\x1b[31m", 0, 0.375 },
	};
	cpw_waits_init(&w);
	for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++) {
		struct cpw_wait one;
		memset(&one, 0, sizeof(one));
		one.kind = adds[i].kind;
		snprintf(one.target, sizeof(one.target), "%s", adds[i].target);
		one.peer_pid = adds[i].peer;
		if (i == 0) { /* a Python client's function, as the stack reader names it */
			one.py_fn = "fetch";
			one.py_fn_where = "client.py:14";
			one.py_caller = "main";
			one.py_caller_where = "client.py:30";
		}
		cpw_waits_add(&w, adds[i].pid, adds[i].comm, &one, adds[i].s);
	}
	struct cpw_wait_probe_stats st = { .probed = 40, .denied = 2, .over_budget = 3,
					   .samples_over_budget = 1, .reads = 500, .budget = 256 };
	cpw_waits_set_probe_stats(&w, &st);
	return &w;
}

struct cpw_tree *report_fixture_tree(void)
{
	struct cpw_tree *tree = cpw_tree_new(false);
	if (!tree)
		return NULL;
	cpw_tree_record_exit(tree, 100, 1, "first", 0.5, 0.25, 10, 1, 2048, 0.1);
	/* 0.06 s of CPU: no short-lived helper (model/proc_label.h), so that its row shows */
	cpw_tree_record_exit(tree, 101, 100, "a \"q\"\nname", 0.06, 0, 1, 0, 512, 0.2);
	cpw_tree_record_exit(tree, 102, 100, "@cperfwatch-processes@", 0, 0, 1, 0, 512, 0.3);
	return tree;
}

struct cpw_timeline *report_fixture_timeline(struct cpw_report *r)
{
	struct cpw_timeline *tl = cpw_timeline_new();
	if (!tl)
		return NULL;
	for (int i = 0; i < 20; i++) {
		struct cpw_tl_point p;
		bool reading = i < 8;
		cpw_timeline_point_init(&p, 0.1 * i);
		p.dt_s = 0.1;
		p.samples = 1;
		p.user_s = reading ? 0.005 : 0.095;
		p.sys_s = reading ? 0.01 : 0.002;
		p.oncpu_s = p.user_s + p.sys_s;
		p.runq_s = 0.001;
		p.states[reading ? CPW_TL_DISK_WAIT : CPW_TL_RUNNING] = 1;
		p.states[CPW_TL_SLEEPING] = 1;
		p.rss_kib_max = 1024 + 100 * i;
		p.read_bytes = reading ? 838860.8 : 0;
		p.write_bytes = 0;
		p.minflt = 3;
		p.psi_cpu_s = 0;
		p.psi_io_s = reading ? 0.08 : 0;
		p.psi_mem_s = 0;
		p.psi_from_cgroup = true;
		p.wait_s[CPW_WAIT_DISK] = reading ? 0.09 : 0;
		p.wait_s[CPW_WAIT_TIMER] = 0.1; /* a helper thread on a timer */
		p.top[0] = (struct cpw_tl_proc){ .pid = 100, .comm = "first", .cpu_s = p.user_s + p.sys_s,
						 .io_bytes = p.read_bytes };
		cpw_timeline_add(tl, &p);
	}
	r->timeline = tl;
	memset(&r->phases, 0, sizeof(r->phases));
	r->phases.n = 2;
	r->phases.min_len_s = 0.5;
	struct cpw_phase *a = &r->phases.phase[0], *b = &r->phases.phase[1];
	*a = (struct cpw_phase){ .start_s = 0, .end_s = 0.8, .first = 0, .last = 7,
				 .cls = CPW_CLASS_IO_BOUND, .confidence = 0.8, .secondary = CPW_CLASS_NONE,
				 .evidence = "waiting for storage is 80% of the busy lifetime", .cores_used = 0.15 };
	a->procs[0] = (struct cpw_tl_proc){ .pid = 100, .comm = "first", .cpu_s = 0.12, .io_bytes = 6710886.4 };
	*b = (struct cpw_phase){ .start_s = 0.8, .end_s = 2.0, .first = 8, .last = 19,
				 .cls = CPW_CLASS_CPU_BOUND, .confidence = 0.9, .secondary = CPW_CLASS_NONE,
				 .evidence = "on-CPU time is 97% of the busy lifetime", .cores_used = 0.97 };
	b->procs[0] = (struct cpw_tl_proc){ .pid = 100, .comm = "first", .cpu_s = 1.164, .io_bytes = 0 };
	return tl;
}

struct cpw_hotspots *report_fixture_hotspots(void)
{
	const enum cpw_code_kind PY = CPW_CODE_PYTHON, IN = CPW_CODE_INTERPRETER, LC = CPW_CODE_LIBC,
				 KE = CPW_CODE_KERNEL, NA = CPW_CODE_NATIVE, JI = CPW_CODE_JIT;
	/* Each stack: its process, its samples, then its frames from the leaf out. */
	const struct {
		pid_t pid;
		const char *comm;
		int samples, n;
		struct cpw_frame fr[6];
	} stacks[] = {
		{ 10, "python3", 900, 4, { { "PyNumber_Multiply", "libpython3.11.so.1.0", IN },
					   { "compute", "job.py", PY }, { "main", "job.py", PY },
					   { "<module>", "job.py", PY } } },
		{ 10, "python3", 500, 6, { { "copy_user_generic", "[kernel]", KE }, { "ksys_read", "[kernel]", KE },
					   { "read", "libc.so.6", LC }, { "load", "job.py", PY },
					   { "main", "job.py", PY }, { "<module>", "job.py", PY } } },
		{ 10, "python3", 300, 4, { { "_PyEval_EvalFrameDefault", "libpython3.11.so.1.0", IN },
					   { "compute", "job.py", PY }, { "main", "job.py", PY },
					   { "<module>", "job.py", PY } } },
		{ 11, "w<&\"x\x01y>", 200, 2, {
			{ "fast_kernel_with_a_very_long_name_that_cannot_fit_in_its_frame_at_all", "libfast.so", NA },
			{ "[libfast.so]", "libfast.so", NA } } },
		{ 11, "w<&\"x\x01y>", 97, 1, { { "jitted_loop", "[jit]", JI } } },
		{ 11, "w<&\"x\x01y>", 2, 1, { { "\xc3\xbc" "n\xc3\xaf" "code_fn", "libfast.so", NA } } },
		{ 10, "python3", 1, 2, { { "tiny", "job.py", PY }, { "<module>", "job.py", PY } } },
	};
	struct cpw_hotspots *h = cpw_hotspots_new();
	if (!h)
		return NULL;
	cpw_hotspots_set_epoch(h, 100);
	double t = 100.5;
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		struct cpw_stack st;
		memset(&st, 0, sizeof(st));
		st.pid = st.tid = stacks[i].pid;
		st.comm = stacks[i].comm;
		st.nframes = stacks[i].n;
		memcpy(st.frames, stacks[i].fr, sizeof(stacks[i].fr));
		for (int k = 0; k < stacks[i].samples; k++) {
			st.mono_s = t;
			t += 0.001;
			cpw_hotspots_take(h, &st);
		}
	}
	return h;
}
