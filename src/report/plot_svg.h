/*
 * plot_svg.h: the run as a self-contained SVG picture, for --plot FILE (report/plot_svg.c).
 *
 * Thread states stacked over time, cores used against cores usable, memory, disk rate, the
 * phases as labelled bands, the main processes' lifetimes; the command and the verdict in
 * the title. Drawn from the finished report only (its timeline, phases and tree).
 */
#ifndef CPW_REPORT_PLOT_SVG_H
#define CPW_REPORT_PLOT_SVG_H

#include <stdio.h>

#include "report/report.h"

/* Writes the SVG document. Returns 0, or -errno when writing failed. */
int cpw_plot_svg_write(const struct cpw_report *r, FILE *out);

#endif
