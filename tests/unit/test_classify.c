/*
 * test_classify.c: the classifier's CUnit suite.
 *
 * Every file tests/fixtures/metrics/NAME.metrics is one test: a recorded (or constructed)
 * struct cpw_metrics in a "key = value" text format, plus the verdict it must give:
 *
 *     # comment
 *     wall_s = 5.0            any field of struct cpw_metrics by its name; nan = unknown
 *     delayacct_on = false    booleans: true/false; top_process_comm = a string
 *     expect.class = cpu-bound
 *     expect.secondary = none
 *     expect.confidence_min = 0.7     expect.confidence_max = 0.5
 *     expect.finding = uses 1.0 of 2   (substring of some finding; repeatable)
 *     expect.no_finding = oversubscribes
 *     expect.evidence = cpu_share      (metric of some evidence line; repeatable)
 *     expect.no_evidence = disk_share
 *     expect.evidence_source = cpu_share: wait4 rusage
 *     expect.shown = minflt_per_cpu_s  (evidence line the text report shows; repeatable)
 *     expect.aside = sys_share         (evidence line set aside: JSON only; repeatable)
 *     expect.advice = parallelise
 *     expect.no_advice = threads,      (substring the advice must not hold; repeatable)
 *
 * Fields a fixture does not name are unknown (NAN) or zero, as cpw_metrics_init() leaves
 * them. Also here: invariants every verdict must keep (checked on every fixture and on a
 * few thousand pseudo-random metrics), the advice's consistency with the findings (never
 * recommending what a finding rules out: check_advice), the class names and the
 * thresholds table.
 */
#include <CUnit/CUnit.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/metrics.h"
#include "classify/thresholds.h"
#include "classify/classify.h"
#include "classify/gpu_verdict.h" /* gpu */
#include "cunit_tap.h"

#ifndef CPW_METRICS_FIXTURES
#define CPW_METRICS_FIXTURES "tests/fixtures/metrics"
#endif

#define MAX_FIXTURES 160
#define MAX_EXPECT 8

/* ---- the fields of struct cpw_metrics, by name ---- */

enum ftype { F_DBL, F_U64, F_UINT, F_INT, F_BOOL, F_STR };

struct field {
	const char *name;
	enum ftype type;
	size_t off;
	size_t size;
};

#define FLD(n, t) { #n, t, offsetof(struct cpw_metrics, n), sizeof(((struct cpw_metrics *)0)->n) }

static const struct field fields[] = {
	FLD(wall_s, F_DBL), FLD(user_s, F_DBL), FLD(sys_s, F_DBL),
	FLD(cores_usable, F_DBL), FLD(cores_used, F_DBL), FLD(nprocs, F_UINT),
	FLD(top_process_cpu_share, F_DBL), FLD(top_process_pid, F_INT), FLD(top_process_comm, F_STR),
	FLD(samples, F_U64), FLD(thread_samples, F_U64), FLD(st_running, F_U64),
	FLD(st_disk_wait, F_U64), FLD(st_d_other, F_U64), FLD(st_sleeping, F_U64), FLD(st_other, F_U64),
	FLD(avg_runnable_threads, F_DBL), FLD(oncpu_s, F_DBL), FLD(runq_wait_s, F_DBL),
	FLD(delayacct_on, F_BOOL), FLD(blkio_delay_s, F_DBL), FLD(swapin_delay_s, F_DBL),
	FLD(thrashing_delay_s, F_DBL), FLD(reclaim_delay_s, F_DBL),
	FLD(major_faults, F_U64), FLD(minor_faults, F_U64), FLD(max_rss_kib, F_DBL),
	FLD(tree_peak_rss_kib, F_DBL), FLD(refaults, F_DBL), FLD(refaults_from_cgroup, F_BOOL),
	FLD(memory_limit_kib, F_DBL), FLD(page_kib, F_DBL), FLD(read_bytes, F_DBL), FLD(write_bytes, F_DBL),
	FLD(fs_inputs, F_U64), FLD(fs_outputs, F_U64), FLD(vol_ctxsw, F_U64), FLD(invol_ctxsw, F_U64),
	FLD(psi_cpu_some_s, F_DBL), FLD(psi_io_some_s, F_DBL), FLD(psi_io_full_s, F_DBL),
	FLD(psi_mem_some_s, F_DBL), FLD(psi_mem_full_s, F_DBL), FLD(psi_from_cgroup, F_BOOL),
	FLD(cycles, F_DBL), FLD(instructions, F_DBL), FLD(cache_references, F_DBL),
	FLD(cache_misses, F_DBL), FLD(llc_load_misses, F_DBL), FLD(branch_misses, F_DBL),
	FLD(stalled_cycles_backend, F_DBL), FLD(topdown_memory_bound, F_DBL),
	FLD(hw_counters_available, F_BOOL),
	FLD(top_process_threads, F_DBL), FLD(top_process_cpu_threads, F_DBL),
	FLD(top_process_runnable, F_DBL), FLD(top_process_lock_share, F_DBL),
	FLD(top_process_is_python, F_INT), FLD(cores_usable_sampled, F_DBL),
	FLD(cpus_allowed_sampled, F_STR),
	FLD(wait_kind, F_STR), FLD(wait_kind_share, F_DBL), FLD(wait_target, F_STR),
	FLD(wait_target_share, F_DBL), FLD(wait_child_share, F_DBL), FLD(wait_child_s, F_DBL), FLD(io_file, F_STR),
	FLD(io_files_more, F_UINT), FLD(pipe_wait_s, F_DBL), FLD(pipe_waiter_pid, F_INT),
	FLD(pipe_waiter_comm, F_STR), FLD(pipe_feeder_pid, F_INT), FLD(pipe_feeder_comm, F_STR),
	FLD(pipe_feeder_cpu_share, F_DBL), FLD(pipe_feeder_runq_share, F_DBL), FLD(pipe_feeder_wait_kind, F_STR),
	FLD(pipe_feeder_wait_share, F_DBL),
	/* gpu */
	FLD(gpu_devices_held, F_INT), FLD(gpu_busy_share, F_DBL), FLD(gpu_mem_share, F_DBL),
	FLD(gpu_holder_pid, F_INT), FLD(gpu_holder_comm, F_STR), FLD(gpu_holder_cpu_share, F_DBL),
	FLD(gpu_holder_net_wait_share, F_DBL), FLD(gpu_wait_share, F_DBL),
	FLD(gpu_driver_spin_share, F_DBL),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Every double unknown, every count zero: what cpw_metrics_init() promises. Local, so this
 * suite does not depend on the model's object file. */
static void metrics_unknown(struct cpw_metrics *m)
{
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].type == F_DBL)
			*(double *)(void *)((char *)m + fields[i].off) = NAN;
	m->top_process_is_python = -1;
}

