/*
 * counters_report.h: the counters section of the reports (report/counters_report.c).
 *
 * Text in the manner of perf stat (value, unit, name, derived ratio, running fraction;
 * <not supported> / <not permitted> / <not counted> with the reason), and the JSON
 * objects the report writer puts under "counters" and "derived" keys.
 */
#ifndef CPW_REPORT_COUNTERS_REPORT_H
#define CPW_REPORT_COUNTERS_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "counter_values.h"

/* Writes the counters section: its heading, a note when only user space is counted, then
 * one tab-indented line per event; where every event is missing for one reason (no PMU),
 * the heading and that line are one ("Counters: <not supported> cycles, ... (why)").
 * Returns 0, or -errno when writing failed. Writes nothing for c == NULL. */
int cpw_counters_report_write_text(const struct cpw_counter_values *c, FILE *out);
/* "counted", "not-supported", "not-permitted", "multiplexed". */
const char *cpw_counters_report_status_name(enum cpw_counter_status s);
/* {NAME: {value, status, reason, unit, running_fraction}}: value is null unless counted or
 * multiplexed, reason null when counted, running_fraction null when the event never opened.
 * Returns a new reference (NULL on allocation failure). */
struct json_object *cpw_counters_report_to_json(const struct cpw_counter_values *c);
/* {ipc, cache_miss_ratio, llc_mpki, branch_mpki, branch_miss_ratio, stalled_frontend_share,
 *  stalled_backend_share, topdown_retiring, topdown_bad_spec, topdown_frontend_bound,
 *  topdown_backend_bound, topdown_memory_bound}, null where not computable. */
struct json_object *cpw_counters_report_derived_json(const struct cpw_counter_values *c);

#endif
