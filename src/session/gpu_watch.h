/*
 * gpu_watch.h: the session's GPUs (gpu_watch.c): the sources opened at the first sample
 * (NVML, else the DRM fdinfo where /dev/dri exists), read at most once a second, folded
 * into the model (model/gpu.h), and at the end the gpu_* metrics and the notes.
 */
#ifndef CPW_SESSION_GPU_WATCH_H
#define CPW_SESSION_GPU_WATCH_H

#include <stdbool.h>

struct cpw_gpu_watch;
struct cpw_tree;
struct cpw_report;
struct cpw_hotspots;
struct cpw_metrics;

/* Opens nothing yet. NULL when out of memory (then no GPU is read). proc_root and
 * nvml_library (CPERFWATCH_NVML; NULL: libnvidia-ml.so.1): the config's, kept. */
struct cpw_gpu_watch *cpw_gpu_watch_new(const char *proc_root, const char *nvml_library);
/* At most once a second: reads the GPUs and folds the reading; the first call 0.5 s or more
 * into the watch opens the sources (a machine without a GPU pays three stats, once: no
 * NVIDIA device node, no /dev/dri; a shorter command nothing). */
void cpw_gpu_watch_step(struct cpw_gpu_watch *w, const struct cpw_tree *t, double now_s);
/* The busy share of the GPUs the tree holds at the latest reading (cpw_gpu_busy_held);
 * NAN before one, where it holds none, or without a watch. */
double cpw_gpu_watch_busy_now(const struct cpw_gpu_watch *w);
/* The memory used and total of the devices the tree holds, at the latest reading; false
 * where it holds none (the live view's header). */
bool cpw_gpu_watch_memory_now(const struct cpw_gpu_watch *w, double *used_b, double *total_b);
/* The gpu_* metrics so far into m (the live view's verdict, as the report's will be);
 * nothing where no GPU was read. */
void cpw_gpu_watch_metrics(const struct cpw_gpu_watch *w, const struct cpw_tree *t,
			   const struct cpw_hotspots *hs, double wall_s, struct cpw_metrics *m);
/* The report's GPU section (r->gpu, NULL where no GPU was read), the gpu_* metrics of
 * r->metrics, and a note where a GPU library was found but could not be read. */
void cpw_gpu_watch_finish(struct cpw_gpu_watch *w, const struct cpw_tree *t, struct cpw_report *r);
void cpw_gpu_watch_free(struct cpw_gpu_watch *w);

#endif
