/*
 * test_cli.c: the command line: every option, and every bad value giving one line and
 * CPW_CLI_ERROR.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "classify/verdict.h"
#include "util/round.h"
#include "cunit_tap.h"

static char errbuf[1024];

static enum cpw_cli_result parse(struct cpw_config *cfg, const char *const *args)
{
	/* cfg.command points into these after the call: they must outlive it. */
	static char pool[32][128];
	static char *argv[32];
	int argc = 0;
	snprintf(pool[argc], sizeof(pool[argc]), "cperfwatch");
	argv[argc] = pool[argc];
	argc++;
	for (; *args && argc < 31; args++, argc++) {
		snprintf(pool[argc], sizeof(pool[argc]), "%s", *args);
		argv[argc] = pool[argc];
	}
	argv[argc] = NULL;
	FILE *err = fmemopen(errbuf, sizeof(errbuf), "w");
	FILE *out = fopen("/dev/null", "w");
	enum cpw_cli_result r = cpw_cli_parse(argc, argv, cfg, out, err);
	fclose(err);
	fclose(out);
	return r;
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect_error(const char *const *args, const char *fragment)
{
	struct cpw_config cfg;
	memset(errbuf, 0, sizeof(errbuf));
	CU_ASSERT_EQUAL(parse(&cfg, args), CPW_CLI_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, fragment));
	CU_ASSERT_EQUAL(strncmp(errbuf, "cperfwatch: ", 12), 0);
	/* exactly one line */
	char *nl = strchr(errbuf, '\n');
	CU_ASSERT_TRUE(nl && nl[1] == '\0');
}

/* cpw_round replaces lround (round.h): halves go away from zero, like lround. */
static void test_round(void)
{
	CU_ASSERT_EQUAL(cpw_round(2.5), 3);
	CU_ASSERT_EQUAL(cpw_round(-2.5), -3);
	CU_ASSERT_EQUAL(cpw_round(2.49), 2);
	CU_ASSERT_EQUAL(cpw_round(-0.4), 0);
	CU_ASSERT_EQUAL(cpw_round(0), 0);
	CU_ASSERT_EQUAL(cpw_round(1e15 + 0.5), 1000000000000001LL);
	struct cpw_config cfg;
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-i", "0.2504", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.interval_ms, 250);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-i", "0.2506", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.interval_ms, 251);
}

static void test_run_mode(void)
{
	struct cpw_config cfg;
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-j", "-i", "250ms", "-o", "r.json", "--", "ls", "-l")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_RUN);
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_JSON);
	CU_ASSERT_EQUAL(cfg.interval_ms, 250);
	CU_ASSERT_STRING_EQUAL(cfg.output_path, "r.json");
	CU_ASSERT_EQUAL(cfg.command_argc, 2);
	CU_ASSERT_STRING_EQUAL(cfg.command[0], "ls");
	CU_ASSERT_STRING_EQUAL(cfg.command[1], "-l"); /* the command's own options stay its own */
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--", "make", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.command_argc, 3);
	CU_ASSERT_EQUAL(cfg.interval_ms, CPW_INTERVAL_DEFAULT_MS);
	CU_ASSERT_PTR_NULL(cfg.flame_path);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--flame=f.svg", "--folded", "f.txt", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_STRING_EQUAL(cfg.flame_path, "f.svg");
	CU_ASSERT_STRING_EQUAL(cfg.folded_path, "f.txt");
	/* --freq: the hotspots' rate, over CPERFWATCH_SAMPLING_HZ; 0 is the default's */
	CU_ASSERT_EQUAL(cfg.sampling_hz, 0);
	setenv("CPERFWATCH_SAMPLING_HZ", "499", 1);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.sampling_hz, 499);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-F", "999", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.sampling_hz, 999);
	unsetenv("CPERFWATCH_SAMPLING_HZ");
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--freq=1", "--pid", "1")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.sampling_hz, 1);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--freq", "10000", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.sampling_hz, 10000);
}

