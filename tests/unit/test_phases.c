/*
 * test_phases.c: phase cutting (classify/phases.c) from recorded series.
 *
 * Every file tests/fixtures/series/NAME.series is one test: a timeline in a line format
 * (described at the top of each file), the phases it must give (start, end, class, main
 * process, within 0.05 s) and what the whole run's verdict must say once phases refine it.
 * The points go through cpw_timeline_add(), as the session's records do.
 *
 * A file may hold several recordings of one program ("recording = LABEL", made by
 * tests/fixtures/series/record.sh): every recording must give what the file expects, the
 * same phases (expect.classes) and the same verdict (expect.verdict, or one of "a|b" where
 * the file says why), each cut near a process event (expect.cut_within), and a single
 * phase the run's own verdict.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify.h"
#include "classify/gpu_verdict.h"
#include "classify/phases.h"
#include "classify/process_verdict.h"
#include "classify/thresholds.h"
#include "model/timeline.h"
#include "cunit_tap.h"

#ifndef CPW_SERIES_FIXTURES
#define CPW_SERIES_FIXTURES "tests/fixtures/series"
#endif

#define MAX_FIXTURES 32
#define MAX_EXPECT 8
#define MAX_RECORDINGS 24
#define MAX_EVENTS 16

struct expect_phase {
	double start, end;
	char cls[32];
	char comm[32];   /* "" or "-": not checked */
	char wait[32];   /* the phase's wait kind, and its evidence names it; "": not checked */
};

/* One recorded run: its points and the process events in it. */
struct recording {
	char label[32];
	struct cpw_timeline *tl;
	double t;                  /* where its next point starts */
	double event[MAX_EVENTS];  /* seconds: a process exited (or started, or exec'd) */
	int nevent;
	/* "run.KEY = VALUE": what the run knew of its busiest process (its report's figures,
	 * which the timeline lacks), laid over the metrics the points give the whole run. */
	int top_pid, is_python;
	char top_comm[32];
	double threads, cpu_threads, runnable, lock_share;
	/* run.gpu_*: the GPU as the run's report saw it (devices held, its busy share over the
	 * run, the host's spin in the driver); NAN where not said. */
	double gpu_held, gpu_busy, gpu_spin, gpu_mem;
	/* run.owner = PID COMM CLASS FROM TO FINDING: a process that mattered, with its own
	 * verdict over its life (the report's processes[].verdict). */
	struct cpw_proc_verdicts owners;
};

struct series {
	char name[64];
	double interval, cores;
	struct recording rec[MAX_RECORDINGS]; /* a file without "recording =" lines has one */
	int nrec;
	int nphases; /* -1: not said */
	char classes[CPW_PHASES_MAX][32]; /* expect.classes: every recording's phases, in order
					   * (each a class, or "a|b": one of them) */
	int nclasses;                     /* -1: not said */
	char verdict[32];                 /* expect.verdict: every recording's run verdict */
	double cut_within;                /* expect.cut_within: each cut this near an event; 0 */
	struct expect_phase phase[CPW_PHASES_MAX];
	int nphase;
	char finding[MAX_EXPECT][160], no_finding[MAX_EXPECT][160];
	char advice[MAX_EXPECT][160], no_advice[MAX_EXPECT][160];
	int nfinding, nno_finding, nadvice, nno_advice;
};

