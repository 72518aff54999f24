/*
 * job.h: one job of many processes (MPI or Slurm ranks, or one per node), as their JSON
 * reports describe it (job.c), and what cpw_job_judge() (job_judge.c) finds across them:
 * totals, the job's verdict, imbalance. Pure: built from the reports' text, no I/O.
 */
#ifndef CPW_CLASSIFY_JOB_H
#define CPW_CLASSIFY_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "classify/verdict.h"

#define CPW_JOB_NOTES_MAX 16
#define CPW_JOB_NOTE_LEN 512
#define CPW_JOB_FINDINGS_MAX 6
#define CPW_JOB_FINDING_LEN 256

struct cpw_job_rank {
	char file[256];     /* the report it came from */
	char host[64];      /* "" where the report does not say */
	int rank;           /* -1 where the report does not say */
	double wall_s, user_s, sys_s, cpu_s; /* NAN where not measured */
	double peak_rss_kib; /* the tree's peak, else the largest process's; NAN */
	enum cpw_class cls;
	int exit_code;      /* -1 where it died of a signal or is unknown */
	int exit_signal;    /* 0 when none */
};

struct cpw_job {
	struct cpw_job_rank *ranks;
	size_t nranks, cap;
	char notes[CPW_JOB_NOTES_MAX][CPW_JOB_NOTE_LEN];
	int nnotes;

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
	bool straggler_named;   /* the lead is worth naming (the thresholds of job_judge.c):
				 * a finding, the text mark and JSON's "straggler" */
	double median_wall_s;
	long cpu_min_i, cpu_max_i; /* indexes; -1 when unknown */
	double cpu_mean_s, cpu_spread; /* (max - min) / mean; NAN */
	long waiting[8];        /* ranks that waited while the others computed */
	int nwaiting;
	char findings[CPW_JOB_FINDINGS_MAX][CPW_JOB_FINDING_LEN];
	int nfindings;
};

enum cpw_job_add {
	CPW_JOB_ADDED = 0,
	CPW_JOB_LEFT_OUT = 1, /* left out, named in the notes: the document ends early, or
				  * it is a rank already merged */
	CPW_JOB_REFUSED = -1,  /* not a cperfwatch report, or a schema this one does not know */
};

void cpw_job_init(struct cpw_job *job);
void cpw_job_free(struct cpw_job *job);

/* Adds the report in text (len bytes, the contents of the file name). On CPW_JOB_REFUSED,
 * why holds one sentence naming the file. */
enum cpw_job_add cpw_job_add_report(struct cpw_job *job, const char *name, const char *text,
				    size_t len, char *why, size_t whylen);

/* Appends a note (printf format); dropped beyond CPW_JOB_NOTES_MAX. */
void cpw_job_note(struct cpw_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Totals, the job's verdict and the imbalance findings, from the ranks (job_judge.c). */
void cpw_job_judge(struct cpw_job *job);

/* How a rank is named in findings: "rank 2 (node1)", or its file where it has no rank. */
void cpw_job_rank_name(const struct cpw_job_rank *r, char *buf, size_t len);

#endif
