/*
 * test_report.c: the writers on a report built by hand: the GNU time labels in their order,
 * N/A and null for what was not measured, escaping of hostile names, JSON that json-c parses
 * back, OpenMetrics framing, budgets. The report is report_fixture.c's.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "report/plot_svg.h"
#include "report/flame_svg.h"
#include "report/exposition.h"
#include "report/output.h"
#include "report/series.h"
#include "report/hotspots_report.h"
#include "model/tree.h"
#include "cunit_tap.h"
#include "report_fixture.h"
#include "util/arith.h"

static char *render(const struct cpw_report *r, int (*writer)(const struct cpw_report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(writer(r, f), 0);
	fclose(f);
	return buf;
}

/* Whole numbers keep every digit (a byte count past 1e9); others 9 significant digits. */
static void test_numbers(void)
{
	char buf[64];
	cpw_report_number(5368709121.0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "5368709121");
	cpw_report_number(2.0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2");
	cpw_report_number(0.1234567891234, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0.123456789");
	cpw_report_number(1e300, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1e+300");

	/* Through the writers: JSON and OpenMetrics, and the text's usable cores. */
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	r.metrics.read_bytes = 5368709121.0;
	r.metrics.cores_usable = 128;
	char *text = render(&r, cpw_report_write_json);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "5368709121"));
	free(text);
	text = render(&r, cpw_report_write_openmetrics);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "} 5368709121\n"));
	free(text);
	text = render(&r, cpw_report_write_text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "of 128 usable"));
	free(text);
	r.metrics.cores_usable = 2.75;
	text = render(&r, cpw_report_write_text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "of 2.75 usable"));
	free(text);
}

static void test_text_time_labels(void)
{
	static const char *labels[] = {
		"Command exited with non-zero status 3", "Command being timed: \"prog arg\\x1b[31m\"",
		"User time (seconds): 1.50", "System time (seconds): 0.25",
		"Percent of CPU this job got: 87%", "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.00",
		"Average shared text size (kbytes):", "Average unshared data size (kbytes):",
		"Average stack size (kbytes):", "Average total size (kbytes):",
		"Maximum resident set size (kbytes): 2048", "Average resident set size (kbytes):",
		"Major (requiring I/O) page faults:", "Minor (reclaiming a frame) page faults: 77",
		"Voluntary context switches:", "Involuntary context switches:", "Swaps:",
		"File system inputs:", "File system outputs:", "Socket messages sent:",
		"Socket messages received:", "Signals delivered:", "Page size (bytes): 4096",
		"Exit status: 3", "Thread states", "Verdict: cpu-bound (confidence 90%)", "Notes:",
		"a note 1", NULL,
	};
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	char *text = render(&r, cpw_report_write_text);
	const char *at = text;
	for (const char **l = labels; *l; l++) {
		const char *found = strstr(at, *l);
		if (!found)
			fprintf(stderr, "missing or out of order: %s\n", *l);
		CU_ASSERT_PTR_NOT_NULL(found);
		if (found)
			at = found;
	}
	CU_ASSERT_PTR_NULL(strchr(text, '\x1b')); /* no escape sequence reaches a terminal */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Storage: N/A read, N/A written")); /* not 0 */
	/* 80% R split 3:1 by schedstat; zero shares are left out. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "running 60.0%, runnable (waiting for a CPU) 20.0%, sleeping (S) 20.0%\n"));
	/* Sizes as people read them; the RSS sum never below the largest process. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Tree, shared pages counted once: 207.7 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Tree, resident, shared pages counted in each process (sampled): 800.0 MiB"));
	free(text);
}

/* A command that fails at once (issue 29 item 7): every time -v line, how it ended, and one
 * verdict line, not sixty lines of figures ending in "unknown". */
static void test_text_too_short(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	r.exit_known = true;
	r.exit_code = 2;
	r.metrics.wall_s = 0.03;
	memset(&r.verdict, 0, sizeof r.verdict);
	r.verdict.cls = CPW_CLASS_UNKNOWN;
	r.verdict.secondary = CPW_CLASS_NONE;
	char *text = render(&r, cpw_report_write_text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Command exited with non-zero status 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tExit status: 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tPage size (bytes): 4096\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Verdict: unknown: the command exited with status 2 after 0.030 s, "
					 "too short to judge (under 0.25 s)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Notes:\n\ta note 1\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "Thread states"));
	CU_ASSERT_PTR_NULL(strstr(text, "Memory (peaks"));
	int lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	CU_ASSERT(lines <= 30);
	free(text);
}

/* Evidence whose rule did not fire and was not near it (issue 29 item 7): JSON keeps it, the
 * text leaves it out. */
static void test_evidence_aside(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	struct cpw_evidence *e = &r.verdict.evidence[r.verdict.nevidence++];
	snprintf(e->metric, sizeof e->metric, "minflt_per_cpu_s");
	snprintf(e->source, sizeof e->source, "wait4 rusage");
	snprintf(e->text, sizeof e->text, "14159 minor page faults per CPU-second");
	e->aside = true;
	char *text = render(&r, cpw_report_write_text);
	CU_ASSERT_PTR_NULL(strstr(text, "14159 minor page faults"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tEvidence: bad ")); /* the one that is not aside */
	free(text);
	char *json = render(&r, cpw_report_write_json);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "14159 minor page faults per CPU-second"));
	free(json);
}

static void test_json_round_trip(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	char *text = render(&r, cpw_report_write_json);
	json_object *root = json_tokener_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_object *o, *v;
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "schema", &o));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(o), "cperfwatch/1");
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "exit", &o));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "code", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 3);
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "io", &o));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "read_bytes", &v));
	CU_ASSERT_PTR_NULL(v); /* unmeasured: null, never 0 */
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "time", &o));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "cpu_percent", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 87.5, 1e-9);
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "verdict", &o));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "class", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "cpu-bound");
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "secondary", &v));
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "evidence", &v));
	json_object *text0 = json_object_object_get(json_object_array_get_idx(v, 0), "text");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(text0), "bad \\xff byte"); /* valid UTF-8 */
	CU_ASSERT_TRUE(json_object_object_get_ex(root, "command", &o));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(o, 1)), "arg\x1b[31m");
	CU_ASSERT_NOT_EQUAL(strstr(text, "\\u001b"), NULL); /* escaped by the JSON writer */
	json_object_put(root);
	free(text);
}

