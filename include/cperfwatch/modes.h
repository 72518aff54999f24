/*
 * modes.h: the two faces of cperfwatch (target/run.c, target/attach.c). Each returns the
 * process exit status.
 */
#ifndef CPERFWATCH_MODES_H
#define CPERFWATCH_MODES_H

#include <stdio.h>
#include "cperfwatch/config.h"
#include "cperfwatch/report.h"

int cpw_run_mode(const struct cpw_config *cfg, FILE *report_out);
int cpw_attach_mode(const struct cpw_config *cfg, FILE *report_out);

/* Writes the report and maps a write failure to one line and exit 125. */
int cpw_emit_report(const struct cpw_config *cfg, const struct cpw_report *r, FILE *out);

#endif
