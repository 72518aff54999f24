/*
 * waits.c: adding up probed waits into thread-seconds per kind, per target and per
 * process, and finding the kind that dominates.
 *
 * Tables are fixed and small: the first CPW_WAIT_TARGETS_MAX distinct targets and
 * CPW_WAIT_PROCS_MAX processes are kept, the time of the rest is counted apart, so the
 * report can say how much it does not itemise. A linear search is enough at these sizes.
 *
 * Idle by design (waits.h): each thread's current wait is followed by the probe's number;
 * while it stays the same the thread has not run. Its time counts as a wait until the wait
 * has lasted CPW_WAIT_IDLE_SAMPLES samples and CPW_WAIT_IDLE_S seconds on a kind a helper
 * idles on; then that time is moved out of its kind, target and process into idle_s, and
 * the rest of the wait goes there too. A thread that runs again starts a new wait.
 */
#include "config.h"
#include "model/waits.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpw_waits_init(struct cpw_waits *w)
{
	memset(w, 0, sizeof(*w));
}

/* Returns the target's index, -2 past the table. */
static int add_target(struct cpw_waits *w, pid_t pid, const struct cpw_wait *wait, double seconds)
{
	for (size_t i = 0; i < w->ntargets; i++) {
		struct cpw_wait_target_time *t = &w->targets[i];
		if (t->kind == wait->kind && strcmp(t->target, wait->target) == 0) {
			t->seconds += seconds;
			if (!t->peer_pid)
				t->peer_pid = wait->peer_pid;
			return (int)i;
		}
	}
	if (w->ntargets == CPW_WAIT_TARGETS_MAX) {
		w->untracked_target_s += seconds;
		return -2;
	}
	struct cpw_wait_target_time *t = &w->targets[w->ntargets++];
	t->kind = wait->kind;
	snprintf(t->target, sizeof(t->target), "%s", wait->target);
	t->pid = pid;
	t->peer_pid = wait->peer_pid;
	t->seconds = seconds;
	return (int)w->ntargets - 1;
}

/* "qualname (file:line)" of a Python frame into out; "" where there is none. */
static void fn_label(const char *name, const char *where, char *out, size_t len)
{
	if (!name)
		out[0] = '\0';
	else if (where && where[0])
		snprintf(out, len, "%s (%s)", name, where);
	else
		snprintf(out, len, "%s", name);
}

/* Adds seconds to the Python function of wait on its kind and target. Returns its index,
 * -2 past the table. */
static int add_fn(struct cpw_waits *w, pid_t pid, const struct cpw_wait *wait, double seconds)
{
	char fn[CPW_WAIT_FN_LEN], caller[CPW_WAIT_FN_LEN];
	fn_label(wait->py_fn, wait->py_fn_where, fn, sizeof(fn));
	fn_label(wait->py_caller, wait->py_caller_where, caller, sizeof(caller));
	for (size_t i = 0; i < w->nfns; i++) {
		struct cpw_wait_fn_time *f = &w->fns[i];
		if (f->kind != wait->kind || strcmp(f->target, wait->target) != 0 || strcmp(f->fn, fn) != 0)
			continue;
		f->seconds += seconds;
		if (!f->several_callers && strcmp(f->caller, caller) != 0) {
			f->several_callers = true;
			f->caller[0] = '\0';
		}
		return (int)i;
	}
	if (w->nfns == CPW_WAIT_FNS_MAX) {
		w->untracked_fn_s += seconds;
		return -2;
	}
	struct cpw_wait_fn_time *f = &w->fns[w->nfns++];
	memset(f, 0, sizeof(*f));
	f->kind = wait->kind;
	snprintf(f->target, sizeof(f->target), "%s", wait->target);
	snprintf(f->fn, sizeof(f->fn), "%s", fn);
	snprintf(f->caller, sizeof(f->caller), "%s", caller);
	f->pid = pid;
	f->seconds = seconds;
	return (int)w->nfns - 1;
}

/* The record of pid, made where there is room; NULL past the table. */
static struct cpw_wait_proc_time *proc_of(struct cpw_waits *w, pid_t pid, const char *comm)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			return &w->procs[i];
	if (w->nprocs == CPW_WAIT_PROCS_MAX)
		return NULL;
	struct cpw_wait_proc_time *p = &w->procs[w->nprocs++];
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
	return p;
}

