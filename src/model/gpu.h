/*
 * gpu.h: the GPUs over the run (gpu.c): each device's busy share and memory over the
 * readings, and the tree's processes on them (their SM share and memory), folded from the
 * sources' readings (source/gpu/gpu_reading.h); and the classifier's part of the metrics.
 */
#ifndef CPW_MODEL_GPU_H
#define CPW_MODEL_GPU_H

#include <stdbool.h>
#include <sys/types.h>
#include "source/gpu/gpu_reading.h"

#define CPW_GPU_TREE_PROCS_MAX 64
#define CPW_GPU_NOTE_LEN 200

struct cpw_gpu_device {
	char name[64];        /* raw */
	unsigned busy_n;      /* readings with a busy share */
	double busy_sum;
	double busy_max;
	double mem_used_max_b; /* NAN */
	double mem_total_b;    /* NAN */
	bool held;            /* a process of the tree was seen on it */
	/* GPM: the readings with SM activity and occupancy, and their sums (Hopper and later). */
	unsigned gpm_n;
	double sm_active_sum, sm_occupancy_sum;
};

struct cpw_gpu_process {
	pid_t pid;
	char comm[32];        /* raw */
	int dev;
	unsigned seen;        /* readings it was on the device in */
	unsigned sm_n;
	double sm_sum;
	double mem_max_b;     /* NAN */
};

struct cpw_gpu {
	char source[8];       /* "nvml", "drm"; "" when no GPU could be read */
	char note[CPW_GPU_NOTE_LEN]; /* why none, or what could not be read; "" */
	unsigned readings;
	int ndev;
	struct cpw_gpu_device dev[CPW_GPU_DEVICES_MAX];
	int nproc;
	struct cpw_gpu_process proc[CPW_GPU_TREE_PROCS_MAX];
};

void cpw_gpu_init(struct cpw_gpu *g);
struct cpw_tree;
/* Folds one reading: every device; the processes of the tree t (others are not ours). */
void cpw_gpu_fold(struct cpw_gpu *g, const struct cpw_gpu_reading *r, const struct cpw_tree *t);
/* A device's mean busy share over the readings, NAN without any. */
double cpw_gpu_device_busy(const struct cpw_gpu_device *d);
/* The SMs' mean activity and occupancy over the readings that had them (GPM); NAN without. */
double cpw_gpu_device_sm_active(const struct cpw_gpu_device *d);
double cpw_gpu_device_sm_occupancy(const struct cpw_gpu_device *d);
/* The mean busy share, in reading r (folded into g), of the devices a process of the tree
 * has held so far; NAN where it holds none, or none was read. The timeline's GPU figure. */
double cpw_gpu_busy_held(const struct cpw_gpu *g, const struct cpw_gpu_reading *r);
/* A process's mean SM share over the readings that had one, NAN without any. */
double cpw_gpu_process_sm(const struct cpw_gpu_process *p);

struct cpw_metrics;
struct cpw_hotspots;
/* The gpu_* metrics of a run wall_s long: the held devices, their busy and memory shares,
 * the holder and its CPU and network waits, the tree's gpu waits (from t's waits), the
 * share of the on-CPU samples in the GPU driver's library (hs: NULL without hotspots). */
void cpw_gpu_metrics(const struct cpw_gpu *g, const struct cpw_tree *t, const struct cpw_hotspots *hs,
		     double wall_s, struct cpw_metrics *m);

#endif
