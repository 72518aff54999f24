/*
 * proc_pid.h: one process's files read on their own, outside a sample of the tree
 * (proc_pid.c): its stat (a zombie before it is reaped), its start time (the target of
 * attach mode, at each sample) and the children of its main thread (run mode's roots: the
 * children of cperfwatch itself).
 */
#ifndef CPW_SOURCE_PROC_PROC_PID_H
#define CPW_SOURCE_PROC_PROC_PID_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/proc/proc_parse.h"

/* Reads and parses PROC_ROOT/PID/stat. Returns 0, or -errno (-ENOENT or -ESRCH: no such
 * process; -EINVAL: the file did not parse). */
int cpw_proc_pid_stat(const char *proc_root, pid_t pid, struct cpw_stat_fields *st);
/* The start time of pid (clock ticks after boot), from PROC_ROOT/PID/task/PID/stat: its
 * main thread's, the process's, without the sum over every thread that the process's
 * stat makes (a pool of 4,000 threads: 10 us, not 260). Returns 0, or -errno as
 * cpw_proc_pid_stat(). */
int cpw_proc_pid_start_ticks(const char *proc_root, pid_t pid, uint64_t *ticks);
/* The children of pid's main thread, from PROC_ROOT/PID/task/PID/children: for a
 * process whose threads start none (cperfwatch), all of its children. *fd is the file
 * kept open between calls: -1 at first, opened here, closed here on an error, else the
 * caller's to close. Returns the count (at most max), or -errno. */
int cpw_proc_pid_children(const char *proc_root, pid_t pid, int *fd, pid_t *out, size_t max);

#endif