static char fixture_names[MAX_FIXTURES][64];
static int nfixtures;
static int current;

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* "N x DT USER SYS ONCPU RUNQ R D DOTHER S OTHER RSS READ WRITE MAJFLT MINFLT [procs]" */
static int parse_points(struct recording *rec, const char *line)
{
	struct cpw_tl_point p;
	unsigned long n, st[CPW_TL_STATE_COUNT], majflt, minflt;
	double dt, user, sys, oncpu, runq, rss;
	char read[32], write[32];
	int used = 0;

	if (sscanf(line, "%lu x %lf %lf %lf %lf %lf %lu %lu %lu %lu %lu %lf %31s %31s %lu %lu%n", &n,
		   &dt, &user, &sys, &oncpu, &runq, &st[0], &st[1], &st[2], &st[3], &st[4], &rss, read,
		   write, &majflt, &minflt, &used) != 16)
		return -1;
	cpw_timeline_point_init(&p, 0);
	p.dt_s = dt;
	p.samples = 1;
	p.user_s = user;
	p.sys_s = sys;
	p.oncpu_s = oncpu;
	p.runq_s = runq;
	p.states[CPW_TL_RUNNING] = st[0];
	p.states[CPW_TL_DISK_WAIT] = st[1];
	p.states[CPW_TL_D_OTHER] = st[2];
	p.states[CPW_TL_SLEEPING] = st[3];
	p.states[CPW_TL_OTHER] = st[4];
	p.rss_kib_max = rss;
	p.read_bytes = strtod(read, NULL);
	p.write_bytes = strtod(write, NULL);
	p.majflt = majflt;
	p.minflt = minflt;
	const char *rest = line + used;
	for (int k = 0; k < CPW_TIMELINE_TOP; k++) {
		int pid, len = 0;
		char comm[16];
		double cpu, io, wait = 0;
		if (sscanf(rest, " %d:%15[^:]:%lf:%lf%n", &pid, comm, &cpu, &io, &len) != 4)
			break;
		rest += len;
		if (sscanf(rest, ":%lf%n", &wait, &len) == 1) /* optional WAIT_S */
			rest += len;
		p.top[k].pid = pid;
		snprintf(p.top[k].comm, sizeof(p.top[k].comm), "%s", comm);
		p.top[k].cpu_s = cpu;
		p.top[k].io_bytes = io;
		p.top[k].wait_s = wait;
	}
	/* Then, optionally, the pressure stall seconds: p:CPU:IO:MEM */
	{
		double cpu, io, mem;
		int len = 0;
		if (sscanf(rest, " p:%lf:%lf:%lf%n", &cpu, &io, &mem, &len) == 3) {
			rest += len;
			p.psi_cpu_s = cpu;
			p.psi_io_s = io;
			p.psi_mem_s = mem;
		}
	}
	/* Then, optionally, the busy share of the GPU the tree holds: g:BUSY */
	{
		double busy;
		int len = 0;
		if (sscanf(rest, " g:%lf%n", &busy, &len) == 1) {
			rest += len;
			p.gpu_s = dt;
			p.gpu_busy_s = busy * dt;
		}
	}
	/* Then thread-seconds waited per kind: w:KIND:SECONDS ... */
	for (;;) {
		char kind[32];
		double secs;
		int len = 0;
		if (sscanf(rest, " w:%31[^:]:%lf%n", kind, &secs, &len) != 2)
			break;
		rest += len;
		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
			if (strcmp(cpw_wait_kind_name((enum cpw_wait_kind)k), kind) == 0)
				p.wait_s[k] = secs;
	}
	for (unsigned long i = 0; i < n; i++) {
		p.start_s = rec->t;
		cpw_timeline_add(rec->tl, &p);
		rec->t += dt;
	}
	return 0;
}

/* Starts recording number sr->nrec; -1 when there is no room or no memory. */
static int new_recording(struct series *sr, const char *label)
{
	struct recording *rec;

	if (sr->nrec >= MAX_RECORDINGS)
		return -1;
	rec = &sr->rec[sr->nrec++];
	memset(rec, 0, sizeof(*rec));
	snprintf(rec->label, sizeof(rec->label), "%s", label);
	rec->is_python = -1;
	rec->threads = rec->cpu_threads = rec->runnable = rec->lock_share = NAN;
	rec->gpu_held = rec->gpu_busy = rec->gpu_spin = rec->gpu_mem = NAN;
	rec->tl = cpw_timeline_new();
	return rec->tl ? 0 : -1;
}

/* "PID COMM CLASS FROM TO FINDING...": one process verdict. */
static int parse_owner(struct recording *rec, const char *val)
{
	struct cpw_proc_verdict *pv;
	char cls[32];
	int used = 0;

	if (rec->owners.n >= CPW_PROC_VERDICTS_MAX)
		return -1;
	pv = &rec->owners.v[rec->owners.n];
	memset(pv, 0, sizeof(*pv));
	if (sscanf(val, "%d %15s %31s %lf %lf %n", &pv->pid, pv->comm, cls, &pv->from_s, &pv->to_s, &used) != 5 ||
	    cpw_verdict_class_from_name(cls) < 0)
		return -1;
	pv->cls = (enum cpw_class)cpw_verdict_class_from_name(cls);
	pv->secondary = CPW_CLASS_NONE;
	pv->confidence = 0.8;
	snprintf(pv->finding, sizeof(pv->finding), "%s", val + used);
	rec->owners.n++;
	return 0;
}