static void add_proc(struct cpw_waits *w, pid_t pid, const char *comm, enum cpw_wait_kind kind,
		     double seconds, bool helper)
{
	struct cpw_wait_proc_time *p = proc_of(w, pid, comm);
	if (!p) {
		w->untracked_proc_s += seconds;
		return;
	}
	/* Its latest name: a pyenv shim (bash) that became python3 is named python3. */
	if (comm && strcmp(p->comm, comm) != 0)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->seconds[kind] += seconds;
	p->total_s += seconds;
	if (helper)
		p->helper_seconds[kind] += seconds;
}

bool cpw_waits_idle_kind(pid_t pid, const struct cpw_wait *wait)
{
	if (wait->tid <= 0 || wait->tid == pid)
		return false;
	switch (wait->kind) {
	case CPW_WAIT_LOCK:
	case CPW_WAIT_EVENT_LOOP:
		return true;
	case CPW_WAIT_PIPE:
		return wait->queue || wait->polled > 1;
	case CPW_WAIT_NETWORK:
		/* A helper that accepts on a local listener: multiprocessing's resource sharer
		 * (a listener-NNN in /tmp/pymp-NNN) in each DataLoader worker, a Manager. */
		return strncmp(wait->syscall, "accept", 6) == 0 && strncmp(wait->target, "unix ", 5) == 0;
	default:
		return false;
	}
}

#define NO_THREAD ((uint16_t)CPW_WAIT_THREADS_MAX)

static size_t thread_bucket(pid_t pid, pid_t tid)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)tid;
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (CPW_WAIT_THREAD_INDEX - 1);
}

/* Takes record i out of the index (backward-shift deletion: no tombstones). */
static void index_remove(struct cpw_waits *w, uint16_t i)
{
	size_t b = thread_bucket(w->threads[i].pid, w->threads[i].tid);
	while (w->thread_index[b] != i + 1)
		b = (b + 1) & (CPW_WAIT_THREAD_INDEX - 1);
	for (size_t next = (b + 1) & (CPW_WAIT_THREAD_INDEX - 1);; next = (next + 1) & (CPW_WAIT_THREAD_INDEX - 1)) {
		uint16_t e = w->thread_index[next];
		if (!e)
			break;
		size_t home = thread_bucket(w->threads[e - 1].pid, w->threads[e - 1].tid);
		/* e may move into the hole at b unless its home lies cyclically in (b, next]. */
		if (((next - home) & (CPW_WAIT_THREAD_INDEX - 1)) >= ((next - b) & (CPW_WAIT_THREAD_INDEX - 1))) {
			w->thread_index[b] = e;
			b = next;
		}
	}
	w->thread_index[b] = 0;
}

static void lru_unlink(struct cpw_waits *w, uint16_t i)
{
	struct cpw_wait_thread *t = &w->threads[i];
	if (t->older != NO_THREAD)
		w->threads[t->older].newer = t->newer;
	else
		w->oldest = t->newer;
	if (t->newer != NO_THREAD)
		w->threads[t->newer].older = t->older;
	else
		w->newest = t->older;
}

static void lru_append(struct cpw_waits *w, uint16_t i)
{
	struct cpw_wait_thread *t = &w->threads[i];
	t->older = w->newest;
	t->newer = NO_THREAD;
	if (w->newest != NO_THREAD)
		w->threads[w->newest].newer = i;
	else
		w->oldest = i;
	w->newest = i;
}

/* The thread's record; a new one (seq 0: no wait yet), in place of the one that waited
 * least recently when the table is full. */
static struct cpw_wait_thread *thread_of(struct cpw_waits *w, pid_t pid, pid_t tid)
{
	w->adds++;
	if (w->nthreads == 0)
		w->oldest = w->newest = NO_THREAD; /* a table zeroed by cpw_waits_init() */
	size_t b = thread_bucket(pid, tid);
	for (uint16_t e; (e = w->thread_index[b]); b = (b + 1) & (CPW_WAIT_THREAD_INDEX - 1)) {
		struct cpw_wait_thread *t = &w->threads[e - 1];
		if (t->tid == tid && t->pid == pid) {
			t->last_add = w->adds;
			if (w->newest != e - 1) {
				lru_unlink(w, (uint16_t)(e - 1));
				lru_append(w, (uint16_t)(e - 1));
			}
			return t;
		}
	}
	uint16_t i;
	if (w->nthreads < CPW_WAIT_THREADS_MAX) {
		i = (uint16_t)w->nthreads++;
	} else {
		i = w->oldest;
		lru_unlink(w, i);
		index_remove(w, i);
		b = thread_bucket(pid, tid); /* the removal may have moved the empty bucket */
		while (w->thread_index[b])
			b = (b + 1) & (CPW_WAIT_THREAD_INDEX - 1);
	}
	struct cpw_wait_thread *t = &w->threads[i];
	memset(t, 0, sizeof(*t));
	t->fn = -1;
	t->last_add = w->adds;
	t->pid = pid;
	t->tid = tid;
	w->thread_index[b] = (uint16_t)(i + 1);
	lru_append(w, i);
	return t;
}