/* The processes array is written one object at a time into the document json-c prints:
 * it must parse back whole, in order, escaped, laid out as json-c lays out the rest. */
static void test_json_processes_streamed(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	struct cpw_tree *tree = report_fixture_tree();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
	r.tree = tree;
	char *text = render(&r, cpw_report_write_json);
	json_object *root = json_tokener_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_object *procs;
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(root, "processes", &procs));
	CU_ASSERT_TRUE_FATAL(json_object_is_type(procs, json_type_array));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(procs), 3);
	const char *names[] = { "first", "a \"q\"\nname", "@cperfwatch-processes@" };
	for (size_t i = 0; i < 3; i++) {
		json_object *p = json_object_array_get_idx(procs, i), *v;
		CU_ASSERT_TRUE(json_object_object_get_ex(p, "pid", &v) && json_object_get_int(v) == 100 + (int)i);
		CU_ASSERT_TRUE(json_object_object_get_ex(p, "command", &v));
		CU_ASSERT_STRING_EQUAL(json_object_get_string(v), names[i]);
	}
	/* Laid out at json-c's depth, followed by the rest of the document. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  \"processes\": [\n    {\n      \"pid\": 100,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n    },\n    {\n      \"pid\": 101,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n    }\n  ],\n  \"budgets\": "));
	/* The fallback for a json-c that lays the placeholder out otherwise (the array built
	 * inside the document) gives the same document, text for text. */
	cpw_report_json_stream_processes(false);
	char *built = render(&r, cpw_report_write_json);
	cpw_report_json_stream_processes(true);
	json_object *built_root = json_tokener_parse(built);
	CU_ASSERT_TRUE(json_object_equal(root, built_root));
	CU_ASSERT_STRING_EQUAL(built, text);
	json_object_put(built_root);
	free(built);
	json_object_put(root);
	free(text);
	cpw_tree_free(tree);

	/* No tree: an empty array, as json-c prints one. */
	report_fixture_build(&r, &cfg);
	text = render(&r, cpw_report_write_json);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"processes\": [\n  ],\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "@cperfwatch-processes@"));
	free(text);
}