static int parse_run_fact(struct recording *rec, const char *key, const char *val)
{
	const struct { const char *key; double *to; } figures[] = {
		{ "top_process_threads", &rec->threads },
		{ "top_process_cpu_threads", &rec->cpu_threads },
		{ "top_process_runnable", &rec->runnable },
		{ "top_process_lock_share", &rec->lock_share },
		{ "gpu_devices_held", &rec->gpu_held },
		{ "gpu_busy_share", &rec->gpu_busy },
		{ "gpu_driver_spin_share", &rec->gpu_spin },
		{ "gpu_mem_share", &rec->gpu_mem },
	};

	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		if (strcmp(key, figures[i].key) == 0) {
			*figures[i].to = strtod(val, NULL);
			return 0;
		}
	if (strcmp(key, "top_process_pid") == 0)
		rec->top_pid = atoi(val);
	else if (strcmp(key, "top_process_comm") == 0)
		snprintf(rec->top_comm, sizeof(rec->top_comm), "%s", val);
	else if (strcmp(key, "top_process_is_python") == 0)
		rec->is_python = atoi(val);
	else if (strcmp(key, "owner") == 0)
		return parse_owner(rec, val);
	else
		return -1;
	return 0;
}

/* The run's metrics: the points' sums, and what the report knew of its busiest process. */
static void run_metrics(const struct series *sr, const struct recording *rec, struct cpw_metrics *m)
{
	size_t n = cpw_timeline_count(rec->tl);

	cpw_phases_metrics(cpw_timeline_point(rec->tl, 0), 0, n - 1, sr->cores, m);
	if (!isnan(rec->gpu_held)) {
		m->gpu_devices_held = (int)rec->gpu_held;
		m->gpu_busy_share = rec->gpu_busy;
		m->gpu_driver_spin_share = rec->gpu_spin;
		m->gpu_mem_share = rec->gpu_mem;
		m->gpu_holder_pid = rec->top_pid;
		snprintf(m->gpu_holder_comm, sizeof(m->gpu_holder_comm), "%s", rec->top_comm);
	}
	if (rec->top_pid <= 0)
		return;
	m->top_process_pid = rec->top_pid;
	snprintf(m->top_process_comm, sizeof(m->top_process_comm), "%s", rec->top_comm);
	m->top_process_is_python = rec->is_python;
	m->top_process_threads = rec->threads;
	m->top_process_cpu_threads = rec->cpu_threads;
	m->top_process_runnable = rec->runnable;
	m->top_process_lock_share = rec->lock_share;
}

static void free_series(struct series *sr)
{
	for (int i = 0; i < sr->nrec; i++)
		cpw_timeline_free(sr->rec[i].tl);
}

