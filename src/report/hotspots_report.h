/*
 * hotspots_report.h: the Hotspots section of the reports (hotspots_report.c): where the
 * sampled CPU time went by kind of code and by function (self and total shares, file,
 * process), each phase's top function; the JSON object under "hotspots"; and --folded,
 * the stacks collapsed one per line ("comm;outer;...;leaf COUNT"), as flamegraph.pl,
 * speedscope and inferno read them.
 */
#ifndef CPW_REPORT_HOTSPOTS_REPORT_H
#define CPW_REPORT_HOTSPOTS_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "classify/phases.h"
#include "model/hotspots.h"

#define CPW_HOTSPOTS_REPORT_TOP 10 /* functions in the text report, at most */
#define CPW_HOTSPOTS_REPORT_MIN 3  /* ... at least, where there are; past them, 1% or more */

/* Writes the section, heading included; nothing for h == NULL. Returns 0 or -errno. */
int cpw_hotspots_report_write_text(const struct cpw_hotspots *h, const struct cpw_phases *phases, FILE *out);
/* {available, reason, sample_hz, samples, lost, armed_at_s, kinds: {KIND: share},
 *  functions: [{name, file, kind, self_samples, total_samples, self_share, total_share,
 *  pid, comm, processes}], phases: [{start_s, end_s, function, file, share}],
 *  chains: {cut_short, leaf_only, unresolved}}; JSON null for h == NULL. New reference. */
struct json_object *cpw_hotspots_report_to_json(const struct cpw_hotspots *h, const struct cpw_phases *phases);
/* --folded: the collapsed stacks (nothing where h is NULL or nothing was sampled). Returns
 * 0 or -errno. */
int cpw_hotspots_report_write_folded(const struct cpw_hotspots *h, FILE *out);

#endif
