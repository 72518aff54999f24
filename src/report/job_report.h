/*
 * job_report.h: the merged report of a job's ranks (job_report.c), in text, JSON
 * ("cperfwatch-job/1") or the Prometheus text format, from what cpw_job_judge() found.
 */
#ifndef CPW_REPORT_JOB_REPORT_H
#define CPW_REPORT_JOB_REPORT_H

#include <stdio.h>

#include "options.h"
#include "classify/job.h"

/* Writes the job in cfg's format (text, JSON or prometheus; --label pairs on every
 * prometheus sample). Returns 0 or -errno. */
int cpw_job_report_write(const struct cpw_job *job, const struct cpw_config *cfg, FILE *out);

#endif
