/*
 * flame_svg.h: the sampled stacks as a flame graph, one self-contained SVG picture for
 * --flame FILE (report/flame_svg.c), drawn by cperfwatch itself.
 *
 * The stacks of --folded (the process's name as the root frame) merged into one tree under
 * "all": each frame as wide as its share of the samples, callers below their callees, the
 * frames of one caller in alphabetical order (as flamegraph.pl draws them), coloured by the
 * kind of code; each frame's name, samples and share shown on hover. Drawn from the finished
 * report only (its hotspots and command).
 */
#ifndef CPW_REPORT_FLAME_SVG_H
#define CPW_REPORT_FLAME_SVG_H

#include <stdio.h>

#include "report/report.h"

/* Writes the SVG document. Returns 0, -ENOMEM when the tree of frames could not be
 * allocated, or -errno when writing failed. */
int cpw_flame_svg_write(const struct cpw_report *r, FILE *out);

#endif
