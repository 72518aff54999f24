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

#include "exitcodes.h"
#include "report/report.h"
#include "report/output.h"
#include "report/plot_svg.h"
#include "report/flame_svg.h"
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

/* What a failure's line names: the report or the plot, and in run mode the command's own
 * status, which the status 125 of the failure takes the place of. */
static void name_output(const struct cpw_report *r, const char *what, char *buf, size_t len)
{
	if (r->mode != CPW_MODE_RUN || !r->exit_known)
		snprintf(buf, len, "%s", what);
	else if (r->exit_signal)
		snprintf(buf, len, "%s (the command was killed by signal %d: status %d)", what,
			 r->exit_signal, CPW_EXIT_SIGNAL_BASE + r->exit_signal);
	else
		snprintf(buf, len, "%s (the command exited with status %d)", what, r->exit_code);
}

/* What goes to a file of its own beside the report: the --plot picture, the --folded stacks,
 * the --flame graph. */
typedef int (*side_writer)(const struct cpw_report *r, FILE *out);

static int write_plot(const struct cpw_report *r, FILE *out)
{
	return cpw_plot_svg_write(r, out);
}

static int write_folded(const struct cpw_report *r, FILE *out)
{
	return cpw_hotspots_report_write_folded(r->hotspots, out);
}

static int write_flame(const struct cpw_report *r, FILE *out)
{
	return cpw_flame_svg_write(r, out);
}

/* The file main.c checked before the run, made now and renamed into place once whole. */
static int emit_side_file(const char *path, const char *what, side_writer write, const struct cpw_report *r)
{
	struct cpw_output side;
	char err[CPW_PATH_LEN + 160], named[96];
	name_output(r, what, named, sizeof(named));
	if (cpw_output_init_file(&side, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: cannot write the %s: %s\n", named, err);
		return -1;
	}
	int rc = cpw_output_begin(&side);
	return cpw_output_finish(&side, rc == 0 ? write(r, side.stream) : rc, named);
}

/* The report first: its file takes the descriptor held back for it, and frees it for the
 * plot's. */
int cpw_report_emit(const struct cpw_report *r, struct cpw_output *out)
{
	char what[96];
	int rc = cpw_output_begin(out);
	if (rc == 0)
		rc = out->stream == stderr ? write_unbuffered(r, out->stream) : cpw_report_write(r, out->stream);
	name_output(r, "report", what, sizeof(what));
	int report_rc = cpw_output_finish(out, rc, what);
	int plot_rc = r->cfg && r->cfg->plot_path ? emit_side_file(r->cfg->plot_path, "plot", write_plot, r) : 0;
	int folded_rc = r->cfg && r->cfg->folded_path
				? emit_side_file(r->cfg->folded_path, "folded stacks", write_folded, r)
				: 0;
	int flame_rc = r->cfg && r->cfg->flame_path ? emit_side_file(r->cfg->flame_path, "flame graph", write_flame, r) : 0;
	return report_rc == 0 && plot_rc == 0 && folded_rc == 0 && flame_rc == 0 ? 0 : -1;
}
