/*
 * whole_run.h: the figures of the whole run, folded from what was read at its start and its
 * end (whole_run.c). A pure function: readings in, metrics and the reasons for the notes
 * out; the session reads, this folds, the classifier judges.
 */
#ifndef CPW_MODEL_WHOLE_RUN_H
#define CPW_MODEL_WHOLE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "model/metrics.h"
#include "model/tree.h"
#include "source/cgroup/cgroup.h"
#include "source/kernel/psi.h"
#include "source/kernel/vmstat.h"

#define CPW_RUN_NOTES_MAX 12
#define CPW_RUN_NOTE_LEN 512

/* What the session read for the whole run. A reading that was not taken is marked so. */
struct cpw_run_readings {
	double wall_s;              /* NAN: not known to the mode (the session's clock then) */
	bool attach;                /* attach mode: no rusage; exits not reaped by cperfwatch */
	unsigned interval_ms;
	double page_kib;            /* the machine's page size; NAN: unknown */
	/* Run mode: wait4's rusage of everything reaped, the command's first. */
	bool rusage_known;
	struct rusage ru;
	/* System pressure, read where the command's group has none of its own. */
	bool system_psi;
	struct cpw_psi psi_start, psi_end;
	/* /proc/vmstat's refaults, read where the group has none of its own. */
	bool vmstat;
	struct cpw_vmstat vmstat_start, vmstat_end;
	/* The command's own cgroup (run mode as root): its pressure at the start, its figures
	 * at the end. */
	bool cgroup;
	struct cpw_psi cgroup_psi_start;
	struct cpw_cgroup_stats cgroup_end;
	/* Delay accounting, summed over the exit records of the tree's threads. */
	bool delayacct_on;
	double blkio_ns, swapin_ns, thrashing_ns, reclaim_ns;
	bool exit_records;          /* exit records were listened for (root) */
	uint64_t exit_record_overflows; /* times the kernel dropped records (at least one each) */
	/* Usable cores: at the start (NAN: unknown), and as the threads saw them. */
	double cores_usable;
	double sampled_cores_sum;
	uint64_t sampled_cores_n;
	char sampled_cpus[64];
	/* The counters, where any were set up. */
	bool counters;
	struct cpw_counter_figures counter_figures;
	const char *identity_error; /* why process users are unknown; NULL: they are known */
	unsigned samples_failed;    /* samples of the tree that could not be read */
	int sample_errno;           /* why, at the last such failure */
};

/* Reasons for the report's notes, in the order they arose. */
struct cpw_run_notes {
	char line[CPW_RUN_NOTES_MAX][CPW_RUN_NOTE_LEN];
	int n;
};

/* Fills m (initialised by the caller) from the tree and the readings; *cgroup_mem_peak_kib
 * gets the group's peak with page cache (NAN without one). */
void cpw_whole_run_fold(const struct cpw_run_readings *in, const struct cpw_tree *tree,
			struct cpw_metrics *m, double *cgroup_mem_peak_kib, struct cpw_run_notes *notes);
/* The figures so far, for the live view: the tree's part and the cores, CPU summed over
 * the tree (no whole-run readings: those are taken at the end). */
void cpw_whole_run_so_far(const struct cpw_run_readings *in, const struct cpw_tree *tree,
			  double elapsed_s, struct cpw_metrics *m);

#endif
