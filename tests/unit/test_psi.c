/*
 * test_psi.c: the PSI parser on good, old-format and broken text, and the readers on
 * fixture proc roots and a fixture cgroup v2 directory, and the held files between readings.
 */
#include "config.h"
#include "source/kernel/psi.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes <dir>/pressure/<name> with total some=some_us; replace: as a new file renamed over
 * the old one (a new inode), else rewritten in place. */
static void write_pressure(const char *dir, const char *name, unsigned some_us, int replace)
{
	char path[512], tmp[520];
	snprintf(path, sizeof path, "%s/pressure/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *f = fopen(replace ? tmp : path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%u\n"
		   "full avg10=0.00 avg60=0.00 avg300=0.00 total=%u\n", some_us, some_us / 2);
	fclose(f);
	if (replace)
		CU_ASSERT_EQUAL(rename(tmp, path), 0);
}

static void write_all_pressure(const char *dir, unsigned base, int replace)
{
	write_pressure(dir, "cpu", base + 1, replace);
	write_pressure(dir, "io", base + 2, replace);
	write_pressure(dir, "memory", base + 3, replace);
}

static void test_parse_full(void)
{
	const char *t = "some avg10=4.52 avg60=1.25 avg300=0.85 total=4395129\n"
			"full avg10=0.00 avg60=0.00 avg300=0.00 total=17\n";
	struct cpw_psi_resource r;
	CU_ASSERT_EQUAL(cpw_psi_parse(t, strlen(t), &r), 0);
	CU_ASSERT_TRUE(r.has_some);
	CU_ASSERT_TRUE(r.has_full);
	CU_ASSERT_EQUAL(r.some_total_us, 4395129);
	CU_ASSERT_EQUAL(r.full_total_us, 17);
}

static void test_parse_some_only_no_newline(void)
{
	const char *t = "some avg10=0.00 avg60=0.00 avg300=0.00 total=777";
	struct cpw_psi_resource r;
	CU_ASSERT_EQUAL(cpw_psi_parse(t, strlen(t), &r), 0);
	CU_ASSERT_EQUAL(r.some_total_us, 777);
	CU_ASSERT_FALSE(r.has_full);
}

static void test_parse_respects_len(void)
{
	/* The length ends inside the number: only "12" may be seen. */
	const char *t = "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345\n";
	struct cpw_psi_resource r;
	CU_ASSERT_EQUAL(cpw_psi_parse(t, strlen(t) - 4, &r), 0);
	CU_ASSERT_EQUAL(r.some_total_us, 12);
}

static void test_parse_bad(void)
{
	struct cpw_psi_resource r;
	const char *cases[] = {
		"",
		"some avg10=0.00\n",
		"some total=\n",
		"some avg10=0.00 total=x12\n",
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", /* no some line */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999999\n",
		"sometotal=5\n",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CU_ASSERT_EQUAL(cpw_psi_parse(cases[i], strlen(cases[i]), &r), -EINVAL);
}

static void test_read_system(void)
{
	struct cpw_psi p;
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(FIXTURES "/psi-procroot", NULL, &p), 0);
	CU_ASSERT_TRUE(p.available);
	CU_ASSERT_EQUAL(p.cpu_some_us, 4395129);
	CU_ASSERT_EQUAL(p.cpu_full_us, 0);
	CU_ASSERT_EQUAL(p.io_some_us, 2734350);
	CU_ASSERT_EQUAL(p.io_full_us, 2615352);
	CU_ASSERT_EQUAL(p.mem_some_us, 123456);
	CU_ASSERT_EQUAL(p.mem_full_us, 65432);
}

static void test_read_old_kernel(void)
{
	struct cpw_psi p;
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(FIXTURES "/psi-procroot-old", NULL, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 777);
	CU_ASSERT_EQUAL(p.cpu_full_us, 0);
	CU_ASSERT_EQUAL(p.mem_full_us, 65432);
}

static void test_read_absent(void)
{
	struct cpw_psi p;
	CU_ASSERT_EQUAL(cpw_psi_read_system(FIXTURES "/psi-absent", NULL, &p), -ENOENT);
	CU_ASSERT_FALSE(p.available);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.reason, "psi=0"));
}

