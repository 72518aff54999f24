/*
 * gpu_verdict.h: the GPU's part of the verdict (gpu_verdict.c), applied after the
 * classifier: gpu-bound where a tree process holds a device that is busy most of the run
 * while the host waits on it; findings where the held device idles (starved by its input
 * pipeline, by the host, waiting on communication) and where its memory is nearly full.
 */
#ifndef CPW_CLASSIFY_GPU_VERDICT_H
#define CPW_CLASSIFY_GPU_VERDICT_H

#include "classify/verdict.h"
#include "model/metrics.h"

/* Pure; does nothing where the tree held no GPU (m->gpu_devices_held == 0). */
void cpw_gpu_verdict_apply(const struct cpw_metrics *m, struct cpw_verdict *v);

#endif
