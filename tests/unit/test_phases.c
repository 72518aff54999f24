/*
 * test_phases.c: phase cutting (classify/phases.c) from recorded series.
 *
 * Every file tests/fixtures/series/NAME.series is one test: a timeline in a line format
 * (described at the top of each file), the phases it must give (start, end, class, main
 * process, within 0.05 s) and what the whole run's verdict must say once phases refine it.
 * The points go through cpw_timeline_add(), as the session's records do.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify.h"
#include "classify/phases.h"
#include "classify/thresholds.h"
#include "model/timeline.h"
#include "cunit_tap.h"

#ifndef CPW_SERIES_FIXTURES
#define CPW_SERIES_FIXTURES "tests/fixtures/series"
#endif

#define MAX_FIXTURES 32
#define MAX_EXPECT 8

struct expect_phase {
	double start, end;
	char cls[32];
	char comm[32];   /* "" or "-": not checked */
	char wait[32];   /* the phase's wait kind, and its evidence names it; "": not checked */
};

struct series {
	char name[64];
	double interval, cores;
	struct cpw_timeline *tl;
	int nphases; /* -1: not said */
	struct expect_phase phase[CPW_PHASES_MAX];
	int nphase;
	char finding[MAX_EXPECT][160], no_finding[MAX_EXPECT][160];
	char advice[MAX_EXPECT][160], no_advice[MAX_EXPECT][160];
	int nfinding, nno_finding, nadvice, nno_advice;
};

static char fixture_names[MAX_FIXTURES][64];
static int nfixtures;
static int current;

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* "N x DT USER SYS ONCPU RUNQ R D DOTHER S OTHER RSS READ WRITE MAJFLT MINFLT [procs]" */
static int parse_points(struct series *sr, const char *line, double *t)
{
	struct cpw_tl_point p;
	unsigned long n, st[CPW_TL_STATE_COUNT], majflt, minflt;
	double dt, user, sys, oncpu, runq, rss;
	char read[32], write[32];
	int used = 0;

	if (sscanf(line, "%lu x %lf %lf %lf %lf %lf %lu %lu %lu %lu %lu %lf %31s %31s %lu %lu%n", &n,
		   &dt, &user, &sys, &oncpu, &runq, &st[0], &st[1], &st[2], &st[3], &st[4], &rss, read,
		   write, &majflt, &minflt, &used) != 16)
		return -1;
	cpw_tl_point_init(&p, 0);
	p.dt_s = dt;
	p.samples = 1;
	p.user_s = user;
	p.sys_s = sys;
	p.oncpu_s = oncpu;
	p.runq_s = runq;
	p.states[CPW_TL_RUNNING] = st[0];
	p.states[CPW_TL_DISK_WAIT] = st[1];
	p.states[CPW_TL_D_OTHER] = st[2];
	p.states[CPW_TL_SLEEPING] = st[3];
	p.states[CPW_TL_OTHER] = st[4];
	p.rss_kib_max = rss;
	p.read_bytes = strtod(read, NULL);
	p.write_bytes = strtod(write, NULL);
	p.majflt = majflt;
	p.minflt = minflt;
	const char *rest = line + used;
	for (int k = 0; k < CPW_TIMELINE_TOP; k++) {
		int pid, len = 0;
		char comm[16];
		double cpu, io, wait = 0;
		if (sscanf(rest, " %d:%15[^:]:%lf:%lf%n", &pid, comm, &cpu, &io, &len) != 4)
			break;
		rest += len;
		if (sscanf(rest, ":%lf%n", &wait, &len) == 1) /* optional WAIT_S */
			rest += len;
		p.top[k].pid = pid;
		snprintf(p.top[k].comm, sizeof(p.top[k].comm), "%s", comm);
		p.top[k].cpu_s = cpu;
		p.top[k].io_bytes = io;
		p.top[k].wait_s = wait;
	}
	/* Then thread-seconds waited per kind: w:KIND:SECONDS ... */
	for (;;) {
		char kind[32];
		double secs;
		int len = 0;
		if (sscanf(rest, " w:%31[^:]:%lf%n", kind, &secs, &len) != 2)
			break;
		rest += len;
		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
			if (strcmp(cpw_wait_kind_name((enum cpw_wait_kind)k), kind) == 0)
				p.wait_s[k] = secs;
	}
	for (unsigned long i = 0; i < n; i++) {
		p.start_s = *t;
		cpw_timeline_add(sr->tl, &p);
		*t += dt;
	}
	return 0;
}