/* A note too long for its slot is cut where the cut shows; shorter ones are whole. */
static void test_long_note(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	char path[700];
	memset(path, 'd', sizeof path - 1);
	path[sizeof path - 1] = '\0';
	int first = r.nnotes; /* after the fixture's own */
	cpw_report_note(&r, "cannot create %s: Permission denied", path);
	cpw_report_note(&r, "short %d", 7);
	CU_ASSERT_EQUAL(strlen(r.notes[first]), CPW_NOTE_LEN - 1);
	CU_ASSERT_STRING_EQUAL(r.notes[first] + CPW_NOTE_LEN - 4, "...");
	CU_ASSERT_STRING_EQUAL(r.notes[first + 1], "short 7");
	/* A reason after a deep cgroup path (the v2 session scope of a desktop) fits whole. */
	report_fixture_build(&r, &cfg);
	first = r.nnotes;
	cpw_report_note(&r, "not run in a cgroup of its own (cannot create %s: Permission denied (not "
			"root, and the cgroup is not delegated to us)): memory and pressure figures "
			"are system-wide", "/sys/fs/cgroup/user.slice/user-1000.slice/"
			"user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-"
			"0123456789abcdef.scope/cperfwatch-123456");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.notes[first], "are system-wide"));
}

static void test_openmetrics(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	char *text = render(&r, cpw_report_write_openmetrics);
	size_t len = strlen(text);
	CU_ASSERT_TRUE(len > 6 && strcmp(text + len - 6, "# EOF\n") == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cperfwatch_user_cpu_seconds_total{command=\"prog\",mode=\"run\"} 1.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cperfwatch_verdict{command=\"prog\",mode=\"run\",class=\"cpu-bound\"} 1\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "cperfwatch_storage_read_bytes")); /* unmeasured: absent */
	free(text);
}

/* Prometheus 0.0.4: HELP then TYPE on every family, counters named with _total, no UNIT
 * and no EOF; --label pairs on every sample, values escaped. */
static void test_prometheus_labels(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	cfg.labels[cfg.nlabels++] = "job=nightly";
	cfg.labels[cfg.nlabels++] = "note=a \"q\"\\b\nc=d";
	char *text = render(&r, cpw_report_write_prometheus);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# HELP cperfwatch_user_cpu_seconds_total User CPU time of the tree.\n"
					    "# TYPE cperfwatch_user_cpu_seconds_total counter\n"
					    "cperfwatch_user_cpu_seconds_total{command=\"prog\",mode=\"run\","
					    "job=\"nightly\",note=\"a \\\"q\\\"\\\\b\\nc=d\"} 1.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ",class=\"cpu-bound\"} 1\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "# UNIT"));
	CU_ASSERT_PTR_NULL(strstr(text, "# EOF"));
	/* every family has its HELP right before its TYPE */
	int types = 0;
	for (const char *t = text; (t = strstr(t, "# TYPE ")); t++) {
		types++;
		CU_ASSERT_TRUE(t > text + 7);
	}
	int helps = 0;
	for (const char *h = text; (h = strstr(h, "# HELP ")); h++)
		helps++;
	CU_ASSERT_EQUAL(types, helps);
	free(text);
	/* the same labels reach OpenMetrics */
	text = render(&r, cpw_report_write_openmetrics);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "mode=\"run\",job=\"nightly\","));
	free(text);
}

