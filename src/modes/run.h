/*
 * run.h: run mode: runs COMMAND, waits for it and its tree, and writes the report (run.c). Returns the process exit status.
 */
#ifndef CPW_MODES_RUN_H
#define CPW_MODES_RUN_H

#include <stdio.h>
#include "options.h"

struct cpw_output; /* report/output.h */
struct cpw_series_out; /* report/series.h */
/* series: --series's file, opened by main.c; NULL for none. */
int cpw_run_mode(const struct cpw_config *cfg, struct cpw_output *report_out, struct cpw_series_out *series);

#endif