static int load(const char *name, struct series *sr)
{
	char path[512], line[1024];

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->name, sizeof(sr->name), "%s", name);
	sr->nphases = -1;
	sr->nclasses = -1;
	sr->cores = NAN;
	snprintf(path, sizeof(path), "%s/%s", CPW_SERIES_FIXTURES, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		trim(line);
		char *eq = strstr(line, " = ");
		const char *val = eq ? eq + 3 : "";
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (eq)
			*eq = '\0';
		if (!eq) {
			if (sr->nrec == 0)
				rc = new_recording(sr, "");
			if (rc == 0)
				rc = parse_points(&sr->rec[sr->nrec - 1], line);
		} else if (strcmp(line, "recording") == 0)
			rc = new_recording(sr, val);
		else if (strcmp(line, "event") == 0) {
			struct recording *rec = sr->nrec ? &sr->rec[sr->nrec - 1] : NULL;
			if (rec == NULL)
				rc = -1;
			else if (rec->nevent < MAX_EVENTS)
				rec->event[rec->nevent++] = strtod(val, NULL);
		} else if (strncmp(line, "run.", 4) == 0) {
			if (sr->nrec == 0)
				rc = new_recording(sr, "");
			if (rc == 0)
				rc = parse_run_fact(&sr->rec[sr->nrec - 1], line + 4, val);
		} else if (strcmp(line, "expect.classes") == 0) {
			char copy[512], *save = NULL;
			snprintf(copy, sizeof(copy), "%s", val);
			sr->nclasses = 0;
			for (char *w = strtok_r(copy, " ", &save); w && sr->nclasses < CPW_PHASES_MAX;
			     w = strtok_r(NULL, " ", &save))
				snprintf(sr->classes[sr->nclasses++], 32, "%s", w);
		} else if (strcmp(line, "expect.verdict") == 0)
			snprintf(sr->verdict, sizeof(sr->verdict), "%s", val);
		else if (strcmp(line, "expect.cut_within") == 0)
			sr->cut_within = strtod(val, NULL);
		else if (strcmp(line, "interval") == 0)
			sr->interval = strtod(val, NULL);
		else if (strcmp(line, "cores_usable") == 0)
			sr->cores = strtod(val, NULL);
		else if (strcmp(line, "expect.phases") == 0)
			sr->nphases = atoi(val);
		else if (strcmp(line, "expect.phase") == 0 && sr->nphase < CPW_PHASES_MAX) {
			struct expect_phase *e = &sr->phase[sr->nphase++];
			if (sscanf(val, "%lf %lf %31s %31s %31s", &e->start, &e->end, e->cls, e->comm, e->wait) < 3)
				rc = -1;
		} else if (strcmp(line, "expect.finding") == 0 && sr->nfinding < MAX_EXPECT)
			snprintf(sr->finding[sr->nfinding++], 160, "%s", val);
		else if (strcmp(line, "expect.no_finding") == 0 && sr->nno_finding < MAX_EXPECT)
			snprintf(sr->no_finding[sr->nno_finding++], 160, "%s", val);
		else if (strcmp(line, "expect.advice") == 0 && sr->nadvice < MAX_EXPECT)
			snprintf(sr->advice[sr->nadvice++], 160, "%s", val);
		else if (strcmp(line, "expect.no_advice") == 0 && sr->nno_advice < MAX_EXPECT)
			snprintf(sr->no_advice[sr->nno_advice++], 160, "%s", val);
		else
			rc = -1;
	}
	fclose(f);
	return rc == 0 && sr->nrec > 0 ? 0 : -1;
}

static bool some_finding(const struct cpw_verdict *v, const char *text)
{
	for (int i = 0; i < v->nfindings; i++)
		if (strstr(v->findings[i], text))
			return true;
	return false;
}

static void print_phases(const struct series *sr, const struct recording *rec,
			 const struct cpw_phases *ph, const struct cpw_verdict *v)
{
	fprintf(stderr, "# %s%s%s: %d phase(s), %s\n", sr->name, rec->label[0] ? " " : "", rec->label,
		ph->n, cpw_verdict_class_name(v->cls));
	for (int i = 0; i < ph->n; i++)
		fprintf(stderr, "#   %.2f-%.2f %s %s (%s)\n", ph->phase[i].start_s, ph->phase[i].end_s,
			cpw_verdict_class_name(ph->phase[i].cls), ph->phase[i].procs[0].comm, ph->phase[i].evidence);
	for (int i = 0; i < rec->nevent; i++)
		fprintf(stderr, "#   event at %.2f s\n", rec->event[i]);
	for (int i = 0; i < v->nevidence; i++)
		fprintf(stderr, "#   evidence: %s\n", v->evidence[i].text);
	for (int i = 0; i < v->nfindings; i++)
		fprintf(stderr, "#   finding: %s\n", v->findings[i]);
	fprintf(stderr, "#   advice: %s\n", v->advice);
}

/* Whether name is one of the '|'-separated names in list. */
static bool one_of(const char *name, const char *list)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (strncmp(p, name, len) == 0 && (p[len] == '\0' || p[len] == '|'))
			return true;
	return false;
}