static void test_read_cgroup(void)
{
	struct cpw_psi p;
	CU_ASSERT_EQUAL_FATAL(
		cpw_psi_read_cgroup(FIXTURES "/cgroup-hybrid/sys/unified/box/job", NULL, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 1000);
	CU_ASSERT_EQUAL(p.cpu_full_us, 500);
	CU_ASSERT_EQUAL(p.io_some_us, 2000);
	CU_ASSERT_EQUAL(p.io_full_us, 1500);
	CU_ASSERT_EQUAL(p.mem_some_us, 3000);
	CU_ASSERT_EQUAL(p.mem_full_us, 2500);
	CU_ASSERT_EQUAL(cpw_psi_read_cgroup(FIXTURES "/cgroup-hybrid/sys/memory/box/job", NULL, &p),
			-ENOENT);
	CU_ASSERT_FALSE(p.available);
	CU_ASSERT_NOT_EQUAL(p.reason[0], '\0');
}

/* Held files: the second reading re-reads the descriptors of the first (it sees a change
 * made in place, and not a file put in the old one's place) until they are closed. */
static void test_read_held(void)
{
	char dir[] = "/tmp/cpw-psi-XXXXXX", sub[64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/pressure", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	write_all_pressure(dir, 100, 0);

	struct cpw_psi_files files;
	memset(&files, 0, sizeof files);
	struct cpw_psi p;
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(dir, &files, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 101);
	CU_ASSERT_EQUAL(p.mem_some_us, 103);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_TRUE(files.file[i].open);

	write_all_pressure(dir, 20000000, 0); /* longer text, same files */
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(dir, &files, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 20000001);
	CU_ASSERT_EQUAL(p.io_full_us, 10000001);

	write_all_pressure(dir, 500, 1); /* new files: the held ones are the old ones */
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(dir, &files, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 20000001);
	CU_ASSERT_EQUAL(cpw_psi_read_system(dir, NULL, &p), 0);
	CU_ASSERT_EQUAL(p.cpu_some_us, 501);

	cpw_psi_files_close(&files);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_FALSE(files.file[i].open);
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system(dir, &files, &p), 0);
	CU_ASSERT_EQUAL(p.mem_some_us, 503);
	cpw_psi_files_close(&files);

	/* A file that is missing at the first reading is opened when it appears. */
	const char *names[3] = { "cpu", "io", "memory" };
	for (int i = 0; i < 3; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/pressure/%s", dir, names[i]);
		unlink(path);
	}
	CU_ASSERT_EQUAL(cpw_psi_read_system(dir, &files, &p), -ENOENT);
	CU_ASSERT_FALSE(p.available);
	write_all_pressure(dir, 700, 0);
	CU_ASSERT_EQUAL(cpw_psi_read_system(dir, &files, &p), 0);
	CU_ASSERT_EQUAL(p.io_some_us, 702);
	cpw_psi_files_close(&files);

	for (int i = 0; i < 3; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/pressure/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(sub);
	rmdir(dir);
}

static void test_delta(void)
{
	struct cpw_psi a, b, d;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.available = b.available = true;
	a.io_some_us = 100;
	b.io_some_us = 350;
	a.mem_full_us = 50;
	b.mem_full_us = 40; /* went backwards: 0, never a huge unsigned */
	cpw_psi_delta(&a, &b, &d);
	CU_ASSERT_TRUE(d.available);
	CU_ASSERT_EQUAL(d.io_some_us, 250);
	CU_ASSERT_EQUAL(d.mem_full_us, 0);
	b.available = false;
	strcpy(b.reason, "gone");
	cpw_psi_delta(&a, &b, &d);
	CU_ASSERT_FALSE(d.available);
	CU_ASSERT_STRING_EQUAL(d.reason, "gone");
}

static void test_live(void)
{
	/* The real /proc: either readable figures or a reason, never silence. */
	struct cpw_psi p;
	int err = cpw_psi_read_system("/proc", NULL, &p);
	if (err == 0) {
		CU_ASSERT_TRUE(p.available);
	} else {
		CU_ASSERT_NOT_EQUAL(p.reason[0], '\0');
		return;
	}
	/* Re-reading held /proc/pressure files gives fresh totals: they never go back. */
	struct cpw_psi_files files;
	struct cpw_psi a, b;
	memset(&files, 0, sizeof files);
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system("/proc", &files, &a), 0);
	CU_ASSERT_EQUAL_FATAL(cpw_psi_read_system("/proc", &files, &b), 0);
	CU_ASSERT_TRUE(b.available);
	CU_ASSERT_TRUE(b.cpu_some_us >= a.cpu_some_us && b.io_some_us >= a.io_some_us);
	CU_ASSERT_TRUE(p.cpu_some_us <= b.cpu_some_us);
	cpw_psi_files_close(&files);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("psi", NULL, NULL);
	CU_add_test(s, "parse some and full", test_parse_full);
	CU_add_test(s, "parse some only, no newline", test_parse_some_only_no_newline);
	CU_add_test(s, "parse stops at len", test_parse_respects_len);
	CU_add_test(s, "parse rejects broken text", test_parse_bad);
	CU_add_test(s, "read system fixture", test_read_system);
	CU_add_test(s, "read pre-5.13 fixture (no cpu full)", test_read_old_kernel);
	CU_add_test(s, "absent /proc/pressure has a reason", test_read_absent);
	CU_add_test(s, "read cgroup v2 fixture", test_read_cgroup);
	CU_add_test(s, "held files are re-read, not reopened", test_read_held);
	CU_add_test(s, "delta", test_delta);
	CU_add_test(s, "live /proc", test_live);
	return cpw_cunit_run_tap();
}
