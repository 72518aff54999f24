/*
 * job_read.h: the JSON reports of a job's ranks as merge mode reads them (job_read.c): a
 * report file read whole, and what one cperfwatch/1 report says about its rank, checked
 * for what no cperfwatch writes (a negative or impossibly large figure, a key missing or of
 * the wrong type, more than one document). classify/job.h judges the ranks together.
 */
#ifndef CPW_SOURCE_REPORTS_JOB_READ_H
#define CPW_SOURCE_REPORTS_JOB_READ_H

#include <stddef.h>

/* A short host name is at most HOST_NAME_MAX (64) bytes; a longer "host" is refused. */
#define CPW_JOB_READ_HOST_MAX 64
/* The longest class name a report may give (verdict.class); classify/verdict.h's are
 * shorter, so a longer one is refused there as not a class. */
#define CPW_JOB_READ_CLASS_MAX 31
/* Figures past these are refused: no clock or memory measures them. A thousand years of
 * seconds (a rank's CPU time on a thousand cores for a year is 3.2e10 s), and 2^54 KiB
 * (16 EiB, the 64-bit address space). */
#define CPW_JOB_READ_SECONDS_MAX 3.2e10
#define CPW_JOB_READ_KIB_MAX 18014398509481984.0
/* A report is a few hundred KiB with a large tree; a file far past that is not one. */
#define CPW_JOB_READ_BYTES_MAX (256u << 20)

/* What one rank's report says, as far as a merge needs it. */
struct cpw_rank_report {
	const char *file;   /* the name it was read under; not copied (the caller keeps it) */
	char host[CPW_JOB_READ_HOST_MAX + 1]; /* "" where the report says null */
	int rank;           /* -1 where the report says null */
	double wall_s, user_s, sys_s, cpu_s; /* NAN where not measured (null) */
	double peak_kib;    /* the tree's peak with shared pages counted once, else the RSS
			     * sum, else the largest process's (older reports); NAN */
	char cls[CPW_JOB_READ_CLASS_MAX + 1]; /* verdict.class as written */
	int exit_code;      /* -1 where it died of a signal or is unknown */
	int exit_signal;    /* 0 when none */
};

enum cpw_job_read {
	CPW_JOB_READ_OK = 0,
	CPW_JOB_READ_CUT_SHORT = 1, /* the document ends early (a rank killed while it wrote,
				     * a full disk), or the file is empty: left out, with a note */
	CPW_JOB_READ_REFUSED = -1,  /* not a whole cperfwatch/1 report; why says what */
};

/* Reads the report in text (len bytes, the contents of the file name; need not end in a
 * NUL) into *out. On CPW_JOB_READ_REFUSED, why holds one line naming the file and the key
 * (or the byte) at fault, control bytes escaped. */
enum cpw_job_read cpw_job_read_report(const char *name, const char *text, size_t len,
				      struct cpw_rank_report *out, char *why, size_t whylen);

/* The whole file at path, malloc'ed and NUL-terminated, in *text and *len. Returns 0, or
 * -errno (-EFBIG past CPW_JOB_READ_BYTES_MAX). */
int cpw_job_read_file(const char *path, char **text, size_t *len);

#endif
