/*
 * drm_reader.c: the DRM clients of the watched processes. For each process, the links of
 * /proc/PID/fd that name /dev/dri/ * (at most FDS_MAX descriptors a process), their fdinfo
 * parsed; one client counts once however many descriptors share it (drm-client-id). Busy
 * shares come from the client's previous reading.
 */
#include "config.h"
#include "source/gpu/drm_reader.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/gpu/drm_fdinfo.h"
#include "source/kernel/kfile.h"

#define FDS_MAX 1024
#define CLIENTS_MAX 256

struct client {
	pid_t pid;
	double at_s;
	struct cpw_drm_client c;
};

struct cpw_drm_reader {
	char proc_root[256];
	struct client *prev, *cur;
	size_t nprev, ncur;
};

struct cpw_drm_reader *cpw_drm_reader_new(const char *proc_root, const char *dev_dri)
{
	struct stat st;
	if (stat(dev_dri ? dev_dri : "/dev/dri", &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	struct cpw_drm_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->prev = calloc(CLIENTS_MAX, sizeof(*r->prev));
	r->cur = calloc(CLIENTS_MAX, sizeof(*r->cur));
	if (!r->prev || !r->cur) {
		cpw_drm_reader_free(r);
		return NULL;
	}
	snprintf(r->proc_root, sizeof(r->proc_root), "%s", proc_root ? proc_root : "/proc");
	return r;
}

void cpw_drm_reader_free(struct cpw_drm_reader *r)
{
	if (!r)
		return;
	free(r->prev);
	free(r->cur);
	free(r);
}

static bool seen(const struct cpw_drm_reader *r, pid_t pid, const struct cpw_drm_client *c)
{
	for (size_t i = 0; i < r->ncur; i++)
		if (r->cur[i].pid == pid && r->cur[i].c.has_client_id && c->has_client_id &&
		    r->cur[i].c.client_id == c->client_id && strcmp(r->cur[i].c.pdev, c->pdev) == 0)
			return true;
	return false;
}

static void read_pid(struct cpw_drm_reader *r, pid_t pid, double now_s)
{
	char path[320], link[64], text[4096];
	snprintf(path, sizeof(path), "%s/%d/fd", r->proc_root, (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	int fds = 0;
	while ((e = readdir(d)) != NULL && fds < FDS_MAX && r->ncur < CLIENTS_MAX) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fds++;
		snprintf(path, sizeof(path), "%s/%d/fd/%s", r->proc_root, (int)pid, e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n < 9 || memcmp(link, "/dev/dri/", 9) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%d/fdinfo/%s", r->proc_root, (int)pid, e->d_name);
		n = cpw_kfile_read(path, text, sizeof(text));
		struct client *c = &r->cur[r->ncur];
		if (n <= 0 || cpw_drm_fdinfo_parse(text, (size_t)n, &c->c) != 0 || seen(r, pid, &c->c))
			continue;
		c->pid = pid;
		c->at_s = now_s;
		r->ncur++;
	}
	closedir(d);
}

static int device(struct cpw_gpu_reading *out, const struct cpw_drm_client *c)
{
	char name[64];
	snprintf(name, sizeof(name), "%s %s", c->driver, c->pdev[0] ? c->pdev : "(no pdev)");
	for (int i = 0; i < out->ndev; i++)
		if (strcmp(out->dev[i].name, name) == 0)
			return i;
	if (out->ndev == CPW_GPU_DEVICES_MAX)
		return -1;
	struct cpw_gpu_device_reading *d = &out->dev[out->ndev];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->busy = NAN;
	d->mem_used_b = NAN;
	d->mem_total_b = NAN; /* fdinfo says what clients hold, not what the device has */
	d->sm_active = d->sm_occupancy = NAN; /* GPM is NVIDIA's */
	return out->ndev++;
}

static const struct client *previous(const struct cpw_drm_reader *r, const struct client *c)
{
	for (size_t i = 0; i < r->nprev; i++)
		if (r->prev[i].pid == c->pid && r->prev[i].c.client_id == c->c.client_id &&
		    strcmp(r->prev[i].c.pdev, c->c.pdev) == 0)
			return &r->prev[i];
	return NULL;
}

static double add(double sum, double v)
{
	return isnan(v) ? sum : isnan(sum) ? v : sum + v;
}

int cpw_drm_reader_read(struct cpw_drm_reader *r, const pid_t *pids, size_t n, double now_s,
		 struct cpw_gpu_reading *out)
{
	out->ndev = 0;
	out->nproc = 0;
	out->note[0] = '\0';
	r->ncur = 0;
	for (size_t i = 0; i < n; i++)
		read_pid(r, pids[i], now_s);
	for (size_t i = 0; i < r->ncur; i++) {
		const struct client *c = &r->cur[i];
		int dev = device(out, &c->c);
		if (dev < 0)
			continue;
		const struct client *p = previous(r, c);
		double busy = p ? cpw_drm_fdinfo_busy_share(&p->c, &c->c, now_s - p->at_s) : NAN;
		double mem = c->c.has_memory ? (double)c->c.memory_bytes : NAN;
		struct cpw_gpu_device_reading *d = &out->dev[dev];
		d->busy = add(d->busy, busy);
		if (d->busy > 1)
			d->busy = 1;
		d->mem_used_b = add(d->mem_used_b, mem);
		struct cpw_gpu_proc_reading *pr = NULL;
		for (int k = 0; k < out->nproc && !pr; k++)
			if (out->proc[k].pid == c->pid && out->proc[k].dev == dev)
				pr = &out->proc[k];
		if (!pr && out->nproc < CPW_GPU_PROCS_MAX) {
			pr = &out->proc[out->nproc++];
			pr->pid = c->pid;
			pr->dev = dev;
			pr->sm = NAN;
			pr->mem_b = NAN;
		}
		if (pr) {
			pr->sm = add(pr->sm, busy);
			if (pr->sm > 1)
				pr->sm = 1;
			pr->mem_b = add(pr->mem_b, mem);
		}
	}
	struct client *t = r->prev;
	r->prev = r->cur;
	r->cur = t;
	r->nprev = r->ncur;
	return out->ndev;
}
