/*
 * vmstat.h: system-wide memory event counters from /proc/vmstat: workingset refaults (pages
 * read back in soon after eviction: the sign that the working set does not fit) and major
 * faults. The caller takes deltas between the run's start and end.
 */
#ifndef CPW_SOURCE_KERNEL_VMSTAT_H
#define CPW_SOURCE_KERNEL_VMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/kernel/kfile.h"

struct cpw_vmstat {
	bool has_refaults;      /* workingset_refault_anon/_file, or workingset_refault */
	uint64_t refault_anon;  /* 0 on kernels before 5.9, which have only the total */
	uint64_t refault_file;
	uint64_t refaults;      /* anon + file, or the old single counter */
	bool has_pgmajfault;
	uint64_t pgmajfault;
	char reason[160];       /* why a has_* is false; "" when all were found */
};

/* Pure parser of /proc/vmstat text (also fits cgroup v1/v2 memory.stat, which uses the same
 * workingset_refault_* names). Returns 0 when at least one counter was found, else -ENOENT. */
int cpw_vmstat_parse(const char *text, size_t len, struct cpw_vmstat *v);

/* Reads <proc_root>/vmstat, through held when not NULL (source/kernel/kfile.h). Returns 0, or -errno
 * with v->reason set. */
int cpw_vmstat_read(const char *proc_root, struct cpw_held_file *held, struct cpw_vmstat *v);

#endif