/* ---- failures with a message (CUnit copies the text) ---- */

static void failf(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void failf(int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	CU_assertImplementation(CU_FALSE, (unsigned)line, msg, __FILE__, "", CU_FALSE);
}

#define FAILF(...) failf(__LINE__, __VA_ARGS__)

/* ---- the fixture format ---- */

struct expect {
	int cls, secondary;
	bool has_cls, has_secondary;
	double conf_min, conf_max;
	char finding[MAX_EXPECT][128];
	int nfinding;
	char no_finding[MAX_EXPECT][128];
	int nno_finding;
	char evidence[MAX_EXPECT][48];
	int nevidence;
	char no_evidence[MAX_EXPECT][48];
	int nno_evidence;
	char ev_source[MAX_EXPECT][128];
	int nev_source;
	char shown[MAX_EXPECT][48];
	int nshown;
	char aside[MAX_EXPECT][48];
	int naside;
	char advice[MAX_EXPECT][128];
	int nadvice;
	char no_advice[MAX_EXPECT][128];
	int nno_advice;
};

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static bool parse_double(const char *text, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(text, &end); /* accepts "nan" */
	return errno == 0 && end != text && *end == '\0';
}

static bool set_field(struct cpw_metrics *m, const struct field *f, const char *val)
{
	char *p = (char *)m + f->off;
	unsigned long long u;
	char *end;
	double d;

	switch (f->type) {
	case F_DBL:
		if (!parse_double(val, &d))
			return false;
		*(double *)(void *)p = d;
		return true;
	case F_BOOL:
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
			*(bool *)(void *)p = true;
		else if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
			*(bool *)(void *)p = false;
		else
			return false;
		return true;
	case F_STR:
		snprintf(p, f->size, "%s", val);
		return true;
	case F_INT:
		errno = 0;
		d = (double)strtol(val, &end, 10);
		if (errno != 0 || end == val || *end != '\0')
			return false;
		*(int *)(void *)p = (int)d;
		return true;
	case F_U64:
	case F_UINT:
		errno = 0;
		u = strtoull(val, &end, 10);
		if (errno != 0 || end == val || *end != '\0' || val[0] == '-')
			return false;
		if (f->type == F_U64)
			*(uint64_t *)(void *)p = u;
		else
			*(unsigned *)(void *)p = (unsigned)u;
		return true;
	}
	return false;
}

static bool add_text(char (*list)[128], int *n, const char *val)
{
	if (*n >= MAX_EXPECT)
		return false;
	snprintf(list[(*n)++], 128, "%s", val);
	return true;
}

static bool add_metric(char (*list)[48], int *n, const char *val)
{
	if (*n >= MAX_EXPECT)
		return false;
	snprintf(list[(*n)++], 48, "%s", val);
	return true;
}

static bool set_expect(struct expect *e, const char *key, const char *val)
{
	if (strcmp(key, "class") == 0) {
		e->cls = cpw_verdict_class_from_name(val);
		e->has_cls = true;
		return e->cls >= 0;
	}
	if (strcmp(key, "secondary") == 0) {
		e->secondary = strcmp(val, "none") == 0 ? CPW_CLASS_NONE : cpw_verdict_class_from_name(val);
		e->has_secondary = true;
		return strcmp(val, "none") == 0 || e->secondary >= 0;
	}
	if (strcmp(key, "confidence_min") == 0)
		return parse_double(val, &e->conf_min);
	if (strcmp(key, "confidence_max") == 0)
		return parse_double(val, &e->conf_max);
	if (strcmp(key, "finding") == 0)
		return add_text(e->finding, &e->nfinding, val);
	if (strcmp(key, "no_finding") == 0)
		return add_text(e->no_finding, &e->nno_finding, val);
	if (strcmp(key, "evidence") == 0)
		return add_metric(e->evidence, &e->nevidence, val);
	if (strcmp(key, "no_evidence") == 0)
		return add_metric(e->no_evidence, &e->nno_evidence, val);
	if (strcmp(key, "evidence_source") == 0)
		return add_text(e->ev_source, &e->nev_source, val);
	if (strcmp(key, "shown") == 0)
		return add_metric(e->shown, &e->nshown, val);
	if (strcmp(key, "aside") == 0)
		return add_metric(e->aside, &e->naside, val);
	if (strcmp(key, "advice") == 0)
		return add_text(e->advice, &e->nadvice, val);
	if (strcmp(key, "no_advice") == 0)
		return add_text(e->no_advice, &e->nno_advice, val);
	return false;
}

static const char *fixture_dir(void)
{
	const char *env = getenv("CPW_FIXTURES");

	if (env != NULL && env[0] != '\0') {
		static char path[4096];

		snprintf(path, sizeof path, "%s/metrics", env);
		return path;
	}
	return CPW_METRICS_FIXTURES;
}

/* Reads one fixture; reports every bad line as a failure. Returns false when unreadable. */
static bool load_fixture(const char *name, struct cpw_metrics *m, struct expect *e)
{
	char path[4096], line[512];
	unsigned lineno = 0;
	FILE *fp;

	metrics_unknown(m);
	memset(e, 0, sizeof *e);
	e->cls = e->secondary = CPW_CLASS_NONE;
	e->conf_min = 0;
	e->conf_max = 1;
	snprintf(path, sizeof path, "%s/%s", fixture_dir(), name);
	fp = fopen(path, "r");
	if (fp == NULL) {
		FAILF("%s: cannot open: %s", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof line, fp) != NULL) {
		char *eq, *key, *val, *t = trim(line);
		const struct field *f = NULL;

		lineno++;
		if (*t == '\0' || *t == '#')
			continue;
		eq = strchr(t, '=');
		if (eq == NULL) {
			FAILF("%s:%u: no '=' in line", name, lineno);
			continue;
		}
		*eq = '\0';
		key = trim(t);
		val = trim(eq + 1);
		if (strncmp(key, "expect.", 7) == 0) {
			if (!set_expect(e, key + 7, val))
				FAILF("%s:%u: bad expectation %s = %s", name, lineno, key, val);
			continue;
		}
		for (size_t i = 0; i < NFIELDS; i++)
			if (strcmp(fields[i].name, key) == 0)
				f = &fields[i];
		if (f == NULL)
			FAILF("%s:%u: no field %s in struct cpw_metrics", name, lineno, key);
		else if (!set_field(m, f, val))
			FAILF("%s:%u: bad value for %s: %s", name, lineno, key, val);
	}
	fclose(fp);
	if (!e->has_cls)
		FAILF("%s: no expect.class", name);
	return true;
}

/* ---- checks ---- */

static const struct cpw_evidence *find_evidence(const struct cpw_verdict *v, const char *metric)
{
	for (int i = 0; i < v->nevidence; i++)
		if (strcmp(v->evidence[i].metric, metric) == 0)
			return &v->evidence[i];
	return NULL;
}

static bool has_finding(const struct cpw_verdict *v, const char *text)
{
	for (int i = 0; i < v->nfindings; i++)
		if (strstr(v->findings[i], text) != NULL)
			return true;
	return false;
}

static void dump_verdict(const char *name, const struct cpw_verdict *v)
{
	printf("# %s: %s (secondary %s) confidence %.2f\n", name, cpw_verdict_class_name(v->cls),
	       cpw_verdict_class_name(v->secondary), v->confidence);
	for (int i = 0; i < v->nevidence; i++)
		printf("#   evidence %s = %g (threshold %g) [%s] %s\n", v->evidence[i].metric,
		       v->evidence[i].value, v->evidence[i].threshold, v->evidence[i].source,
		       v->evidence[i].text);
	for (int i = 0; i < v->nfindings; i++)
		printf("#   finding %s\n", v->findings[i]);
	printf("#   advice %s\n", v->advice);
}

/* Whether text holds a figure with three or more decimals and more than three significant
 * digits ("1.03226 usable CPUs"; "0.065", "0.240 s" and "6254.6 MiB" pass): the words give
 * what a person reads, two significant digits (issue 27, item 5); the evidence's
 * value keeps the exact figure. */
static bool long_decimals(const char *text)
{
	for (const char *p = text; *p; p++) {
		const char *q = p;
		int sig = 0, decimals = 0;
		bool point = false;
		if (!isdigit((unsigned char)*p) || (p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		for (; isdigit((unsigned char)*q) || (*q == '.' && !point && isdigit((unsigned char)q[1])); q++) {
			if (*q == '.')
				point = true;
			else if (sig > 0 || *q != '0')
				sig++;
			decimals += point && *q != '.';
		}
		if (decimals >= 3 && sig > 3)
			return true;
	}
	return false;
}

/* Whether the text counts one of something in the plural: "1 runnable threads", "1 usable
 * CPUs", "1.0 cores" (a figure of one, then up to one word, then a plural noun). */
static bool one_in_plural(const char *text)
{
	static const char *const nouns[] = { "threads", "CPUs", "cores", "processes", "workers" };
	for (const char *p = text; *p; p++) {
		if (*p != '1' || (p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		const char *q = p + 1;
		if (q[0] == '.' && q[1] == '0')
			q += 2;
		if (*q != ' ' || isdigit((unsigned char)q[-1]) == 0)
			continue;
		q++;
		for (int words = 0; words < 2 && *q; words++) {
			size_t n = strcspn(q, " ,:;()");
			for (size_t k = 0; k < sizeof nouns / sizeof nouns[0]; k++)
				if (n == strlen(nouns[k]) && strncmp(q, nouns[k], n) == 0)
					return true;
			if (q[n] != ' ')
				break;
			q += n + 1;
		}
	}
	return false;
}

/* What every verdict must satisfy, whatever the input. Returns the number of violations. */
static int check_invariants(const char *name, const struct cpw_verdict *v)
{
	int bad = 0;

#define INV(cond, ...) do { if (!(cond)) { FAILF(__VA_ARGS__); bad++; } } while (0)
	INV(v->cls >= 0 && v->cls < CPW_CLASS_COUNT, "%s: class %d out of range", name, (int)v->cls);
	INV(v->secondary == CPW_CLASS_NONE || (v->secondary >= 0 && v->secondary < CPW_CLASS_COUNT),
	    "%s: secondary %d out of range", name, (int)v->secondary);
	INV(v->secondary != v->cls, "%s: secondary equals the class", name);
	INV(v->secondary != CPW_CLASS_MIXED && v->secondary != CPW_CLASS_UNKNOWN,
	    "%s: secondary is %s", name, cpw_verdict_class_name(v->secondary));
	INV(v->cls != CPW_CLASS_MIXED || v->secondary != CPW_CLASS_NONE,
	    "%s: mixed without naming the leading class", name);
	INV(v->confidence >= 0 && v->confidence <= 1, "%s: confidence %g not in 0..1", name, v->confidence);
	INV(v->cls != CPW_CLASS_UNKNOWN || v->confidence <= 0.3,
	    "%s: unknown with confidence %g", name, v->confidence);
	INV(v->nevidence >= 1 && v->nevidence <= CPW_EVIDENCE_MAX, "%s: %d evidence lines", name, v->nevidence);
	INV(v->nfindings >= 0 && v->nfindings <= CPW_FINDINGS_MAX, "%s: %d findings", name, v->nfindings);
	for (int i = 0; i < v->nevidence && i < CPW_EVIDENCE_MAX; i++) {
		const struct cpw_evidence *e = &v->evidence[i];

		INV(e->metric[0] && e->source[0] && e->text[0], "%s: evidence %d has an empty part", name, i);
		INV(strlen(e->text) < sizeof e->text - 1, "%s: evidence text %d truncated: %s", name, i, e->text);
		INV(strstr(e->text, "nan") == NULL && strstr(e->text, "inf") == NULL,
		    "%s: evidence text %d prints a non-number: %s", name, i, e->text);
		INV(!long_decimals(e->text), "%s: evidence text %d prints a long figure: %s", name, i, e->text);
		INV(!one_in_plural(e->text), "%s: evidence text %d counts one in the plural: %s", name, i, e->text);
	}
	for (int i = 0; i < v->nfindings && i < CPW_FINDINGS_MAX; i++) {
		INV(v->findings[i][0] != '\0', "%s: empty finding %d", name, i);
		INV(strstr(v->findings[i], "nan") == NULL, "%s: finding prints nan: %s", name, v->findings[i]);
		INV(!long_decimals(v->findings[i]), "%s: finding prints a long figure: %s", name, v->findings[i]);
		INV(!one_in_plural(v->findings[i]), "%s: finding counts one in the plural: %s", name, v->findings[i]);
	}
	INV(v->advice[0] != '\0', "%s: no advice", name);
	INV(strlen(v->advice) < sizeof v->advice - 1, "%s: advice truncated: %s", name, v->advice);
	INV(strstr(v->advice, "nan") == NULL, "%s: advice prints nan: %s", name, v->advice);
	INV(!long_decimals(v->advice), "%s: advice prints a long figure: %s", name, v->advice);
	INV(!one_in_plural(v->advice), "%s: advice counts one in the plural: %s", name, v->advice);
#undef INV
	return bad;
}

/* Whether the busiest process is Python, as the advice must see it: the reader's answer,
 * else its name (an interpreter's, or a script's run through its #! line). */
static bool python_top(const struct cpw_metrics *m)
{
	const char *c = m->top_process_comm;
	size_t len = strlen(c);

	if (m->top_process_is_python >= 0)
		return m->top_process_is_python == 1;
	return strncmp(c, "python", 6) == 0 || strncmp(c, "pypy", 4) == 0 ||
	       (len > 3 && strcmp(c + len - 3, ".py") == 0);
}

/* Advice never recommends what a finding or the figures rule out (issue 19, item 8).
 * Returns the number of contradictions. */
static int check_advice(const char *name, const struct cpw_metrics *m, const struct cpw_verdict *v)
{
	bool serialised = has_finding(v, "take turns on a lock");
	/* The wait analysis found the tree's waits on a lock (a futex). */
	bool lock_waits = v->cls == CPW_CLASS_WAITING && strcmp(m->wait_kind, "lock") == 0;
	bool gil = has_finding(v, "GIL");
	bool oversub = has_finding(v, "oversubscribes");
	double cores = cpw_known(m->cores_usable_sampled) && m->cores_usable_sampled > 0
		? m->cores_usable_sampled : m->cores_usable;
	double used = cpw_known(m->cores_used) ? m->cores_used
		: cpw_known(m->wall_s) && m->wall_s > 0 && cpw_known(m->user_s) && cpw_known(m->sys_s)
			? (m->user_s + m->sys_s) / m->wall_s : NAN;
	bool saturated = oversub || (cpw_known(cores) && cpw_known(used) && used > 0.75 * cores);
	bool named[CPW_CLASS_COUNT] = { false };
	int bad = 0;

	if (v->cls >= 0 && v->cls < CPW_CLASS_COUNT)
		named[v->cls] = true;
	if (v->secondary >= 0 && v->secondary < CPW_CLASS_COUNT)
		named[v->secondary] = true;
#define NEVER(cond, text) do { if ((cond) && strstr(v->advice, text) != NULL) { \
	FAILF("%s: the advice says '%s' although %s", name, text, #cond); bad++; } } while (0)
	/* Threads that take turns: more threads (or parallelising) would take turns too. */
	NEVER(serialised, "parallelise (");
	NEVER(serialised, "parallelise with");
	NEVER(serialised, "(threads");
	/* Python: its threads share the GIL, so threads never parallelise it; CPU work gets
	 * processes or compiled code (issue 27, item 4). */
	NEVER(python_top(m), "(threads");
	NEVER(python_top(m), "make -j");
	if (python_top(m) && v->cls == CPW_CLASS_CPU_BOUND && strstr(v->advice, "compiled") == NULL) {
		FAILF("%s: cpu-bound Python without compiled code in the advice: %s", name, v->advice);
		bad++;
	}
	/* A tree that already keeps its CPUs busy gains nothing from parallelising. */
	NEVER(saturated, "parallelise (");
	NEVER(saturated, "parallelise with");
	NEVER(saturated, "to use the rest");
	/* Its own oversubscription, or the CPUs it narrowed itself, is not other load. */
	NEVER(!named[CPW_CLASS_CPU_STARVED], "other load");
	/* The GIL only for Python; a lock's advice only where threads take turns, or wait
	 * on a lock. */
	NEVER(!gil && !python_top(m), "GIL");
	NEVER(!serialised && !lock_waits, "critical sections");
	/* More memory only with memory pressure; storage advice only with storage waits. */
	NEVER(!named[CPW_CLASS_THRASHING], "more memory");
	NEVER(!named[CPW_CLASS_IO_BOUND], "sync less");
	NEVER(!named[CPW_CLASS_IO_BOUND], "faster storage");
	/* More CPUs for a tree that other load starves, not one that has CPUs idle. */
	NEVER(!named[CPW_CLASS_CPU_STARVED], "more CPUs");
#undef NEVER
	return bad;
}

static void test_fixture(void)
{
	const char *name = CU_get_current_test()->pName;
	struct cpw_metrics m;
	struct cpw_verdict v, again;
	struct expect e;
	int before = (int)CU_get_number_of_failures();

	if (!load_fixture(name, &m, &e))
		return;
	cpw_classify(&m, &v);
	cpw_gpu_verdict_apply(&m, &v); /* gpu: as the session applies it */
	check_invariants(name, &v);
	check_advice(name, &m, &v);

	if (e.has_cls && v.cls != e.cls)
		FAILF("%s: class %s, expected %s", name, cpw_verdict_class_name(v.cls), cpw_verdict_class_name(e.cls));
	if (e.has_secondary && v.secondary != e.secondary)
		FAILF("%s: secondary %s, expected %s", name, cpw_verdict_class_name(v.secondary),
		      cpw_verdict_class_name(e.secondary));
	if (v.confidence < e.conf_min || v.confidence > e.conf_max)
		FAILF("%s: confidence %.2f not in [%.2f, %.2f]", name, v.confidence, e.conf_min, e.conf_max);
	for (int i = 0; i < e.nfinding; i++)
		if (!has_finding(&v, e.finding[i]))
			FAILF("%s: no finding with '%s'", name, e.finding[i]);
	for (int i = 0; i < e.nno_finding; i++)
		if (has_finding(&v, e.no_finding[i]))
			FAILF("%s: unexpected finding with '%s'", name, e.no_finding[i]);
	for (int i = 0; i < e.nevidence; i++)
		if (find_evidence(&v, e.evidence[i]) == NULL)
			FAILF("%s: no evidence line %s", name, e.evidence[i]);
	for (int i = 0; i < e.nno_evidence; i++)
		if (find_evidence(&v, e.no_evidence[i]) != NULL)
			FAILF("%s: unexpected evidence line %s", name, e.no_evidence[i]);
	for (int i = 0; i < e.nev_source; i++) {
		char metric[128];
		char *colon;
		const struct cpw_evidence *ev;

		snprintf(metric, sizeof metric, "%s", e.ev_source[i]);
		colon = strchr(metric, ':');
		if (colon == NULL) {
			FAILF("%s: expect.evidence_source needs 'metric: source'", name);
			continue;
		}
		*colon = '\0';
		ev = find_evidence(&v, trim(metric));
		if (ev == NULL || strstr(ev->source, trim(colon + 1)) == NULL)
			FAILF("%s: evidence %s does not come from '%s' (%s)", name, trim(metric),
			      trim(colon + 1), ev ? ev->source : "no such line");
	}
	/* The text shows evidence that supports or nearly changes the verdict; JSON all of it. */
	for (int i = 0; i < e.nshown; i++) {
		const struct cpw_evidence *ev = find_evidence(&v, e.shown[i]);
		if (ev == NULL || ev->aside)
			FAILF("%s: evidence %s not shown in text (%s)", name, e.shown[i], ev ? "aside" : "no such line");
	}
	for (int i = 0; i < e.naside; i++) {
		const struct cpw_evidence *ev = find_evidence(&v, e.aside[i]);
		if (ev == NULL || !ev->aside)
			FAILF("%s: evidence %s not set aside (%s)", name, e.aside[i], ev ? "shown" : "no such line");
	}
	for (int i = 0; i < e.nadvice; i++)
		if (strstr(v.advice, e.advice[i]) == NULL)
			FAILF("%s: advice lacks '%s'", name, e.advice[i]);
	for (int i = 0; i < e.nno_advice; i++)
		if (strstr(v.advice, e.no_advice[i]) != NULL)
			FAILF("%s: advice holds '%s'", name, e.no_advice[i]);

	/* For contrib/bench/calibration.py: every fixture's expected and given class. */
	if (getenv("CPW_CALIBRATION") != NULL)
		printf("# calibration %s expected=%s got=%s confidence=%.4f\n", name,
		       cpw_verdict_class_name((enum cpw_class)e.cls), cpw_verdict_class_name(v.cls), v.confidence);

	/* Pure: the same input gives the same bytes. */
	cpw_classify(&m, &again);
	cpw_gpu_verdict_apply(&m, &again); /* gpu */
	if (memcmp(&v, &again, sizeof v) != 0)
		FAILF("%s: a second call gave a different verdict", name);

	if ((int)CU_get_number_of_failures() != before)
		dump_verdict(name, &v);
}

/* ---- the fixture list ---- */

static char fixture_names[MAX_FIXTURES][128];
static int nfixtures;

static int cmp_names(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int scan_fixtures(void)
{
	DIR *dir = opendir(fixture_dir());
	struct dirent *d;

	if (dir == NULL)
		return -errno;
	while ((d = readdir(dir)) != NULL && nfixtures < MAX_FIXTURES) {
		size_t len = strlen(d->d_name);

		if (len > 8 && len < 128 && strcmp(d->d_name + len - 8, ".metrics") == 0)
			memcpy(fixture_names[nfixtures++], d->d_name, len + 1);
	}
	closedir(dir);
	qsort(fixture_names, (size_t)nfixtures, sizeof fixture_names[0], cmp_names);
	return nfixtures;
}

/* Every class is the expected verdict of some fixture. (Every fixture ships: the folder is
 * distributed whole, and tests/integration/test_dist.sh checks the tarball against git.) */
static void test_fixture_coverage(void)
{
	bool seen[CPW_CLASS_COUNT] = { false };

	CU_ASSERT(nfixtures >= 20);
	for (int i = 0; i < nfixtures; i++) {
		struct cpw_metrics m;
		struct expect e;

		if (load_fixture(fixture_names[i], &m, &e) && e.cls >= 0 && e.cls < CPW_CLASS_COUNT)
			seen[e.cls] = true;
	}
	for (int c = 0; c < CPW_CLASS_COUNT; c++)
		if (!seen[c])
			FAILF("no fixture expects %s", cpw_verdict_class_name((enum cpw_class)c));
}

/* ---- tests that need no fixture ---- */

static void test_class_names(void)
{
	static const char *const names[] = { "cpu-bound", "memory-bound", "io-bound", "thrashing",
					     "waiting", "cpu-starved", "mixed", "unknown", "gpu-bound" };

	CU_ASSERT_EQUAL(sizeof names / sizeof names[0], CPW_CLASS_COUNT);
	for (int c = 0; c < CPW_CLASS_COUNT; c++) {
		CU_ASSERT_STRING_EQUAL(cpw_verdict_class_name((enum cpw_class)c), names[c]);
		CU_ASSERT_EQUAL(cpw_verdict_class_from_name(names[c]), c);
	}
	CU_ASSERT_STRING_EQUAL(cpw_verdict_class_name(CPW_CLASS_NONE), "none");
	CU_ASSERT_EQUAL(cpw_verdict_class_from_name("none"), -1);
	CU_ASSERT_EQUAL(cpw_verdict_class_from_name("CPU-bound"), -1);
	CU_ASSERT_EQUAL(cpw_verdict_class_from_name(""), -1);
	CU_ASSERT_EQUAL(cpw_verdict_class_from_name(NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(cpw_verdict_class_name(CPW_CLASS_COUNT));
}

/* Figures in words: whole numbers as they are, else two significant digits. */
static void test_figures(void)
{
	static const struct { double v; const char *s, *plural; } cases[] = {
		{ 2, "2", "s" }, { 1, "1", "" }, { 1.03226, "1.0", "" }, { 1.5, "1.5", "s" },
		{ 0.75, "0.75", "s" }, { 0.065, "0.065", "s" }, { 12.4, "12", "s" }, { 128, "128", "s" },
		{ 9.96, "10", "s" }, { 1.94, "1.9", "s" }, { 0.996, "1.0", "" }, { NAN, "N/A", "s" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (strcmp(cpw_verdict_figure(cases[i].v).s, cases[i].s) != 0)
			FAILF("cpw_verdict_figure(%g) = %s, not %s", cases[i].v, cpw_verdict_figure(cases[i].v).s, cases[i].s);
		if (strcmp(cpw_verdict_figure_plural(cases[i].v), cases[i].plural) != 0)
			FAILF("cpw_verdict_figure_plural(%g) = '%s'", cases[i].v, cpw_verdict_figure_plural(cases[i].v));
	}
}

static void test_thresholds_table(void)
{
	for (int i = 0; i < CPW_T_COUNT; i++) {
		const struct cpw_threshold *t = &cpw_thresholds[i];

		if (t->name == NULL || t->unit == NULL || t->source == NULL) {
			FAILF("threshold %d has no name, unit or source", i);
			continue;
		}
		if (!(t->value > 0))
			FAILF("threshold %s = %g is not positive", t->name, t->value);
		if (strlen(t->source) < 20)
			FAILF("threshold %s: the source says too little: %s", t->name, t->source);
		CU_ASSERT_PTR_EQUAL(cpw_threshold_find(t->name), t);
		for (int j = 0; j < i; j++)
			if (cpw_thresholds[j].name && strcmp(cpw_thresholds[j].name, t->name) == 0)
				FAILF("threshold name %s used twice", t->name);
	}
	CU_ASSERT_PTR_NULL(cpw_threshold_find("no_such_threshold"));
	CU_ASSERT_PTR_NULL(cpw_threshold_find(NULL));
	CU_ASSERT_DOUBLE_EQUAL(cpw_threshold(CPW_T_RUNQ_RATIO), 0.20, 1e-9);
	/* oversub_ratio is derived from runq_ratio: N/k where (N-k)/N = runq_ratio. */
	CU_ASSERT_DOUBLE_EQUAL(cpw_threshold(CPW_T_OVERSUB_RATIO),
			       1.0 / (1.0 - cpw_threshold(CPW_T_RUNQ_RATIO)), 1e-9);
}

static void test_all_unknown(void)
{
	struct cpw_metrics m;
	struct cpw_verdict v;

	metrics_unknown(&m);
	cpw_classify(&m, &v);
	CU_ASSERT_EQUAL(v.cls, CPW_CLASS_UNKNOWN);
	CU_ASSERT_EQUAL(v.secondary, CPW_CLASS_NONE);
	CU_ASSERT(v.confidence <= 0.3);
	CU_ASSERT(find_evidence(&v, "wall_s") != NULL);
	CU_ASSERT(find_evidence(&v, "samples") != NULL);
	check_invariants("all unknown", &v);
	cpw_classify(NULL, &v);
	CU_ASSERT_EQUAL(v.cls, CPW_CLASS_UNKNOWN);
}

/* A deterministic generator (xorshift), so failures reproduce. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double rand_double(double max)
{
	uint64_t r = next_rand();

	if (r % 8 == 0)
		return NAN; /* unknown one time in eight */
	if (r % 8 == 1)
		return 0;
	return (double)(next_rand() % 1000000) / 1000000.0 * max;
}

static void test_random_metrics(void)
{
	/* Names the reader's unknown (-1) falls back on: Python ones and others. */
	static const char *const comms[] = { "", "spin", "python3", "python3.11", "pypy3",
					     "julia.py", "cc1", "sh" };
	int bad = 0;

	for (int n = 0; n < 5000 && bad == 0; n++) {
		struct cpw_metrics m;
		struct cpw_verdict v;
		char name[64];

		metrics_unknown(&m);
		m.wall_s = rand_double(20);
		m.user_s = rand_double(40);
		m.sys_s = rand_double(40);
		m.cores_usable = rand_double(8);
		m.cores_used = rand_double(8);
		m.nprocs = (unsigned)(next_rand() % 5);
		m.top_process_cpu_share = rand_double(1);
		m.top_process_pid = (int)(next_rand() % 100000);
		m.samples = next_rand() % 200;
		m.st_running = next_rand() % 400;
		m.st_disk_wait = next_rand() % 400;
		m.st_d_other = next_rand() % 100;
		m.st_sleeping = next_rand() % 400;
		m.st_other = next_rand() % 10;
		m.thread_samples = m.st_running + m.st_disk_wait + m.st_d_other + m.st_sleeping + m.st_other;
		m.avg_runnable_threads = rand_double(8);
		m.oncpu_s = rand_double(40);
		m.runq_wait_s = rand_double(40);
		m.delayacct_on = next_rand() % 2;
		m.blkio_delay_s = rand_double(20);
		m.swapin_delay_s = rand_double(5);
		m.thrashing_delay_s = rand_double(5);
		m.reclaim_delay_s = rand_double(5);
		m.major_faults = next_rand() % 100000;
		m.minor_faults = next_rand() % 10000000;
		m.max_rss_kib = rand_double(1e7);
		m.tree_peak_rss_kib = rand_double(1e7);
		m.refaults = rand_double(1e6);
		m.memory_limit_kib = rand_double(1e7);
		m.read_bytes = rand_double(1e10);
		m.write_bytes = rand_double(1e10);
		m.fs_inputs = next_rand() % 10000000;
		m.fs_outputs = next_rand() % 1000;
		m.psi_cpu_some_s = rand_double(20);
		m.psi_io_some_s = rand_double(20);
		m.psi_io_full_s = rand_double(20);
		m.psi_mem_some_s = rand_double(20);
		m.psi_mem_full_s = rand_double(20);
		m.psi_from_cgroup = next_rand() % 2;
		m.hw_counters_available = next_rand() % 2;
		m.cycles = rand_double(1e11);
		m.instructions = rand_double(1e11);
		m.cache_misses = rand_double(1e9);
		m.llc_load_misses = rand_double(1e9);
		m.topdown_memory_bound = rand_double(1);
		m.top_process_threads = (double)(next_rand() % 9);
		m.top_process_cpu_threads = (double)(next_rand() % 5);
		m.top_process_runnable = rand_double(3);
		m.top_process_lock_share = rand_double(1);
		m.top_process_is_python = (int)(next_rand() % 3) - 1;
		snprintf(m.top_process_comm, sizeof m.top_process_comm, "%s",
			 comms[next_rand() % (sizeof comms / sizeof comms[0])]);
		m.cores_usable_sampled = rand_double(8);
		cpw_classify(&m, &v);
		snprintf(name, sizeof name, "random metrics #%d", n);
		bad += check_invariants(name, &v);
		bad += check_advice(name, &m, &v);
		if (bad)
			dump_verdict(name, &v);
	}
}

/* The off-CPU time the samples did not catch: the disk's where storage moved and D on
 * storage was seen most; never where the tree's io.pressure says it hardly waited for IO. */
static void test_split_off_cpu(void)
{
	struct cpw_classify_off_split out;
	/* 1.4 s off the CPU, two samples of 0.1 s in D on storage, 0.1 MiB moved. */
	struct cpw_classify_off_samples n = { .disk = 2 };
	cpw_classify_split_off_cpu(1.4, 0.1, &n, 104857, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.disk, 1.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.wait, 0, 1e-9);
	/* The io clock idle: the disk keeps its samples, the rest goes to none. */
	n.io_clock_idle = true;
	cpw_classify_split_off_cpu(1.4, 0.1, &n, 104857, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.disk, 0.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.d_other + out.wait, 0, 1e-9);
	/* ... or to the other states sampled, in proportion. */
	n.asleep = 3;
	n.d_other = 1;
	cpw_classify_split_off_cpu(1.4, 0.1, &n, 104857, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.disk, 0.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.d_other, 0.1 + 0.8 / 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.wait, 0.3 + 0.8 * 3 / 4, 1e-9);
	/* Without the clock and with no storage moved: shared by every state sampled. */
	n.io_clock_idle = false;
	cpw_classify_split_off_cpu(1.4, 0.1, &n, 0, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.disk, 0.2 + 0.8 * 2 / 6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.disk + out.d_other + out.wait, 1.4, 1e-9);
}

int main(void)
{
	CU_pSuite fixtures, units;
	int n;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	units = CU_add_suite("classify", NULL, NULL);
	fixtures = CU_add_suite("fixtures", NULL, NULL);
	if (units == NULL || fixtures == NULL)
		return 1;
	CU_add_test(units, "class names", test_class_names);
	CU_add_test(units, "thresholds table", test_thresholds_table);
	CU_add_test(units, "figures in words", test_figures);
	CU_add_test(units, "all inputs unknown", test_all_unknown);
	CU_add_test(units, "the off-CPU time past the samples", test_split_off_cpu);
	CU_add_test(units, "invariants on random metrics", test_random_metrics);
	n = scan_fixtures();
	if (n < 0)
		fprintf(stderr, "test_classify: cannot read %s: %s\n", fixture_dir(), strerror(-n));
	CU_add_test(units, "fixture coverage", test_fixture_coverage);
	for (int i = 0; i < nfixtures; i++)
		CU_add_test(fixtures, fixture_names[i], test_fixture);
	return cpw_cunit_run_tap();
}
