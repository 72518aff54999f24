/*
 * cli.c: the command line into one struct cpw_config (cli.h).
 *
 * Every bad input ends here with one line on stderr and CPW_CLI_ERROR (exit 125), before
 * anything is started.
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify/verdict.h"
#include "report/exposition.h"
#include "util/outname.h"
#include "util/round.h"
#include "util/escape.h"

static int parse_whole(const char *text, long lo, long hi, long *out);

void cpw_options_defaults(struct cpw_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = CPW_MODE_RUN;
	cfg->interval_ms = CPW_INTERVAL_DEFAULT_MS;
	cfg->format = CPW_FORMAT_TEXT;
	const char *root = getenv("CPERFWATCH_PROC");
	cfg->proc_root = root && root[0] ? root : "/proc";
	/* The sampling rate of the hotspots (--freq, which overrides it): tests that compare
	 * shares with perf's raise it for more samples in the same time. */
	long hz;
	bool hz_set = parse_whole(getenv("CPERFWATCH_SAMPLING_HZ"), 1, CPW_SAMPLING_HZ_MAX, &hz) == 0;
	cfg->sampling_hz = hz_set ? (int)hz : 0;
	const char *cgroups = getenv("CPERFWATCH_CGROUP");
	cfg->cgroup_root = cgroups && cgroups[0] ? cgroups : "/sys/fs/cgroup";
	const char *nvml = getenv("CPERFWATCH_NVML");
	cfg->nvml_library = nvml && nvml[0] ? nvml : NULL;
	cfg->rank = -1;
	cfg->kill_after_s = CPW_KILL_AFTER_DEFAULT_S;
}

void cpw_cli_usage(FILE *out)
{
	fputs("Usage: cperfwatch [OPTION]... [--] COMMAND [ARG]...\n"
	      "  or:  cperfwatch [OPTION]... --pid PID\n"
	      "  or:  cperfwatch [OPTION]... --merge FILE... [OPTION]...\n"
	      "Run COMMAND (or watch process PID) with its whole process tree, measure where the\n"
	      "time and memory go, and name the bottleneck with its evidence.\n"
	      "\n"
	      "Run mode writes the report to standard error (COMMAND owns standard output);\n"
	      "attach mode writes it to standard output, with a live view on a terminal.\n"
	      "COMMAND shares the standard streams: for JSON or metrics, use -o FILE.\n"
	      "\n"
	      "  -p, --pid=PID            watch process PID and its descendants\n"
	      "  -i, --interval=TIME      sampling interval (default 100ms, at least 10ms)\n"
	      "  -d, --duration=TIME      attach mode: stop watching after TIME\n"
	      "  -j, --json               write the report as one JSON document (cperfwatch/1)\n"
	      "      --format=FORMAT      text (default), json, prometheus or openmetrics\n"
	      "  -o, --output=FILE        write the report to FILE instead (- for standard\n"
	      "                           output); FILE is written whole, then renamed into\n"
	      "                           place; %r, %h, %p, %q{VAR}, %% expand (see below)\n"
	      "      --plot=FILE          also draw the run over time as an SVG picture in FILE\n"
	      "      --folded=FILE        also write the sampled stacks to FILE, collapsed\n"
	      "                           (flamegraph.pl), the process's name as the root frame\n"
	      "      --flame=FILE         also draw the stacks as an SVG flame graph in FILE\n"
	      "      --no-hotspots        do not sample where the CPU time goes by function\n"
	      "  -F, --freq=HZ            sample the hotspots HZ times a second per running\n"
	      "                           thread (default 99, 1 to 10000), as perf -F\n"
	      "      --series=FILE        write each sample to FILE as it is taken, one JSON\n"
	      "                           object a line (JSON Lines), flushed: a killed run\n"
	      "                           leaves what it had measured until then\n"
	      "      --label=NAME=VALUE   add this label to every prometheus/openmetrics sample\n"
	      "      --merge              merge the JSON reports FILE... of a job's ranks into\n"
	      "                           one job report (text, --json or --format prometheus);\n"
	      "                           options may also follow the files\n"
	      "  -a, --wait-all           run mode: wait for every descendant, orphans included\n"
	      "  -e, --events=LIST        count these perf events (libpfm4 names, comma-separated)\n"
	      "      --list-events        list the events this machine's PMUs offer, then exit\n"
	      "      --tui                show the live view (attach mode on a terminal: default)\n"
	      "      --no-tui             never show the live view\n"
	      "      --no-cgroup          do not run COMMAND in a cgroup of its own\n"
	      "      --timeout=TIME       run mode: stop COMMAND and its whole tree after TIME,\n"
	      "                           as timeout(1) does (SIGTERM, then SIGKILL), report,\n"
	      "                           and exit 124\n"
	      "      --kill-after=TIME    with --timeout: SIGKILL what is left this long after\n"
	      "                           the SIGTERM (default 5s)\n"
	      "      --max-wall=TIME      budget: fail when the wall time exceeds TIME (judged\n"
	      "                           at the end: --timeout stops the command)\n"
	      "      --max-cpu=TIME       budget: fail when user+system time exceeds TIME\n"
	      "      --max-rss=SIZE       budget: fail when the tree's peak RSS exceeds SIZE\n"
	      "      --fail-on=CLASS[,CLASS]...  budget: fail when the verdict is one of these\n"
	      "  -h, --help               display this help and exit\n"
	      "  -V, --version            output version information and exit\n"
	      "\n"
	      "TIME is a number with an optional unit: ms, s (default), m, h (500ms, 2.5s, 2m).\n"
	      "SIZE is a number of bytes with an optional unit: K, M, G, T (powers of 1024).\n"
	      "CLASS is one of: cpu-bound, memory-bound, io-bound, thrashing, waiting,\n"
	      "cpu-starved, mixed, unknown, gpu-bound.\n"
	      "In FILE, %r is the rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or\n"
	      "SLURM_PROCID), %h the short host name, %p cperfwatch's pid, %q{VAR} the\n"
	      "environment variable VAR, %% a per cent sign.\n"
	      "\n"
	      "Exit status: COMMAND's status, or 128+N if it died of signal N; 124 if COMMAND\n"
	      "succeeded but a budget was broken, or was stopped by --timeout (as timeout(1));\n"
	      "125 if cperfwatch itself failed or was misused;\n"
	      "126 if COMMAND was found but could not be run; 127 if it was not found.\n"
	      "Attach mode: 0 when the report was written, 124 a budget broken, 125 failure.\n"
	      "--merge: 0 when the job report was written, 125 failure.\n"
	      "\n"
	      "Environment: NO_COLOR turns colours off in the live view.\n"
	      "Full documentation: man cperfwatch\n",
	      out);
}