static int load(const char *name, struct series *sr)
{
	char path[512], line[512];
	double t = 0;

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->name, sizeof(sr->name), "%s", name);
	sr->nphases = -1;
	sr->cores = NAN;
	sr->tl = cpw_timeline_new();
	snprintf(path, sizeof(path), "%s/%s", CPW_SERIES_FIXTURES, name);
	FILE *f = fopen(path, "r");
	if (!f || !sr->tl) {
		if (f)
			fclose(f);
		return -1;
	}
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		trim(line);
		char *eq = strstr(line, " = ");
		const char *val = eq ? eq + 3 : "";
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (eq)
			*eq = '\0';
		if (!eq)
			rc = parse_points(sr, line, &t);
		else if (strcmp(line, "interval") == 0)
			sr->interval = strtod(val, NULL);
		else if (strcmp(line, "cores_usable") == 0)
			sr->cores = strtod(val, NULL);
		else if (strcmp(line, "expect.phases") == 0)
			sr->nphases = atoi(val);
		else if (strcmp(line, "expect.phase") == 0 && sr->nphase < CPW_PHASES_MAX) {
			struct expect_phase *e = &sr->phase[sr->nphase++];
			if (sscanf(val, "%lf %lf %31s %31s %31s", &e->start, &e->end, e->cls, e->comm, e->wait) < 3)
				rc = -1;
		} else if (strcmp(line, "expect.finding") == 0 && sr->nfinding < MAX_EXPECT)
			snprintf(sr->finding[sr->nfinding++], 160, "%s", val);
		else if (strcmp(line, "expect.no_finding") == 0 && sr->nno_finding < MAX_EXPECT)
			snprintf(sr->no_finding[sr->nno_finding++], 160, "%s", val);
		else if (strcmp(line, "expect.advice") == 0 && sr->nadvice < MAX_EXPECT)
			snprintf(sr->advice[sr->nadvice++], 160, "%s", val);
		else if (strcmp(line, "expect.no_advice") == 0 && sr->nno_advice < MAX_EXPECT)
			snprintf(sr->no_advice[sr->nno_advice++], 160, "%s", val);
		else
			rc = -1;
	}
	fclose(f);
	return rc;
}

static bool some_finding(const struct cpw_verdict *v, const char *text)
{
	for (int i = 0; i < v->nfindings; i++)
		if (strstr(v->findings[i], text))
			return true;
	return false;
}

static void print_phases(const struct series *sr, const struct cpw_phases *ph,
			 const struct cpw_verdict *v)
{
	fprintf(stderr, "# %s: %d phase(s)\n", sr->name, ph->n);
	for (int i = 0; i < ph->n; i++)
		fprintf(stderr, "#   %.2f-%.2f %s %s (%s)\n", ph->phase[i].start_s, ph->phase[i].end_s,
			cpw_class_name(ph->phase[i].cls), ph->phase[i].procs[0].comm, ph->phase[i].evidence);
	for (int i = 0; i < v->nfindings; i++)
		fprintf(stderr, "#   finding: %s\n", v->findings[i]);
	fprintf(stderr, "#   advice: %s\n", v->advice);
}

