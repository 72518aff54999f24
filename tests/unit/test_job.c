/*
 * test_job.c: the merge of a job's reports (source/reports/job_read.c, classify/job.c,
 * job_judge.c, report/job_report.c) from the per-rank fixtures
 * tests/fixtures/json/job-*.json: four ranks on two hosts, rank 2 the straggler, rank 3
 * waiting; a report cut short; a schema this cperfwatch does not know; what is not a
 * report at all. And reports made here from job-rank0.json: nonsense refused key by key,
 * 20 cut short and 10,000 copies of one rank (every file left out accounted for), long and
 * look-alike file names (no Prometheus series twice), large jobs (the medians of all ranks
 * but one against a plain count), and json-c out of memory at each of its allocations.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/job.h"
#include "report/job_report.h"
#include "source/reports/job_read.h"
#include "cunit_tap.h"

#ifndef FIXTURES
#error "FIXTURES: the absolute path of tests/fixtures"
#endif

static char why[768];

/* What merge mode does with one file's text: read it, then add it (or note it cut short).
 * CPW_JOB_REFUSED for a report refused by either. */
static enum cpw_job_add add_text(struct cpw_job *job, const char *name, const char *text, size_t len)
{
	struct cpw_rank_report said;
	why[0] = '\0';
	switch (cpw_job_read_report(name, text, len, &said, why, sizeof(why))) {
	case CPW_JOB_READ_OK:
		return cpw_job_add(job, &said, why, sizeof(why));
	case CPW_JOB_READ_CUT_SHORT:
		cpw_job_cut_short(job, name);
		return CPW_JOB_LEFT_OUT;
	default:
		return CPW_JOB_REFUSED;
	}
}

static char *fixture_text(const char *name, size_t *len)
{
	char path[4096], *text = NULL;
	snprintf(path, sizeof(path), "%s/json/%s", FIXTURES, name);
	CU_ASSERT_EQUAL_FATAL(cpw_job_read_file(path, &text, len), 0);
	return text;
}

static enum cpw_job_add add_fixture(struct cpw_job *job, const char *name)
{
	size_t len = 0;
	char *text = fixture_text(name, &len);
	enum cpw_job_add rc = add_text(job, name, text, len);
	free(text);
	return rc;
}

