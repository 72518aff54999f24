/*
 * waits_report.h: the Waits section of the reports (report/waits_report.c): thread-seconds
 * off the CPU per kind of wait, the top targets of each kind, the same per process, and
 * what the probe could not resolve; as text lines and as the JSON object under "waits".
 */
#ifndef CPW_REPORT_WAITS_REPORT_H
#define CPW_REPORT_WAITS_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "model/waits.h"

#define CPW_WAITS_REPORT_TARGETS 3 /* targets shown per kind */
#define CPW_WAITS_REPORT_PROCS 5   /* processes shown */
#define CPW_WAITS_REPORT_FUNCTIONS 3 /* Python functions shown per kind */

/* Writes the section, heading included; nothing for w == NULL or nothing waited. Returns
 * 0, or -errno when writing failed. */
int cpw_waits_report_write_text(const struct cpw_waits *w, FILE *out);

/* {total_thread_s, kinds: {KIND: {thread_s, share, targets: [{target, thread_s, pid,
 *  peer_pid}], functions: [{function, caller, several_callers, target, pid, thread_s}]}},
 *  processes: [{pid, comm, thread_s, kinds: {KIND: thread_s}}], untracked_target_s,
 *  untracked_function_s, probe: {...}, notes: [...]}; NULL (JSON null) for w == NULL.
 * Returns a new reference. */
struct json_object *cpw_waits_report_to_json(const struct cpw_waits *w);

#endif
