/*
 * job.h: one job of many processes (MPI or Slurm ranks, or one per node), gathered from
 * what their reports say (source/reports/job_read.h; job.c: the ranks, the files left out
 * and why), and what cpw_job_judge() (job_judge.c) finds across them: totals, the job's
 * verdict, imbalance. Pure: no I/O.
 */
#ifndef CPW_CLASSIFY_JOB_H
#define CPW_CLASSIFY_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify/verdict.h"
#include "source/reports/job_read.h"

#define CPW_JOB_NOTES_MAX 16
#define CPW_JOB_NOTE_LEN 512
#define CPW_JOB_FINDINGS_MAX 6
#define CPW_JOB_FINDING_LEN 256
#define CPW_JOB_WAITING_MAX 8

struct cpw_job_rank {
	struct cpw_rank_report said; /* what its report says */
	enum cpw_class cls;          /* said.cls as a class */
};

/* Why a file was left out of the merge. */
enum cpw_job_left_out_why {
	CPW_JOB_CUT_SHORT,  /* the document ends early, or the file is empty */
	CPW_JOB_AGAIN,      /* a rank already merged (the same rank and host), or the same
			     * file given again */
	CPW_JOB_WHYS
};

struct cpw_job {
	struct cpw_job_rank *ranks;
	size_t nranks, cap;
	size_t *index;          /* open addressing over the ranks (index + 1; 0 is free), for
				 * the check of a rank given twice */
	size_t index_cap;
	/* The first CPW_JOB_NOTES_MAX notes, each naming a file left out; then, after
	 * cpw_job_judge(), one line per why of those past them ("... and 9,983 more files
	 * cut short"). */
	char notes[CPW_JOB_NOTES_MAX + CPW_JOB_WHYS][CPW_JOB_NOTE_LEN];
	int nnotes;
	int nnamed;             /* of the notes, those naming one file */
	size_t left_out[CPW_JOB_WHYS];  /* files left out, by why */
	size_t unnamed[CPW_JOB_WHYS];   /* of them, those past the notes */

	/* Filled by cpw_job_judge(). */
	size_t nhosts;
	double wall_s;          /* the slowest rank's: the job's */
	double cpu_s, user_s, sys_s; /* summed over ranks */
	double peak_rss_kib;    /* the largest rank's */
	double peak_rss_sum_kib; /* the ranks' peaks summed (an upper bound of the job's) */
	enum cpw_class cls;     /* the job's verdict: the class of most ranks, else mixed */
	size_t cls_ranks;       /* how many ranks have it */
	size_t failed;          /* ranks whose command failed (a status other than 0, a signal) */
	long straggler;         /* index of the rank that took longest; -1 with fewer than 2 */
	double straggler_lead_s; /* its wall minus the median of the others' */
	bool straggler_named;   /* the lead is worth naming (job_straggler_* thresholds):
				 * a finding, the text mark and JSON's "straggler" */
	double median_wall_s;
	long cpu_min_i, cpu_max_i; /* indexes; -1 when unknown */
	double cpu_mean_s, cpu_spread; /* (max - min) / mean; NAN */
	long waiting[CPW_JOB_WAITING_MAX]; /* the first ranks that waited while the others
					    * computed */
	int nwaiting;
	size_t waiting_ranks;   /* all of them */
	char findings[CPW_JOB_FINDINGS_MAX][CPW_JOB_FINDING_LEN];
	int nfindings;
};

enum cpw_job_add {
	CPW_JOB_ADDED = 0,
	CPW_JOB_LEFT_OUT = 1, /* a rank already merged: left out, named in the notes */
	CPW_JOB_REFUSED = -1, /* a class this cperfwatch does not know, or out of memory */
};

void cpw_job_init(struct cpw_job *job);
void cpw_job_free(struct cpw_job *job);

/* Adds a rank from what its report says (said.file must outlive the job). The same rank
 * and host as a rank merged before, or for a report without a rank the same file, is left
 * out with a note: the first stands. On CPW_JOB_REFUSED, why holds one line naming the
 * file. */
enum cpw_job_add cpw_job_add(struct cpw_job *job, const struct cpw_rank_report *said, char *why,
			     size_t whylen);

/* Notes a file left out because its report is cut short. */
void cpw_job_cut_short(struct cpw_job *job, const char *file);

/* Totals, the job's verdict and the imbalance findings, from the ranks (job_judge.c).
 * Returns 0, or -ENOMEM with nothing judged. */
int cpw_job_judge(struct cpw_job *job);

/* How a rank is named in findings: "rank 2 (node1)", or its file where it has no rank. */
void cpw_job_rank_name(const struct cpw_job_rank *r, char *buf, size_t len);

/* FNV-1a of s continued from h (start with CPW_JOB_HASH_START): the duplicate check's and
 * the Prometheus labels' hash of a name. */
#define CPW_JOB_HASH_START UINT64_C(14695981039346656037)
uint64_t cpw_job_hash(const char *s, uint64_t h);

#endif
