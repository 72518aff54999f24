/*
 * process_report.h: the verdict per process in the reports (report/process_report.c): the
 * text's "Processes" section, one line for each process that matters, and the "verdict"
 * object of a JSON process (null for one that does not matter). The verdicts are
 * classify/process_verdict.h's, judged from the report's tree and waits.
 */
#ifndef CPW_REPORT_PROCESS_REPORT_H
#define CPW_REPORT_PROCESS_REPORT_H

#include <stdio.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "classify/process_verdict.h"

struct cpw_report;
struct cpw_json_doc;

/* The verdicts of the report's processes (none without a tree). */
void cpw_process_report_judge(const struct cpw_report *r, struct cpw_proc_verdicts *out);
/* "Processes:" and a line for each that matters: "python3 (pid 2139), 5.9-8.0 s: cpu-bound
 * (80%): 5 threads take turns on the GIL, 1.0 core between them"; nothing when none does. */
void cpw_process_report_write_text(const struct cpw_report *r, FILE *out);
/* {class, confidence, secondary, finding, text, matters_by ("cpu", "waits", "time",
 * "memory"), start_s, end_s, shares: {cpu,
 * runqueue, disk, wait}} for pid, NULL (JSON null) where it does not matter or the document
 * failed. */
struct json_object *cpw_process_report_verdict_json(struct cpw_json_doc *d,
						    const struct cpw_proc_verdicts *pvs, pid_t pid);

#endif
