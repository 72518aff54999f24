/*
 * phases_report.h: the phases and the timeline in the reports (report/phases_report.c).
 *
 * Text: a "Phases" section (start-end, class, confidence, main process, one line of
 * evidence) and a compact timeline of sparkline rows (cores, memory, disk) with the phases
 * marked under them. JSON: the "phases" array and the "timeline" object (columns of the
 * series, with the interval and units).
 */
#ifndef CPW_REPORT_PHASES_REPORT_H
#define CPW_REPORT_PHASES_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "classify/phases.h"
#include "model/timeline.h"

struct cpw_json_doc;

#define CPW_SPARK_COLUMNS 60 /* the text timeline's width */

/* Writes the Phases section and the timeline rows; nothing without phases. cores_usable
 * scales the cores row (NAN: the highest use seen). Returns 0, or -errno on a write error. */
int cpw_phases_report_write_text(const struct cpw_phases *ph, const struct cpw_timeline *tl,
			  double cores_usable, FILE *out);
/* [{start_s, end_s, class, confidence, secondary, evidence, processes: [{pid, command,
 * cpu_s, io_bytes, wait_s}]}]. A new reference, NULL on allocation failure. */
struct json_object *cpw_phases_report_to_json(const struct cpw_phases *ph);
/* {interval_s, samples_per_point, points, units: {...}, t_s: [...], dt_s: [...], ...}: the
 * series as columns; an object with points 0 when tl is NULL. A new reference. */
struct json_object *cpw_phases_report_timeline_to_json(const struct cpw_timeline *tl, double interval_s);
/* The same object's members one at a time, in its order, so that a writer can stream
 * them (a long run's 19 columns of 512 points held at once cost ~1 MB): how many there
 * are, and member i's key and value (the caller frees it; NULL is a JSON null). */
/* One point under the same keys as the columns (t_s, dt_s, cpu_user_s, ...), put into the
 * object o of doc: the --series line (report/series.c). */
void cpw_phases_report_point_put(struct cpw_json_doc *doc, struct json_object *o, const struct cpw_tl_point *p);
size_t cpw_phases_report_timeline_json_members(void);
struct json_object *cpw_phases_report_timeline_json_member(const struct cpw_timeline *tl, double interval_s, size_t i,
					     const char **key);

#endif
