/*
 * timeline.c: the run's time series at bounded memory (model/timeline.h).
 *
 * The tree keeps cumulative figures; each record takes their deltas since the previous
 * one (per process for the main processes, so it remembers each process's last CPU and IO
 * by its index in the tree, which only grows). Points live in one fixed array: when it is
 * full, pairs merge and the stride (samples per point) doubles.
 */
#include "config.h"
#include "model/timeline.h"
#include "model/waits.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tree.h"

struct proc_mark {
	int pid;
	double cpu_s;
	double io_bytes;
};

/* The tree's cumulative sums at one record. */
struct sums {
	double user_s, sys_s, oncpu_s, runq_s, read_bytes, write_bytes;
	double wait_s[CPW_WAIT_KIND_COUNT];
	uint64_t majflt, minflt;
	bool io_known;
};

struct cpw_timeline {
	struct cpw_tl_point points[CPW_TIMELINE_CAPACITY];
	size_t count;
	uint64_t stride;
	/* The previous record's cumulative figures (zero before the first). */
	bool have_prev;
	struct sums prev;
	double prev_s;
	uint64_t prev_states[CPW_TL_STATE_COUNT];
	struct cpw_tl_point last; /* the last record's own point, before any merge */
	double gpu_busy;          /* cpw_timeline_set_gpu()'s share; NAN: no GPU held */
	bool gpu_seen;            /* a share was set once: the points before it were filled */
	bool have_last;
	struct proc_mark *marks; /* by tree index */
	size_t nmarks, marks_alloc;
};

struct cpw_timeline *cpw_timeline_new(void)
{
	struct cpw_timeline *tl = calloc(1, sizeof(*tl));
	if (tl) {
		tl->stride = 1;
		tl->gpu_busy = NAN;
	}
	return tl;
}

void cpw_timeline_free(struct cpw_timeline *tl)
{
	if (!tl)
		return;
	free(tl->marks);
	free(tl);
}

void cpw_timeline_point_init(struct cpw_tl_point *p, double start_s)
{
	memset(p, 0, sizeof(*p));
	p->start_s = start_s;
	p->rss_kib_max = NAN;
	p->read_bytes = p->write_bytes = NAN;
	p->psi_cpu_s = p->psi_io_s = p->psi_mem_s = NAN;
}

uint64_t cpw_timeline_point_thread_samples(const struct cpw_tl_point *p)
{
	uint64_t n = 0;
	for (int i = 0; i < CPW_TL_STATE_COUNT; i++)
		n += p->states[i];
	return n;
}

/* A sum where either part may be unknown: unknown only when both are. */
static double add_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

static double max_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

/* How much of the point's work a process did: its share of the CPU plus its share of
 * the storage bytes, so that a reader with little CPU still counts. */
static double weight(const struct cpw_tl_proc *e, double cpu_total, double io_total)
{
	double w = 0;
	if (cpu_total > 0)
		w += e->cpu_s / cpu_total;
	if (io_total > 0)
		w += e->io_bytes / io_total;
	return w;
}

/* Offers e to the top list (largest first), adding it to an entry of the same pid. */
static void offer(struct cpw_tl_proc top[CPW_TIMELINE_TOP], const struct cpw_tl_proc *e,
		  double cpu_total, double io_total)
{
	struct cpw_tl_proc cand = *e;
	int slot = -1;

	for (int i = 0; i < CPW_TIMELINE_TOP && top[i].pid; i++)
		if (top[i].pid == e->pid) {
			cand.cpu_s += top[i].cpu_s;
			cand.io_bytes += top[i].io_bytes;
			cand.wait_s += top[i].wait_s;
			slot = i;
			break;
		}
	if (slot >= 0) /* take it out; it goes back at its new place */
		memmove(&top[slot], &top[slot + 1], (size_t)(CPW_TIMELINE_TOP - 1 - slot) * sizeof(top[0]));
	if (slot >= 0)
		memset(&top[CPW_TIMELINE_TOP - 1], 0, sizeof(top[0]));
	double w = weight(&cand, cpu_total, io_total);
	for (int i = 0; i < CPW_TIMELINE_TOP; i++) {
		if (top[i].pid && weight(&top[i], cpu_total, io_total) >= w)
			continue;
		memmove(&top[i + 1], &top[i], (size_t)(CPW_TIMELINE_TOP - 1 - i) * sizeof(top[0]));
		top[i] = cand;
		return;
	}
}

