/*
 * nvml.h: NVIDIA GPUs through the driver's own library, libnvidia-ml.so.1, opened with
 * dlopen at the first reading (no build-time dependency: the few NVML types are declared
 * by hand in nvml.c, as nvtop and prmon do). A machine without it pays one failed dlopen.
 */
#ifndef CPW_SOURCE_GPU_NVML_H
#define CPW_SOURCE_GPU_NVML_H

#include <stddef.h>
#include "source/gpu/gpu_reading.h"

struct cpw_nvml;

/* Loads and initialises NVML: library where given (CPERFWATCH_NVML), else
 * libnvidia-ml.so.1 from the loader's path, looked for only where /dev has the NVIDIA
 * driver's control device (nvidiactl: a GPU machine, or a container given its GPUs) or
 * WSL's GPU device (dxg), without which NVML cannot reach a GPU. NULL with the reason in
 * why when there is none ("no NVIDIA ..."), the library is absent, a function every
 * reading needs is missing, or nvmlInit fails. proc_root (NULL: "/proc") tells the PIDs NVML lists that
 * this PID namespace has (out->invisible). */
struct cpw_nvml *cpw_nvml_open(const char *proc_root, const char *library, char *why, size_t len);
/* Reads every device, and the processes on each (their SM share since the last reading,
 * from nvmlDeviceGetProcessUtilization; their memory from the compute-process list, _v3,
 * else _v2, else the first version). What could not be read is NAN, with the reason in
 * out->note. Returns the number of devices, or -1 when none could be counted. */
int cpw_nvml_read(struct cpw_nvml *n, struct cpw_gpu_reading *out);
/* What the library offers beyond the essentials, for a note: "" when all of it. */
const char *cpw_nvml_missing(const struct cpw_nvml *n);
void cpw_nvml_close(struct cpw_nvml *n);

#endif