/* --format prometheus, --label (checked), -o with %r and %q{VAR} expanded at parse time. */
static void test_fleet_options(void)
{
	struct cpw_config cfg;
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMIX_RANK");
	unsetenv("PMI_RANK");
	setenv("SLURM_PROCID", "5", 1);
	setenv("CPW_TEST_JOB", "j1", 1);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--format", "prometheus", "--label", "job=a b", "--label",
					 "site=x=y", "-o", "r.%q{CPW_TEST_JOB}.%r.prom", "--", "x")),
			CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_PROMETHEUS);
	CU_ASSERT_EQUAL(cfg.nlabels, 2);
	CU_ASSERT_STRING_EQUAL(cfg.labels[1], "site=x=y");
	CU_ASSERT_STRING_EQUAL(cfg.output_path, "r.j1.5.prom");
	CU_ASSERT_EQUAL(cfg.rank, 5);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-o", "-", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_STRING_EQUAL(cfg.output_path, "-");
	unsetenv("SLURM_PROCID");
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.rank, -1);
	expect_error(ARGS("-o", "r.%r.json", "--", "x"), "no rank variable is set");
	expect_error(ARGS("-o", "r.%q{CPW_TEST_UNSET_VAR}", "--", "x"), "CPW_TEST_UNSET_VAR is not set");
	expect_error(ARGS("--format", "prometheus", "--label", "a-b=1", "--", "x"), "invalid label name 'a-b'");
	expect_error(ARGS("--format", "prometheus", "--label", "__x=1", "--", "x"), "invalid label name '__x'");
	/* A value too long for the writer's room is refused, not cut mid-quote. */
	char longlabel[160];
	memset(longlabel, 'v', sizeof(longlabel) - 1);
	longlabel[sizeof(longlabel) - 1] = '\0';
	memcpy(longlabel, "job=", 4);
	expect_error(ARGS("--format", "prometheus", "--label", longlabel, "--", "x"), "longer than 100 bytes");
	expect_error(ARGS("--format", "prometheus", "--label", "mode=1", "--", "x"), "invalid label name 'mode'");
	expect_error(ARGS("--format", "prometheus", "--label", "novalue", "--", "x"), "expected NAME=VALUE");
	expect_error(ARGS("--format", "prometheus", "--label", "a=1", "--label", "a=2", "--", "x"),
		     "given twice");
	expect_error(ARGS("--label", "a=1", "--", "x"), "--label applies to --format prometheus");
	expect_error(ARGS("--format", "prom", "--", "x"), "expected text, json, prometheus or openmetrics");

	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--json", "--merge", "r.0.json", "r.1.json")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_MERGE);
	CU_ASSERT_EQUAL(cfg.command_argc, 2);
	CU_ASSERT_STRING_EQUAL(cfg.command[1], "r.1.json");
	expect_error(ARGS("--merge"), "--merge needs the JSON reports");
	expect_error(ARGS("--merge", "--format", "openmetrics", "a.json"), "not openmetrics");
	expect_error(ARGS("--merge", "--plot", "p.svg", "a.json"), "--merge has no time series");
	/* A budget on a merge could never break; run-only options do nothing there. */
	expect_error(ARGS("--max-wall", "1ms", "--merge", "a.json"), "--merge takes no budget");
	expect_error(ARGS("--fail-on", "waiting", "--merge", "a.json"), "--merge takes no budget");
	expect_error(ARGS("-i", "0.5", "--merge", "a.json"), "apply to a run or a watch");
	expect_error(ARGS("--tui", "--merge", "a.json"), "apply to a run or a watch");
	/* The reports are operands, not a command: options may follow them (the shell's
	 * glob first, as people type it); a "--" still ends the options. */
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--merge", "r.0.json", "r.1.json", "--json", "-o", "job.json")),
			CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_MERGE);
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_JSON);
	CU_ASSERT_STRING_EQUAL(cfg.output_path, "job.json");
	CU_ASSERT_EQUAL_FATAL(cfg.command_argc, 2);
	CU_ASSERT_STRING_EQUAL(cfg.command[0], "r.0.json");
	CU_ASSERT_STRING_EQUAL(cfg.command[1], "r.1.json");
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--merge", "r.0.json", "--", "--json")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_TEXT);
	CU_ASSERT_EQUAL_FATAL(cfg.command_argc, 2);
	CU_ASSERT_STRING_EQUAL(cfg.command[1], "--json");
	expect_error(ARGS("--merge", "a.json", "--plot", "p.svg"), "--merge has no time series");
	expect_error(ARGS("--merge", "a.json", "--bogus"), "unknown option '--bogus'");
	/* Without "--", options end at the first argument that is not one, as in GNU time:
	 * what follows is the command's, its options included. */
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("python3", "foo.py")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_RUN);
	CU_ASSERT_EQUAL_FATAL(cfg.command_argc, 2);
	CU_ASSERT_STRING_EQUAL(cfg.command[0], "python3");
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-o", "r.txt", "python3", "-c", "print(1)", "--json", "-o", "x")),
			CPW_CLI_OK);
	CU_ASSERT_STRING_EQUAL(cfg.output_path, "r.txt");
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_TEXT);
	CU_ASSERT_EQUAL_FATAL(cfg.command_argc, 6);
	CU_ASSERT_STRING_EQUAL(cfg.command[0], "python3");
	CU_ASSERT_STRING_EQUAL(cfg.command[3], "--json");
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("python3", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_EQUAL_FATAL(cfg.command_argc, 3);
	CU_ASSERT_STRING_EQUAL(cfg.command[1], "--");
	expect_error(ARGS("--pid", "12", "ls"), "not both");
	/* Run mode is untouched: COMMAND's own options stay its own. */
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--", "sh", "-c", "--json")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.format, CPW_FORMAT_TEXT);
	CU_ASSERT_EQUAL(cfg.command_argc, 3);
}

