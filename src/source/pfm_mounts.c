/*
 * pfm_mounts.c: keeps libpfm4 from reading every kernel tracepoint when it starts.
 *
 * pfm_initialize() looks up debugfs in /proc/mounts and, where it is mounted (systemd
 * mounts it) and readable (root), turns each of the ~2,000 tracepoints under
 * tracing/events into an event: 30-60 ms of opendir and read on every start, for events
 * hardly anyone names. libpfm4 has no switch for it, so where it is linked statically
 * (configure's CPW_PFM_WRAP_FOPEN) its fopen is linked through --wrap=fopen to the function
 * below, which says "no /proc/mounts" while cperfwatch asks it to. perf.c initialises
 * libpfm4 so, and again with tracepoints when a name is not found or events are listed.
 * With a shared libpfm4 nothing can be hidden and tracepoints are always read.
 */
#include "config.h"
#include "cperfwatch/perf_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef CPW_PFM_WRAP_FOPEN
static bool hide_mounts;

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);

FILE *__wrap_fopen(const char *path, const char *mode)
{
	if (hide_mounts && path && strcmp(path, "/proc/mounts") == 0) {
		errno = ENOENT;
		return NULL;
	}
	return __real_fopen(path, mode);
}

bool cpw_pfm_hide_tracepoints(bool hide)
{
	hide_mounts = hide;
	return true;
}
#else
bool cpw_pfm_hide_tracepoints(bool hide)
{
	(void)hide;
	return false;
}
#endif