static void load_four(struct cpw_job *job)
{
	cpw_job_init(job);
	CU_ASSERT_EQUAL(add_fixture(job, "job-rank0.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(add_fixture(job, "job-rank1.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(add_fixture(job, "job-rank2.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(add_fixture(job, "job-rank3.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(cpw_job_judge(job), 0);
}

static void test_totals_and_verdict(void)
{
	struct cpw_job job;
	load_four(&job);
	CU_ASSERT_EQUAL(job.nranks, 4);
	CU_ASSERT_EQUAL(job.nhosts, 2);
	CU_ASSERT_EQUAL(job.ranks[2].said.rank, 2);
	CU_ASSERT_STRING_EQUAL(job.ranks[2].said.host, "node2");
	CU_ASSERT_DOUBLE_EQUAL(job.wall_s, 3.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(job.cpu_s, 1.95 + 2.04 + 3.4 + 0.12, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(job.peak_rss_kib, 20480, 1e-9);
	CU_ASSERT_EQUAL(job.cls, CPW_CLASS_CPU_BOUND);
	CU_ASSERT_EQUAL(job.cls_ranks, 3);
	CU_ASSERT_EQUAL(job.failed, 0);
	cpw_job_free(&job);
}

static bool has_finding(const struct cpw_job *job, const char *fragment)
{
	for (int i = 0; i < job->nfindings; i++)
		if (strstr(job->findings[i], fragment))
			return true;
	return false;
}

static char *render(const struct cpw_job *job, enum cpw_format format);

static void test_imbalance(void)
{
	struct cpw_job job;
	load_four(&job);
	CU_ASSERT_EQUAL(job.straggler, 2);
	/* the others' walls are 2.0, 2.1, 2.05: median 2.05 */
	CU_ASSERT_DOUBLE_EQUAL(job.straggler_lead_s, 1.45, 1e-9);
	CU_ASSERT_TRUE(has_finding(&job, "straggler: rank 2 (node2) finished last, 1.45 s after"));
	CU_ASSERT_EQUAL(job.cpu_min_i, 3);
	CU_ASSERT_EQUAL(job.cpu_max_i, 2);
	CU_ASSERT_TRUE(has_finding(&job, "CPU time is unevenly divided: from 0.12 s (rank 3 (node2)) to 3.40 s"));
	CU_ASSERT_EQUAL(job.nwaiting, 1);
	CU_ASSERT_EQUAL(job.waiting[0], 3);
	CU_ASSERT_TRUE(has_finding(&job, "rank 3 (node2) waited while the others computed"));
	cpw_job_free(&job);

	/* Even ranks: nothing to say. */
	cpw_job_init(&job);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-rank0.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-rank1.json"), CPW_JOB_ADDED);
	cpw_job_judge(&job);
	CU_ASSERT_EQUAL(job.nfindings, 0);
	CU_ASSERT_EQUAL(job.straggler, 1); /* the slowest, but 0.1 s is 5%: no straggler */
	CU_ASSERT_FALSE(job.straggler_named);
	char *text = render(&job, CPW_FORMAT_TEXT);
	CU_ASSERT_PTR_NULL(strstr(text, "straggler"));
	free(text);
	text = render(&job, CPW_FORMAT_JSON);
	json_object *doc = json_tokener_parse(text), *imb, *v;
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "imbalance", &imb));
	CU_ASSERT_TRUE(json_object_object_get_ex(imb, "straggler", &v));
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_TRUE(json_object_object_get_ex(imb, "slowest", &v) && json_object_object_get_ex(v, "rank", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 1);
	json_object_put(doc);
	free(text);
	cpw_job_free(&job);
}

static void test_refusals(void)
{
	struct cpw_job job;
	cpw_job_init(&job);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-cut-short.json"), CPW_JOB_LEFT_OUT);
	CU_ASSERT_EQUAL(job.nnotes, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(job.notes[0], "job-cut-short.json is cut short"));
	CU_ASSERT_EQUAL(add_text(&job, "empty", "", 0), CPW_JOB_LEFT_OUT);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-schema-2.json"), CPW_JOB_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "schema 'cperfwatch/2'"));
	CU_ASSERT_EQUAL(add_fixture(&job, "invalid-no-schema.json"), CPW_JOB_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "is not a cperfwatch JSON report"));
	const char junk[] = "cperfwatch: job of 3 ranks\n";
	CU_ASSERT_EQUAL(add_text(&job, "t.txt", junk, sizeof(junk) - 1), CPW_JOB_REFUSED);
	CU_ASSERT_EQUAL(add_text(&job, "a.json", "[1]", 3), CPW_JOB_REFUSED);
	CU_ASSERT_EQUAL(add_text(&job, "n.json", "12", 2), CPW_JOB_REFUSED); /* a whole number, not cut short */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "n.json is not a cperfwatch JSON report"));
	CU_ASSERT_EQUAL(add_text(&job, "null.json", "null", 4), CPW_JOB_REFUSED);
	CU_ASSERT_STRING_EQUAL(why, "null.json is not a cperfwatch JSON report (write them with --json)");
	CU_ASSERT_EQUAL(job.nranks, 0);
	/* The same rank twice is merged once, with a note. */
	CU_ASSERT_EQUAL(add_fixture(&job, "job-rank1.json"), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-rank1.json"), CPW_JOB_LEFT_OUT);
	CU_ASSERT_EQUAL(job.nranks, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(job.notes[job.nnotes - 1], "job-rank1.json is rank 1 of"));
	cpw_job_free(&job);
}

static char *render(const struct cpw_job *job, enum cpw_format format)
{
	struct cpw_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.format = format;
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	CU_ASSERT_EQUAL(cpw_job_report_write(job, &cfg, out), 0);
	fclose(out);
	return text;
}

static void test_writers(void)
{
	struct cpw_job job;
	load_four(&job);
	char *text = render(&job, CPW_FORMAT_TEXT);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "job of 4 ranks on 2 hosts"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Verdict: cpu-bound (3 of 4 ranks)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  node2                 2      3.50      3.40       20.0  cpu-bound  <- straggler\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Imbalance:\n  - straggler: rank 2"));
	free(text);

	text = render(&job, CPW_FORMAT_JSON);
	json_object *doc = json_tokener_parse(text), *v;
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "imbalance", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(v, "straggler", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(v, "rank", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 2);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "ranks", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 4);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "schema", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "cperfwatch-job/1");
	json_object_put(doc);
	free(text);

	text = render(&job, CPW_FORMAT_PROMETHEUS);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# HELP cperfwatch_rank_cpu_seconds_total "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE cperfwatch_rank_cpu_seconds_total counter\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cperfwatch_rank_wall_seconds{rank=\"2\",host=\"node2\"} 3.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cperfwatch_job_wall_seconds 3.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cperfwatch_job_verdict{class=\"cpu-bound\"} 1\n"));
	free(text);
	cpw_job_free(&job);
}

/* The text of job-rank0.json with the first `from` replaced by `to` (malloc'ed). */
static char *rank0_with(const char *from, const char *to, size_t *len)
{
	size_t n;
	char *text = fixture_text("job-rank0.json", &n), *at = strstr(text, from), *out = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	int m = asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	CU_ASSERT_FATAL(m > 0);
	free(text);
	*len = (size_t)m;
	return out;
}

/* The report refused with one line naming the file and saying `fragment`. */
static void refused(const char *name, const char *text, size_t len, const char *fragment)
{
	struct cpw_job job;
	cpw_job_init(&job);
	enum cpw_job_add rc = add_text(&job, name, text, len);
	CU_ASSERT_EQUAL(rc, CPW_JOB_REFUSED);
	if (rc != CPW_JOB_REFUSED || !strstr(why, fragment))
		fprintf(stderr, "# %s: wanted '%s', got '%s'\n", name, fragment, why);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, fragment));
	CU_ASSERT_PTR_NULL(strchr(why, '\n'));
	CU_ASSERT_PTR_NULL(strchr(why, '\033'));
	CU_ASSERT_EQUAL(job.nranks, 0);
	cpw_job_free(&job);
}

