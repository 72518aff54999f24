/*
 * pfm_mounts.c: keeps libpfm4 from reading every kernel tracepoint when it starts.
 *
 * pfm_initialize() looks up debugfs in /proc/mounts and, where it is mounted (systemd
 * mounts it) and readable (root), turns each of the ~2,000 tracepoints under
 * tracing/events into an event: 30-60 ms of opendir and read on every start, for events
 * hardly anyone names. libpfm4 has no switch for it. libpfm4 is opened with dlopen
 * (pfm_load.c), and its calls to fopen bind to the fopen below, which the binary exports
 * for it (configure's CPW_PFM_EXPORT_FOPEN): it says "no /proc/mounts" while cperfwatch
 * asks it to and otherwise is the C library's fopen. perf.c initialises libpfm4 so, and
 * again with tracepoints when a name is not found or events are listed. In a program that
 * does not export it (the unit tests) libpfm4 finds the C library's and reads them.
 */
#include "config.h"
#include "source/perf/perf_private.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool hide_mounts;

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*next_fopen)(const char *, const char *);
	if (hide_mounts && path && strcmp(path, "/proc/mounts") == 0) {
		errno = ENOENT;
		return NULL;
	}
	if (!next_fopen)
		*(void **)&next_fopen = dlsym(RTLD_NEXT, "fopen");
	if (!next_fopen) {
		errno = ENOSYS;
		return NULL;
	}
	return next_fopen(path, mode);
}

bool cpw_perf_hide_tracepoints(bool hide)
{
	hide_mounts = hide;
#ifdef CPW_PFM_EXPORT_FOPEN
	return true;
#else
	return false;
#endif
}
