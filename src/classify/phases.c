/*
 * phases.c: the run cut into phases, each with its own verdict (classify/phases.h).
 *
 * Pure: no I/O, no allocation. Three steps (doc/classification.md, "Phases"):
 *  1. each point gets the lane that took most of its thread lifetime: cpu (on-CPU plus
 *     run-queue seconds, exact from schedstat and /proc CPU times), disk or wait (the rest
 *     of the lifetime, split by the off-CPU thread samples: D on storage against S, other D
 *     and the rest);
 *  2. runs of one lane shorter than the minimum phase length (the larger of phase_min_s
 *     and min_samples samples) are absorbed, shortest first, by their longer neighbour, so
 *     that noise does not split a phase;
 *  3. each run is classified by cpw_classify() on its own figures; neighbours with the
 *     same verdict join (and are classified again together);
 *  4. cuts move to where a process started or ended (cut_at_events), a phase is split at
 *     such an event where its sides differ, and a cut at no event beside a mixed phase
 *     goes.
 * Then cpw_phases_refine_verdict() makes the phases and the run's verdict agree.
 */
#include "classify/phases.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "classify/classify.h"
#include "classify/process_verdict.h"
#include "classify/thresholds.h"
#include "model/waits.h"
#include "util/arith.h"

#define RUNS_MAX CPW_TIMELINE_CAPACITY

struct run {
	size_t first, last;
	enum cpw_phase_lane lane;
	double dur_s;
	uint64_t samples;
};

enum cpw_phase_lane cpw_phases_lane_of(const struct cpw_tl_point *p)
{
	uint64_t ts = cpw_timeline_point_thread_samples(p);
	if (ts == 0 || p->samples == 0 || !(p->dt_s > 0))
		return CPW_LANE_NONE;
	if (p->gpu_s >= p->dt_s / 2 && p->gpu_busy_s >= cpw_threshold(CPW_T_GPU_BUSY) * p->gpu_s)
		return CPW_LANE_GPU;
	/* As the classifier does: shares of the busy lifetime, max(wall, busy thread-seconds),
	 * so that a parent asleep while its child works does not count against the child. */
	double lifetime = (double)ts / (double)p->samples * p->dt_s;
	double oncpu = p->user_s + p->sys_s > p->oncpu_s ? p->user_s + p->sys_s : p->oncpu_s;
	double cpu = oncpu + p->runq_s;
	if (cpu > lifetime)
		cpu = lifetime;
	double off = lifetime - cpu;
	uint64_t off_samples = ts - p->states[CPW_TL_RUNNING];
	double disk = off_samples ? off * (double)p->states[CPW_TL_DISK_WAIT] / (double)off_samples : 0;
	double dother = off_samples ? off * (double)p->states[CPW_TL_D_OTHER] / (double)off_samples : 0;
	double busy = cpu + disk + dother;
	double ref = busy > p->dt_s ? busy : p->dt_s;
	double wait = ref - cpu - disk;
	if (cpu >= disk && cpu >= wait)
		return CPW_LANE_CPU;
	return disk >= wait ? CPW_LANE_DISK : CPW_LANE_WAIT;
}

/* The lane of point i judged on the points around it (half the minimum phase length on
 * each side): one or two samples say little about a split of states, a window does; a
 * clean change of lane still moves at the change. */
static enum cpw_phase_lane smoothed_lane(const struct cpw_tl_point *points, size_t n, size_t i,
					 double half_s)
{
	struct cpw_tl_point w;
	size_t a = i, b = i;
	while (a > 0 && points[i].start_s - points[a - 1].start_s <= half_s)
		a--;
	while (b + 1 < n && points[b + 1].start_s - points[i].start_s <= half_s)
		b++;
	cpw_timeline_point_init(&w, points[a].start_s);
	for (size_t k = a; k <= b; k++)
		cpw_timeline_point_merge(&w, &points[k]);
	return cpw_phases_lane_of(&w);
}

