/*
 * cuda_users.h: which processes have the CUDA driver (libcuda.so) mapped
 * (source/gpu/cuda_users.c). Inside a container NVML names processes by the host's PIDs,
 * which this PID namespace does not have; where one process of the tree uses CUDA and NVML
 * lists one such PID on the device, they are the same process.
 */
#ifndef CPW_SOURCE_GPU_CUDA_USERS_H
#define CPW_SOURCE_GPU_CUDA_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether the text of a /proc/PID/maps maps a file whose name starts "libcuda.so". Pure. */
bool cpw_cuda_users_maps_have_cuda(const char *maps, size_t len);

/* The span of the executable mappings of libcuda.so in the text of a /proc/PID/maps (the
 * driver's code: a return address into it is a call into the driver); false when it maps
 * none. Pure. */
bool cpw_cuda_users_driver_text(const char *maps, size_t len, uint64_t *lo, uint64_t *hi);

/* The same read from PROC_ROOT/PID/maps; false when it maps none or cannot be read. */
bool cpw_cuda_users_read_driver_text(const char *proc_root, pid_t pid, uint64_t *lo, uint64_t *hi);

/* The processes among pids[0..n) that map libcuda.so (reading PROC_ROOT/PID/maps), into
 * out (at most out_max); their count. One that ended or cannot be read is not one. */
size_t cpw_cuda_users_find(const char *proc_root, const pid_t *pids, size_t n, pid_t *out, size_t out_max);

/* Those among pids[0..n) that have CUDA's event thread (a thread named cuda-EvtHandlr,
 * from PROC_ROOT/PID/task/TID/comm), into out (at most out_max); their count. The driver
 * starts it with the process's CUDA context, and fork does not copy threads: a forked
 * worker (a DataLoader's) maps libcuda.so as its parent does, but has no context. */
size_t cpw_cuda_users_with_event_thread(const char *proc_root, const pid_t *pids, size_t n, pid_t *out,
					size_t out_max);

#endif