static void test_attach_mode(void)
{
	struct cpw_config cfg;
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--pid", "1234", "--duration", "2m")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_ATTACH);
	CU_ASSERT_EQUAL(cfg.pid, 1234);
	CU_ASSERT_DOUBLE_EQUAL(cfg.duration_s, 120, 1e-9);
}

static void test_budgets(void)
{
	struct cpw_config cfg;
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--max-wall", "500ms", "--max-cpu", "2m", "--max-rss", "512M",
					 "--fail-on", "io-bound,thrashing", "--", "x")), CPW_CLI_OK);
	CU_ASSERT_DOUBLE_EQUAL(cfg.max_wall_s, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cfg.max_cpu_s, 120, 1e-9);
	CU_ASSERT_EQUAL(cfg.max_rss_kib, 512 * 1024);
	CU_ASSERT_EQUAL(cfg.fail_on_mask, (1u << CPW_CLASS_IO_BOUND) | (1u << CPW_CLASS_THRASHING));
	CU_ASSERT_EQUAL(cfg.timeout_s, 0);
	CU_ASSERT_DOUBLE_EQUAL(cfg.kill_after_s, CPW_KILL_AFTER_DEFAULT_S, 1e-9);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--timeout", "5s", "--kill-after=500ms", "python3", "x.py")), CPW_CLI_OK);
	CU_ASSERT_DOUBLE_EQUAL(cfg.timeout_s, 5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cfg.kill_after_s, 0.5, 1e-9);
	expect_error(ARGS("--timeout", "0", "x"), "invalid time '0' for --timeout");
	expect_error(ARGS("--timeout", "soon", "x"), "invalid time 'soon' for --timeout");
	expect_error(ARGS("--kill-after", "-1", "--timeout", "1", "x"), "invalid time '-1' for --kill-after");
	expect_error(ARGS("--kill-after", "1s", "x"), "give --timeout too");
	expect_error(ARGS("--timeout", "1s", "--pid", "42"), "--duration ends the watch");
	expect_error(ARGS("--timeout", "1s", "--merge", "a.json"), "--merge takes no budget");
}