static void test_label_names(void)
{
	CU_ASSERT_TRUE(cpw_exposition_label_name_ok("job"));
	CU_ASSERT_TRUE(cpw_exposition_label_name_ok("_x9"));
	CU_ASSERT_TRUE(cpw_exposition_label_name_ok("Cluster_Name"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok(""));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("9job"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("__name__"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("a-b"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("a.b"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("caf\xc3\xa9"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("command"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("class"));
	CU_ASSERT_FALSE(cpw_exposition_label_name_ok("rank"));
	CU_ASSERT_TRUE(cpw_exposition_label_name_ok("ranks"));
}

static void test_budgets(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	cfg.max_wall_s = 1.0;
	cfg.max_cpu_s = 5.0;
	r.metrics.max_rss_kib = 4096;
	cfg.max_rss_kib = 1024;
	cfg.fail_on_mask = 1u << CPW_CLASS_IO_BOUND;
	CU_ASSERT_TRUE(cpw_budgets_check(r.cfg, &r.metrics, &r.verdict, r.budgets, &r.nbudgets));
	CU_ASSERT_EQUAL(r.nbudgets, 4);
	CU_ASSERT_STRING_EQUAL(r.budgets[0].name, "max-wall");
	CU_ASSERT_TRUE(r.budgets[0].broken);
	CU_ASSERT_STRING_EQUAL(r.budgets[0].value, "2.000s");
	CU_ASSERT_FALSE(r.budgets[1].broken);
	CU_ASSERT_TRUE(r.budgets[2].broken);
	CU_ASSERT_STRING_EQUAL(r.budgets[3].limit, "io-bound");
	CU_ASSERT_FALSE(r.budgets[3].broken);
	/* The numbers beside the text, for JSON (issue 29: "102400K" was a string). */
	CU_ASSERT_EQUAL(r.budgets[0].unit, CPW_BUDGET_SECONDS);
	CU_ASSERT_DOUBLE_EQUAL(r.budgets[0].limit_num, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.budgets[0].value_num, 2.0, 1e-12);
	CU_ASSERT_EQUAL(r.budgets[2].unit, CPW_BUDGET_KIB);
	CU_ASSERT_DOUBLE_EQUAL(r.budgets[2].limit_num, 1024, 1e-12);
	CU_ASSERT_EQUAL(r.budgets[3].unit, CPW_BUDGET_CLASS);
	CU_ASSERT_EQUAL(r.budgets[3].limit_classes, 1u << CPW_CLASS_IO_BOUND);
	CU_ASSERT_EQUAL(r.budgets[3].value_class, (int)r.verdict.cls);
	char line[256];
	CU_ASSERT_EQUAL(cpw_budgets_broken_line(r.budgets, r.nbudgets, line, sizeof(line)), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "max-wall (limit 1.000s, measured 2.000s), max-rss (limit 1024K"));
	CU_ASSERT_EQUAL(cpw_budgets_broken_line(r.budgets, r.nbudgets, line, 10), 2); /* cut, counted */
	CU_ASSERT_EQUAL(strlen(line), 9);

	char *text = render(&r, cpw_report_write_json);
	json_object *root = json_tokener_parse(text), *budgets, *b, *v;
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(root, "budgets", &budgets));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(budgets), 4);
	b = json_object_array_get_idx(budgets, 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "limit_s", &v) && json_object_get_double(v) == 1.0);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "value_s", &v) && json_object_get_double(v) == 2.0);
	CU_ASSERT_FALSE(json_object_object_get_ex(b, "limit_kib", &v));
	b = json_object_array_get_idx(budgets, 2);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "limit_kib", &v) && json_object_get_double(v) == 1024);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "value_kib", &v) && json_object_get_double(v) >= 4096);
	b = json_object_array_get_idx(budgets, 3);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "limit_classes", &v) && json_object_array_length(v) == 1 &&
		       strcmp(json_object_get_string(json_object_array_get_idx(v, 0)), "io-bound") == 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(b, "value_class", &v) &&
		       strcmp(json_object_get_string(v), cpw_verdict_class_name(r.verdict.cls)) == 0);
	json_object_put(root);
	free(text);

	/* --timeout: broken when the run lasted it (run mode stopped it there). */
	cfg.max_wall_s = 3.0;
	cfg.max_rss_kib = 0;
	cfg.fail_on_mask = 0;
	cfg.max_cpu_s = 0;
	cfg.timeout_s = 2.0;
	CU_ASSERT_TRUE(cpw_budgets_check(r.cfg, &r.metrics, &r.verdict, r.budgets, &r.nbudgets));
	CU_ASSERT_EQUAL_FATAL(r.nbudgets, 2);
	CU_ASSERT_STRING_EQUAL(r.budgets[1].name, "timeout");
	CU_ASSERT_TRUE(r.budgets[1].broken);
	CU_ASSERT_EQUAL(cpw_budgets_broken_line(r.budgets, r.nbudgets, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "timeout (limit 2.000s, measured 2.000s)");
	cfg.timeout_s = 2.5;
	CU_ASSERT_FALSE(cpw_budgets_check(r.cfg, &r.metrics, &r.verdict, r.budgets, &r.nbudgets));
	CU_ASSERT_EQUAL(cpw_budgets_broken_line(r.budgets, r.nbudgets, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "");
}

/* --series: one sample as one line, the timeline's keys, null where unknown. */
static void test_series_line(void)
{
	struct cpw_tl_point p;
	char line[4096];
	cpw_timeline_point_init(&p, 1.5);
	p.dt_s = 0.1;
	p.samples = 1;
	p.user_s = 0.25;
	p.rss_kib_max = 2048;
	p.states[CPW_TL_RUNNING] = 3;
	p.top[0].pid = 42;
	snprintf(p.top[0].comm, sizeof(p.top[0].comm), "py\"thon");
	p.top[0].cpu_s = 0.25;
	int n = cpw_series_format(&p, 1700000000123LL, 2, line, sizeof(line));
	CU_ASSERT_TRUE_FATAL(n > 0);
	CU_ASSERT_EQUAL((size_t)n, strlen(line));
	CU_ASSERT_EQUAL(line[n - 1], '\n');
	CU_ASSERT_TRUE(strchr(line, '\n') == line + n - 1); /* one line */
	json_object *o = json_tokener_parse(line), *v;
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "unix_time_ms", &v) && json_object_get_int64(v) == 1700000000123LL);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "t_s", &v) && json_object_get_double(v) == 1.5);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "cpu_user_s", &v) && json_object_get_double(v) == 0.25);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "threads_running", &v) && json_object_get_double(v) == 3);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "rss_kib_max", &v) && json_object_get_double(v) == 2048);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "read_bytes", &v) && v == NULL); /* NAN: null */
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "processes_alive", &v) && json_object_get_int(v) == 2);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "wait_lock_s", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "top", &v) && json_object_array_length(v) == 1);
	json_object *t = json_object_array_get_idx(v, 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(t, "comm", &v) && strcmp(json_object_get_string(v), "py\"thon") == 0);
	json_object_put(o);
	/* Too small a buffer: no line rather than half of one. */
	CU_ASSERT_EQUAL(cpw_series_format(&p, 0, 2, line, 64), -1);
}

