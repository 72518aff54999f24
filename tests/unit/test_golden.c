/*
 * test_golden.c: golden outputs of the report writers. The fixed report of report_fixture.c,
 * with its three-process tree, is rendered by the text, JSON, OpenMetrics and Prometheus writers and
 * compared byte for byte with tests/expected/report.txt, report.json, report.om and report.prom;
 * with the fixture's stacks, by the flame graph's writer, with tests/expected/flame.svg. On a
 * mismatch the test fails and `diff -u` of expected against got goes to standard error (the
 * test's log), so any change to a writer shows up as a diff.
 *
 * Regenerating, after a change to a writer that is meant:
 *     CPW_UPDATE_GOLDEN=1 tests/unit/test_golden
 * writes the five files instead of comparing (and passes); read the diff before committing.
 *
 * The one figure that depends on the build, the JSON "version" (PACKAGE_VERSION), is masked
 * as @PACKAGE_VERSION@ before comparing or writing (see put_version_masked()).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_fixture.h"
#include "report/flame_svg.h"
#include "cunit_tap.h"

#ifndef CPW_EXPECTED_DIR
#error "CPW_EXPECTED_DIR: the absolute path of tests/expected (tests/unit/unit.am defines it)"
#endif

extern char **environ;

typedef int (*report_writer)(const struct cpw_report *, FILE *);

/* Writes the fixture report, with its tree and timeline, through writer. */
static void render_fixture(report_writer writer, FILE *out)
{
	struct cpw_report r;
	struct cpw_config cfg;
	report_fixture_build(&r, &cfg);
	struct cpw_tree *tree = report_fixture_tree();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
	r.tree = tree;
	struct cpw_timeline *tl = report_fixture_timeline(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	CU_ASSERT_EQUAL(writer(&r, out), 0);
	cpw_timeline_free(tl);
	cpw_tree_free(tree);
}

/* The JSON document names the version that built it: a release would change every golden
 * file. Its value is written as a fixed marker instead (only the top-level key can match:
 * inside a JSON string these quotes would be escaped). */
static void put_version_masked(const char *text, FILE *out)
{
	static const char version[] = "\"version\": \"" PACKAGE_VERSION "\"";
	const char *at = strstr(text, version);
	if (!at) {
		fputs(text, out);
		return;
	}
	fwrite(text, 1, (size_t)(at - text), out);
	fprintf(out, "\"version\": \"@PACKAGE_VERSION@\"%s", at + strlen(version));
}

/* What the writer gives for the fixture, version masked; malloc'ed. */
static char *render_masked(report_writer writer, size_t *len)
{
	char *raw = NULL, *masked = NULL;
	size_t raw_len;
	FILE *out = open_memstream(&raw, &raw_len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	render_fixture(writer, out);
	fclose(out);
	out = open_memstream(&masked, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	put_version_masked(raw, out);
	fclose(out);
	free(raw);
	return masked;
}

/* The whole file, malloc'ed; NULL when it cannot be read. */
static char *read_whole(const char *path, size_t *len)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return NULL;
	char *text = NULL, chunk[4096];
	FILE *out = open_memstream(&text, len);
	size_t n;
	while (out && (n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, n, out);
	if (out)
		fclose(out);
	fclose(in);
	return text;
}

static int write_whole(const char *path, const char *text, size_t len)
{
	FILE *out = fopen(path, "wb");
	if (!out)
		return -1;
	size_t written = fwrite(text, 1, len, out);
	return fclose(out) == 0 && written == len ? 0 : -1;
}

/* Shows what changed: `diff -u EXPECTED GOT` on standard error. */
static void show_diff(char *expected_path, const char *got, size_t len)
{
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char got_path[4096];
	snprintf(got_path, sizeof(got_path), "%s/cpw-golden-XXXXXX", tmpdir);
	int fd = mkstemp(got_path);
	if (fd < 0) {
		fprintf(stderr, "cannot create %s to show the diff\n", got_path);
		return;
	}
	bool written = write(fd, got, len) == (ssize_t)len;
	close(fd);
	char diff[] = "diff", unified[] = "-u", label[] = "--label", expected[] = "expected",
	     writer[] = "got";
	char *argv[] = { diff, unified, label, expected, label, writer, expected_path,
			 got_path, NULL };
	posix_spawn_file_actions_t to_stderr;
	posix_spawn_file_actions_init(&to_stderr);
	posix_spawn_file_actions_adddup2(&to_stderr, STDERR_FILENO, STDOUT_FILENO);
	fflush(stdout);
	fprintf(stderr, "%s differs from what the writer gave:\n", expected_path);
	pid_t pid;
	int status;
	if (written && posix_spawnp(&pid, "diff", &to_stderr, NULL, argv, environ) == 0) {
		waitpid(pid, &status, 0);
		unlink(got_path);
	} else {
		fprintf(stderr, "(no diff: the writer's output is kept in %s)\n", got_path);
	}
	posix_spawn_file_actions_destroy(&to_stderr);
}

/* Renders the fixture with writer and compares it with tests/expected/NAME, or writes that
 * file when CPW_UPDATE_GOLDEN=1. */
static void check_golden(const char *name, report_writer writer)
{
	char path[4096];
	size_t got_len, expected_len = 0;
	snprintf(path, sizeof(path), "%s/%s", CPW_EXPECTED_DIR, name);
	char *got = render_masked(writer, &got_len);

	const char *update = getenv("CPW_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		CU_ASSERT_EQUAL(write_whole(path, got, got_len), 0);
		fprintf(stderr, "wrote %s\n", path);
		free(got);
		return;
	}
	char *expected = read_whole(path, &expected_len);
	if (!expected) {
		fprintf(stderr, "cannot read %s\n", path);
		CU_FAIL("no expected file: CPW_UPDATE_GOLDEN=1 writes it");
		free(got);
		return;
	}
	bool same = expected_len == got_len && memcmp(expected, got, got_len) == 0;
	if (!same)
		show_diff(path, got, got_len);
	CU_ASSERT_TRUE(same);
	free(expected);
	free(got);
}

static void test_text(void) { check_golden("report.txt", cpw_report_write_text); }
static void test_json(void) { check_golden("report.json", cpw_report_write_json); }
static void test_openmetrics(void) { check_golden("report.om", cpw_report_write_openmetrics); }
static void test_prometheus(void) { check_golden("report.prom", cpw_report_write_prometheus); }

/* The flame graph of the fixture's stacks (the report's own hotspots are NULL). */
static int write_flame(const struct cpw_report *r, FILE *out)
{
	struct cpw_report with_stacks = *r;
	struct cpw_hotspots *h = report_fixture_hotspots();
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	with_stacks.hotspots = h;
	int rc = cpw_flame_svg_write(&with_stacks, out);
	cpw_hotspots_free(h);
	return rc;
}

static void test_flame(void) { check_golden("flame.svg", write_flame); }

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("golden", NULL, NULL);
	CU_add_test(s, "text writer matches tests/expected/report.txt", test_text);
	CU_add_test(s, "json writer matches tests/expected/report.json", test_json);
	CU_add_test(s, "openmetrics writer matches tests/expected/report.om", test_openmetrics);
	CU_add_test(s, "prometheus writer matches tests/expected/report.prom", test_prometheus);
	CU_add_test(s, "flame graph writer matches tests/expected/flame.svg", test_flame);
	return cpw_cunit_run_tap();
}