/* Each cut between two phases lies within sr->cut_within of one of the recording's events. */
static bool cuts_near_events(const struct series *sr, const struct recording *rec,
			     const struct cpw_phases *ph)
{
	for (int i = 0; sr->cut_within > 0 && i + 1 < ph->n; i++) {
		bool near = false;
		for (int k = 0; k < rec->nevent; k++)
			near = near || fabs(ph->phase[i].end_s - rec->event[k]) <= sr->cut_within;
		if (!near)
			return false;
	}
	return true;
}

/* One recording of a fixture: its phases and the run's verdict, as the file expects. */
static bool check_recording(const struct series *sr, const struct recording *rec)
{
	struct cpw_phases ph;
	struct cpw_metrics m;
	struct cpw_verdict v;
	size_t n = cpw_timeline_count(rec->tl);
	const struct cpw_tl_point *pts = cpw_timeline_point(rec->tl, 0);

	if (pts == NULL)
		return false;
	cpw_phases_find(pts, n, sr->cores, sr->interval, &ph);
	run_metrics(sr, rec, &m);
	cpw_classify(&m, &v);
	cpw_phases_refine_verdict(&ph, &m, rec->owners.n ? &rec->owners : NULL, &v);
	cpw_gpu_verdict_apply(&m, &v); /* as the session does, then the phases' story again */
	cpw_phases_retell(&ph, &v);
	bool ok = sr->nphases < 0 || ph.n == sr->nphases;
	for (int i = 0; ok && i < sr->nphase && i < ph.n; i++) {
		const struct expect_phase *e = &sr->phase[i];
		const struct cpw_phase *p = &ph.phase[i];
		ok = fabs(p->start_s - e->start) <= 0.05 && fabs(p->end_s - e->end) <= 0.05 &&
			strcmp(cpw_verdict_class_name(p->cls), e->cls) == 0 &&
			(!e->comm[0] || strcmp(e->comm, "-") == 0 || strcmp(p->procs[0].comm, e->comm) == 0) &&
			p->evidence[0] &&
			(!e->wait[0] || (strcmp(p->wait_kind, e->wait) == 0 && strstr(p->evidence, e->wait)));
	}
	if (sr->nclasses >= 0) {
		ok = ok && ph.n == sr->nclasses;
		for (int i = 0; ok && i < ph.n; i++)
			ok = one_of(cpw_verdict_class_name(ph.phase[i].cls), sr->classes[i]);
	}
	ok = ok && (!sr->verdict[0] || one_of(cpw_verdict_class_name(v.cls), sr->verdict));
	/* A phase that is one process's work (it lived through nine tenths of the phase, the
	 * phase holds nine tenths of its life) says what that process's own verdict says. */
	for (int i = 0; ok && i < ph.n; i++)
		for (size_t k = 0; k < rec->owners.n; k++) {
			const struct cpw_proc_verdict *o = &rec->owners.v[k];
			double in = fmin(ph.phase[i].end_s, o->to_s) - fmax(ph.phase[i].start_s, o->from_s);

			if (in >= 0.9 * (ph.phase[i].end_s - ph.phase[i].start_s) && in >= 0.9 * (o->to_s - o->from_s) &&
			    ph.phase[i].cls != o->cls) {
				fprintf(stderr, "# %s: phase %d is %s, its process %s %s\n", rec->label, i + 1,
					cpw_verdict_class_name(ph.phase[i].cls), o->comm, cpw_verdict_class_name(o->cls));
				ok = false;
			}
		}
	ok = ok && cuts_near_events(sr, rec, &ph);
	/* A phase as long as the run is the run: the two verdicts are one. */
	ok = ok && (ph.n != 1 || ph.phase[0].cls == v.cls);
	/* Threads the run found taking turns on a lock wait for the lock, not for a CPU: the
	 * phases of that process are not cpu-starved while the run is not. */
	for (int i = 0; ok && some_finding(&v, "take turns on a lock") && v.cls != CPW_CLASS_CPU_STARVED &&
			i < ph.n; i++)
		ok = ph.phase[i].procs[0].pid != m.top_process_pid || ph.phase[i].cls != CPW_CLASS_CPU_STARVED;
	for (int i = 0; i < sr->nfinding; i++)
		ok = ok && some_finding(&v, sr->finding[i]);
	for (int i = 0; i < sr->nno_finding; i++)
		ok = ok && !some_finding(&v, sr->no_finding[i]);
	for (int i = 0; i < sr->nadvice; i++)
		ok = ok && strstr(v.advice, sr->advice[i]) != NULL;
	for (int i = 0; i < sr->nno_advice; i++)
		ok = ok && strstr(v.advice, sr->no_advice[i]) == NULL;
	if (!ok)
		print_phases(sr, rec, &ph, &v);
	return ok;
}