static void test_escape(void)
{
	char out[64];
	cpw_escape_for_terminal("a\nb\x1b]0;x\x07 \xc3\xa9 \xc2\x9b \xed\xa0\x80", out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "a\\x0ab\\x1b]0;x\\x07 \xc3\xa9 \\xc2\\x9b \\xed\\xa0\\x80");
	cpw_escape_utf8("ok\n\xff", out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "ok\n\\xff");
	char small[5];
	cpw_escape_for_terminal("\x01\x02", small, sizeof(small));
	CU_ASSERT_STRING_EQUAL(small, "\\x01"); /* never a partial escape */
}

static void test_write_failure(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	cfg.format = CPW_FORMAT_JSON;
	FILE *full = fopen("/dev/full", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_NOT_EQUAL(cpw_report_write(&r, full), 0);
	fclose(full);
}

/* The SVG plot: the phases named, the hostile command and process names escaped (no
 * control character, no raw markup), and a picture even without any sample. */
static void test_plot_svg(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	struct cpw_tree *tree = report_fixture_tree();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
	r.tree = tree;
	char *empty = render(&r, cpw_plot_svg_write);
	CU_ASSERT_PTR_NOT_NULL(strstr(empty, "No sample was taken"));
	free(empty);
	struct cpw_timeline *tl = report_fixture_timeline(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	char *svg = render(&r, cpw_plot_svg_write);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">[1] io-bound<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">[2] cpu-bound<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "a &quot;q&quot;?name"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "cperfwatch: prog arg?[31m"));
	for (const char *c = svg; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\n')
			CU_FAIL("a control character in the SVG");
	CU_ASSERT_PTR_NULL(strstr(svg, "<script"));
	CU_ASSERT_PTR_NULL(strstr(svg, "href"));
	free(svg);
	cpw_timeline_free(tl);
	cpw_tree_free(tree);
}

/* The flame graph where it has no stacks (not sampled, sampling refused, no sample) and
 * where the stack table overflowed: a picture that says why or how much, every name
 * escaped; and a failed write is reported. (The whole picture: test_golden's flame.svg.) */
static void test_flame_svg(void)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	char *svg = render(&r, cpw_flame_svg_write);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">No stacks: the run was not sampled (--no-hotspots).<"));
	free(svg);
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	r.hotspots = h;
	svg = render(&r, cpw_flame_svg_write);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">No stacks: no sample was taken"));
	free(svg);
	cpw_hotspots_set_unavailable(h, "perf_event_paranoid is 3 <not> \x1b[31m");
	svg = render(&r, cpw_flame_svg_write);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">No stacks: perf_event_paranoid is 3 &lt;not&gt; ?[31m<"));
	free(svg);
	cpw_hotspots_free(h);

	/* 4,900 distinct stacks of one sample (main, then one of 70 callers, then one of 70
	 * leaves): the table keeps what fits, the rest is [other]; every leaf is under 0.1% of
	 * the samples and left out, each of the callers the table kept is drawn. */
	h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cpw_hotspots_set_epoch(h, 100);
	struct cpw_stack st;
	char leaf[32], caller[32];
	memset(&st, 0, sizeof(st));
	st.pid = st.tid = 5;
	st.comm = "p";
	st.nframes = 3;
	st.frames[0] = (struct cpw_frame){ leaf, "prog", CPW_CODE_NATIVE };
	st.frames[1] = (struct cpw_frame){ caller, "prog", CPW_CODE_NATIVE };
	st.frames[2] = (struct cpw_frame){ "main", "prog", CPW_CODE_NATIVE };
	for (int i = 0; i < 4900; i++) {
		snprintf(caller, sizeof(caller), "a%d", i / 70);
		snprintf(leaf, sizeof(leaf), "b%d", i % 70);
		st.mono_s = 100.5 + i * 1e-4;
		cpw_hotspots_take(h, &st);
	}
	unsigned long long dropped = cpw_hotspots_stacks_dropped(h);
	CU_ASSERT_TRUE_FATAL(dropped > 0);
	r.hotspots = h;
	svg = render(&r, cpw_flame_svg_write);
	char expect[160];
	snprintf(expect, sizeof(expect), " %llu under 0.1%% of the samples left out; [other]: %llu samples whose "
		 "stack did not fit the table.", 4900 - dropped, dropped);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, expect));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>all (4900 samples, 100.00%)</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>a0 (70 samples, 1.43%)</title>"));
	CU_ASSERT_PTR_NULL(strstr(svg, "<title>b1 ("));
	free(svg);
	FILE *full = fopen("/dev/full", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_NOT_EQUAL(cpw_flame_svg_write(&r, full), 0);
	fclose(full);
	cpw_hotspots_free(h);
}