static double less(double a, double b)
{
	return a > b ? a - b : 0;
}

/* Moves the thread's wait so far out of its kind, target and process into idle_s. */
static void make_idle(struct cpw_waits *w, struct cpw_wait_thread *t, const char *comm)
{
	double s = t->wait_s;
	w->seconds[t->kind] = less(w->seconds[t->kind], s);
	w->total_s = less(w->total_s, s);
	if (t->target >= 0 && (size_t)t->target < w->ntargets)
		w->targets[t->target].seconds = less(w->targets[t->target].seconds, s);
	else if (t->target == -2)
		w->untracked_target_s = less(w->untracked_target_s, s);
	if (t->fn >= 0 && (size_t)t->fn < w->nfns)
		w->fns[t->fn].seconds = less(w->fns[t->fn].seconds, s);
	else if (t->fn == -2)
		w->untracked_fn_s = less(w->untracked_fn_s, s);
	struct cpw_wait_proc_time *p = proc_of(w, t->pid, comm);
	if (p) {
		p->seconds[t->kind] = less(p->seconds[t->kind], s);
		p->helper_seconds[t->kind] = less(p->helper_seconds[t->kind], t->helper_s);
		p->total_s = less(p->total_s, s);
		p->idle_s += s;
	} else {
		w->untracked_proc_s = less(w->untracked_proc_s, s);
	}
	w->idle_s += s;
	t->idle = true;
	if (!t->counted)
		w->idle_threads++;
	t->counted = true;
}

void cpw_waits_add(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
		   double seconds)
{
	cpw_waits_add_thread(w, pid, comm, wait, seconds, false);
}

void cpw_waits_add_thread(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
			  double seconds, bool helper)
{
	if (!(seconds > 0) || (unsigned)wait->kind >= CPW_WAIT_KIND_COUNT)
		return;
	struct cpw_wait_thread *t = wait->tid > 0 && wait->seq ? thread_of(w, pid, wait->tid) : NULL;
	if (t && wait->driver_helper && wait->tid != pid) {
		/* A GPU driver's helper waits for the device's events all its life, and wakes
		 * often (so no one wait lasts): idle by design from its first wait. */
		struct cpw_wait_proc_time *p = proc_of(w, pid, comm);
		if (p)
			p->idle_s += seconds;
		w->idle_s += seconds;
		if (!t->counted)
			w->idle_threads++;
		t->counted = true;
		t->idle = true;
		return;
	}
	if (t && t->seq == wait->seq && t->kind == wait->kind) {
		t->samples++;
		if (t->idle) { /* the same wait, still idle */
			struct cpw_wait_proc_time *p = proc_of(w, pid, comm);
			if (p)
				p->idle_s += seconds;
			w->idle_s += seconds;
			return;
		}
	} else if (t) { /* probed anew: it ran, or waits on something else */
		t->seq = wait->seq;
		t->kind = wait->kind;
		t->samples = 1;
		t->wait_s = 0;
		t->helper_s = 0;
		t->idle = false;
		t->fn = -1;
	}
	w->seconds[wait->kind] += seconds;
	w->total_s += seconds;
	int target = wait->target[0] ? add_target(w, pid, wait, seconds) : -1;
	helper = helper && wait->tid != pid;
	add_proc(w, pid, comm, wait->kind, seconds, helper);
	if (!t) {
		if (wait->py_fn)
			add_fn(w, pid, wait, seconds);
		return;
	}
	/* Named for the first time in this wait: the time it has lasted goes with it. */
	if (wait->py_fn)
		t->fn = add_fn(w, pid, wait, t->fn == -1 ? t->wait_s + seconds : seconds);
	t->target = target;
	t->wait_s += seconds;
	if (helper)
		t->helper_s += seconds;
	if (t->samples >= CPW_WAIT_IDLE_SAMPLES && t->wait_s >= CPW_WAIT_IDLE_S - 1e-9 &&
	    cpw_waits_idle_kind(pid, wait))
		make_idle(w, t, comm);
}

