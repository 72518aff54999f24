/*
 * merge.c: merge mode: the per-rank (or per-node) JSON reports of a job read whole and
 * checked (source/reports/job_read.c), gathered into a job (classify/job.c), judged across
 * ranks (classify/job_judge.c) and written as one job report (report/job_report.c).
 */
#include "config.h"
#include "modes/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/job.h"
#include "exitcodes.h"
#include "report/job_report.h"
#include "report/output.h"
#include "source/reports/job_read.h"
#include "util/escape.h"

/* Reads the report at path into the job: 0, or -1 after one line on standard error. */
static int add_file(struct cpw_job *job, const char *path)
{
	char why[768];
	char *text = NULL;
	size_t len = 0;
	int rc = cpw_job_read_file(path, &text, &len);
	if (rc < 0) {
		char safe[1024];
		cpw_escape_for_terminal(path, safe, sizeof(safe));
		fprintf(stderr, "cperfwatch: cannot read '%s': %s\n", safe, strerror(-rc));
		return -1;
	}
	struct cpw_rank_report said;
	switch (cpw_job_read_report(path, text, len, &said, why, sizeof(why))) {
	case CPW_JOB_READ_OK:
		rc = cpw_job_add(job, &said, why, sizeof(why)) == CPW_JOB_REFUSED ? -1 : 0;
		break;
	case CPW_JOB_READ_CUT_SHORT:
		cpw_job_cut_short(job, path);
		rc = 0;
		break;
	default:
		rc = -1;
		break;
	}
	free(text);
	if (rc < 0)
		fprintf(stderr, "cperfwatch: %s\n", why);
	return rc;
}

int cpw_merge_mode(const struct cpw_config *cfg, struct cpw_output *out)
{
	struct cpw_job job;
	int status = CPW_EXIT_OK;

	cpw_job_init(&job);
	for (int i = 0; i < cfg->command_argc && status == CPW_EXIT_OK; i++)
		if (add_file(&job, cfg->command[i]) != 0)
			status = CPW_EXIT_FAILURE;
	if (status == CPW_EXIT_OK && job.nranks == 0) {
		fprintf(stderr, "cperfwatch: nothing to merge: every report given is cut short\n");
		status = CPW_EXIT_FAILURE;
	}
	if (status == CPW_EXIT_OK && cpw_job_judge(&job) != 0) {
		fprintf(stderr, "cperfwatch: out of memory judging %zu ranks\n", job.nranks);
		status = CPW_EXIT_FAILURE;
	}
	if (status == CPW_EXIT_OK &&
	    cpw_output_finish(out, cpw_job_report_write(&job, cfg, out->stream), "job report") != 0)
		status = CPW_EXIT_FAILURE;
	cpw_job_free(&job);
	return status;
}