/* Armed, and no sample after (a dd in disk waits from 0.5 s on): one line that says why
 * there is nothing, where a header stood over an empty section. */
static void test_hotspots_none_sampled(void)
{
	struct cpw_hotspots *h = cpw_hotspots_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	struct cpw_sampler_stats st = { .hz = 99 };
	cpw_hotspots_set_source(h, &st, 0.5);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(cpw_hotspots_report_write_text(h, NULL, f), 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text, "Hotspots: no sample: from 0.5 s, when sampling was armed, no thread of the tree "
				     "used the 10.1 ms of CPU that a sample takes at 99 Hz\n");
	free(text);
	st.lost = 3;
	cpw_hotspots_set_source(h, &st, 0.5);
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(cpw_hotspots_report_write_text(h, NULL, f), 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text, "Hotspots: no sample: from 0.5 s, when sampling was armed, the kernel dropped 3 "
				     "record(s)\n");
	free(text);
	cpw_hotspots_free(h);
}

/* The number of entries in dir, but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* -o FILE: checked with nothing made, then written under a temporary name beside it and
 * renamed whole; a symlink and a FIFO refused (without blocking); a device written in
 * place; an abandoned report leaves nothing behind. */
static void test_output_rename(void)
{
	char dir[] = "/tmp/cpw-output-XXXXXX", path[256], link[256], fifo[256], err[CPW_PATH_LEN + 160];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.prom", dir);
	struct cpw_config cfg;
	struct cpw_output o;
	cpw_options_defaults(&cfg);
	cfg.output_path = path;
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(o.stream);
	CU_ASSERT_EQUAL(entries(dir), 0); /* nothing made yet */
	CU_ASSERT_EQUAL(cpw_output_begin(&o), 0);
	CU_ASSERT_EQUAL(access(path, F_OK), -1); /* not there until whole */
	CU_ASSERT_PTR_NOT_NULL(strstr(o.tmp_path, "/.r.prom."));
	fputs("x 1\n", o.stream);
	CU_ASSERT_EQUAL(cpw_output_commit(&o), 0);
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT_STRING_EQUAL(o.tmp_path, "");
	cpw_output_abandon(&o); /* after a commit: nothing */
	CU_ASSERT_EQUAL(access(path, F_OK), 0);

	/* A report that is not written leaves the old file as it was, and no temporary. */
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_output_begin(&o), 0);
	char tmp[CPW_PATH_LEN];
	snprintf(tmp, sizeof(tmp), "%s", o.tmp_path);
	fputs("half", o.stream);
	cpw_output_abandon(&o);
	CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
	FILE *in = fopen(path, "r");
	char line[16] = "";
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), in));
	fclose(in);
	CU_ASSERT_STRING_EQUAL(line, "x 1\n");

	snprintf(link, sizeof(link), "%s/l.prom", dir);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link), 0);
	cfg.output_path = link;
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "symbolic link"));
	/* A FIFO, with no reader: refused at once (opening it would block). */
	snprintf(fifo, sizeof(fifo), "%s/f.prom", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	cfg.output_path = fifo;
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "a FIFO"));
	cfg.output_path = "/dev/null";
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_output_begin(&o), 0);
	CU_ASSERT_STRING_EQUAL(o.tmp_path, "");
	CU_ASSERT_EQUAL(cpw_output_commit(&o), 0);
	cfg.output_path = "-";
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_output_begin(&o), 0);
	CU_ASSERT_PTR_EQUAL(o.stream, stdout);
	CU_ASSERT_STRING_EQUAL(cpw_output_name(&o), "standard output");
	cfg.output_path = "/dev/stderr"; /* named on purpose: the stream, whatever it is */
	CU_ASSERT_EQUAL(cpw_output_init(&o, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_PTR_EQUAL(o.standard, stderr);
	unlink(fifo);
	unlink(link);
	unlink(path);
	CU_ASSERT_EQUAL(rmdir(dir), 0); /* nothing else was left in it */
}

/* util/arith.h stands in for libm (the binary loads none): against libm itself. */
static void test_arith_without_libm(void)
{
	const double xs[] = { 0.0, 1e-12, 0.0025, 0.1875, 0.25, 1.0, 2.0, 3.999, 4.0, 1234.5678, 1e12 };
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		CU_ASSERT_DOUBLE_EQUAL(cpw_sqrt(xs[i]), sqrt(xs[i]), 1e-12 * (1 + sqrt(xs[i])));
	CU_ASSERT_EQUAL(cpw_sqrt(-1.0), 0.0);
	CU_ASSERT_EQUAL(cpw_sqrt(NAN), 0.0);
	CU_ASSERT_DOUBLE_EQUAL(cpw_decade_below(0.2), 0.1, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(cpw_decade_below(1.0), 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(cpw_decade_below(999.0), 100.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(cpw_decade_below(1000.0), 1000.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(cpw_decade_below(13047.3), 10000.0, 0);
	CU_ASSERT_EQUAL(cpw_decade_below(0.0), 1.0);
	CU_ASSERT_EQUAL(cpw_max(NAN, 2.0), 2.0);
	CU_ASSERT_EQUAL(cpw_min(1.0, 2.0), 1.0);
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("report", NULL, NULL);
	CU_add_test(s, "text: every GNU time label, in order", test_text_time_labels);
	CU_add_test(s, "text: a run too short to judge is a short report", test_text_too_short);
	CU_add_test(s, "text: evidence set aside is in JSON only", test_evidence_aside);
	CU_add_test(s, "json: parses back, nulls, escaping", test_json_round_trip);
	CU_add_test(s, "json: the processes array, written one by one", test_json_processes_streamed);
	CU_add_test(s, "openmetrics framing and names", test_openmetrics);
	CU_add_test(s, "prometheus: HELP and TYPE, _total families, labels escaped", test_prometheus_labels);
	CU_add_test(s, "label names by the Prometheus grammar", test_label_names);
	CU_add_test(s, "budgets", test_budgets);
	CU_add_test(s, "--series: one sample, one JSON line", test_series_line);
	CU_add_test(s, "a long note is cut visibly", test_long_note);
	CU_add_test(s, "escaping for terminals and JSON", test_escape);
	CU_add_test(s, "a failed write is reported", test_write_failure);
	CU_add_test(s, "-o: a temporary file renamed into place", test_output_rename);
	CU_add_test(s, "numbers: every digit of whole ones, usable cores as written", test_numbers);
	CU_add_test(s, "the SVG plot: phases named, names escaped", test_plot_svg);
	CU_add_test(s, "the flame graph: no stacks, an overflowed table, a failed write", test_flame_svg);
	CU_add_test(s, "hotspots: armed, no sample after: one line that says why", test_hotspots_none_sampled);
	CU_add_test(s, "arithmetic without libm: square root, decades", test_arith_without_libm);
	return cpw_cunit_run_tap();
}
