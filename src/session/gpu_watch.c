/*
 * gpu_watch.c: the session's GPUs. NVML first (it sees every process on an NVIDIA
 * device); without it, the DRM fdinfo of the tree's processes. Readings at most once a
 * second: NVML's own sampling period is 1/6 s to 1 s, and a reading costs a few ms.
 */
#include "config.h"
#include "session/gpu_watch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "model/tree.h"
#include "report/report.h"
#include "source/gpu/cuda_users.h"
#include "source/gpu/drm_reader.h"
#include "source/gpu/nvml.h"

#define GPU_PERIOD_S 1.0
/* The sources open at the first sample this long into the watch, as the hotspots arm: a
 * shorter command (a CUDA context alone takes longer to make) pays nothing, not even the
 * failed dlopen (~0.2 ms, the first of a process). */
#define GPU_FIRST_S 0.5
#define DRM_PIDS_MAX 256

struct cpw_gpu_watch {
	const char *proc_root;    /* the config's; NULL: the default */
	const char *nvml_library; /* the config's (CPERFWATCH_NVML); NULL: the default */
	bool opened;
	struct cpw_nvml *nvml;
	struct cpw_drm_reader *drm;
	char why[160];            /* why NVML could not be used, where the library is there */
	double next_s;
	struct cpw_gpu model;
	struct cpw_gpu_reading reading;
	unsigned failed;          /* readings that read no device */
	int invisible;            /* the most processes NVML listed by PIDs not seen here */
	pid_t host_pid, tree_pid; /* a host's PID NVML gives, paired with the tree's process */
	double busy_now;          /* cpw_gpu_watch_busy_now() */
	double mem_used_now, mem_total_now; /* cpw_gpu_watch_memory_now(); NAN: none held */
};

struct cpw_gpu_watch *cpw_gpu_watch_new(const char *proc_root, const char *nvml_library)
{
	struct cpw_gpu_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->proc_root = proc_root;
	w->nvml_library = nvml_library;
	cpw_gpu_init(&w->model);
	w->next_s = -INFINITY;
	w->busy_now = w->mem_used_now = w->mem_total_now = NAN;
	return w;
}

static void open_sources(struct cpw_gpu_watch *w)
{
	w->opened = true;
	char why[160] = "";
	w->nvml = cpw_nvml_open(w->proc_root, w->nvml_library, why, sizeof(why));
	if (w->nvml) {
		snprintf(w->model.source, sizeof(w->model.source), "nvml");
		if (cpw_nvml_missing(w->nvml)[0])
			snprintf(w->model.note, sizeof(w->model.note), "GPU: %s", cpw_nvml_missing(w->nvml));
		return;
	}
	/* The library there but unusable is worth a note; absent, it is a machine without
	 * an NVIDIA GPU, and says nothing. */
	if (strncmp(why, "no NVIDIA", 9) != 0)
		snprintf(w->why, sizeof(w->why), "%s", why);
	w->drm = cpw_drm_reader_new(w->proc_root, NULL);
	if (w->drm)
		snprintf(w->model.source, sizeof(w->model.source), "drm");
}

/* The tree's live processes, DRM_PIDS_MAX at most: whose descriptors or maps are read. */
static size_t alive_pids(const struct cpw_tree *t, pid_t pids[DRM_PIDS_MAX])
{
	size_t np = 0;

	for (size_t i = 0; i < cpw_tree_size(t) && np < DRM_PIDS_MAX; i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		if (p->alive)
			pids[np++] = p->pid;
	}
	return np;
}

/* Inside a container NVML names the host's PIDs. Where it lists one PID this namespace
 * does not have, and one process of the tree maps the CUDA driver (or, of several that do,
 * one has a CUDA context), they are one process:
 * its entries take the tree's PID (asked again only when the host's PID changes). */
static void pair_container_pid(struct cpw_gpu_watch *w, const struct cpw_tree *t)
{
	struct cpw_gpu_reading *r = &w->reading;
	pid_t host = 0;

	for (int i = 0; i < r->nproc; i++) {
		if (!r->proc[i].invisible) {
			if (cpw_tree_find(t, r->proc[i].pid))
				return; /* the tree's own PIDs are there: not a container (the other
					 * one is a process that ended since NVML listed it) */
			continue;
		}
		if (host && r->proc[i].pid != host)
			return; /* two: which is ours cannot be told */
		host = r->proc[i].pid;
	}
	if (!host)
		return;
	if (host != w->host_pid) {
		pid_t pids[DRM_PIDS_MAX], users[DRM_PIDS_MAX], ctx[2];
		size_t np = alive_pids(t, pids);
		size_t nu = cpw_cuda_users_find(w->proc_root, pids, np, users, DRM_PIDS_MAX);
		/* Several (a DataLoader's forked workers map the driver as their parent does):
		 * the one with a CUDA context, told by the driver's event thread. */
		if (nu > 1 && cpw_cuda_users_with_event_thread(w->proc_root, users, nu, ctx, 2) == 1) {
			users[0] = ctx[0];
			nu = 1;
		}
		if (nu != 1)
			return;
		w->host_pid = host;
		w->tree_pid = users[0];
	}
	for (int i = 0; i < r->nproc; i++)
		if (r->proc[i].pid == host) {
			r->proc[i].pid = w->tree_pid;
			r->proc[i].invisible = false;
		}
}

