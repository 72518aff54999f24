/*
 * drm_reader.h: AMD and Intel GPUs through the DRM fdinfo of the watched processes'
 * descriptors on /dev/dri/ * (drm_fdinfo.h parses one file). A machine without /dev/dri
 * pays one stat, at cpw_drm_reader_new().
 */
#ifndef CPW_SOURCE_GPU_DRM_READER_H
#define CPW_SOURCE_GPU_DRM_READER_H

#include <stddef.h>
#include <sys/types.h>
#include "source/gpu/gpu_reading.h"

struct cpw_drm_reader;

/* NULL when the machine has no /dev/dri (dev_dri: "/dev/dri", tests point it elsewhere),
 * or out of memory. proc_root NULL is "/proc". */
struct cpw_drm_reader *cpw_drm_reader_new(const char *proc_root, const char *dev_dri);
/* Reads the DRM clients of pids at now_s (seconds, monotonic): a device per drm-pdev,
 * each client's busy share since the previous reading of it (NAN at the first), its
 * memory. Returns the number of devices seen. */
int cpw_drm_reader_read(struct cpw_drm_reader *r, const pid_t *pids, size_t n, double now_s,
		 struct cpw_gpu_reading *out);
void cpw_drm_reader_free(struct cpw_drm_reader *r);

#endif