void cpw_timeline_point_merge(struct cpw_tl_point *into, const struct cpw_tl_point *next)
{
	struct cpw_tl_proc old[CPW_TIMELINE_TOP];

	if (next->samples == 0 && next->dt_s <= 0)
		return;
	if (into->samples == 0 && into->dt_s <= 0) {
		*into = *next;
		return;
	}
	into->dt_s = next->start_s + next->dt_s - into->start_s;
	into->samples += next->samples;
	into->user_s += next->user_s;
	into->sys_s += next->sys_s;
	into->oncpu_s += next->oncpu_s;
	into->runq_s += next->runq_s;
	for (int i = 0; i < CPW_TL_STATE_COUNT; i++)
		into->states[i] += next->states[i];
	into->rss_kib_max = max_known(into->rss_kib_max, next->rss_kib_max);
	into->read_bytes = add_known(into->read_bytes, next->read_bytes);
	into->write_bytes = add_known(into->write_bytes, next->write_bytes);
	into->majflt += next->majflt;
	into->minflt += next->minflt;
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		into->wait_s[k] += next->wait_s[k];
	/* Pressure is known for the merged point only where it is for both. */
	into->psi_cpu_s += next->psi_cpu_s;
	into->psi_io_s += next->psi_io_s;
	into->psi_mem_s += next->psi_mem_s;
	into->psi_from_cgroup = into->psi_from_cgroup && next->psi_from_cgroup;
	into->gpu_s += next->gpu_s;
	into->gpu_busy_s += next->gpu_busy_s;

	double cpu_total = into->user_s + into->sys_s;
	double io_total = (isnan(into->read_bytes) ? 0 : into->read_bytes) +
			  (isnan(into->write_bytes) ? 0 : into->write_bytes);
	memcpy(old, into->top, sizeof(old));
	memset(into->top, 0, sizeof(into->top));
	for (int i = 0; i < CPW_TIMELINE_TOP; i++) {
		if (old[i].pid)
			offer(into->top, &old[i], cpu_total, io_total);
		if (next->top[i].pid)
			offer(into->top, &next->top[i], cpu_total, io_total);
	}
}

/* Full: pairs merge into one, and each point takes twice the samples from now on. */
static void compact(struct cpw_timeline *tl)
{
	size_t n = 0;
	for (size_t i = 0; i + 1 < tl->count; i += 2) {
		struct cpw_tl_point p = tl->points[i];
		cpw_timeline_point_merge(&p, &tl->points[i + 1]);
		tl->points[n++] = p;
	}
	if (tl->count % 2)
		tl->points[n++] = tl->points[tl->count - 1];
	tl->count = n;
	tl->stride *= 2;
}

void cpw_timeline_add(struct cpw_timeline *tl, const struct cpw_tl_point *p)
{
	if (tl->count > 0 && tl->points[tl->count - 1].samples < tl->stride) {
		cpw_timeline_point_merge(&tl->points[tl->count - 1], p);
		return;
	}
	if (tl->count == CPW_TIMELINE_CAPACITY)
		compact(tl);
	tl->points[tl->count++] = *p;
}

size_t cpw_timeline_count(const struct cpw_timeline *tl) { return tl->count; }

const struct cpw_tl_point *cpw_timeline_point(const struct cpw_timeline *tl, size_t i)
{
	return i < tl->count ? &tl->points[i] : NULL;
}

uint64_t cpw_timeline_stride(const struct cpw_timeline *tl) { return tl->stride; }

