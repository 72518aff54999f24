/*
 * gpu.c: the GPUs over the run. Pure: readings in, sums out. A device is matched by its
 * index in the reading (NVML's order, stable within a run); a process by pid and device.
 */
#include "config.h"
#include "model/gpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/hotspots.h"
#include "model/metrics.h"
#include "model/tree.h"
#include "model/waits.h"
#include "util/arith.h"

void cpw_gpu_init(struct cpw_gpu *g)
{
	memset(g, 0, sizeof(*g));
}

static double nan_max(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : (a > b ? a : b);
}

static struct cpw_gpu_process *process(struct cpw_gpu *g, pid_t pid, int dev, const char *comm)
{
	for (int i = 0; i < g->nproc; i++)
		if (g->proc[i].pid == pid && g->proc[i].dev == dev)
			return &g->proc[i];
	if (g->nproc == CPW_GPU_TREE_PROCS_MAX)
		return NULL;
	struct cpw_gpu_process *p = &g->proc[g->nproc++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->dev = dev;
	p->mem_max_b = NAN;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return p;
}

double cpw_gpu_busy_held(const struct cpw_gpu *g, const struct cpw_gpu_reading *r)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < r->ndev && i < g->ndev; i++)
		if (g->dev[i].held && !isnan(r->dev[i].busy)) {
			sum += r->dev[i].busy;
			n++;
		}
	return n ? sum / n : NAN;
}

void cpw_gpu_fold(struct cpw_gpu *g, const struct cpw_gpu_reading *r, const struct cpw_tree *t)
{
	g->readings++;
	for (int i = 0; i < r->ndev && i < CPW_GPU_DEVICES_MAX; i++) {
		const struct cpw_gpu_device_reading *dr = &r->dev[i];
		if (i >= g->ndev) {
			struct cpw_gpu_device *d = &g->dev[g->ndev++];
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", dr->name);
			d->mem_used_max_b = d->mem_total_b = d->busy_max = NAN;
		}
		struct cpw_gpu_device *d = &g->dev[i];
		if (!isnan(dr->busy)) {
			d->busy_sum += dr->busy;
			d->busy_n++;
			d->busy_max = nan_max(d->busy_max, dr->busy);
		}
		if (!isnan(dr->sm_active) && !isnan(dr->sm_occupancy)) {
			d->sm_active_sum += dr->sm_active;
			d->sm_occupancy_sum += dr->sm_occupancy;
			d->gpm_n++;
		}
		d->mem_used_max_b = nan_max(d->mem_used_max_b, dr->mem_used_b);
		if (!isnan(dr->mem_total_b))
			d->mem_total_b = dr->mem_total_b;
	}
	for (int i = 0; i < r->nproc; i++) {
		const struct cpw_gpu_proc_reading *pr = &r->proc[i];
		const struct cpw_proc *tp = t ? cpw_tree_find(t, pr->pid) : NULL;
		if (!tp || pr->dev < 0 || pr->dev >= g->ndev)
			continue;
		struct cpw_gpu_process *p = process(g, pr->pid, pr->dev, tp->comm);
		if (!p)
			continue;
		g->dev[pr->dev].held = true;
		snprintf(p->comm, sizeof(p->comm), "%s", tp->comm); /* the latest: after an exec */
		p->seen++;
		if (!isnan(pr->sm)) {
			p->sm_sum += pr->sm;
			p->sm_n++;
		}
		p->mem_max_b = nan_max(p->mem_max_b, pr->mem_b);
	}
}

double cpw_gpu_device_busy(const struct cpw_gpu_device *d)
{
	return d->busy_n ? d->busy_sum / d->busy_n : NAN;
}

double cpw_gpu_device_sm_active(const struct cpw_gpu_device *d)
{
	return d->gpm_n ? d->sm_active_sum / d->gpm_n : NAN;
}

double cpw_gpu_device_sm_occupancy(const struct cpw_gpu_device *d)
{
	return d->gpm_n ? d->sm_occupancy_sum / d->gpm_n : NAN;
}

double cpw_gpu_process_sm(const struct cpw_gpu_process *p)
{
	return p->sm_n ? p->sm_sum / p->sm_n : NAN;
}

/* The holder: the most SM share, else the most memory, else the first seen. */
static const struct cpw_gpu_process *holder(const struct cpw_gpu *g)
{
	const struct cpw_gpu_process *best = NULL;
	for (int i = 0; i < g->nproc; i++) {
		const struct cpw_gpu_process *p = &g->proc[i];
		double sm = cpw_gpu_process_sm(p);
		if (!best) {
			best = p;
			continue;
		}
		double bsm = cpw_gpu_process_sm(best);
		if ((!isnan(sm) && (isnan(bsm) || sm > bsm)) ||
		    (isnan(sm) && isnan(bsm) && !isnan(p->mem_max_b) &&
		     (isnan(best->mem_max_b) || p->mem_max_b > best->mem_max_b)))
			best = p;
	}
	return best;
}

