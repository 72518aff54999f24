/*
 * gpu_report.h: the GPU section of the reports (gpu_report.c): each device (busy share
 * over the run, its peak, memory used of total) and the tree's processes on it (SM share,
 * memory); the JSON object under "gpu" {source, devices, processes}; the OpenMetrics
 * families cperfwatch_gpu_*.
 */
#ifndef CPW_REPORT_GPU_REPORT_H
#define CPW_REPORT_GPU_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "model/gpu.h"
#include "report/exposition.h"

/* Writes the section, heading included; nothing for g == NULL. */
void cpw_gpu_report_write_text(const struct cpw_gpu *g, FILE *out);
/* {source, readings, devices: [{index, name, busy_share, busy_max, memory_used_bytes,
 *  memory_total_bytes, held}], processes: [{pid, comm, device, sm_share, memory_bytes}]};
 * NULL where json-c runs out of memory. New reference. */
struct json_object *cpw_gpu_report_to_json(const struct cpw_gpu *g);
/* cperfwatch_gpu_busy_ratio, cperfwatch_gpu_memory_used_bytes,
 * cperfwatch_gpu_memory_total_bytes per device; cperfwatch_gpu_process_sm_ratio per
 * process. Nothing for g == NULL. */
void cpw_gpu_report_write_exposition(const struct cpw_gpu *g, struct cpw_expo *e);

#endif
