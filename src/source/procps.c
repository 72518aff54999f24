/*
 * procps.c: the identity of new processes through libproc2 (procps.h).
 */
#include "config.h"
#include "cperfwatch/procps.h"

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

int cpw_procps_new(struct cpw_procps **out)
{
	struct cpw_procps *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	int rc = procps_pids_new(&p->info, items, (int)(sizeof(items) / sizeof(items[0])));
	if (rc < 0) {
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
	procps_pids_unref(&p->info);
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
			procps_pids_select(p->info, chunk, (int)count, PIDS_SELECT_PID);
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
