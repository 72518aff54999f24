/*
 * attach.h: attach mode: watches a running tree (live view on a terminal) and writes the report (attach.c). Returns the process exit status.
 */
#ifndef CPW_MODES_ATTACH_H
#define CPW_MODES_ATTACH_H

#include <stdio.h>
#include "options.h"

struct cpw_output; /* report/output.h */
struct cpw_series_out; /* report/series.h */
/* series: --series's file, opened by main.c; NULL for none. */
int cpw_attach_mode(const struct cpw_config *cfg, struct cpw_output *report_out, struct cpw_series_out *series);

#endif
