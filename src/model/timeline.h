/*
 * timeline.h: the run's time series at bounded memory (model/timeline.c).
 *
 * One point per sample holds the tree's figures over that interval: sums (CPU seconds,
 * run-queue wait, thread-samples by state, storage bytes, faults, pressure stall seconds)
 * and the highest tree memory. The series has a fixed capacity: when it is full, neighbours
 * are merged pairwise (sums added, durations added, memory the larger), and from then on
 * each point takes twice as many samples. Every sum over the whole series stays exact, and
 * a 10-hour run at 0.1 s takes the same memory as a 10-second one.
 *
 * Each point also names the few processes that did most of its work (CPU seconds and
 * storage bytes), so that a phase can name its main process.
 */
#ifndef CPW_MODEL_TIMELINE_H
#define CPW_MODEL_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/waits/wait_kind.h"

#define CPW_TIMELINE_CAPACITY 512 /* points; an even number (pairs merge) */
#define CPW_TIMELINE_TOP 4        /* processes named per point */

struct cpw_tree;

/* Thread states, as the tree counts them (model/tree.h); room for wait kinds later. */
enum cpw_tl_state {
	CPW_TL_RUNNING,   /* R: running or runnable */
	CPW_TL_DISK_WAIT, /* D on storage (or an unknown channel) */
	CPW_TL_D_OTHER,   /* D on something that is not storage */
	CPW_TL_SLEEPING,  /* S, I */
	CPW_TL_OTHER,     /* T, t, Z, X ... */
	CPW_TL_STATE_COUNT
};

/* One process's part of a point. pid 0: an empty slot. */
struct cpw_tl_proc {
	int pid;
	char comm[16];    /* as the kernel gave it: escape to print */
	double cpu_s;     /* user + system seconds in the point */
	double io_bytes;  /* storage bytes read + written in the point (0 when unknown) */
	double wait_s;    /* seconds of the point it waited on something not its children */
};

struct cpw_tl_point {
	double start_s;   /* seconds since the watch began */
	double dt_s;      /* wall seconds covered */
	uint64_t samples; /* sampling ticks merged into it */
	double user_s, sys_s;   /* the tree's CPU seconds (deltas) */
	double oncpu_s, runq_s; /* schedstat on-CPU and run-queue wait seconds (deltas) */
	uint64_t states[CPW_TL_STATE_COUNT]; /* thread-samples in each state */
	double rss_kib_max;     /* the tree's RSS sum, highest at a sample in the point */
	double read_bytes, write_bytes; /* storage bytes (deltas); NAN when unreadable */
	uint64_t majflt, minflt;        /* faults (deltas) */
	/* Pressure stall seconds ("some") in the point; NAN where the session has none. */
	double psi_cpu_s, psi_io_s, psi_mem_s;
	bool psi_from_cgroup;   /* from the command's cgroup (for every point merged into it) */
	double wait_s[CPW_WAIT_KIND_COUNT]; /* thread-seconds waiting, per kind (the wait analysis;
				 * deltas): what a waiting phase waits on */
	/* The GPUs the tree holds: seconds of the point a GPU reading covered, and of those the
	 * seconds they were busy (the latest reading's busy share, NVML's or fdinfo's, read at
	 * most once a second); 0 and 0 where the tree holds none. */
	double gpu_s, gpu_busy_s;
	struct cpw_tl_proc top[CPW_TIMELINE_TOP]; /* largest part first */
};

/* Pressure over one sample's interval, in stall seconds; NAN where unknown. */
struct cpw_tl_pressure {
	double cpu_some_s, io_some_s, mem_some_s;
	bool from_cgroup; /* the command's cgroup's pressure files, else the system's */
};

struct cpw_timeline;

/* NULL when out of memory. */
struct cpw_timeline *cpw_timeline_new(void);
void cpw_timeline_free(struct cpw_timeline *tl);

/* Records the sample the tree just took at now_s (seconds since the watch began): the
 * deltas of its cumulative figures since the previous call. psi may be NULL (NAN). */
void cpw_timeline_record(struct cpw_timeline *tl, const struct cpw_tree *t, double now_s,
			 const struct cpw_tl_pressure *psi);

/* The busy share of the GPUs the tree holds, as the latest reading gave it (NAN: none
 * held, or not read): the next records carry it until it changes. The first share known
 * also fills the points of the second before it (NVML's share covers up to a second back). */
void cpw_timeline_set_gpu(struct cpw_timeline *tl, double busy_share);

/* Appends one sample's point as it is (tests, recorded series): merged into the last point
 * while that one has fewer samples than the stride, else a new point. */
void cpw_timeline_add(struct cpw_timeline *tl, const struct cpw_tl_point *p);

/* The last sample cpw_timeline_record() took, as its own point (one sample, whatever the
 * series has merged it into: --series writes it); NULL before the first. */
const struct cpw_tl_point *cpw_timeline_last_sample(const struct cpw_timeline *tl);

size_t cpw_timeline_count(const struct cpw_timeline *tl);
/* Point i, oldest first; NULL past the end. The points are one array: point 0's address
 * reads them all. */
const struct cpw_tl_point *cpw_timeline_point(const struct cpw_timeline *tl, size_t i);
/* Samples per point since the last compaction (1, 2, 4, ...). */
uint64_t cpw_timeline_stride(const struct cpw_timeline *tl);

/* An empty point: zero sums, NAN bytes and pressure, no processes. */
void cpw_timeline_point_init(struct cpw_tl_point *p, double start_s);
/* Adds next (the point that follows) into into: sums added, durations joined, memory the
 * larger, processes merged by pid and the largest kept. */
void cpw_timeline_point_merge(struct cpw_tl_point *into, const struct cpw_tl_point *next);
/* Threads seen in the point, summed over its samples. */
uint64_t cpw_timeline_point_thread_samples(const struct cpw_tl_point *p);

/* The column c (of ncols) of the series: points c*n/ncols up to (c+1)*n/ncols merged.
 * Used by the text timeline, the SVG plot and the live view. */
void cpw_timeline_column(const struct cpw_timeline *tl, size_t c, size_t ncols, struct cpw_tl_point *out);

#endif