void cpw_phases_metrics(const struct cpw_tl_point *points, size_t first, size_t last,
			double cores_usable, struct cpw_metrics *m)
{
	struct cpw_tl_point w;

	cpw_timeline_point_init(&w, points[first].start_s);
	for (size_t i = first; i <= last; i++)
		cpw_timeline_point_merge(&w, &points[i]);
	cpw_metrics_init(m);
	m->wall_s = w.dt_s;
	m->user_s = w.user_s;
	m->sys_s = w.sys_s;
	m->cores_usable = cores_usable;
	if (w.dt_s > 0)
		m->cores_used = (w.user_s + w.sys_s) / w.dt_s;
	m->samples = w.samples;
	m->thread_samples = cpw_timeline_point_thread_samples(&w);
	m->st_running = w.states[CPW_TL_RUNNING];
	m->st_disk_wait = w.states[CPW_TL_DISK_WAIT];
	m->st_d_other = w.states[CPW_TL_D_OTHER];
	m->st_sleeping = w.states[CPW_TL_SLEEPING];
	m->st_other = w.states[CPW_TL_OTHER];
	if (w.samples)
		m->avg_runnable_threads = (double)w.states[CPW_TL_RUNNING] / (double)w.samples;
	/* schedstat sums of 0 mean it was not read (a point always has some on-CPU time). */
	if (w.oncpu_s + w.runq_s > 0) {
		m->oncpu_s = w.oncpu_s;
		m->runq_wait_s = w.runq_s;
	}
	m->major_faults = w.majflt;
	m->minor_faults = w.minflt;
	m->tree_peak_rss_kib = w.rss_kib_max;
	m->read_bytes = w.read_bytes;
	m->write_bytes = w.write_bytes;
	/* What its threads waited on: the wait analysis's kinds, summed over the points. */
	double waited = 0;
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		waited += w.wait_s[k];
	m->wait_child_s = w.wait_s[CPW_WAIT_CHILD];
	if (waited > 0) {
		int k = cpw_waits_seconds_dominant(w.wait_s, &m->wait_kind_share);
		m->wait_child_share = w.wait_s[CPW_WAIT_CHILD] / waited;
		if (k >= 0)
			snprintf(m->wait_kind, sizeof(m->wait_kind), "%s", cpw_wait_kind_name((enum cpw_wait_kind)k));
	}
	m->psi_cpu_some_s = w.psi_cpu_s;
	m->psi_io_some_s = w.psi_io_s;
	m->psi_mem_some_s = w.psi_mem_s;
	m->psi_from_cgroup = w.psi_from_cgroup;
	if (w.gpu_s > 0)
		m->gpu_busy_share = w.gpu_busy_s / w.gpu_s;
	double cpu_total = w.user_s + w.sys_s;
	for (int i = 0; i < CPW_TIMELINE_TOP && w.top[i].pid; i++)
		m->nprocs++;
	if (w.top[0].pid && cpu_total > 0) {
		/* The most CPU among the named processes (the first may be named for its IO). */
		const struct cpw_tl_proc *top = &w.top[0];
		for (int i = 1; i < CPW_TIMELINE_TOP && w.top[i].pid; i++)
			if (w.top[i].cpu_s > top->cpu_s)
				top = &w.top[i];
		m->top_process_cpu_share = top->cpu_s / cpu_total;
		m->top_process_pid = top->pid;
		snprintf(m->top_process_comm, sizeof(m->top_process_comm), "%s", top->comm);
	}
}

/* The minimum phase length: phase_min_s, or min_samples sampling intervals if longer. */
static double min_length(double interval_s)
{
	double by_samples = cpw_threshold(CPW_T_MIN_SAMPLES) * (interval_s > 0 ? interval_s : 0);
	return by_samples > cpw_threshold(CPW_T_PHASE_MIN_S) ? by_samples : cpw_threshold(CPW_T_PHASE_MIN_S);
}

static bool too_short(const struct run *r, double min_len)
{
	/* A hair under the length still counts: points start and end at sample times. */
	return r->dur_s < min_len * 0.999 || (double)r->samples < cpw_threshold(CPW_T_MIN_SAMPLES);
}

/* Joins run i+1 into run i; the lane is the longer part's. */
static void join_next(struct run *runs, size_t *nruns, size_t i)
{
	if (runs[i + 1].dur_s > runs[i].dur_s)
		runs[i].lane = runs[i + 1].lane;
	runs[i].last = runs[i + 1].last;
	runs[i].dur_s += runs[i + 1].dur_s;
	runs[i].samples += runs[i + 1].samples;
	memmove(&runs[i + 1], &runs[i + 2], (*nruns - i - 2) * sizeof(runs[0]));
	(*nruns)--;
}

static void coalesce_same_lane(struct run *runs, size_t *nruns)
{
	for (size_t i = 0; i + 1 < *nruns;) {
		if (runs[i].lane == runs[i + 1].lane)
			join_next(runs, nruns, i);
		else
			i++;
	}
}

/* Absorbs the shortest run that is too short (or, past max runs, the shortest of all)
 * into its longer neighbour, until none is left. */
