/*
 * merge.c: merge mode: the per-rank (or per-node) JSON reports of a job read whole, handed
 * to the job model (classify/job.c), judged across ranks (classify/job_judge.c) and
 * written as one job report (report/job_report.c).
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

/* A report is a few hundred KiB with a large tree; anything far past that is not one. */
#define REPORT_MAX_BYTES (256u << 20)

/* The whole file, malloc'ed, in *text and *len; 0 or -errno. */
static int read_whole(const char *path, char **text, size_t *len)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return -errno;
	FILE *mem = open_memstream(text, len);
	char chunk[65536];
	size_t n;
	int rc = 0;
	if (!mem) {
		rc = -errno;
		fclose(in);
		return rc;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0) {
		if (fwrite(chunk, 1, n, mem) != n || ftell(mem) > (long)REPORT_MAX_BYTES) {
			rc = -EFBIG;
			break;
		}
	}
	if (rc == 0 && ferror(in))
		rc = -EIO;
	fclose(in);
	if (fclose(mem) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

int cpw_merge_mode(const struct cpw_config *cfg, struct cpw_output *out)
{
	struct cpw_job job;
	char why[768];
	int status = CPW_EXIT_OK;

	cpw_job_init(&job);
	for (int i = 0; i < cfg->command_argc && status == CPW_EXIT_OK; i++) {
		const char *path = cfg->command[i];
		char *text = NULL;
		size_t len = 0;
		int rc = read_whole(path, &text, &len);
		if (rc < 0) {
			fprintf(stderr, "cperfwatch: cannot read '%s': %s\n", path, strerror(-rc));
			status = CPW_EXIT_FAILURE;
			break;
		}
		if (cpw_job_add_report(&job, path, text, len, why, sizeof(why)) == CPW_JOB_REFUSED) {
			fprintf(stderr, "cperfwatch: %s\n", why);
			status = CPW_EXIT_FAILURE;
		}
		free(text);
	}
	if (status == CPW_EXIT_OK && job.nranks == 0) {
		fprintf(stderr, "cperfwatch: nothing to merge: every report given is cut short\n");
		status = CPW_EXIT_FAILURE;
	}
	if (status == CPW_EXIT_OK) {
		cpw_job_judge(&job);
		if (cpw_output_finish(out, cpw_job_report_write(&job, cfg, out->stream), "job report") != 0)
			status = CPW_EXIT_FAILURE;
	}
	cpw_job_free(&job);
	return status;
}