void cpw_waits_set_probe_stats(struct cpw_waits *w, const struct cpw_wait_probe_stats *s)
{
	w->probed = true;
	w->probe = *s;
}

static int by_target_seconds(const void *a, const void *b)
{
	double x = ((const struct cpw_wait_target_time *)a)->seconds;
	double y = ((const struct cpw_wait_target_time *)b)->seconds;
	return (x < y) - (x > y);
}

static int by_proc_seconds(const void *a, const void *b)
{
	double x = ((const struct cpw_wait_proc_time *)a)->total_s;
	double y = ((const struct cpw_wait_proc_time *)b)->total_s;
	return (x < y) - (x > y);
}

static int by_fn_seconds(const void *a, const void *b)
{
	double x = ((const struct cpw_wait_fn_time *)a)->seconds;
	double y = ((const struct cpw_wait_fn_time *)b)->seconds;
	return (x < y) - (x > y);
}

void cpw_waits_sort(struct cpw_waits *w)
{
	qsort(w->targets, w->ntargets, sizeof(w->targets[0]), by_target_seconds);
	qsort(w->fns, w->nfns, sizeof(w->fns[0]), by_fn_seconds);
	qsort(w->procs, w->nprocs, sizeof(w->procs[0]), by_proc_seconds);
}

struct cpw_waits *cpw_waits_sorted_copy(const struct cpw_waits *w)
{
	struct cpw_waits *s = calloc(1, sizeof(*s)); /* its pages untouched but those written */
	if (!s)
		return NULL;
	memcpy(s, w, offsetof(struct cpw_waits, threads));
	s->adds = w->adds;
	s->oldest = s->newest = CPW_WAIT_THREADS_MAX; /* none: the records stay behind */
	s->probed = w->probed;
	s->probe = w->probe;
	cpw_waits_sort(s);
	return s;
}

/* The largest of seconds[], the child kind aside unless it is all there is. */
int cpw_waits_seconds_dominant(const double seconds[CPW_WAIT_KIND_COUNT], double *share)
{
	double counted = 0, best_s = 0;
	int best = -1;

	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++) {
		if (k == CPW_WAIT_CHILD)
			continue;
		counted += seconds[k];
		if (seconds[k] > best_s) {
			best_s = seconds[k];
			best = k;
		}
	}
	if (best < 0 && seconds[CPW_WAIT_CHILD] > 0) {
		best = CPW_WAIT_CHILD;
		best_s = counted = seconds[CPW_WAIT_CHILD];
	}
	if (share)
		*share = best >= 0 ? best_s / counted : NAN;
	return best;
}

int cpw_waits_dominant(const struct cpw_waits *w, double *share)
{
	return cpw_waits_seconds_dominant(w->seconds, share);
}

const struct cpw_wait_target_time *cpw_waits_top_target(const struct cpw_waits *w, enum cpw_wait_kind kind)
{
	const struct cpw_wait_target_time *best = NULL;
	for (size_t i = 0; i < w->ntargets; i++)
		if (w->targets[i].kind == kind && (!best || w->targets[i].seconds > best->seconds))
			best = &w->targets[i];
	return best;
}

const struct cpw_wait_fn_time *cpw_waits_top_fn(const struct cpw_waits *w, enum cpw_wait_kind kind, pid_t pid)
{
	const struct cpw_wait_fn_time *best = NULL;
	for (size_t i = 0; i < w->nfns; i++) {
		const struct cpw_wait_fn_time *f = &w->fns[i];
		if (f->kind == kind && (pid <= 0 || f->pid == pid) && f->seconds > 0 &&
		    (!best || f->seconds > best->seconds))
			best = f;
	}
	return best;
}

const struct cpw_wait_proc_time *cpw_waits_proc(const struct cpw_waits *w, pid_t pid)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			return &w->procs[i];
	return NULL;
}

int cpw_waits_proc_dominant(const struct cpw_wait_proc_time *p, double *share)
{
	return cpw_waits_seconds_dominant(p->seconds, share);
}