static void absorb_short(struct run *runs, size_t *nruns, double min_len, size_t max)
{
	while (*nruns > 1) {
		size_t pick = *nruns;
		for (size_t i = 0; i < *nruns; i++)
			if ((too_short(&runs[i], min_len) || *nruns > max) &&
			    (pick == *nruns || runs[i].dur_s < runs[pick].dur_s))
				pick = i;
		if (pick == *nruns)
			return;
		/* Into the longer neighbour, taking its lane. */
		bool into_prev = pick > 0 &&
			(pick + 1 == *nruns || runs[pick - 1].dur_s >= runs[pick + 1].dur_s);
		size_t at = into_prev ? pick - 1 : pick;
		enum cpw_phase_lane lane = runs[into_prev ? pick - 1 : pick + 1].lane;
		join_next(runs, nruns, at);
		runs[at].lane = lane;
		coalesce_same_lane(runs, nruns);
	}
}

/* Whether a comes after b in a phase of class cls. */
static bool ranks_below(const struct cpw_tl_proc *a, const struct cpw_tl_proc *b, enum cpw_class cls)
{
	if (cls == CPW_CLASS_IO_BOUND)
		return a->io_bytes < b->io_bytes;
	if (cls == CPW_CLASS_WAITING && a->wait_s != b->wait_s)
		return a->wait_s < b->wait_s;
	return a->cpu_s < b->cpu_s;
}

/* The main process is what the phase's verdict is about: the most storage bytes in an
 * io-bound phase, the longest wait in a waiting one, the most CPU otherwise (the points
 * keep all three). */
static void order_procs(struct cpw_tl_proc procs[CPW_TIMELINE_TOP], enum cpw_class cls)
{
	for (int i = 1; i < CPW_TIMELINE_TOP && procs[i].pid; i++) {
		struct cpw_tl_proc x = procs[i];
		int j = i;
		while (j > 0 && ranks_below(&procs[j - 1], &x, cls)) {
			procs[j] = procs[j - 1];
			j--;
		}
		procs[j] = x;
	}
}

/* The window that steadies the lanes also blurs a boundary when the two sides differ in
 * size (one thread reading, then two computing): move each boundary, within the window,
 * to where the points' own lanes change from one side's to the other's. */
static void sharpen_boundaries(const struct cpw_tl_point *points, struct run *runs, size_t nruns,
			       double half_s)
{
	for (size_t r = 0; r + 1 < nruns; r++) {
		struct run *a = &runs[r], *b = &runs[r + 1];
		size_t k = b->first; /* the first point of b */
		double at = points[k].start_s;
		while (k > a->first + 1 && at - points[k - 1].start_s <= half_s &&
		       cpw_phases_lane_of(&points[k - 1]) == b->lane)
			k--;
		while (k < b->last && points[k].start_s - at <= half_s &&
		       cpw_phases_lane_of(&points[k]) == a->lane)
			k++;
		for (size_t i = b->first; i < k; i++) { /* b's first points go to a */
			a->dur_s += points[i].dt_s;
			b->dur_s -= points[i].dt_s;
		}
		for (size_t i = k; i < b->first; i++) { /* a's last points go to b */
			a->dur_s -= points[i].dt_s;
			b->dur_s += points[i].dt_s;
		}
		a->last = k - 1;
		b->first = k;
	}
}

/* What the run knows of its busiest process and a window cannot show: how many of its
 * threads computed and were runnable, how much they waited on a lock, whether it is
 * Python; and the CPUs the command narrowed itself to. Taken by a phase whose busiest
 * process is the run's. */
static void take_run_facts(struct cpw_metrics *pm, const struct cpw_metrics *run)
{
	if (run == NULL)
		return;
	if (cpw_known(run->cores_usable_sampled)) {
		pm->cores_usable_sampled = run->cores_usable_sampled;
		snprintf(pm->cpus_allowed_sampled, sizeof(pm->cpus_allowed_sampled), "%s",
			 run->cpus_allowed_sampled);
	}
	/* The GPU's holder and how the host waits on it are the run's (hotspots, waits). */
	pm->gpu_devices_held = run->gpu_devices_held;
	pm->gpu_wait_share = run->gpu_wait_share;
	pm->gpu_driver_spin_share = run->gpu_driver_spin_share;
	if (run->top_process_pid <= 0 || pm->top_process_pid != run->top_process_pid)
		return;
	pm->top_process_is_python = run->top_process_is_python;
	pm->top_process_threads = run->top_process_threads;
	pm->top_process_cpu_threads = run->top_process_cpu_threads;
	pm->top_process_runnable = run->top_process_runnable;
	pm->top_process_lock_share = run->top_process_lock_share;
}

/* A phase whose GPU is busy at least gpu_busy is gpu-bound, as the run would be (gpu_verdict.c):
 * saturated, or the run's host waits on the device or spins in its driver. Before the run
 * is known (run NULL) the busy share alone decides, so that the GPU's work is a phase of
 * its own; judged again with the run's facts, a phase that fails the rule joins its
 * neighbours. The host's class stays as the secondary. */