/* The GPU drivers' user-space libraries: CUDA's (libcuda.so.1), ROCm's HSA runtime. */
static bool driver_file(const char *file)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	return base && (strncmp(base, "libcuda.so", 10) == 0 || strncmp(base, "libhsa-runtime", 14) == 0);
}

#define SPIN_TOP 256 /* functions looked at: the driver's spin is among the first */

/* Fewer on-CPU samples than this say nothing of where the host spins: a host asleep in a
 * blocking synchronize gave 2 samples on an H200, one in libcuda, "50%". */
#define SPIN_MIN_SAMPLES 20

static double driver_spin_share(const struct cpw_hotspots *h)
{
	struct cpw_hot_fn top[SPIN_TOP]; /* ~14 KiB, once a run */
	uint64_t all = h && !cpw_hotspots_unavailable(h) ? cpw_hotspots_samples(h) : 0;
	if (all < SPIN_MIN_SAMPLES)
		return NAN;
	size_t n = cpw_hotspots_top(h, top, SPIN_TOP);
	uint64_t in = 0;
	for (size_t i = 0; i < n; i++)
		if (driver_file(top[i].file))
			in += top[i].self;
	return (double)in / (double)all;
}

void cpw_gpu_metrics(const struct cpw_gpu *g, const struct cpw_tree *t, const struct cpw_hotspots *hs,
		     double wall_s, struct cpw_metrics *m)
{
	m->gpu_driver_spin_share = driver_spin_share(hs);
	double busy_sum = 0, mem_share = NAN;
	int busy_n = 0;
	m->gpu_devices_held = 0;
	for (int i = 0; i < g->ndev; i++) {
		const struct cpw_gpu_device *d = &g->dev[i];
		if (!d->held)
			continue;
		m->gpu_devices_held++;
		double b = cpw_gpu_device_busy(d);
		if (!isnan(b)) {
			busy_sum += b;
			busy_n++;
		}
		if (d->mem_total_b > 0)
			mem_share = nan_max(mem_share, d->mem_used_max_b / d->mem_total_b);
	}
	m->gpu_busy_share = busy_n ? busy_sum / busy_n : NAN;
	m->gpu_mem_share = mem_share;
	const struct cpw_waits *w = t ? cpw_tree_waits(t) : NULL;
	if (w && w->probed && wall_s > 0)
		m->gpu_wait_share = w->seconds[CPW_WAIT_GPU] / wall_s;
	const struct cpw_gpu_process *h = holder(g);
	if (!h)
		return;
	m->gpu_holder_pid = h->pid;
	snprintf(m->gpu_holder_comm, sizeof(m->gpu_holder_comm), "%s", h->comm);
	const struct cpw_proc *p = t ? cpw_tree_find(t, h->pid) : NULL;
	if (!p)
		return;
	snprintf(m->gpu_holder_comm, sizeof(m->gpu_holder_comm), "%s", p->comm);
	double end = isnan(p->exited_s) ? p->last_seen_s : p->exited_s;
	double life = end - p->first_seen_s;
	if (life > 0) {
		/* On a CPU or waiting for one (schedstat): a holder starved of CPUs by other
		 * load starves its GPU as surely as one that computes. */
		double want = p->oncpu_s > 0 ? p->oncpu_s + (p->runq_wait_s > 0 ? p->runq_wait_s : 0)
					     : p->user_s + p->sys_s;
		/* Thread-seconds over its life: its threads together can pass 1 (a real
		 * PyTorch run showed 109%); a share of its life is at most all of it. */
		m->gpu_holder_cpu_share = cpw_min(1.0, want / life);
		if (w && w->probed) {
			double net = 0;
			for (size_t i = 0; i < w->nprocs; i++)
				if (w->procs[i].pid == h->pid)
					net += w->procs[i].seconds[CPW_WAIT_NETWORK];
			/* Unix-domain sockets stay on the host: a DataLoader's workers hand their
			 * batches' file descriptors over them (its input pipeline, seen on an
			 * H200), not the communication between ranks (TCP, NCCL's sockets). */
			for (size_t i = 0; i < w->ntargets; i++)
				if (w->targets[i].pid == h->pid && w->targets[i].kind == CPW_WAIT_NETWORK &&
				    strncmp(w->targets[i].target, "unix ", 5) == 0)
					net -= w->targets[i].seconds;
			net = cpw_max(0.0, net);
			m->gpu_holder_net_wait_share = cpw_min(1.0, net / life);
		}
	}
}
