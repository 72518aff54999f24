/*
 * procps.h: who a process is, through libproc2 (source/proc/procps.c).
 *
 * When a process first appears in the tree, libproc2 tells its parent, start time, command
 * name and the user it runs as (libproc2 keeps the uid-to-name cache). The figures that
 * change are then read on every sample directly, through descriptors kept open (proc_reader.c):
 * a select through libproc2 re-opens and re-parses several files per process, which would
 * cost more than top itself on large trees.
 */
#ifndef CPW_SOURCE_PROC_PROCPS_H
#define CPW_SOURCE_PROC_PROCPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpw_procps_identity {
	pid_t pid;
	pid_t ppid;
	uint64_t starttime_ticks;
	char comm[64];
	char user[32];
};

struct cpw_procps;

/* Opens libproc2 on the first call (dlopen, see procps.c). On failure returns -errno and
 * says why in why. */
int cpw_procps_new(struct cpw_procps **out, char *why, size_t whylen);
/* For tests: the library to open instead of libproc2's soname (NULL: back to it). Takes
 * effect at the next cpw_procps_new. */
void cpw_procps_use_library(const char *soname);
void cpw_procps_free(struct cpw_procps *p);
/* Identifies the given pids; those that vanished are simply absent. Returns rows written
 * (at most max), or -errno. */
int cpw_procps_identify(struct cpw_procps *p, const pid_t *pids, size_t npids,
			struct cpw_procps_identity *rows, size_t max);

#endif