static void version(FILE *out)
{
	fputs("cperfwatch " PACKAGE_VERSION "\n"
	      "Copyright (C) 2026 the cperfwatch authors.\n"
	      "License GPLv2+: GNU GPL version 2 or later <https://gnu.org/licenses/gpl.html>.\n"
	      "This is free software: you are free to change and redistribute it.\n"
	      "There is NO WARRANTY, to the extent permitted by law.\n",
	      out);
}

/* A finite, non-negative decimal with an optional unit suffix from units[]. */
struct unit { const char *suffix; double factor; };

static int parse_with_units(const char *text, const struct unit *units, double *value)
{
	char *end;

	if (!text || !*text || strchr(text, '-') || *text == '+' || *text == ' ')
		return -EINVAL;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno == ERANGE || !isfinite(v) || v < 0)
		return -EINVAL;
	/* strtod accepts hex and "inf"/"nan": only plain decimals are meant. */
	for (const char *s = text; s < end; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '.'))
			return -EINVAL;
	for (const struct unit *u = units; u->suffix; u++)
		if (strcmp(end, u->suffix) == 0) {
			*value = v * u->factor;
			return isfinite(*value) ? 0 : -EINVAL;
		}
	return -EINVAL;
}

int cpw_cli_parse_seconds(const char *text, double *seconds)
{
	static const struct unit units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "min", 60 }, { "h", 3600 }, { NULL, 0 },
	};
	return parse_with_units(text, units, seconds);
}

int cpw_cli_parse_bytes_kib(const char *text, uint64_t *kib)
{
	static const struct unit units[] = {
		{ "", 1.0 / 1024 }, { "B", 1.0 / 1024 },
		{ "K", 1 }, { "KiB", 1 }, { "k", 1 },
		{ "M", 1024 }, { "MiB", 1024 },
		{ "G", 1024.0 * 1024 }, { "GiB", 1024.0 * 1024 },
		{ "T", 1024.0 * 1024 * 1024 }, { "TiB", 1024.0 * 1024 * 1024 },
		{ NULL, 0 },
	};
	double v;
	if (parse_with_units(text, units, &v) < 0 || v > 1e15)
		return -EINVAL;
	*kib = (uint64_t)ceil(v);
	return 0;
}