static void gpu_phase(const struct cpw_metrics *m, const struct cpw_metrics *run, struct cpw_verdict *v)
{
	double busy = m->gpu_busy_share;

	if (!cpw_known(busy) || busy < cpw_threshold(CPW_T_GPU_BUSY))
		return;
	if (run && !(busy >= cpw_threshold(CPW_T_GPU_SATURATED) ||
		     m->gpu_wait_share >= cpw_threshold(CPW_T_GPU_WAIT_SHARE) ||
		     m->gpu_driver_spin_share >= cpw_threshold(CPW_T_GPU_SPIN_SHARE)))
		return;
	v->secondary = v->cls == CPW_CLASS_UNKNOWN || v->cls == CPW_CLASS_MIXED ? CPW_CLASS_NONE : v->cls;
	v->cls = CPW_CLASS_GPU_BOUND;
	v->confidence = busy >= cpw_threshold(CPW_T_GPU_SATURATED) ? 0.9 : 0.7;
	memset(&v->evidence[0], 0, sizeof(v->evidence[0]));
	snprintf(v->evidence[0].text, sizeof(v->evidence[0].text),
		 "the GPU the tree holds is busy %.0f%% of the phase (>= %.0f%%)", 100 * busy,
		 100 * cpw_threshold(CPW_T_GPU_BUSY));
	v->nevidence = 1;
}

/* The evidence line that decided v's class. The classifier's first line is the CPU's share;
 * a memory-bound class is that CPU time's refinement, decided by the line of the counters or
 * the page faults after it: a phase "memory-bound" over "on-CPU time is 59% (cpu-bound at
 * >= 50%)" read as a contradiction. */
static const char *deciding_evidence(const struct cpw_verdict *v)
{
	static const char *const memory[] = { "topdown_memory_bound", "ipc", "minflt_per_cpu_s" };

	if (v->nevidence == 0)
		return "";
	if (v->cls == CPW_CLASS_MEMORY_BOUND)
		for (int i = 0; i < v->nevidence; i++)
			for (size_t k = 0; k < sizeof memory / sizeof memory[0]; k++)
				if (!v->evidence[i].aside && strcmp(v->evidence[i].metric, memory[k]) == 0)
					return v->evidence[i].text;
	return v->evidence[0].text;
}

/* run: the run's metrics, whose facts the phase takes (take_run_facts); NULL: none. */
static void classify_phase(const struct cpw_tl_point *points, double cores_usable,
			   const struct cpw_metrics *run, struct cpw_phase *ph)
{
	struct cpw_metrics m;
	struct cpw_verdict v;
	struct cpw_tl_point w;

	cpw_phases_metrics(points, ph->first, ph->last, cores_usable, &m);
	take_run_facts(&m, run);
	cpw_classify(&m, &v);
	gpu_phase(&m, run, &v);
	ph->start_s = points[ph->first].start_s;
	ph->end_s = points[ph->last].start_s + points[ph->last].dt_s;
	ph->cls = v.cls;
	ph->confidence = v.confidence;
	ph->secondary = v.secondary;
	snprintf(ph->evidence, sizeof(ph->evidence), "%s", deciding_evidence(&v));
	snprintf(ph->wait_kind, sizeof(ph->wait_kind), "%s", m.wait_kind);
	/* A waiting phase says on what: "wait for a server" is not "wait for a timer". */
	if (ph->cls == CPW_CLASS_WAITING && m.wait_kind[0] && cpw_known(m.wait_kind_share)) {
		size_t len = strlen(ph->evidence);
		snprintf(ph->evidence + len, sizeof(ph->evidence) - len, "; waits: %.0f%% %s",
			 100.0 * m.wait_kind_share, m.wait_kind);
	}
	ph->cores_used = m.cores_used;
	cpw_timeline_point_init(&w, ph->start_s);
	for (size_t i = ph->first; i <= ph->last; i++)
		cpw_timeline_point_merge(&w, &points[i]);
	memcpy(ph->procs, w.top, sizeof(ph->procs));
	order_procs(ph->procs, ph->cls);
}

/* A phase whose work is one process's takes that process's verdict (owners: the processes
 * that matter, judged; NULL: none): the process lived through at least owner_share of the
 * phase, the phase holds at least owner_share of its life, and no other process that
 * matters was there more than the rest of it. Its window, classified at the tree's level,
 * lands on either side of a threshold where the process's own exact life does not: dd's
 * O_DIRECT reads at 47% on a CPU were an io-bound process in a "mixed" phase in one quiet
 * run of five. A GPU-bound phase keeps its class: the device is its story. */