static bool grow_marks(struct cpw_timeline *tl, size_t n)
{
	if (n <= tl->marks_alloc)
		return true;
	size_t want = tl->marks_alloc ? tl->marks_alloc : 64;
	while (want < n)
		want *= 2;
	struct proc_mark *m = realloc(tl->marks, want * sizeof(*m));
	if (!m)
		return false;
	tl->marks = m;
	tl->marks_alloc = want;
	return true;
}

static double proc_io(const struct cpw_proc *p)
{
	if (isnan(p->read_bytes))
		return NAN;
	return p->read_bytes + (isnan(p->write_bytes) ? 0 : p->write_bytes);
}

static double nonneg(double x) { return x > 0 ? x : 0; }

static void tree_sums(const struct cpw_tree *t, struct sums *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->wait_s, cpw_tree_waits(t)->seconds, sizeof(s->wait_s));
	for (size_t i = 0; i < cpw_tree_size(t); i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		s->user_s += p->user_s;
		s->sys_s += p->sys_s;
		if (!isnan(p->oncpu_s))
			s->oncpu_s += p->oncpu_s;
		if (!isnan(p->runq_wait_s))
			s->runq_s += p->runq_wait_s;
		s->majflt += p->majflt;
		s->minflt += p->minflt;
		if (!isnan(p->read_bytes)) {
			s->io_known = true;
			s->read_bytes += p->read_bytes;
			s->write_bytes += isnan(p->write_bytes) ? 0 : p->write_bytes;
		}
	}
}

