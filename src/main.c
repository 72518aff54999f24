/*
 * main.c: cperfwatch's entry point: parse the command line, open where the report goes,
 * and hand over to run mode, attach mode or the event list.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "source/perf/perf.h"
#include "exitcodes.h"
#include "util/escape.h"
#include "modes/attach.h"
#include "modes/merge.h"
#include "modes/run.h"
#include "report/output.h"
#include "report/report.h"
#include "report/series.h"
#include "util/signals.h"

/* Opens /dev/null on any of fds 0-2 that is closed, so that no descriptor cperfwatch opens
 * (a netlink socket, a /proc file) becomes standard output or error by accident. Returns a
 * bit per standard stream that was closed. */
static unsigned guard_standard_fds(void)
{
	unsigned closed = 0;
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		closed |= 1u << fd;
		int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
	return closed;
}

/* Run mode: a report on standard output (-o -, /dev/stdout) shares it with COMMAND, whose
 * own output there comes first: a parser or a push at the other end of the pipe would
 * take it for the report's. Said at the start, on standard error, unless stdout is a
 * terminal (a person sees both) or the same file as stderr (2>&1: the line would land in
 * the report too). Returns whether it was said. */
static bool say_stdout_shared(const struct cpw_config *cfg, const struct cpw_output *out)
{
	struct stat o, e;
	if (cfg->mode != CPW_MODE_RUN || out->standard != stdout || isatty(1))
		return false;
	if (fstat(1, &o) == 0 && fstat(2, &e) == 0 && o.st_dev == e.st_dev && o.st_ino == e.st_ino)
		return false;
	fputs("cperfwatch: the report goes to standard output, which COMMAND shares: what COMMAND "
	      "prints there comes first (-o FILE keeps them apart)\n", stderr);
	return true;
}

/* Run mode: a JSON or metrics report on standard error (no -o) comes after what COMMAND
 * writes there, in the same stream: a program reading it would meet COMMAND's warnings
 * first. Said at the start where standard error is a terminal (a person is there to read
 * it); where it is a file or a pipe the line would land in the report itself, and the
 * README and the man page say to use -o. Returns whether it was said. */
static bool say_stderr_shared(const struct cpw_config *cfg, const struct cpw_output *out)
{
	if (cfg->mode != CPW_MODE_RUN || out->standard != stderr || cfg->format == CPW_FORMAT_TEXT || !isatty(2))
		return false;
	fprintf(stderr, "cperfwatch: the %s report goes to standard error when COMMAND ends, after what COMMAND "
		"writes there (-o FILE keeps them apart)\n", cfg->format == CPW_FORMAT_JSON ? "JSON" : "metrics");
	return true;
}

/* Whether a file written beside the report (--plot, --folded, --flame) may go to path: checked, made
 * nothing. NULL: none asked for. */
static bool side_path_ok(const char *path, char *err, size_t errlen)
{
	struct cpw_output side;
	if (!path)
		return true;
	if (cpw_output_init_file(&side, path, err, errlen) < 0)
		return false;
	cpw_output_abandon(&side); /* nothing made: lets its held descriptor go */
	return true;
}

int main(int argc, char **argv)
{
	struct cpw_config cfg;
	unsigned closed = guard_standard_fds();

	switch (cpw_cli_parse(argc, argv, &cfg, stdout, stderr)) {
	case CPW_CLI_EXIT_OK:
		return fflush(stdout) == 0 ? CPW_EXIT_OK : CPW_EXIT_FAILURE;
	case CPW_CLI_ERROR:
		return CPW_EXIT_FAILURE;
	case CPW_CLI_OK:
		break;
	}
	if (cfg.mode == CPW_MODE_LIST_EVENTS) {
		int rc = cpw_perf_list(stdout);
		if (rc < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "cperfwatch: cannot list events: %s\n", strerror(rc < 0 ? -rc : errno));
			return CPW_EXIT_FAILURE;
		}
		return CPW_EXIT_OK;
	}
	if (geteuid() != getuid() || getegid() != getgid()) {
		/* Set-id: cperfwatch would read and run things with privileges it was not given. */
		fprintf(stderr, "cperfwatch: refusing to run setuid or setgid\n");
		return CPW_EXIT_FAILURE;
	}

	/* Check the report's destination first: a bad -o fails before anything runs. Nothing
	 * is made until the report is written. */
	struct cpw_output out;
	char err[CPW_PATH_LEN + 160];
	if (cpw_output_init(&out, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		return CPW_EXIT_FAILURE;
	}
	/* The report's own stream was closed by the caller: it would be lost. */
	int report_fd = out.standard == stdout ? 1 : 2;
	if (out.standard && (closed & (1u << report_fd))) {
		fprintf(stderr, "cperfwatch: standard %s is closed: nowhere to write the report (use -o FILE)\n",
			report_fd == 2 ? "error" : "output");
		return CPW_EXIT_FAILURE;
	}
	say_stdout_shared(&cfg, &out);
	say_stderr_shared(&cfg, &out);
	/* The --plot, --folded and --flame paths too: a bad one fails before the command starts;
	 * their files are made when the report is written (report/emit.c). */
	if (!side_path_ok(cfg.plot_path, err, sizeof(err)) || !side_path_ok(cfg.folded_path, err, sizeof(err)) ||
	    !side_path_ok(cfg.flame_path, err, sizeof(err))) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		cpw_output_abandon(&out);
		return CPW_EXIT_FAILURE;
	}
	/* --series: opened now, as -o is checked, so that a bad path fails before the command
	 * starts; written from the first sample on. */
	struct cpw_series_out series;
	if (cfg.series_path && cpw_series_open(&series, cfg.series_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "cperfwatch: %s\n", err);
		cpw_output_abandon(&out);
		return CPW_EXIT_FAILURE;
	}
	int status;
	if (cfg.mode == CPW_MODE_MERGE) {
		/* Merge mode writes to out->stream: its file is made before the reports are read. */
		int rc = cpw_output_begin(&out);
		if (rc < 0) {
			char safe[CPW_PATH_LEN * 4 + 1];
			cpw_escape_for_terminal(cpw_output_name(&out), safe, sizeof(safe));
			fprintf(stderr, "cperfwatch: cannot open '%s': %s\n", safe, strerror(-rc));
			return CPW_EXIT_FAILURE;
		}
		status = cpw_merge_mode(&cfg, &out);
	} else {
		cpw_signals_install(cfg.mode); /* before anything runs: no signal is lost */
		struct cpw_series_out *so = cfg.series_path ? &series : NULL;
		status = cfg.mode == CPW_MODE_ATTACH ? cpw_attach_mode(&cfg, &out, so) : cpw_run_mode(&cfg, &out, so);
		if (so)
			cpw_series_close(so);
	}
	cpw_output_abandon(&out); /* a temporary file, where no report was written */
	return status;
}