static void test_fixture(void)
{
	struct series sr;
	struct cpw_phases ph;
	struct cpw_metrics m;
	struct cpw_verdict v;
	const char *name = fixture_names[current++];

	CU_ASSERT_EQUAL_FATAL(load(name, &sr), 0);
	size_t n = cpw_timeline_count(sr.tl);
	const struct cpw_tl_point *pts = cpw_timeline_point(sr.tl, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pts);
	cpw_phases_find(pts, n, sr.cores, sr.interval, &ph);
	cpw_phases_metrics(pts, 0, n - 1, sr.cores, &m);
	cpw_classify(&m, &v);
	cpw_phases_refine_verdict(&ph, &m, &v);
	bool ok = sr.nphases < 0 || ph.n == sr.nphases;
	CU_ASSERT_TRUE(ok);
	for (int i = 0; ok && i < sr.nphase && i < ph.n; i++) {
		const struct expect_phase *e = &sr.phase[i];
		const struct cpw_phase *p = &ph.phase[i];
		bool same = fabs(p->start_s - e->start) <= 0.05 && fabs(p->end_s - e->end) <= 0.05 &&
			strcmp(cpw_class_name(p->cls), e->cls) == 0 &&
			(!e->comm[0] || strcmp(e->comm, "-") == 0 || strcmp(p->procs[0].comm, e->comm) == 0) &&
			p->evidence[0] &&
			(!e->wait[0] || (strcmp(p->wait_kind, e->wait) == 0 && strstr(p->evidence, e->wait)));
		CU_ASSERT_TRUE(same);
		ok = ok && same;
	}
	for (int i = 0; i < sr.nfinding; i++)
		ok = ok && some_finding(&v, sr.finding[i]);
	for (int i = 0; i < sr.nno_finding; i++)
		ok = ok && !some_finding(&v, sr.no_finding[i]);
	for (int i = 0; i < sr.nadvice; i++)
		ok = ok && strstr(v.advice, sr.advice[i]) != NULL;
	for (int i = 0; i < sr.nno_advice; i++)
		ok = ok && strstr(v.advice, sr.no_advice[i]) == NULL;
	CU_ASSERT_TRUE(ok);
	if (!ok)
		print_phases(&sr, &ph, &v);
	cpw_timeline_free(sr.tl);
}

/* The minimum phase length: phase_min_s, or min_samples intervals where that is longer. */
static void test_min_length(void)
{
	struct cpw_phases ph;
	struct cpw_tl_point p;
	cpw_tl_point_init(&p, 0);
	cpw_phases_find(&p, 0, NAN, 0.1, &ph);
	CU_ASSERT_EQUAL(ph.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(ph.min_len_s, cpw_threshold(CPW_T_PHASE_MIN_S), 1e-9);
	cpw_phases_find(&p, 0, NAN, 1.0, &ph);
	CU_ASSERT_DOUBLE_EQUAL(ph.min_len_s, cpw_threshold(CPW_T_MIN_SAMPLES) * 1.0, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(cpw_threshold_find("phase_min_s"));
}

/* A one-phase run leaves the verdict as it was. */
static void test_one_phase_keeps_verdict(void)
{
	struct cpw_phases ph = { .n = 1 };
	struct cpw_metrics m;
	struct cpw_verdict v, before;
	cpw_metrics_init(&m);
	memset(&v, 0, sizeof(v));
	v.cls = CPW_CLASS_CPU_BOUND;
	v.nfindings = 1;
	snprintf(v.findings[0], sizeof(v.findings[0]), "uses 1.0 of 2 usable cores");
	before = v;
	cpw_phases_refine_verdict(&ph, &m, &v);
	CU_ASSERT_EQUAL(memcmp(&v, &before, sizeof(v)), 0);
}

static void test_fixtures_found(void)
{
	CU_ASSERT_TRUE(nfixtures >= 6);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

int main(void)
{
	DIR *d = opendir(CPW_SERIES_FIXTURES);
	struct dirent *e;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	while (d && (e = readdir(d)) && nfixtures < MAX_FIXTURES) {
		size_t len = strlen(e->d_name);
		if (len > 7 && len < 64 && strcmp(e->d_name + len - 7, ".series") == 0)
			snprintf(fixture_names[nfixtures++], 64, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	qsort(fixture_names, (size_t)nfixtures, sizeof(fixture_names[0]), by_name);
	CU_pSuite s = CU_add_suite("phases", NULL, NULL);
	CU_add_test(s, "the series fixtures are found", test_fixtures_found);
	CU_add_test(s, "minimum phase length", test_min_length);
	CU_add_test(s, "one phase leaves the verdict alone", test_one_phase_keeps_verdict);
	for (int i = 0; i < nfixtures; i++)
		CU_add_test(s, fixture_names[i], test_fixture);
	return cpw_cunit_run_tap();
}
