/*
 * procps.c: the identity of new processes through libproc2 (procps.h).
 *
 * libproc2 is opened with dlopen on first use rather than linked: with libsystemd and the
 * compression and crypto libraries it pulls in, loading it costs about a millisecond, which
 * a command that ends before its first sample never needs, and which run mode otherwise
 * pays before the command can start.
 */
#include "config.h"
#include "source/proc/procps.h"

#include <dlfcn.h>
#include <errno.h>
#include <libproc2/pids.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The order of items is the index PIDS_VAL takes. */
enum item_index { I_PID, I_PPID, I_BEGAN, I_CMD, I_EUSER };
static enum pids_item items[] = {
	PIDS_ID_PID, PIDS_ID_PPID, PIDS_TICS_BEGAN, PIDS_CMD, PIDS_ID_EUSER,
};

/* libproc2 selects at most this many pids per call (FILL_ID_MAX in its pids.c). */
#define SELECT_CHUNK 255

struct cpw_procps {
	struct pids_info *info;
};

/* The three functions used, typed from libproc2's own declarations. */
static struct {
	__typeof__(procps_pids_new) *pids_new;
	__typeof__(procps_pids_unref) *pids_unref;
	__typeof__(procps_pids_select) *pids_select;
} proc2;

static const char *library = PROC2_SONAME;
static int load_state;            /* 0 not tried, 1 loaded, -errno failed */
static char load_error[200];      /* why it failed, for every later caller */

void cpw_procps_use_library(const char *soname)
{
	library = soname ? soname : PROC2_SONAME;
	load_state = 0;
}

/* Opens libproc2 once for the process's lifetime; 0, or -errno with load_error set. */
static int load_libproc2(void)
{
	if (load_state != 0)
		return load_state < 0 ? load_state : 0;
	void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(load_error, sizeof(load_error), "%s", dlerror());
		load_state = -ENOENT;
		return load_state;
	}
	*(void **)&proc2.pids_new = dlsym(lib, "procps_pids_new");
	*(void **)&proc2.pids_unref = dlsym(lib, "procps_pids_unref");
	*(void **)&proc2.pids_select = dlsym(lib, "procps_pids_select");
	if (!proc2.pids_new || !proc2.pids_unref || !proc2.pids_select) {
		snprintf(load_error, sizeof(load_error), "%s lacks the procps_pids_* functions", library);
		dlclose(lib);
		load_state = -ENOSYS;
		return load_state;
	}
	load_state = 1;
	return 0;
}

int cpw_procps_new(struct cpw_procps **out, char *why, size_t whylen)
{
	int rc = load_libproc2();
	if (rc < 0) {
		snprintf(why, whylen, "libproc2 could not be opened: %s", load_error);
		return rc;
	}
	struct cpw_procps *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	rc = proc2.pids_new(&p->info, items, (int)(sizeof(items) / sizeof(items[0])));
	if (rc < 0) {
		snprintf(why, whylen, "libproc2 failed to start: %s", strerror(-rc));
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void cpw_procps_free(struct cpw_procps *p)
{
	if (!p)
		return;
	proc2.pids_unref(&p->info);
	free(p);
}

int cpw_procps_identify(struct cpw_procps *p, const pid_t *pids, size_t npids,
			struct cpw_procps_identity *rows, size_t max)
{
	size_t n = 0;
	unsigned chunk[SELECT_CHUNK];

	for (size_t start = 0; start < npids && n < max; start += SELECT_CHUNK) {
		size_t count = npids - start < SELECT_CHUNK ? npids - start : SELECT_CHUNK;
		// cppcheck-suppress knownConditionTrueFalse ; count >= 1 inside the loop
		for (size_t i = 0; i < count; i++)
			chunk[i] = (unsigned)pids[start + i];
		struct pids_fetch *fetch =
			proc2.pids_select(p->info, chunk, (int)count, PIDS_SELECT_PID);
		if (!fetch)
			return errno ? -errno : -EIO;
		for (int i = 0; i < fetch->counts->total && n < max; i++) {
			struct pids_stack *s = fetch->stacks[i];
			struct cpw_procps_identity *r = &rows[n++];
			const char *cmd = PIDS_VAL(I_CMD, str, s, p->info);
			const char *user = PIDS_VAL(I_EUSER, str, s, p->info);
			r->pid = PIDS_VAL(I_PID, s_int, s, p->info);
			r->ppid = PIDS_VAL(I_PPID, s_int, s, p->info);
			r->starttime_ticks = PIDS_VAL(I_BEGAN, ull_int, s, p->info);
			snprintf(r->comm, sizeof(r->comm), "%s", cmd ? cmd : "");
			snprintf(r->user, sizeof(r->user), "%s", user ? user : "");
		}
	}
	return (int)n;
}
