/*
 * procps.h: per-process figures through libproc2 (source/procps.c).
 *
 * libproc2 reads and parses /proc/PID/stat for a list of pids; what it lacks (per-thread
 * schedstat, context switches, io with an honest "unreadable") is read directly.
 */
#ifndef CPERFWATCH_PROCPS_H
#define CPERFWATCH_PROCPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpw_procps_row {
	pid_t pid;
	pid_t ppid;
	char state;
	char comm[64];
	uint64_t utime_ticks;
	uint64_t stime_ticks;
	uint64_t minflt;
	uint64_t majflt;
	uint64_t rss_kib;
	int nlwp;
	uint64_t starttime_ticks;
};

struct cpw_procps;

int cpw_procps_new(struct cpw_procps **out);
void cpw_procps_free(struct cpw_procps *p);
/* Reads the given pids; those that vanished are simply absent. Returns rows written (at
 * most max), or -errno. */
int cpw_procps_read(struct cpw_procps *p, const pid_t *pids, size_t npids,
		    struct cpw_procps_row *rows, size_t max);

#endif
