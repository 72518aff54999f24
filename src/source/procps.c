/*
 * procps.c: per-process stat figures of a list of pids through libproc2 (procps.h).
 */
#include "config.h"
#include "cperfwatch/procps.h"

#include <errno.h>
#include <libproc2/pids.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The order of items is the index PIDS_VAL takes. */
enum item_index { I_PID, I_PPID, I_STATE, I_CMD, I_UTIME, I_STIME, I_MINFLT, I_MAJFLT, I_RSS, I_NLWP, I_BEGAN };
static enum pids_item items[] = {
	PIDS_ID_PID, PIDS_ID_PPID, PIDS_STATE, PIDS_CMD, PIDS_TICS_USER, PIDS_TICS_SYSTEM,
	PIDS_FLT_MIN, PIDS_FLT_MAJ, PIDS_RSS, PIDS_NLWP, PIDS_TICS_BEGAN,
};

/* libproc2 selects at most this many pids per call (FILL_ID_MAX in its pids.c). */
#define SELECT_CHUNK 255

struct cpw_procps {
	struct pids_info *info;
	long page_kib;
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
	p->page_kib = sysconf(_SC_PAGESIZE) / 1024;
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

int cpw_procps_read(struct cpw_procps *p, const pid_t *pids, size_t npids,
		    struct cpw_procps_row *rows, size_t max)
{
	size_t n = 0;
	unsigned chunk[SELECT_CHUNK];

	for (size_t start = 0; start < npids && n < max; start += SELECT_CHUNK) {
		size_t count = npids - start < SELECT_CHUNK ? npids - start : SELECT_CHUNK;
		for (size_t i = 0; i < count; i++)
			chunk[i] = (unsigned)pids[start + i];
		struct pids_fetch *fetch =
			procps_pids_select(p->info, chunk, (int)count, PIDS_SELECT_PID);
		if (!fetch)
			return -errno ? -errno : -EIO;
		for (int i = 0; i < fetch->counts->total && n < max; i++) {
			struct pids_stack *s = fetch->stacks[i];
			struct cpw_procps_row *r = &rows[n++];
			r->pid = PIDS_VAL(I_PID, s_int, s, p->info);
			r->ppid = PIDS_VAL(I_PPID, s_int, s, p->info);
			r->state = PIDS_VAL(I_STATE, s_ch, s, p->info);
			const char *cmd = PIDS_VAL(I_CMD, str, s, p->info);
			snprintf(r->comm, sizeof(r->comm), "%s", cmd ? cmd : "");
			r->utime_ticks = PIDS_VAL(I_UTIME, ull_int, s, p->info);
			r->stime_ticks = PIDS_VAL(I_STIME, ull_int, s, p->info);
			r->minflt = PIDS_VAL(I_MINFLT, ul_int, s, p->info);
			r->majflt = PIDS_VAL(I_MAJFLT, ul_int, s, p->info);
			r->rss_kib = (uint64_t)PIDS_VAL(I_RSS, ul_int, s, p->info) * (uint64_t)p->page_kib;
			r->nlwp = PIDS_VAL(I_NLWP, s_int, s, p->info);
			r->starttime_ticks = PIDS_VAL(I_BEGAN, ull_int, s, p->info);
		}
	}
	return (int)n;
}