static void refused_with(const char *from, const char *to, const char *fragment)
{
	size_t len;
	char *text = rank0_with(from, to, &len);
	refused("bad.json", text, len, fragment);
	free(text);
}

static void test_nonsense_refused(void)
{
	refused_with("\"wall_s\": 2.0", "\"wall_s\": -3", "bad.json: time.wall_s is -3: a figure that is never negative");
	refused_with("\"wall_s\": 2.0", "\"wall_s\": 1.7e308", "bad.json: time.wall_s is 1.7e+308: past anything measured");
	refused_with("\"wall_s\": 2.0", "\"wall_s\": NaN", "bad.json: time.wall_s is NaN, not a finite number");
	refused_with("\"wall_s\": 2.0", "\"wall_s\": -1e400", "bad.json: time.wall_s is -1e400, not a finite number");
	refused_with("\"wall_s\": 2.0,", "", "bad.json: no time.wall_s: not a whole cperfwatch/1 report");
	refused_with("\"user_s\": 1.9", "\"user_s\": \"1.9\"", "bad.json: time.user_s is string, not a number");
	refused_with("\"sys_s\": 0.05", "\"sys_s\": 1e11", "bad.json: time.sys_s is 100000000000: past anything measured");
	refused_with("\"max_rss_kib\": 10240", "\"max_rss_kib\": 1e30", "bad.json: memory.max_rss_kib is 1e+30: past");
	refused_with("\"tree_peak_rss_kib\": 10240", "\"tree_peak_rss_kib\": -1", "memory.tree_peak_rss_kib is -1");
	refused_with("\"rank\": 0", "\"rank\": 2.5", "bad.json: rank is 2.5: not a whole number from 0 to 2147483647");
	refused_with("\"rank\": 0", "\"rank\": -1", "bad.json: rank is -1: a figure that is never negative");
	refused_with("\"rank\": 0", "\"rank\": 1e12", "bad.json: rank is 1000000000000: not a whole number");
	refused_with("\"code\": 0", "\"code\": 300", "bad.json: exit.code is 300: not a whole number from 0 to 255");
	refused_with("\"signal\": null", "\"signal\": 0", "bad.json: exit.signal is 0: not a whole number from 1 to 127");
	refused_with("\"signal\": null", "\"signal\": 9", "bad.json: exit.code and exit.signal are both set");
	refused_with("\"exit\": {", "\"exit\": 7, \"x\": {", "bad.json: exit is int, not an object");
	refused_with("\"host\": \"node1\"", "\"host\": \"nodenodenodenodenodenodenodenodenodenodenodenodenodenodenodenode1\"",
		     "bad.json: host is 65 bytes long, past the 64 a report writes");
	refused_with("\"host\": \"node1\"", "\"host\": \"node\\u00001\"", "bad.json: host holds a NUL byte");
	refused_with("\"host\": \"node1\"", "\"host\": 1", "bad.json: host is int, not a string");
	refused_with("\"class\": \"cpu-bound\"", "\"class\": \"fast\"", "bad.json: verdict.class is 'fast', not a class");
	refused_with("\"class\": \"cpu-bound\"", "\"class\": \"cpu-bound\\u0000x\"", "bad.json: verdict.class holds a NUL");
	refused_with("\"verdict\": {", "\"verdict\": null, \"x\": {", "bad.json: verdict is null, not an object");
	/* A report holding only its schema; trailing garbage; two documents; json-c's own
	 * extensions (a comment, a trailing comma). */
	const char only[] = "{\"schema\": \"cperfwatch/1\"}";
	refused("bad.json", only, sizeof(only) - 1, "bad.json: no host: not a whole cperfwatch/1 report");
	size_t len;
	char *text = fixture_text("job-rank0.json", &len), *two = NULL;
	int n = asprintf(&two, "%s garbage", text);
	refused("bad.json", two, (size_t)n, "bad.json: more follows the JSON document at byte 961 (a second document");
	free(two);
	n = asprintf(&two, "%s%s", text, text);
	refused("bad.json", two, (size_t)n, "bad.json: more follows the JSON document at byte 960");
	free(two);
	text[len] = '\0';
	refused("bad.json", text, len + 1, "bad.json: more follows the JSON document at byte 960"); /* a NUL after it */
	n = asprintf(&two, "/* c */%s", text);
	refused("bad.json", two, (size_t)n, "bad.json is not a cperfwatch JSON report (write them with --json): not JSON");
	free(two);
	free(text);
	refused_with("\"notes\": []", "\"notes\": [],", "bad.json is not a cperfwatch JSON report");
	/* Control bytes in the file name and in the schema are escaped in the line. */
	refused_with("\"schema\": \"cperfwatch/1\"", "\"schema\": \"cperfwatch/\\u001b]2;x\\u0007\"",
		     "bad.json has schema 'cperfwatch/\\x1b]2;x\\x07', which this cperfwatch does not know");
	refused_with("\"schema\": \"cperfwatch/1\"", "\"schema\": \"cperfwatch/1\\u0000\"", "bad.json has schema 'cperfwatch/1...'");
	text = rank0_with("\"wall_s\": 2.0", "\"wall_s\": -3", &len);
	refused("r\033]2;PWNED\a.json", text, len, "r\\x1b]2;PWNED\\x07.json: time.wall_s is -3");
	free(text);
	/* Null where a figure is not known is no nonsense. */
	struct cpw_job job;
	cpw_job_init(&job);
	text = rank0_with("\"wall_s\": 2.0", "\"wall_s\": null", &len);
	CU_ASSERT_EQUAL(add_text(&job, "null.json", text, len), CPW_JOB_ADDED);
	CU_ASSERT_TRUE(isnan(job.ranks[0].said.wall_s));
	free(text);
	cpw_job_free(&job);
}

