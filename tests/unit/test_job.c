/*
 * test_job.c: the merge of a job's reports (classify/job.c, job_judge.c,
 * report/job_report.c) from the per-rank fixtures tests/fixtures/json/job-*.json: four
 * ranks on two hosts, rank 2 the straggler, rank 3 waiting; a report cut short; a schema
 * this cperfwatch does not know; what is not a report at all.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/job.h"
#include "report/job_report.h"
#include "cunit_tap.h"

#ifndef FIXTURES
#error "FIXTURES: the absolute path of tests/fixtures"
#endif

static char why[768];

static enum cpw_job_add add_fixture(struct cpw_job *job, const char *name)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/json/%s", FIXTURES, name);
	FILE *in = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	FILE *mem = open_memstream(&text, &len);
	int c;
	while ((c = fgetc(in)) != EOF)
		fputc(c, mem);
	fclose(mem);
	fclose(in);
	enum cpw_job_add rc = cpw_job_add_report(job, name, text, len, why, sizeof(why));
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
	cpw_job_judge(job);
}

static void test_totals_and_verdict(void)
{
	struct cpw_job job;
	load_four(&job);
	CU_ASSERT_EQUAL(job.nranks, 4);
	CU_ASSERT_EQUAL(job.nhosts, 2);
	CU_ASSERT_EQUAL(job.ranks[2].rank, 2);
	CU_ASSERT_STRING_EQUAL(job.ranks[2].host, "node2");
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
	CU_ASSERT_EQUAL(cpw_job_add_report(&job, "empty", "", 0, why, sizeof(why)), CPW_JOB_LEFT_OUT);
	CU_ASSERT_EQUAL(add_fixture(&job, "job-schema-2.json"), CPW_JOB_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "schema 'cperfwatch/2'"));
	CU_ASSERT_EQUAL(add_fixture(&job, "invalid-no-schema.json"), CPW_JOB_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "is not a cperfwatch JSON report"));
	const char junk[] = "cperfwatch: job of 3 ranks\n";
	CU_ASSERT_EQUAL(cpw_job_add_report(&job, "t.txt", junk, sizeof(junk) - 1, why, sizeof(why)), CPW_JOB_REFUSED);
	CU_ASSERT_EQUAL(cpw_job_add_report(&job, "a.json", "[1]", 3, why, sizeof(why)), CPW_JOB_REFUSED);
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

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("job", NULL, NULL);
	CU_add_test(s, "totals, hosts and the job's verdict", test_totals_and_verdict);
	CU_add_test(s, "the straggler, the CPU spread, a waiting rank", test_imbalance);
	CU_add_test(s, "cut short: a note; not a report or schema unknown: refused", test_refusals);
	CU_add_test(s, "text table, cperfwatch-job/1 JSON, prometheus", test_writers);
	return cpw_cunit_run_tap();
}