/* A whole number of digits only (no sign, no blank), lo to hi: 0, or -EINVAL. */
static int parse_whole(const char *text, long lo, long hi, long *out)
{
	char *end;
	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int cpw_cli_parse_pid(const char *text, pid_t *pid)
{
	long v;
	if (parse_whole(text, 1, 4194304 /* PID_MAX_LIMIT */, &v) < 0)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static int parse_fail_on(const char *text, unsigned *mask)
{
	char buf[256];
	if (!*text || strlen(text) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", text);
	*mask = 0;
	/* Not strtok: an empty item (",io-bound", "a,,b") is a typo to report, not to skip. */
	for (char *tok = buf, *comma; tok; tok = comma ? comma + 1 : NULL) {
		comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		int cls = cpw_verdict_class_from_name(tok);
		if (cls < 0)
			return -EINVAL;
		*mask |= 1u << cls;
	}
	return 0;
}

/* One line on err, "cperfwatch: " and the message with every control byte escaped: the
 * message quotes what the user typed, which may hold escape sequences for the terminal. */
static void say(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *err, const char *fmt, ...)
{
	char raw[2048], safe[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	cpw_escape_for_terminal(raw, safe, sizeof(safe));
	fprintf(err, "cperfwatch: %s\n", safe);
}

/* --label NAME=VALUE: the name by the Prometheus grammar, not one cperfwatch writes, not
 * twice. Returns 0, or -1 after one line on err. */
static int check_label(const char *arg, const struct cpw_config *cfg, FILE *err)
{
	const char *eq = strchr(arg, '=');
	char name[128];
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
		say(err, "invalid label '%s': expected NAME=VALUE", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (!cpw_exposition_label_name_ok(name)) {
		say(err, "invalid label name '%s': expected letters, digits and _, "
		    "not starting with a digit or __, and none of: %s", name, cpw_exposition_reserved_labels);
		return -1;
	}
	if (strlen(eq + 1) > CPW_LABEL_VALUE_MAX) {
		say(err, "label '%s': its value is longer than %d bytes", name,
			CPW_LABEL_VALUE_MAX);
		return -1;
	}
	if (cfg->nlabels >= CPW_LABELS_MAX) {
		say(err, "too many labels (at most %d)", CPW_LABELS_MAX);
		return -1;
	}
	for (int i = 0; i < cfg->nlabels; i++)
		if (strncmp(cfg->labels[i], arg, (size_t)(eq - arg + 1)) == 0) {
			say(err, "label '%s' given twice", name);
			return -1;
		}
	return 0;
}

static const char *getenv_var(const char *name, const void *ctx)
{
	(void)ctx;
	return getenv(name);
}

/* Fills the host name and rank the report carries, and expands %r, %h, %p, %q{VAR} in -o.
 * Returns 0, or -1 after one line on err. */
static int expand_output(struct cpw_config *cfg, FILE *err)
{
	static char host[256];
	char why[512];
	const char *var;
	cpw_outname_short_hostname(host, sizeof(host));
	struct cpw_outname_env env = { getenv_var, NULL, host, (long)getpid() };
	cfg->host = host[0] ? host : NULL;
	long rank = cpw_outname_rank(&env, &var);
	cfg->rank = rank >= 0 && rank <= INT_MAX ? (int)rank : -1;
	if (!cfg->output_path || strcmp(cfg->output_path, "-") == 0)
		return 0;
	if (cpw_outname_expand(cfg->output_path, &env, cfg->output_expanded,
			       sizeof(cfg->output_expanded), why, sizeof(why)) < 0) {
		say(err, "output file %s", why);
		return -1;
	}
	cfg->output_path = cfg->output_expanded;
	return 0;
}

enum long_only {
	OPT_FORMAT = 256, OPT_LIST_EVENTS, OPT_TUI, OPT_NO_TUI, OPT_NO_CGROUP,
	OPT_MAX_WALL, OPT_MAX_CPU, OPT_MAX_RSS, OPT_FAIL_ON, OPT_PLOT, OPT_LABEL, OPT_MERGE,
	OPT_FOLDED, OPT_NO_HOTSPOTS, OPT_TIMEOUT, OPT_KILL_AFTER, OPT_SERIES, OPT_FLAME,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "flame", required_argument, NULL, OPT_FLAME },
	{ "no-hotspots", no_argument, NULL, OPT_NO_HOTSPOTS },
	{ "freq", required_argument, NULL, 'F' },
	{ "wait-all", no_argument, NULL, 'a' },
	{ "events", required_argument, NULL, 'e' },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "no-tui", no_argument, NULL, OPT_NO_TUI },
	{ "no-cgroup", no_argument, NULL, OPT_NO_CGROUP },
	{ "max-wall", required_argument, NULL, OPT_MAX_WALL },
	{ "max-cpu", required_argument, NULL, OPT_MAX_CPU },
	{ "max-rss", required_argument, NULL, OPT_MAX_RSS },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "kill-after", required_argument, NULL, OPT_KILL_AFTER },
	{ "series", required_argument, NULL, OPT_SERIES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

#define FAIL(...)                                          \
	do {                                               \
		say(err, __VA_ARGS__);                     \
		return CPW_CLI_ERROR;                      \
	} while (0)

/* What the options said beyond cfg. */
struct seen_options {
	bool have_pid, interval_given, kill_after_given, freq_given;
};

/* One pass of getopt over argv with optstring into cfg (from its defaults). CPW_CLI_OK:
 * go on with the operands from optind. */
static enum cpw_cli_result parse_options(int argc, char **argv, const char *optstring,
					 struct cpw_config *cfg, struct seen_options *seen,
					 FILE *out, FILE *err)
{
	bool have_pid = false, interval_given = false, kill_after_given = false, freq_given = false;
	double seconds;
	int c;

	cpw_options_defaults(cfg);
	opterr = 0;
	optind = 0; /* glibc: 0 also resets getopt's internal state from an earlier call */
	while ((c = getopt_long(argc, argv, optstring, long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (cpw_cli_parse_pid(optarg, &cfg->pid) < 0)
				FAIL("invalid process id '%s': expected a positive number", optarg);
			have_pid = true;
			break;
		case 'i':
			interval_given = true;
			if (cpw_cli_parse_seconds(optarg, &seconds) < 0)
				FAIL("invalid interval '%s': expected a time such as 100ms or 0.5s", optarg);
			if (seconds * 1000 < CPW_INTERVAL_MIN_MS - 1e-9)
				FAIL("interval '%s' is below the kernel's accounting resolution (%ums)",
				     optarg, CPW_INTERVAL_MIN_MS);
			if (seconds * 1000 > CPW_INTERVAL_MAX_MS)
				FAIL("interval '%s' is too long (at most 1h)", optarg);
			cfg->interval_ms = (unsigned)cpw_round(seconds * 1000);
			break;
		case 'd':
			if (cpw_cli_parse_seconds(optarg, &seconds) < 0 || seconds <= 0 || seconds > 1e7)
				FAIL("invalid duration '%s': expected a positive time such as 30s or 5m", optarg);
			cfg->duration_s = seconds;
			break;
		case 'j':
			cfg->format = CPW_FORMAT_JSON;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				cfg->format = CPW_FORMAT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				cfg->format = CPW_FORMAT_JSON;
			else if (strcmp(optarg, "openmetrics") == 0)
				cfg->format = CPW_FORMAT_OPENMETRICS;
			else if (strcmp(optarg, "prometheus") == 0)
				cfg->format = CPW_FORMAT_PROMETHEUS;
			else
				FAIL("invalid format '%s': expected text, json, prometheus or openmetrics", optarg);
			break;
		case 'o':
			if (!*optarg)
				FAIL("empty output file name");
			cfg->output_path = optarg;
			break;
		case OPT_PLOT:
			if (!*optarg)
				FAIL("empty plot file name");
			cfg->plot_path = optarg;
			break;
		case OPT_FOLDED:
			if (!*optarg)
				FAIL("empty folded-stacks file name");
			cfg->folded_path = optarg;
			break;
		case OPT_FLAME:
			if (!*optarg)
				FAIL("empty flame-graph file name");
			cfg->flame_path = optarg;
			break;
		case OPT_NO_HOTSPOTS:
			cfg->no_hotspots = true;
			break;
		case 'F': {
			long hz;
			if (parse_whole(optarg, 1, CPW_SAMPLING_HZ_MAX, &hz) < 0)
				FAIL("invalid sampling rate '%s' for --freq: expected a whole number of samples a "
				     "second, 1 to %d", optarg, CPW_SAMPLING_HZ_MAX);
			cfg->sampling_hz = (int)hz;
			freq_given = true;
			break;
		}
		case 'a':
			cfg->wait_all = true;
			break;
		case 'e':
			if (!*optarg)
				FAIL("empty event list");
			cfg->events = optarg;
			break;
		case OPT_LIST_EVENTS:
			cfg->mode = CPW_MODE_LIST_EVENTS;
			break;
		case OPT_TUI:
			cfg->tui = cfg->tui_forced = true;
			cfg->no_tui = false;
			break;
		case OPT_NO_TUI:
			cfg->no_tui = true;
			cfg->tui = cfg->tui_forced = false;
			break;
		case OPT_NO_CGROUP:
			cfg->no_cgroup = true;
			break;
		case OPT_MAX_WALL:
		case OPT_MAX_CPU:
			if (cpw_cli_parse_seconds(optarg, &seconds) < 0 || seconds <= 0)
				FAIL("invalid time '%s' for --%s: expected a positive time such as 500ms or 2m",
				     optarg, c == OPT_MAX_WALL ? "max-wall" : "max-cpu");
			*(c == OPT_MAX_WALL ? &cfg->max_wall_s : &cfg->max_cpu_s) = seconds;
			break;
		case OPT_TIMEOUT:
		case OPT_KILL_AFTER:
			if (cpw_cli_parse_seconds(optarg, &seconds) < 0 || seconds <= 0 || seconds > 1e7)
				FAIL("invalid time '%s' for --%s: expected a positive time such as 30s or 5m",
				     optarg, c == OPT_TIMEOUT ? "timeout" : "kill-after");
			*(c == OPT_TIMEOUT ? &cfg->timeout_s : &cfg->kill_after_s) = seconds;
			kill_after_given |= c == OPT_KILL_AFTER;
			break;
		case OPT_SERIES:
			if (!*optarg)
				FAIL("empty series file name");
			cfg->series_path = optarg;
			break;
		case OPT_MAX_RSS:
			if (cpw_cli_parse_bytes_kib(optarg, &cfg->max_rss_kib) < 0 || cfg->max_rss_kib == 0)
				FAIL("invalid size '%s' for --max-rss: expected a positive size such as 512M or 2G",
				     optarg);
			break;
		case OPT_FAIL_ON:
			if (parse_fail_on(optarg, &cfg->fail_on_mask) < 0)
				FAIL("invalid class list '%s' for --fail-on: classes are cpu-bound, "
				     "memory-bound, io-bound, thrashing, waiting, cpu-starved, mixed, unknown, gpu-bound",
				     optarg);
			break;
		case OPT_LABEL:
			if (check_label(optarg, cfg, err) < 0)
				return CPW_CLI_ERROR;
			cfg->labels[cfg->nlabels++] = optarg;
			break;
		case OPT_MERGE:
			cfg->mode = CPW_MODE_MERGE;
			break;
		case 'h':
			cpw_cli_usage(out);
			return CPW_CLI_EXIT_OK;
		case 'V':
			version(out);
			return CPW_CLI_EXIT_OK;
		case ':':
			FAIL("option '%s' needs a value (try 'cperfwatch --help')", argv[optind - 1]);
		default:
			if (optopt)
				FAIL("unknown option '-%c' (try 'cperfwatch --help')", optopt);
			FAIL("unknown option '%s' (try 'cperfwatch --help')", argv[optind - 1]);
		}
	}
	seen->have_pid = have_pid;
	seen->interval_given = interval_given;
	seen->kill_after_given = kill_after_given;
	seen->freq_given = freq_given;
	return CPW_CLI_OK;
}

enum cpw_cli_result cpw_cli_parse(int argc, char **argv, struct cpw_config *cfg, FILE *out,
				  FILE *err)
{
	struct seen_options seen;
	/* '+': stop at the first non-option, as GNU time does: COMMAND's own options stay its
	 * own (cperfwatch -o r.txt python3 -c ... needs no "--"; a "--" still ends ours). */
	enum cpw_cli_result rc = parse_options(argc, argv, "+:p:i:d:jo:ae:F:hV", cfg, &seen, out, err);
	if (rc != CPW_CLI_OK)
		return rc;
	/* --merge's operands are reports, not a command: options may come after them too
	 * (cperfwatch --merge rank*.json -o job.json), as with any GNU tool. Parsed again
	 * with getopt's own ordering, which moves the reports to the end; a "--" still ends
	 * the options. */
	if (cfg->mode == CPW_MODE_MERGE && optind < argc && strcmp(argv[optind - 1], "--") != 0) {
		rc = parse_options(argc, argv, ":p:i:d:jo:ae:F:hV", cfg, &seen, out, err);
		if (rc != CPW_CLI_OK)
			return rc;
	}
	bool have_pid = seen.have_pid, interval_given = seen.interval_given;

	if (cfg->mode == CPW_MODE_LIST_EVENTS) {
		if (optind < argc || have_pid)
			FAIL("--list-events takes no command and no --pid");
		return CPW_CLI_OK;
	}
	if (cfg->nlabels && cfg->format != CPW_FORMAT_PROMETHEUS && cfg->format != CPW_FORMAT_OPENMETRICS)
		FAIL("--label applies to --format prometheus or openmetrics");
	if (cfg->folded_path && cfg->no_hotspots)
		FAIL("--folded writes the sampled stacks: it cannot go with --no-hotspots");
	if (cfg->flame_path && cfg->no_hotspots)
		FAIL("--flame draws the sampled stacks: it cannot go with --no-hotspots");
	if (seen.freq_given && cfg->no_hotspots)
		FAIL("--freq is the hotspots' sampling rate: it cannot go with --no-hotspots");
	if (expand_output(cfg, err) < 0)
		return CPW_CLI_ERROR;
	if (cfg->mode == CPW_MODE_MERGE) {
		if (have_pid)
			FAIL("--merge reads reports: give either --merge FILE... or --pid, not both");
		if (optind >= argc)
			FAIL("--merge needs the JSON reports to merge (cperfwatch --merge FILE...)");
		if (cfg->format == CPW_FORMAT_OPENMETRICS)
			FAIL("--merge writes text, JSON or prometheus, not openmetrics");
		if (cfg->plot_path)
			FAIL("--plot draws a run or a watch over time; --merge has no time series");
		if (cfg->folded_path || cfg->flame_path || cfg->no_hotspots || seen.freq_given)
			FAIL("--folded, --flame, --freq and --no-hotspots apply to a run or a watch; --merge has no samples");
		/* What only a run or a watch has: a budget here could never be broken. */
		if (cfg->max_wall_s > 0 || cfg->max_cpu_s > 0 || cfg->max_rss_kib > 0 || cfg->fail_on_mask ||
		    cfg->timeout_s > 0 || seen.kill_after_given)
			FAIL("--merge takes no budget (--max-wall, --max-cpu, --max-rss, --fail-on, --timeout): "
			     "they apply to a run or a watch");
		if (cfg->series_path)
			FAIL("--series writes a run's or a watch's samples; --merge takes none");
		if (cfg->duration_s > 0 || cfg->events || cfg->wait_all || cfg->tui_forced || cfg->no_cgroup ||
		    interval_given)
			FAIL("--merge reads reports: -i, -d, -e, -a, --tui and --no-cgroup apply to a run or a watch");
		cfg->command = &argv[optind];
		cfg->command_argc = argc - optind;
		return CPW_CLI_OK;
	}
	bool had_dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
	if (have_pid) {
		if (optind < argc)
			FAIL("--pid watches a running process: give either --pid or -- COMMAND, not both");
		cfg->mode = CPW_MODE_ATTACH;
		if (cfg->wait_all)
			FAIL("--wait-all applies to run mode only");
		if (cfg->timeout_s > 0 || seen.kill_after_given)
			FAIL("--timeout and --kill-after stop a command cperfwatch runs: with --pid, "
			     "--duration ends the watch");
		return CPW_CLI_OK;
	}
	if (optind >= argc) {
		if (had_dashdash)
			FAIL("no command after '--' (usage: cperfwatch [OPTION]... [--] COMMAND [ARG]...)");
		FAIL("no command given (usage: cperfwatch [OPTION]... [--] COMMAND [ARG]..., or --pid PID)");
	}
	if (!argv[optind][0])
		FAIL("empty command name");
	if (cfg->duration_s > 0)
		FAIL("--duration applies to attach mode (--pid) only");
	if (seen.kill_after_given && !(cfg->timeout_s > 0))
		FAIL("--kill-after is the grace of a --timeout: give --timeout too");
	cfg->command = &argv[optind];
	cfg->command_argc = argc - optind;
	return CPW_CLI_OK;
}