static uint64_t count_delta(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

/* The processes that did most of the interval's work, from their marks. */
static void find_top(struct cpw_timeline *tl, const struct cpw_tree *t, struct cpw_tl_point *pt)
{
	size_t nprocs = cpw_tree_size(t), old = tl->nmarks;
	double io_total = (isnan(pt->read_bytes) ? 0 : pt->read_bytes) +
			  (isnan(pt->write_bytes) ? 0 : pt->write_bytes);
	double cpu_total = pt->user_s + pt->sys_s;

	if (!grow_marks(tl, nprocs))
		return; /* no names this time; the sums are whole */
	for (size_t i = 0; i < nprocs; i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		struct proc_mark *m = &tl->marks[i];
		double cpu = p->user_s + p->sys_s, io = proc_io(p);
		struct cpw_tl_proc e = { .pid = p->pid };

		if (i >= old || m->pid != p->pid) {
			m->pid = p->pid;
			m->cpu_s = m->io_bytes = 0;
		}
		e.cpu_s = nonneg(cpu - m->cpu_s);
		e.io_bytes = isnan(io) ? 0 : nonneg(io - m->io_bytes);
		/* A process asleep on a timer, a socket or a lock uses nothing, yet it is what
		 * a waiting phase is about; a parent in wait4 is not. */
		e.wait_s = p->waits_now ? pt->dt_s : 0;
		m->cpu_s = cpu;
		if (!isnan(io))
			m->io_bytes = io;
		if (e.cpu_s <= 0 && e.io_bytes <= 0 && e.wait_s <= 0)
			continue;
		size_t len = strnlen(p->comm, sizeof(e.comm) - 1); /* no snprintf: every waiting process */
		memcpy(e.comm, p->comm, len);
		offer(pt->top, &e, cpu_total, io_total);
	}
	tl->nmarks = nprocs;
}

void cpw_timeline_record(struct cpw_timeline *tl, const struct cpw_tree *t, double now_s,
			 const struct cpw_tl_pressure *psi)
{
	const struct cpw_tree_totals *tt = cpw_tree_totals(t);
	const uint64_t states_now[CPW_TL_STATE_COUNT] = {
		[CPW_TL_RUNNING] = tt->st_running, [CPW_TL_DISK_WAIT] = tt->st_disk_wait,
		[CPW_TL_D_OTHER] = tt->st_d_other, [CPW_TL_SLEEPING] = tt->st_sleeping,
		[CPW_TL_OTHER] = tt->st_other,
	};
	struct cpw_tl_point pt;
	struct sums now;
	const struct sums *was = &tl->prev;
	double prev_s = tl->have_prev ? tl->prev_s : 0;

	tree_sums(t, &now);
	cpw_timeline_point_init(&pt, prev_s);
	pt.dt_s = now_s > prev_s ? now_s - prev_s : 0;
	pt.samples = 1;
	for (int i = 0; i < CPW_TL_STATE_COUNT; i++)
		pt.states[i] = count_delta(states_now[i], tl->prev_states[i]);
	/* Deltas of sums: over the whole series they add up to the tree's totals. */
	pt.user_s = nonneg(now.user_s - was->user_s);
	pt.sys_s = nonneg(now.sys_s - was->sys_s);
	pt.oncpu_s = nonneg(now.oncpu_s - was->oncpu_s);
	pt.runq_s = nonneg(now.runq_s - was->runq_s);
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		pt.wait_s[k] = nonneg(now.wait_s[k] - was->wait_s[k]);
	pt.majflt = count_delta(now.majflt, was->majflt);
	pt.minflt = count_delta(now.minflt, was->minflt);
	if (now.io_known) {
		pt.read_bytes = nonneg(now.read_bytes - was->read_bytes);
		pt.write_bytes = nonneg(now.write_bytes - was->write_bytes);
	}
	pt.rss_kib_max = (double)tt->rss_kib;
	if (psi) {
		pt.psi_cpu_s = psi->cpu_some_s;
		pt.psi_io_s = psi->io_some_s;
		pt.psi_mem_s = psi->mem_some_s;
		pt.psi_from_cgroup = psi->from_cgroup;
	}
	if (!isnan(tl->gpu_busy)) {
		pt.gpu_s = pt.dt_s;
		pt.gpu_busy_s = tl->gpu_busy * pt.dt_s;
	}
	find_top(tl, t, &pt);
	tl->have_prev = true;
	tl->prev_s = now_s;
	tl->prev = now;
	memcpy(tl->prev_states, states_now, sizeof(states_now));
	tl->last = pt;
	tl->have_last = true;
	cpw_timeline_add(tl, &pt);
}

/* NVML's busy share is over its sample period before the reading, up to a second: the
 * first one known also covers the points of the second before it, which the GPU's first
 * reading (0.5 s into the run) came too late for. */
#define GPU_SHARE_SPAN_S 1.0

void cpw_timeline_set_gpu(struct cpw_timeline *tl, double busy_share)
{
	if (!tl)
		return;
	double v = busy_share < 0 ? 0 : busy_share > 1 ? 1 : busy_share;
	if (!isnan(v) && !tl->gpu_seen) {
		tl->gpu_seen = true;
		for (size_t i = tl->count; i-- > 0;) {
			struct cpw_tl_point *p = &tl->points[i];
			if (p->start_s + p->dt_s < tl->prev_s - GPU_SHARE_SPAN_S - 1e-9)
				break;
			if (p->gpu_s == 0) {
				p->gpu_s = p->dt_s;
				p->gpu_busy_s = v * p->dt_s;
			}
		}
	}
	tl->gpu_busy = v;
}

const struct cpw_tl_point *cpw_timeline_last_sample(const struct cpw_timeline *tl)
{
	return tl && tl->have_last ? &tl->last : NULL;
}

void cpw_timeline_column(const struct cpw_timeline *tl, size_t c, size_t ncols, struct cpw_tl_point *out)
{
	size_t n = tl ? cpw_timeline_count(tl) : 0;
	size_t from = n * c / ncols, to = n * (c + 1) / ncols;

	cpw_timeline_point_init(out, 0);
	if (to <= from && from < n)
		to = from + 1;
	for (size_t i = from; i < to && i < n; i++)
		cpw_timeline_point_merge(out, cpw_timeline_point(tl, i));
}