static bool has_note(const struct cpw_job *job, const char *note)
{
	for (int i = 0; i < job->nnotes; i++)
		if (strcmp(job->notes[i], note) == 0)
			return true;
	return false;
}

/* The JSON report's left_out.KEY. */
static int64_t left_out_json(const char *text, const char *key)
{
	json_object *doc = json_tokener_parse(text), *v;
	int64_t n = -1;
	if (doc && json_object_object_get_ex(doc, "left_out", &v) && json_object_object_get_ex(v, key, &v))
		n = json_object_get_int64(v);
	json_object_put(doc);
	return n;
}

static void test_left_out_counted(void)
{
	struct cpw_job job;
	char names[20][32];
	size_t len;
	char *text = fixture_text("job-rank1.json", &len);
	cpw_job_init(&job);
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "cut%02d.json", i);
		CU_ASSERT_EQUAL(add_text(&job, names[i], text, 300), CPW_JOB_LEFT_OUT);
	}
	CU_ASSERT_EQUAL(add_text(&job, "whole.json", text, len), CPW_JOB_ADDED);
	CU_ASSERT_EQUAL(cpw_job_judge(&job), 0);
	CU_ASSERT_EQUAL(job.left_out[CPW_JOB_CUT_SHORT], 20);
	CU_ASSERT_EQUAL(job.nnotes, CPW_JOB_NOTES_MAX + 1);
	CU_ASSERT_TRUE(has_note(&job, "cut15.json is cut short (not a whole JSON document): left out of the merge"));
	CU_ASSERT_TRUE(has_note(&job, "... and 4 more files cut short: left out of the merge"));
	char *out = render(&job, CPW_FORMAT_TEXT);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  - ... and 4 more files cut short: left out of the merge\n"));
	free(out);
	out = render(&job, CPW_FORMAT_JSON);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"... and 4 more files cut short: left out of the merge\""));
	CU_ASSERT_EQUAL(left_out_json(out, "cut_short"), 20);
	free(out);
	cpw_job_free(&job);

	/* 10,000 copies of one rank: the first stands, 16 named, 9,983 counted. */
	enum { COPIES = 10000 };
	char (*copies)[32] = malloc(COPIES * sizeof(*copies));
	CU_ASSERT_PTR_NOT_NULL_FATAL(copies);
	cpw_job_init(&job);
	size_t added = 0;
	for (int i = 0; i < COPIES; i++) {
		snprintf(copies[i], sizeof(copies[i]), "copy%d.json", i);
		added += add_text(&job, copies[i], text, len) == CPW_JOB_ADDED;
	}
	CU_ASSERT_EQUAL(added, 1);
	CU_ASSERT_EQUAL(job.nranks, 1);
	CU_ASSERT_EQUAL(job.left_out[CPW_JOB_AGAIN], COPIES - 1);
	CU_ASSERT_TRUE(has_note(&job, "copy1.json is rank 1 of node1 again (as copy0.json): left out of the merge"));
	CU_ASSERT_TRUE(has_note(&job, "... and 9,983 more files of a rank (or a file) already merged: left out of the merge"));
	CU_ASSERT_EQUAL(cpw_job_judge(&job), 0);
	out = render(&job, CPW_FORMAT_JSON);
	CU_ASSERT_EQUAL(left_out_json(out, "again"), COPIES - 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "9,983 more files"));
	free(out);
	cpw_job_free(&job);
	free(copies);
	free(text);
}