#define OWNER_SHARE 0.75

static void take_owner(const struct cpw_proc_verdicts *owners, struct cpw_phase *ph)
{
	const struct cpw_proc_verdict *best = NULL;
	double len = ph->end_s - ph->start_s, best_in = 0, others_in = 0;

	if (owners == NULL || !(len > 0) || ph->cls == CPW_CLASS_GPU_BOUND)
		return;
	for (size_t i = 0; i < owners->n; i++) {
		const struct cpw_proc_verdict *pv = &owners->v[i];
		double in = cpw_min(ph->end_s, pv->to_s) - cpw_max(ph->start_s, pv->from_s);

		if (!(in > 0))
			continue;
		if (in > best_in) {
			others_in = cpw_max(others_in, best_in);
			best = pv;
			best_in = in;
		} else {
			others_in = cpw_max(others_in, in);
		}
	}
	if (best == NULL || best->cls == CPW_CLASS_UNKNOWN || best_in < OWNER_SHARE * len ||
	    best_in < OWNER_SHARE * (best->to_s - best->from_s) || others_in > (1 - OWNER_SHARE) * len)
		return;
	ph->cls = best->cls;
	ph->secondary = best->secondary;
	ph->confidence = best->confidence;
	snprintf(ph->evidence, sizeof(ph->evidence), "%s", best->finding);
	/* It heads the phase's processes, as it did the work. */
	for (size_t k = 1; k < CPW_TIMELINE_TOP && ph->procs[k].pid; k++)
		if (ph->procs[k].pid == best->pid) {
			struct cpw_tl_proc owner = ph->procs[k];

			memmove(&ph->procs[1], &ph->procs[0], k * sizeof(ph->procs[0]));
			ph->procs[0] = owner;
			break;
		}
}

/* ---- cuts where processes start and end ---- */

#define EVENTS_TRIED 16 /* candidate events tried per boundary or phase, nearest first */

static bool names(const struct cpw_tl_point *p, int pid)
{
	for (int i = 0; i < CPW_TIMELINE_TOP && p->top[i].pid; i++)
		if (p->top[i].pid == pid)
			return true;
	return false;
}

/* Whether pid is named in every point of [a, b] (want true) or in none (want false). */
static bool named_throughout(const struct cpw_tl_point *points, size_t a, size_t b, int pid, bool want)
{
	for (size_t i = a; i <= b; i++)
		if (names(&points[i], pid) != want)
			return false;
	return true;
}

/* A process event at the start of point k: a process the points named steadily over the
 * window before k (each of its points) is named in none of the window from k (it ended,
 * or went quiet), or the other way (it started). The window is `span` points each side. */
static bool event_at(const struct cpw_tl_point *points, size_t n, size_t k, size_t span)
{
	if (k < span || k + span > n)
		return false;
	for (int i = 0; i < CPW_TIMELINE_TOP; i++) {
		int before = points[k - 1].top[i].pid, after = points[k].top[i].pid;
		if (before && named_throughout(points, k - span, k - 1, before, true) &&
		    named_throughout(points, k, k + span - 1, before, false))
			return true;
		if (after && named_throughout(points, k, k + span - 1, after, true) &&
		    named_throughout(points, k - span, k - 1, after, false))
			return true;
	}
	return false;
}

/* The class cpw_classify() gives points a..b. */
static enum cpw_class class_of(const struct cpw_tl_point *points, size_t a, size_t b, double cores)
{
	struct cpw_metrics m;
	struct cpw_verdict v;

	cpw_phases_metrics(points, a, b, cores, &m);
	cpw_classify(&m, &v);
	return v.cls;
}

/* Whether points a..b are long enough to be a phase of their own. */
static bool long_enough(const struct cpw_tl_point *points, size_t a, size_t b, double min_len)
{
	double dur = points[b].start_s + points[b].dt_s - points[a].start_s;
	uint64_t samples = 0;

	for (size_t i = a; i <= b; i++)
		samples += points[i].samples;
	return dur >= min_len * 0.999 && (double)samples >= cpw_threshold(CPW_T_MIN_SAMPLES);
}

/* The events inside (first, last], nearest to point `near` first; at most EVENTS_TRIED. */
static size_t events_near(const bool *event, size_t first, size_t last, size_t near, size_t *out)
{
	size_t m = 0;

	for (size_t d = 0; m < EVENTS_TRIED && (near >= d + first + 1 || near + d <= last); d++) {
		if (near >= first + 1 + d && near - d <= last && event[near - d])
			out[m++] = near - d;
		if (d > 0 && m < EVENTS_TRIED && near + d <= last && near + d > first && event[near + d])
			out[m++] = near + d;
	}
	return m;
}

