/*
 * merge.h: merge mode (merge.c): cperfwatch --merge FILE... reads the JSON reports of a
 * job's ranks and writes one job report.
 */
#ifndef CPW_MODES_MERGE_H
#define CPW_MODES_MERGE_H

#include "options.h"

struct cpw_output; /* report/output.h */

/* Reads cfg->command[0..command_argc) and writes the job report to out. Returns 0, or 125
 * after one line on standard error (an unreadable file, not a report, an unknown schema,
 * nothing left to merge, the report not written). */
int cpw_merge_mode(const struct cpw_config *cfg, struct cpw_output *out);

#endif