/* Every sample line of a Prometheus exposition differs from every other (name and labels). */
static bool series_unique(const char *text)
{
	char *copy = strdup(text), *save = NULL, *lines[4096];
	size_t n = 0;
	for (char *l = strtok_r(copy, "\n", &save); l && n < 4096; l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#') {
			char *sp = strrchr(l, ' ');
			if (sp)
				*sp = '\0';
			lines[n++] = l;
		}
	bool unique = true;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(lines[i], lines[j]) == 0) {
				fprintf(stderr, "# twice: %s\n", lines[i]);
				unique = false;
			}
	free(copy);
	return unique;
}

static void test_labels_unique(void)
{
	size_t len;
	char *text = rank0_with("\"rank\": 0", "\"rank\": null", &len);
	/* Two paths of 300 bytes that differ only at the end; two that differ only in a byte
	 * the escaper writes as a literal backslash sequence would read. */
	char long_a[301], long_b[301];
	memset(long_a, 'd', 299);
	long_a[0] = '/';
	long_a[299] = 'a';
	long_a[300] = '\0';
	memcpy(long_b, long_a, sizeof(long_b));
	long_b[299] = 'b';
	const char *names[] = { long_a, long_b, "r\\xff.json", "r\xff.json" };
	struct cpw_job job;
	cpw_job_init(&job);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CU_ASSERT_EQUAL(add_text(&job, names[i], text, len), CPW_JOB_ADDED);
	/* The same file again, a report without a rank: left out, not a second series. */
	CU_ASSERT_EQUAL(add_text(&job, "r\\xff.json", text, len), CPW_JOB_LEFT_OUT);
	CU_ASSERT_TRUE(has_note(&job, "r\\xff.json is given again: left out of the merge"));
	CU_ASSERT_EQUAL(cpw_job_judge(&job), 0);
	char *out = render(&job, CPW_FORMAT_PROMETHEUS);
	CU_ASSERT_TRUE(series_unique(out));
	/* The long ones by their tail and a hash; the short ones whole where they can be. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cperfwatch_rank_wall_seconds{rank=\"\",file=\"...dddd"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "dddda #"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ddddb #"));
	free(out);
	cpw_job_free(&job);
	free(text);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) but skip, the plain way. */
static double plain_median_but(const double *v, size_t n, size_t skip)
{
	double *w = malloc(n * sizeof(*w));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (i != skip && !isnan(v[i]))
			w[k++] = v[i];
	qsort(w, k, sizeof(*w), compare_double);
	double m = k == 0 ? NAN : k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
	free(w);
	return m;
}

/* Large jobs of random ranks (repeated figures, unknown ones): the straggler's lead and the
 * waiting ranks as the plain median of all ranks but one gives them. */
static void test_large_job_medians(void)
{
	unsigned seed = 7;
	for (int round = 0; round < 4; round++) {
		size_t n = round == 0 ? 2 : round == 1 ? 3 : round == 2 ? 1000 : 1001;
		struct cpw_job job;
		cpw_job_init(&job);
		double *walls = malloc(n * sizeof(double)), *cores = malloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			struct cpw_rank_report r;
			memset(&r, 0, sizeof(r));
			r.file = "gen.json";
			r.rank = (int)i;
			snprintf(r.host, sizeof(r.host), "node%zu", i % 7);
			snprintf(r.cls, sizeof(r.cls), "cpu-bound");
			r.wall_s = (rand_r(&seed) % 5 == 0) ? NAN : 1 + (rand_r(&seed) % 50) / 10.0;
			r.user_s = (rand_r(&seed) % 100) / 20.0;
			r.sys_s = 0;
			r.cpu_s = r.user_s;
			r.peak_kib = 1024;
			r.exit_code = 0;
			walls[i] = r.wall_s;
			cores[i] = !isnan(r.wall_s) && r.wall_s > 0 ? r.cpu_s / r.wall_s : NAN;
			CU_ASSERT_EQUAL(cpw_job_add(&job, &r, why, sizeof(why)), CPW_JOB_ADDED);
		}
		CU_ASSERT_EQUAL(cpw_job_judge(&job), 0);
		CU_ASSERT_EQUAL(job.nhosts, n < 7 ? n : 7);
		long last = -1;
		for (size_t i = 0; i < n; i++)
			if (!isnan(walls[i]) && (last < 0 || walls[i] > walls[last]))
				last = (long)i;
		if (last >= 0 && !isnan(plain_median_but(walls, n, (size_t)last))) {
			CU_ASSERT_EQUAL(job.straggler, last);
			CU_ASSERT_DOUBLE_EQUAL(job.straggler_lead_s, walls[last] - plain_median_but(walls, n, (size_t)last), 1e-12);
		}
		double median = plain_median_but(walls, n, n);
		bool same = isnan(median) ? isnan(job.median_wall_s) : fabs(job.median_wall_s - median) < 1e-12;
		if (!same)
			fprintf(stderr, "# n %zu: median %g, judged %g\n", n, median, job.median_wall_s);
		CU_ASSERT_TRUE(same);
		size_t waited = 0;
		for (size_t i = 0; i < n; i++) {
			double others = plain_median_but(cores, n, i);
			if (isnan(cores[i]) || isnan(others) || others < 0.5 || cores[i] >= 0.5 * others)
				continue;
			if (waited < CPW_JOB_WAITING_MAX)
				CU_ASSERT_EQUAL(job.waiting[waited], (long)i);
			waited++;
		}
		CU_ASSERT_EQUAL(job.waiting_ranks, waited);
		if (n >= 1000) {
			CU_ASSERT(waited > 10);
			char more[128];
			snprintf(more, sizeof(more), "... and %zu more ranks waited while the others computed",
				 waited - (size_t)(CPW_JOB_FINDINGS_MAX - 1 - (job.straggler_named ? 1 : 0) -
						   (job.cpu_spread > 0.25 ? 1 : 0)));
			CU_ASSERT_EQUAL(job.nfindings, CPW_JOB_FINDINGS_MAX);
			CU_ASSERT_STRING_EQUAL(job.findings[CPW_JOB_FINDINGS_MAX - 1], more);
		}
		free(walls);
		free(cores);
		cpw_job_free(&job);
	}
}

