/*
 * cli.h: the command line into a struct cpw_config.
 */
#ifndef CPW_CLI_H
#define CPW_CLI_H

#include <stdio.h>
#include "options.h"

/* Result of cpw_cli_parse besides a filled config. */
enum cpw_cli_result {
	CPW_CLI_OK,      /* go on with cfg */
	CPW_CLI_EXIT_OK, /* --help or --version was printed: exit 0 */
	CPW_CLI_ERROR    /* one line was written to err: exit 125 */
};

enum cpw_cli_result cpw_cli_parse(int argc, char **argv, struct cpw_config *cfg, FILE *out,
				  FILE *err);

/* Value parsers, shared with tests. Each returns 0 on success, -EINVAL otherwise. */
int cpw_cli_parse_seconds(const char *text, double *seconds);   /* 500ms, 2s, 2m, 1h, 1.5 */
int cpw_cli_parse_bytes_kib(const char *text, uint64_t *kib);    /* 512K, 512M, 2G, plain = bytes */
int cpw_cli_parse_pid(const char *text, pid_t *pid);

void cpw_cli_usage(FILE *out);

#endif