/* Every recording of the fixture gets the same phases and the same verdict, the ones it
 * expects. */
static void test_fixture(void)
{
	struct series sr;
	const char *name = fixture_names[current++];
	int bad = 0;

	CU_ASSERT_EQUAL_FATAL(load(name, &sr), 0);
	for (int i = 0; i < sr.nrec; i++)
		bad += !check_recording(&sr, &sr.rec[i]);
	if (bad)
		fprintf(stderr, "# %s: %d of %d recordings differ from what it expects\n", name, bad, sr.nrec);
	CU_ASSERT_EQUAL(bad, 0);
	free_series(&sr);
}

/* The minimum phase length: phase_min_s, or min_samples intervals where that is longer. */
static void test_min_length(void)
{
	struct cpw_phases ph;
	struct cpw_tl_point p;
	cpw_timeline_point_init(&p, 0);
	cpw_phases_find(&p, 0, NAN, 0.1, &ph);
	CU_ASSERT_EQUAL(ph.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(ph.min_len_s, cpw_threshold(CPW_T_PHASE_MIN_S), 1e-9);
	cpw_phases_find(&p, 0, NAN, 1.0, &ph);
	CU_ASSERT_DOUBLE_EQUAL(ph.min_len_s, cpw_threshold(CPW_T_MIN_SAMPLES) * 1.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(cpw_threshold_find("phase_min_s"));
}

/* A one-phase run leaves the verdict as it was. */
/* A memory-bound phase quotes the line that made it memory-bound, not the CPU share
 * before it ("memory-bound ... on-CPU time is 59% (cpu-bound at >= 50%)" read as a
 * contradiction, for a cat of many files whose kernel time went to page faults). */
static void test_memory_phase_evidence(void)
{
	struct cpw_phases ph;
	struct cpw_verdict v;
	memset(&ph, 0, sizeof(ph));
	memset(&v, 0, sizeof(v));
	ph.n = 1;
	ph.phase[0].cls = CPW_CLASS_CPU_BOUND;
	v.cls = CPW_CLASS_MEMORY_BOUND;
	v.confidence = 0.64;
	snprintf(v.evidence[0].metric, sizeof(v.evidence[0].metric), "cpu_share");
	snprintf(v.evidence[0].text, sizeof(v.evidence[0].text), "on-CPU time is 59%% of the busy lifetime (cpu-bound at >= 50%%)");
	snprintf(v.evidence[1].metric, sizeof(v.evidence[1].metric), "minflt_per_cpu_s");
	snprintf(v.evidence[1].text, sizeof(v.evidence[1].text), "61000 minor page faults per CPU-second (memory-bound at >= 50000)");
	v.nevidence = 2;
	cpw_phases_retell(&ph, &v);
	CU_ASSERT_EQUAL(ph.phase[0].cls, CPW_CLASS_MEMORY_BOUND);
	CU_ASSERT_STRING_EQUAL(ph.phase[0].evidence, "61000 minor page faults per CPU-second (memory-bound at >= 50000)");
	/* Set aside (it did not decide): the first line stands. */
	ph.phase[0].cls = CPW_CLASS_CPU_BOUND;
	v.evidence[1].aside = true;
	cpw_phases_retell(&ph, &v);
	CU_ASSERT_STRING_EQUAL(ph.phase[0].evidence, "on-CPU time is 59% of the busy lifetime (cpu-bound at >= 50%)");
}

static void test_one_phase_keeps_verdict(void)
{
	struct cpw_phases ph = { .n = 1 };
	struct cpw_metrics m;
	struct cpw_verdict v, before;
	cpw_metrics_init(&m);
	memset(&v, 0, sizeof(v));
	v.cls = CPW_CLASS_CPU_BOUND;
	v.nfindings = 1;
	snprintf(v.findings[0], sizeof(v.findings[0]), "uses 1.0 of 2 usable cores");
	before = v;
	cpw_phases_refine_verdict(&ph, &m, NULL, &v);
	CU_ASSERT_EQUAL(memcmp(&v, &before, sizeof(v)), 0);
}

/* io_then_cpu with process verdicts: a process whose life spans both phases (one that
 * read, then computed) leaves each phase its own class; the process that is all of a
 * phase's work gives it its verdict and finding. */
static void test_owner(void)
{
	struct series sr;
	struct recording *rec = &sr.rec[0];
	struct cpw_proc_verdict *o;
	struct cpw_phases ph;
	struct cpw_metrics m;
	struct cpw_verdict v;

	CU_ASSERT_EQUAL_FATAL(load("io_then_cpu.series", &sr), 0);
	CU_ASSERT_FATAL(sr.nrec == 1 && cpw_timeline_count(rec->tl) > 0);
	o = &rec->owners.v[rec->owners.n++];
	*o = (struct cpw_proc_verdict){ .pid = 100, .cls = CPW_CLASS_CPU_BOUND, .from_s = 0, .to_s = 4.0 };
	snprintf(o->comm, sizeof(o->comm), "python3");
	CU_ASSERT_TRUE(check_recording(&sr, rec)); /* io-bound, then cpu-bound, as the file says */

	rec->owners.n = 0;
	o = &rec->owners.v[rec->owners.n++];
	*o = (struct cpw_proc_verdict){ .pid = 4242, .cls = CPW_CLASS_MIXED, .from_s = 0.05, .to_s = 1.25,
		.confidence = 0.45, .secondary = CPW_CLASS_CPU_BOUND };
	snprintf(o->comm, sizeof(o->comm), "dd");
	snprintf(o->finding, sizeof(o->finding), "no single resource dominates: 50%% of its time on a CPU");
	cpw_phases_find(cpw_timeline_point(rec->tl, 0), cpw_timeline_count(rec->tl), sr.cores, sr.interval, &ph);
	run_metrics(&sr, rec, &m);
	cpw_classify(&m, &v);
	cpw_phases_refine_verdict(&ph, &m, &rec->owners, &v);
	CU_ASSERT_EQUAL_FATAL(ph.n, 2);
	CU_ASSERT_EQUAL(ph.phase[0].cls, CPW_CLASS_MIXED);
	CU_ASSERT_DOUBLE_EQUAL(ph.phase[0].confidence, 0.45, 1e-9);
	CU_ASSERT_STRING_EQUAL(ph.phase[0].evidence, o->finding);
	CU_ASSERT_EQUAL(ph.phase[1].cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.findings[0], "0.0-1.3 s mixed"));
	free_series(&sr);
}

static void test_fixtures_found(void)
{
	CU_ASSERT_TRUE(nfixtures >= 6);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

int main(void)
{
	DIR *d = opendir(CPW_SERIES_FIXTURES);
	struct dirent *e;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	while (d && (e = readdir(d)) && nfixtures < MAX_FIXTURES) {
		size_t len = strlen(e->d_name);
		if (len > 7 && len < 64 && strcmp(e->d_name + len - 7, ".series") == 0)
			snprintf(fixture_names[nfixtures++], 64, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	qsort(fixture_names, (size_t)nfixtures, sizeof(fixture_names[0]), by_name);
	CU_pSuite s = CU_add_suite("phases", NULL, NULL);
	CU_add_test(s, "the series fixtures are found", test_fixtures_found);
	CU_add_test(s, "minimum phase length", test_min_length);
	CU_add_test(s, "one phase leaves the verdict alone", test_one_phase_keeps_verdict);
	CU_add_test(s, "a memory-bound phase quotes what made it memory-bound", test_memory_phase_evidence);
	CU_add_test(s, "a phase that is one process's work takes its verdict", test_owner);
	for (int i = 0; i < nfixtures; i++)
		CU_add_test(s, fixture_names[i], test_fixture);
	return cpw_cunit_run_tap();
}