/* Moves each boundary between two phases to the nearest process event inside them at
 * which both sides keep their verdicts (a cut where the busiest lane flipped lies a few
 * samples off where the work changed hands); then splits a phase at an event where the
 * two sides get different verdicts and each is long enough (a process's work swallowed by
 * its neighbour's). Each moved or new cut is a process event. */
static void cut_at_events(const struct cpw_tl_point *points, const bool *event, double cores,
			  double min_len, struct cpw_phases *out)
{
	size_t cand[EVENTS_TRIED];

	for (int i = 0; i + 1 < out->n; i++) {
		struct cpw_phase *a = &out->phase[i], *b = &out->phase[i + 1];
		if (event[b->first])
			continue;
		size_t m = events_near(event, a->first, b->last, b->first, cand);
		for (size_t j = 0; j < m; j++) {
			size_t k = cand[j];
			if (!long_enough(points, a->first, k - 1, min_len) || !long_enough(points, k, b->last, min_len) ||
			    class_of(points, a->first, k - 1, cores) != a->cls ||
			    class_of(points, k, b->last, cores) != b->cls)
				continue;
			a->last = k - 1;
			b->first = k;
			classify_phase(points, cores, NULL, a);
			classify_phase(points, cores, NULL, b);
			break;
		}
	}
	for (int i = 0; i < out->n && out->n < CPW_PHASES_MAX; i++) {
		struct cpw_phase *p = &out->phase[i];
		size_t m = events_near(event, p->first, p->last, (p->first + p->last + 1) / 2, cand);
		for (size_t j = 0; j < m; j++) {
			size_t k = cand[j];
			if (!long_enough(points, p->first, k - 1, min_len) || !long_enough(points, k, p->last, min_len) ||
			    class_of(points, p->first, k - 1, cores) == class_of(points, k, p->last, cores))
				continue;
			memmove(&out->phase[i + 2], &out->phase[i + 1], (size_t)(out->n - i - 1) * sizeof(out->phase[0]));
			out->n++;
			out->phase[i + 1] = *p;
			out->phase[i + 1].first = k;
			p->last = k - 1;
			classify_phase(points, cores, NULL, p);
			classify_phase(points, cores, NULL, &out->phase[i + 1]);
			i--; /* the left part may hold another event */
			break;
		}
	}
}

/* Phase i and the next become one, classified again (with the run's facts where run is
 * not NULL). */
static void join_with_next(const struct cpw_tl_point *points, double cores, const struct cpw_metrics *run,
			   const struct cpw_proc_verdicts *owners, struct cpw_phases *out, int i)
{
	out->phase[i].last = out->phase[i + 1].last;
	memmove(&out->phase[i + 1], &out->phase[i + 2], (size_t)(out->n - i - 2) * sizeof(out->phase[0]));
	out->n--;
	classify_phase(points, cores, run, &out->phase[i]);
	take_owner(owners, &out->phase[i]);
}

/* A phase too short to judge on its own (where the lanes' window put a cut a few samples
 * from another) joins its longer neighbour. */
static void absorb_short_phases(const struct cpw_tl_point *points, double cores, double min_len,
				struct cpw_phases *out)
{
	for (int i = 0; i < out->n && out->n > 1;) {
		struct cpw_phase *p = &out->phase[i];
		if (long_enough(points, p->first, p->last, min_len)) {
			i++;
			continue;
		}
		bool into_prev = i > 0 && (i + 1 == out->n ||
			out->phase[i - 1].last - out->phase[i - 1].first >= out->phase[i + 1].last - out->phase[i + 1].first);
		join_with_next(points, cores, NULL, NULL, out, into_prev ? i - 1 : i);
		i = 0;
	}
}

/* A cut where no process started or ended, beside a phase the classifier calls mixed (its
 * figures near a threshold), is the lanes' noise, not a change of work: the two sides are
 * one phase. */
static void join_near_threshold(const struct cpw_tl_point *points, const bool *event, double cores,
				struct cpw_phases *out)
{
	for (int i = 0; i + 1 < out->n;) {
		if (event[out->phase[i + 1].first] ||
		    (out->phase[i].cls != CPW_CLASS_MIXED && out->phase[i + 1].cls != CPW_CLASS_MIXED)) {
			i++;
			continue;
		}
		join_with_next(points, cores, NULL, NULL, out, i);
	}
}

