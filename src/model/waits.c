/*
 * waits.c: adding up probed waits into thread-seconds per kind, per target and per
 * process, and finding the kind that dominates.
 *
 * Tables are fixed and small: the first CPW_WAIT_TARGETS_MAX distinct targets and
 * CPW_WAIT_PROCS_MAX processes are kept, the time of the rest is counted apart, so the
 * report can say how much it does not itemise. A linear search is enough at these sizes.
 */
#include "config.h"
#include "model/waits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpw_waits_init(struct cpw_waits *w)
{
	memset(w, 0, sizeof(*w));
}

static void add_target(struct cpw_waits *w, pid_t pid, const struct cpw_wait *wait, double seconds)
{
	for (size_t i = 0; i < w->ntargets; i++) {
		struct cpw_wait_target_time *t = &w->targets[i];
		if (t->kind == wait->kind && strcmp(t->target, wait->target) == 0) {
			t->seconds += seconds;
			if (!t->peer_pid)
				t->peer_pid = wait->peer_pid;
			return;
		}
	}
	if (w->ntargets == CPW_WAIT_TARGETS_MAX) {
		w->untracked_target_s += seconds;
		return;
	}
	struct cpw_wait_target_time *t = &w->targets[w->ntargets++];
	t->kind = wait->kind;
	snprintf(t->target, sizeof(t->target), "%s", wait->target);
	t->pid = pid;
	t->peer_pid = wait->peer_pid;
	t->seconds = seconds;
}

static void add_proc(struct cpw_waits *w, pid_t pid, const char *comm, enum cpw_wait_kind kind,
		     double seconds)
{
	struct cpw_wait_proc_time *p = NULL;
	for (size_t i = 0; i < w->nprocs && !p; i++)
		if (w->procs[i].pid == pid)
			p = &w->procs[i];
	if (!p) {
		if (w->nprocs == CPW_WAIT_PROCS_MAX) {
			w->untracked_proc_s += seconds;
			return;
		}
		p = &w->procs[w->nprocs++];
		p->pid = pid;
		snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
	}
	p->seconds[kind] += seconds;
	p->total_s += seconds;
}

void cpw_waits_add(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
		   double seconds)
{
	if (!(seconds > 0) || (unsigned)wait->kind >= CPW_WAIT_KIND_COUNT)
		return;
	w->seconds[wait->kind] += seconds;
	w->total_s += seconds;
	if (wait->target[0])
		add_target(w, pid, wait, seconds);
	add_proc(w, pid, comm, wait->kind, seconds);
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

void cpw_waits_sort(struct cpw_waits *w)
{
	qsort(w->targets, w->ntargets, sizeof(w->targets[0]), by_target_seconds);
	qsort(w->procs, w->nprocs, sizeof(w->procs[0]), by_proc_seconds);
}

/* The largest of seconds[], the child kind aside unless it is all there is. */
int cpw_wait_seconds_dominant(const double seconds[CPW_WAIT_KIND_COUNT], double *share)
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
	return cpw_wait_seconds_dominant(w->seconds, share);
}

const struct cpw_wait_target_time *cpw_waits_top_target(const struct cpw_waits *w, enum cpw_wait_kind kind)
{
	const struct cpw_wait_target_time *best = NULL;
	for (size_t i = 0; i < w->ntargets; i++)
		if (w->targets[i].kind == kind && (!best || w->targets[i].seconds > best->seconds))
			best = &w->targets[i];
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
	return cpw_wait_seconds_dominant(p->seconds, share);
}