#if defined(__SANITIZE_ADDRESS__)
#define FAILING_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAILING_MALLOC 0
#endif
#endif
#ifndef FAILING_MALLOC
#define FAILING_MALLOC 1
#endif

#if FAILING_MALLOC
/* malloc, calloc and realloc of the whole process (json-c's included) that fail from the
 * fail_after-th call on, while fail_after >= 0. Not under ASan, which has its own. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
static long fail_after = -1;

static bool fail_now(void)
{
	if (fail_after < 0)
		return false;
	if (fail_after == 0)
		return true;
	fail_after--;
	return false;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __libc_realloc(p, n);
}

/* Every writer with memory running out at each allocation in turn: a failure, never a
 * crash, and the JSON document not written half. */
static void test_out_of_memory(void)
{
	struct cpw_job job;
	load_four(&job);
	const enum cpw_format formats[] = { CPW_FORMAT_JSON, CPW_FORMAT_PROMETHEUS, CPW_FORMAT_TEXT };
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct cpw_config cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.format = formats[f];
		long k;
		int rc = -1;
		for (k = 0; k < 100000 && rc != 0; k++) {
			FILE *out = tmpfile();
			CU_ASSERT_PTR_NOT_NULL_FATAL(out);
			fail_after = k;
			rc = cpw_job_report_write(&job, &cfg, out);
			fail_after = -1;
			CU_ASSERT(rc == 0 || rc == -ENOMEM);
			if (formats[f] == CPW_FORMAT_JSON && rc != 0)
				CU_ASSERT_EQUAL(ftell(out), 0);
			fclose(out);
		}
		CU_ASSERT_EQUAL(rc, 0);
	}
	/* And the judge. */
	fail_after = 0;
	int rc = cpw_job_judge(&job);
	fail_after = -1;
	CU_ASSERT_EQUAL(rc, -ENOMEM);
	cpw_job_free(&job);
}
#endif

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("job", NULL, NULL);
	CU_add_test(s, "totals, hosts and the job's verdict", test_totals_and_verdict);
	CU_add_test(s, "the straggler, the CPU spread, a waiting rank", test_imbalance);
	CU_add_test(s, "cut short: a note; not a report or schema unknown: refused", test_refusals);
	CU_add_test(s, "text table, cperfwatch-job/1 JSON, prometheus", test_writers);
	CU_add_test(s, "nonsense refused: one line naming the file and the key", test_nonsense_refused);
	CU_add_test(s, "files left out past the notes are counted", test_left_out_counted);
	CU_add_test(s, "prometheus: no series twice (long and look-alike names)", test_labels_unique);
	CU_add_test(s, "large jobs: medians of all ranks but one, waiting ranks counted", test_large_job_medians);
#if FAILING_MALLOC
	CU_add_test(s, "out of memory at each allocation: a failure, never a crash", test_out_of_memory);
#endif
	return cpw_cunit_run_tap();
}