static void test_value_parsers(void)
{
	double s;
	uint64_t kib;
	pid_t pid;
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("1.5", &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s, 1.5, 1e-12);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("1h", &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s, 3600, 1e-12);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("-1", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("nan", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("inf", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("0x10", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("1e999", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("5 s", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("5parsecs", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_seconds("", &s), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_bytes_kib("2G", &kib), 0);
	CU_ASSERT_EQUAL(kib, 2 * 1024 * 1024);
	CU_ASSERT_EQUAL(cpw_cli_parse_bytes_kib("1000", &kib), 0);
	CU_ASSERT_EQUAL(kib, 1); /* plain bytes, rounded up to a KiB */
	CU_ASSERT_EQUAL(cpw_cli_parse_bytes_kib("5X", &kib), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_bytes_kib("999999999T", &kib), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_pid("42", &pid), 0);
	CU_ASSERT_EQUAL(cpw_cli_parse_pid("0", &pid), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_pid("-5", &pid), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_pid("12abc", &pid), -EINVAL);
	CU_ASSERT_EQUAL(cpw_cli_parse_pid("99999999999", &pid), -EINVAL);
}

static void test_bad_inputs(void)
{
	expect_error(ARGS("--bogus", "--", "x"), "unknown option '--bogus'");
	expect_error(ARGS("-Z", "--", "x"), "unknown option '-Z'");
	expect_error(ARGS("--"), "no command after '--'");
	expect_error(ARGS("-j"), "no command given");
	expect_error(ARGS("--", ""), "empty command name");
	expect_error(ARGS("-i"), "needs a value");
	expect_error(ARGS("-i", "5ms", "--", "x"), "below the kernel's accounting resolution");
	expect_error(ARGS("-i", "0", "--", "x"), "below the kernel's accounting resolution");
	expect_error(ARGS("-i", "-1", "--", "x"), "invalid interval");
	expect_error(ARGS("-i", "abc", "--", "x"), "invalid interval");
	expect_error(ARGS("-i", "2h", "--", "x"), "too long");
	expect_error(ARGS("--pid", "abc"), "invalid process id 'abc'");
	expect_error(ARGS("--pid", "0"), "invalid process id");
	expect_error(ARGS("--pid", "12", "--", "x"), "not both");
	expect_error(ARGS("--pid", "12", "-d", "0"), "invalid duration");
	expect_error(ARGS("-d", "5s", "--", "x"), "attach mode");
	expect_error(ARGS("--format", "xml", "--", "x"), "invalid format 'xml'");
	expect_error(ARGS("--max-rss", "lots", "--", "x"), "invalid size 'lots'");
	expect_error(ARGS("--max-rss", "0", "--", "x"), "invalid size");
	expect_error(ARGS("--max-wall", "-3s", "--", "x"), "invalid time '-3s' for --max-wall");
	expect_error(ARGS("--fail-on", "slow", "--", "x"), "invalid class list 'slow'");
	expect_error(ARGS("--fail-on", ",", "--", "x"), "invalid class list");
	expect_error(ARGS("-o", "", "--", "x"), "empty output file name");
	expect_error(ARGS("--series", "", "x"), "empty series file name");
	expect_error(ARGS("--series", "s.jsonl", "--merge", "a.json"), "--merge takes none");
	expect_error(ARGS("--flame", "", "--", "x"), "empty flame-graph file name");
	expect_error(ARGS("--flame", "f.svg", "--no-hotspots", "--", "x"), "--flame draws the sampled stacks");
	expect_error(ARGS("--merge", "--flame", "f.svg", "a.json"), "--merge has no samples");
	expect_error(ARGS("--merge", "a.json", "--flame", "f.svg"), "--merge has no samples");
	expect_error(ARGS("--list-events", "--", "x"), "takes no command");
	expect_error(ARGS("-F", "0", "--", "x"), "invalid sampling rate '0' for --freq");
	expect_error(ARGS("--freq", "10001", "--", "x"), "1 to 10000");
	expect_error(ARGS("--freq", "99.5", "--", "x"), "invalid sampling rate '99.5'");
	expect_error(ARGS("--freq", "", "--", "x"), "invalid sampling rate ''");
	expect_error(ARGS("--freq", " 99", "--", "x"), "invalid sampling rate ' 99'");
	expect_error(ARGS("--freq", "+99", "--", "x"), "invalid sampling rate '+99'");
	expect_error(ARGS("--freq", "99999999999999999999", "--", "x"), "invalid sampling rate");
	expect_error(ARGS("-F", "999", "--no-hotspots", "--", "x"), "--freq is the hotspots' sampling rate");
	expect_error(ARGS("--merge", "a.json", "-F", "99"), "--merge has no samples");
}

static void test_help_version(void)
{
	struct cpw_config cfg;
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--help")), CPW_CLI_EXIT_OK);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("-V")), CPW_CLI_EXIT_OK);
	CU_ASSERT_EQUAL(parse(&cfg, ARGS("--list-events")), CPW_CLI_OK);
	CU_ASSERT_EQUAL(cfg.mode, CPW_MODE_LIST_EVENTS);
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("cli", NULL, NULL);
	CU_add_test(s, "run mode options", test_run_mode);
	CU_add_test(s, "rounding without libm", test_round);
	CU_add_test(s, "attach mode options", test_attach_mode);
	CU_add_test(s, "budgets", test_budgets);
	CU_add_test(s, "time, size and pid values", test_value_parsers);
	CU_add_test(s, "prometheus, labels, -o %r %q{VAR} and -", test_fleet_options);
	CU_add_test(s, "bad inputs: one line each", test_bad_inputs);
	CU_add_test(s, "help, version, list-events", test_help_version);
	return cpw_cunit_run_tap();
}
