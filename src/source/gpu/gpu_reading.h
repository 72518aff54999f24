/*
 * gpu_reading.h: one reading of the GPUs, whichever source took it (NVML: nvml.c; the DRM
 * fdinfo of the tree's processes: drm_reader.c): per device, its busy share and memory;
 * per process on a device, its SM share and memory; where NVML's GPM is, the SMs' activity
 * and occupancy. NAN where a figure could not be read.
 */
#ifndef CPW_SOURCE_GPU_GPU_READING_H
#define CPW_SOURCE_GPU_GPU_READING_H

#include <stdbool.h>
#include <sys/types.h>

#define CPW_GPU_DEVICES_MAX 16
#define CPW_GPU_PROCS_MAX 128

struct cpw_gpu_device_reading {
	char name[64];       /* "NVIDIA H100 80GB HBM3", "amdgpu 0000:03:00.0"; raw text */
	double busy;         /* 0..1 of the last sample period; NAN */
	double mem_used_b;   /* NAN */
	double mem_total_b;  /* NAN */
	/* GPM (Hopper and later), between this reading and the last: the share of the SMs
	 * that ran a kernel (SM activity) and of their warp slots in use (occupancy); NAN
	 * where the device or driver has no GPM, and at the first reading. */
	double sm_active, sm_occupancy;
};

struct cpw_gpu_proc_reading {
	int dev;             /* index into dev[] */
	pid_t pid;           /* as the driver gives it (the host's pid namespace for NVML) */
	double sm;           /* 0..1 of the device's SMs (engines) it kept busy; NAN */
	double mem_b;        /* device memory it holds; NAN */
	bool invisible;      /* its PID is not in this /proc (the host's, seen from a container) */
};

struct cpw_gpu_reading {
	int ndev;
	struct cpw_gpu_device_reading dev[CPW_GPU_DEVICES_MAX];
	int nproc;
	struct cpw_gpu_proc_reading proc[CPW_GPU_PROCS_MAX];
	char note[160];      /* what could not be read this time and why; "" when all was */
	int invisible;       /* processes NVML listed by a PID this /proc does not have: NVML
			      * names the host's PIDs, and cperfwatch runs in a container */
};

#endif
