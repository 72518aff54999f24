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
#include <sys/types.h>

/* Whether the text of a /proc/PID/maps maps a file whose name starts "libcuda.so". Pure. */
bool cpw_cuda_users_maps_have_cuda(const char *maps, size_t len);

/* The processes among pids[0..n) that map libcuda.so (reading PROC_ROOT/PID/maps), into
 * out (at most out_max); their count. One that ended or cannot be read is not one. */
size_t cpw_cuda_users_find(const char *proc_root, const pid_t *pids, size_t n, pid_t *out, size_t out_max);

#endif