/* Neighbours with the same verdict are one phase (classified again together). */
static void join_agreeing(const struct cpw_tl_point *points, double cores, const struct cpw_metrics *run,
			  const struct cpw_proc_verdicts *owners, struct cpw_phases *out)
{
	for (int i = 0; i + 1 < out->n;) {
		if (out->phase[i].cls != out->phase[i + 1].cls) {
			i++;
			continue;
		}
		join_with_next(points, cores, run, owners, out, i);
	}
}

void cpw_phases_find(const struct cpw_tl_point *points, size_t n, double cores_usable,
		     double interval_s, struct cpw_phases *out)
{
	bool event[RUNS_MAX];
	struct run runs[RUNS_MAX]; /* 20 KiB of stack: no allocation */
	size_t nruns = 0;
	enum cpw_phase_lane carry = CPW_LANE_NONE;

	memset(out, 0, sizeof(*out));
	out->min_len_s = min_length(interval_s);
	out->cores_usable = cores_usable;
	if (n == 0 || n > RUNS_MAX)
		return;
	out->points = points;
	out->npoints = n;
	/* A point without threads (or at the very start, with no time) takes its neighbour's
	 * lane: the one before, or for leading ones the first known. */
	double half = out->min_len_s / 2 * 0.999;
	for (size_t i = 0; i < n && carry == CPW_LANE_NONE; i++)
		carry = smoothed_lane(points, n, i, half);
	for (size_t i = 0; i < n; i++) {
		enum cpw_phase_lane lane = smoothed_lane(points, n, i, half);
		if (lane == CPW_LANE_NONE)
			lane = carry;
		carry = lane;
		if (nruns > 0 && runs[nruns - 1].lane == lane) {
			runs[nruns - 1].last = i;
			runs[nruns - 1].dur_s += points[i].dt_s;
			runs[nruns - 1].samples += points[i].samples;
			continue;
		}
		runs[nruns++] = (struct run){ i, i, lane, points[i].dt_s, points[i].samples };
	}
	absorb_short(runs, &nruns, out->min_len_s, CPW_PHASES_MAX);
	sharpen_boundaries(points, runs, nruns, half);

	for (size_t i = 0; i < nruns; i++) {
		struct cpw_phase *ph = &out->phase[out->n];
		memset(ph, 0, sizeof(*ph));
		ph->first = runs[i].first;
		ph->last = runs[i].last;
		classify_phase(points, cores_usable, NULL, ph);
		/* Neighbours with the same verdict are one phase. */
		if (out->n > 0 && out->phase[out->n - 1].cls == ph->cls) {
			struct cpw_phase *prev = &out->phase[out->n - 1];
			prev->last = ph->last;
			classify_phase(points, cores_usable, NULL, prev);
			continue;
		}
		out->n++;
	}
	/* Process events: a window of half the minimum length on each side, two points at
	 * least. */
	size_t span = 2;
	while (span < n && points[span].start_s - points[0].start_s < half)
		span++;
	for (size_t k = 0; k < n; k++)
		event[k] = k > 0 && event_at(points, n, k, span);
	cut_at_events(points, event, cores_usable, out->min_len_s, out);
	absorb_short_phases(points, cores_usable, out->min_len_s, out);
	join_near_threshold(points, event, cores_usable, out);
	join_agreeing(points, cores_usable, NULL, NULL, out);
}

/* Judges each phase again with the run's facts (take_run_facts); neighbours that now have
 * the same verdict join. */
static void rejudge_with_run(struct cpw_phases *ph, const struct cpw_metrics *m,
			     const struct cpw_proc_verdicts *owners)
{
	if (ph->points == NULL)
		return;
	for (int i = 0; i < ph->n; i++) {
		classify_phase(ph->points, ph->cores_usable, m, &ph->phase[i]);
		take_owner(owners, &ph->phase[i]);
	}
	join_agreeing(ph->points, ph->cores_usable, m, owners, ph);
}

/* A single phase is the run: its verdict is the run's (a window's figures lack what the run
 * knows of its processes). */
static void phase_is_run(struct cpw_phase *p, const struct cpw_verdict *v)
{
	if (p->cls == v->cls)
		return; /* its own evidence says the same, on the same window */
	p->cls = v->cls;
	p->secondary = v->secondary;
	p->confidence = v->confidence;
	snprintf(p->evidence, sizeof(p->evidence), "%s", deciding_evidence(v));
	if (p->cls == CPW_CLASS_WAITING && p->wait_kind[0]) {
		size_t len = strlen(p->evidence);
		snprintf(p->evidence + len, sizeof(p->evidence) - len, "; waits: %s", p->wait_kind);
	}
	order_procs(p->procs, p->cls);
}

