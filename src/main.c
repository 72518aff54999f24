/*
 * main.c: cperfwatch's entry point: parse the command line, open where the report goes,
 * and hand over to run mode, attach mode or the event list.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "source/perf/perf.h"
#include "exitcodes.h"
#include "modes/attach.h"
#include "modes/merge.h"
#include "modes/run.h"
#include "report/output.h"
#include "report/report.h"

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
		int rc = cpw_counters_list(stdout);
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

	/* The report's own stream was closed by the caller: it would be lost. */
	bool dash = cfg.output_path && strcmp(cfg.output_path, "-") == 0;
	int report_fd = dash || cfg.mode != CPW_MODE_RUN ? 1 : 2;
	if ((!cfg.output_path || dash) && (closed & (1u << report_fd))) {
		fprintf(stderr, "cperfwatch: standard %s is closed: nowhere to write the report (use -o FILE)\n",
			report_fd == 2 ? "error" : "output");
		return CPW_EXIT_FAILURE;
	}
	/* Open the report's destination first: an unwritable -o fails before anything runs
	 * (its temporary file is made now, in the directory it will be renamed in). */
	struct cpw_output out;
	int rc = cpw_output_open(&out, &cfg);
	if (rc < 0) {
		fprintf(stderr, "cperfwatch: cannot open '%s': %s\n", cfg.output_path, strerror(-rc));
		return CPW_EXIT_FAILURE;
	}
	/* The plot's file too: a bad --plot path fails before the command starts. */
	struct cpw_output plot;
	if (cfg.plot_path) {
		if ((rc = cpw_output_open_file(&plot, cfg.plot_path)) < 0) {
			fprintf(stderr, "cperfwatch: cannot open '%s': %s\n", cfg.plot_path, strerror(-rc));
			cpw_output_abandon(&out);
			return CPW_EXIT_FAILURE;
		}
		cfg.plot = &plot;
	}
	/* --folded's file likewise (hotspots, issue 26). */
	struct cpw_output folded;
	if (cfg.folded_path) {
		if ((rc = cpw_output_open_file(&folded, cfg.folded_path)) < 0) {
			fprintf(stderr, "cperfwatch: cannot open '%s': %s\n", cfg.folded_path, strerror(-rc));
			cpw_output_abandon(&out);
			if (cfg.plot)
				cpw_output_abandon(cfg.plot);
			return CPW_EXIT_FAILURE;
		}
		cfg.folded = &folded;
	}
	int status = cfg.mode == CPW_MODE_ATTACH  ? cpw_attach_mode(&cfg, &out)
		     : cfg.mode == CPW_MODE_MERGE ? cpw_merge_mode(&cfg, &out)
						  : cpw_run_mode(&cfg, &out);
	cpw_output_abandon(&out); /* the temporary file, where no report was written */
	if (cfg.plot)
		cpw_output_abandon(cfg.plot); /* a failed run leaves the previous plot as it was */
	if (cfg.folded)
		cpw_output_abandon(cfg.folded);
	return status;
}