void cpw_gpu_watch_step(struct cpw_gpu_watch *w, const struct cpw_tree *t, double now_s)
{
	if (!w || now_s < w->next_s || (!w->opened && now_s < GPU_FIRST_S))
		return;
	w->next_s = now_s + GPU_PERIOD_S;
	if (!w->opened)
		open_sources(w);
	int n = -1;
	if (w->nvml)
		n = cpw_nvml_read(w->nvml, &w->reading);
	else if (w->drm) {
		pid_t pids[DRM_PIDS_MAX];
		size_t np = alive_pids(t, pids);
		n = cpw_drm_reader_read(w->drm, pids, np, now_s, &w->reading);
	} else
		return;
	if (w->reading.note[0] && !w->model.note[0])
		snprintf(w->model.note, sizeof(w->model.note), "GPU: %s", w->reading.note);
	if (n < 0) {
		w->failed++;
		return;
	}
	if (w->nvml && w->reading.invisible > 0 && t)
		pair_container_pid(w, t);
	cpw_gpu_fold(&w->model, &w->reading, t);
	if (w->reading.invisible > w->invisible)
		w->invisible = w->reading.invisible;
	w->busy_now = cpw_gpu_busy_held(&w->model, &w->reading);
	double used = 0, total = 0;
	bool held = false;
	for (int i = 0; i < w->reading.ndev && i < w->model.ndev; i++)
		if (w->model.dev[i].held && !isnan(w->reading.dev[i].mem_used_b) &&
		    !isnan(w->reading.dev[i].mem_total_b)) {
			used += w->reading.dev[i].mem_used_b;
			total += w->reading.dev[i].mem_total_b;
			held = true;
		}
	w->mem_used_now = held ? used : NAN;
	w->mem_total_now = held ? total : NAN;
}

bool cpw_gpu_watch_memory_now(const struct cpw_gpu_watch *w, double *used_b, double *total_b)
{
	if (!w || isnan(w->mem_used_now))
		return false;
	*used_b = w->mem_used_now;
	*total_b = w->mem_total_now;
	return true;
}

/* Read at all, and some device there to report (DRM: only where a client of the tree). */
static bool any_gpu(const struct cpw_gpu_watch *w)
{
	return w->model.source[0] && w->model.readings > 0 &&
	       (w->nvml ? w->model.ndev > 0 : w->model.nproc > 0);
}

void cpw_gpu_watch_metrics(const struct cpw_gpu_watch *w, const struct cpw_tree *t,
			   const struct cpw_hotspots *hs, double wall_s, struct cpw_metrics *m)
{
	if (w && any_gpu(w))
		cpw_gpu_metrics(&w->model, t, hs, wall_s, m);
}

double cpw_gpu_watch_busy_now(const struct cpw_gpu_watch *w)
{
	return w ? w->busy_now : NAN;
}

void cpw_gpu_watch_finish(struct cpw_gpu_watch *w, const struct cpw_tree *t, struct cpw_report *r)
{
	if (!w)
		return;
	if (w->why[0])
		cpw_report_note(r, "GPU: not read: %s", w->why);
	if (w->model.note[0])
		cpw_report_note(r, "%s", w->model.note);
	if (w->failed && w->model.readings == 0 && w->model.source[0])
		cpw_report_note(r, "GPU: no reading succeeded (%u tried)", w->failed);
	bool held = false;
	for (int i = 0; i < w->model.ndev; i++)
		held = held || w->model.dev[i].held;
	if (w->tree_pid) {
		const struct cpw_proc *p = cpw_tree_find(t, w->tree_pid);
		cpw_report_note(r, "GPU: NVML's PID %d (the host's: cperfwatch runs in a container) is taken "
				"for pid %d (%s), the one process of the tree that maps the CUDA driver",
				(int)w->host_pid, (int)w->tree_pid, p ? p->comm : "?");
	}
	if (w->invisible > 0 && !held)
		cpw_report_note(r, "GPU: NVML listed %d process(es) by PIDs this PID namespace does not have "
				"(cperfwatch runs in a container: NVML names the host's PIDs); which of them "
				"are the tree's cannot be told here, so no GPU verdict is made and the "
				"devices' figures are the whole devices'", w->invisible);
	/* DRM without a client of the tree is no GPU of this run. */
	r->gpu = any_gpu(w) ? &w->model : NULL;
	cpw_gpu_watch_metrics(w, t, r->hotspots, r->metrics.wall_s, &r->metrics);
}

void cpw_gpu_watch_free(struct cpw_gpu_watch *w)
{
	if (!w)
		return;
	cpw_nvml_close(w->nvml);
	cpw_drm_reader_free(w->drm);
	free(w);
}