/* "0.0-1.3 s io-bound: dd" for each phase whose verdict is not the run's. */
static void phases_finding(const struct cpw_phases *ph, const struct cpw_verdict *v, char *buf,
			   size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s overall", cpw_verdict_class_name(v->cls));
	for (int i = 0; i < ph->n && used < len; i++) {
		const struct cpw_phase *p = &ph->phase[i];
		if (p->cls == v->cls)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "; %.1f-%.1f s %s%s%.15s",
					 p->start_s, p->end_s, cpw_verdict_class_name(p->cls),
					 p->procs[0].pid ? ": " : "", p->procs[0].comm);
	}
}

static void put_finding_first(struct cpw_verdict *v, const char *text)
{
	int keep = v->nfindings < CPW_FINDINGS_MAX ? v->nfindings : CPW_FINDINGS_MAX - 1;
	memmove(v->findings[1], v->findings[0], (size_t)keep * sizeof(v->findings[0]));
	snprintf(v->findings[0], sizeof(v->findings[0]), "%s", text);
	v->nfindings = keep + 1;
}

static bool is_cores_finding(const char *f)
{
	return strncmp(f, "uses ", 5) == 0 && strstr(f, "usable cores") != NULL;
}

void cpw_phases_refine_verdict(struct cpw_phases *ph, const struct cpw_metrics *m,
			       const struct cpw_proc_verdicts *owners, struct cpw_verdict *v)
{
	char text[sizeof(v->findings[0])];
	double cpu_s = 0, wall_s = 0;

	if (ph->n > 1 && v->cls != CPW_CLASS_UNKNOWN)
		rejudge_with_run(ph, m, owners);
	if (ph->n == 1 && v->cls != CPW_CLASS_UNKNOWN)
		phase_is_run(&ph->phase[0], v);
	if (ph->n <= 1 || v->cls == CPW_CLASS_UNKNOWN)
		return;
	/* Parallelism, judged where the run computes: the cpu-bound phases' own cores. */
	for (int i = 0; i < ph->n; i++) {
		const struct cpw_phase *p = &ph->phase[i];
		if ((p->cls == CPW_CLASS_CPU_BOUND || p->cls == CPW_CLASS_MEMORY_BOUND) &&
		    cpw_known(p->cores_used)) {
			cpu_s += p->cores_used * (p->end_s - p->start_s);
			wall_s += p->end_s - p->start_s;
		}
	}
	for (int i = 0; i < v->nfindings;) {
		if (is_cores_finding(v->findings[i])) {
			memmove(v->findings[i], v->findings[i + 1],
				(size_t)(v->nfindings - i - 1) * sizeof(v->findings[0]));
			v->nfindings--;
		} else {
			i++;
		}
	}
	struct cpw_metrics judged = *m;
	judged.cores_used = wall_s > 0 ? cpu_s / wall_s : judged.cores_usable;
	bool idle = wall_s > 0 && cpw_known(m->cores_usable) && m->cores_usable > 1 &&
		judged.cores_used <= m->cores_usable * cpw_threshold(CPW_T_CORES_IDLE_RATIO) &&
		(v->cls == CPW_CLASS_CPU_BOUND || v->cls == CPW_CLASS_MEMORY_BOUND);
	if (idle && v->nfindings < CPW_FINDINGS_MAX)
		snprintf(v->findings[v->nfindings++], sizeof(v->findings[0]),
			 "uses %.1f of %s usable cores in its cpu-bound phases", judged.cores_used,
			 cpw_verdict_figure(m->cores_usable).s);
	cpw_classify_advise(&judged, v);
	phases_finding(ph, v, text, sizeof(text));
	put_finding_first(v, text);
}

void cpw_phases_retell(struct cpw_phases *ph, struct cpw_verdict *v)
{
	char text[sizeof(v->findings[0])];

	if (ph->n == 1 && v->cls != CPW_CLASS_UNKNOWN)
		phase_is_run(&ph->phase[0], v); /* one phase is the run, whatever changed it */
	if (ph->n <= 1)
		return;
	/* The GPU's findings go first: the phases' is the one "... overall". */
	for (int i = 0; i < v->nfindings; i++)
		if (strstr(v->findings[i], " overall")) {
			phases_finding(ph, v, text, sizeof(text));
			snprintf(v->findings[i], sizeof(v->findings[i]), "%s", text);
			return;
		}
}

int cpw_phases_at(const struct cpw_phases *ph, double t)
{
	if (ph->n == 0)
		return -1;
	for (int i = 0; i < ph->n; i++)
		if (t < ph->phase[i].end_s)
			return i;
	return ph->n - 1;
}

char cpw_phases_mark(int i)
{
	return i < 0 ? ' ' : i < 9 ? (char)('1' + i) : (char)('a' + i - 9);
}
