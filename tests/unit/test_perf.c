/*
 * test_perf.c: the counters module (source/perf/perf.c, perf_errors.c, report/counters_report.c).
 *
 * Encoding through libpfm4, the errno mapping, multiplex scaling and the derived figures
 * are checked with fakes: the perf_event_open and read hooks replay chosen errors and
 * readings, and the /proc and /sys roots point at tests/fixtures/perf. One test counts a
 * real child through the kernel, whatever PMU this machine has.
 */
#include "config.h"
#include "source/perf/perf.h"
#include "model/metrics.h"
#include "report/counters_report.h"
#include "source/perf/perf_private.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cunit_tap.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif
#define PERF_FIX FIXTURES "/perf"

/* ---- a fake kernel: per (type, config) an errno or a reading ---- */

#define FAKE_MAX 256
struct fake_rule {
	uint32_t type;
	uint64_t config;
	int err;                      /* perf_event_open fails with this when non-zero */
	struct cpw_perf_reading r;    /* what read returns */
};
/* What the session does with the counters at the end of a run. */
static void metrics_from_counters(const struct cpw_counters *c, struct cpw_metrics *m)
{
	struct cpw_counter_figures f;
	cpw_perf_figures(c, &f);
	cpw_metrics_from_counters(m, &f);
}

static struct fake_rule rules[32];
static int nrules;
static int fake_default_err;         /* for events without a rule */
static struct { uint32_t type; uint64_t config; pid_t pid; bool excl_k; bool dead; } fds[FAKE_MAX];
static int nfds;
static int open_calls;

static void fake_reset(void)
{
	nrules = 0;
	nfds = 0;
	open_calls = 0;
	fake_default_err = 0;
}

static void fake_rule(uint32_t type, uint64_t config, int err, uint64_t v, uint64_t en, uint64_t run)
{
	rules[nrules++] = (struct fake_rule){ type, config, err, { v, en, run } };
}

static const struct fake_rule *find_rule(uint32_t type, uint64_t config)
{
	for (int i = 0; i < nrules; i++)
		if (rules[i].type == type && rules[i].config == config)
			return &rules[i];
	return NULL;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	(void)cpu; (void)group_fd; (void)flags;
	open_calls++;
	const struct fake_rule *r = find_rule(attr->type, attr->config);
	int err = r ? r->err : fake_default_err;
	if (err) {
		errno = err;
		return -1;
	}
	if (nfds >= FAKE_MAX) {
		errno = EMFILE;
		return -1;
	}
	fds[nfds].type = attr->type;
	fds[nfds].config = attr->config;
	fds[nfds].pid = pid;
	fds[nfds].excl_k = attr->exclude_kernel;
	fds[nfds].dead = false;
	return 1000 + nfds++;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	int i = fd - 1000;
	if (i < 0 || i >= nfds || len < 24) {
		errno = EBADF;
		return -1;
	}
	if (fds[i].dead) {
		errno = ESRCH;
		return -1;
	}
	const struct fake_rule *r = find_rule(fds[i].type, fds[i].config);
	uint64_t out[3] = { 0, 1000, 1000 };
	if (r) {
		out[0] = r->r.value;
		out[1] = r->r.enabled_ns;
		out[2] = r->r.running_ns;
	}
	memcpy(buf, out, sizeof(out));
	return (ssize_t)sizeof(out);
}

static int fake_close(int fd)
{
	(void)fd;
	return 0;
}

static void use_fake(const char *proc_root, const char *sys_root, int euid)
{
	struct cpw_perf_hooks h = {
		.open = fake_open, .read = fake_read, .close = fake_close,
		.proc_root = proc_root, .sys_root = sys_root, .euid = euid,
	};
	fake_reset();
	cpw_perf_set_hooks(&h);
}

static const struct cpw_counter_value *by_name(const struct cpw_counters *c, const char *name)
{
	for (size_t i = 0; i < cpw_perf_count(c); i++)
		if (strcmp(cpw_perf_get(c, i)->name, name) == 0)
			return cpw_perf_get(c, i);
	return NULL;
}

static const struct perf_event_attr *attr_of(const struct cpw_counters *c, const char *name)
{
	for (size_t i = 0; i < cpw_perf_count(c); i++)
		if (strcmp(cpw_perf_get(c, i)->name, name) == 0)
			return cpw_perf_attr(c, i);
	return NULL;
}

/* The values the session hands the report (static: ~20 KB). */
static const struct cpw_counter_values *values_of(const struct cpw_counters *c)
{
	static struct cpw_counter_values v;
	cpw_perf_values(c, &v);
	return &v;
}

/* Renders the text section into a string (caller frees). */
static char *render_text(const struct cpw_counters *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(cpw_counters_report_write_text(values_of(c), f), 0);
	fclose(f);
	return buf;
}

/* Returns the line of text that names the event (a copy, caller frees), or NULL. */
static char *line_of(const char *text, const char *name)
{
	char pat[128];
	snprintf(pat, sizeof(pat), " %s ", name);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);
		char *padded = NULL;
		if (line && asprintf(&padded, "%s ", line) > 0) {
			/* Events missing for one reason share a line: "cycles, instructions (why)". */
			for (char *q = padded; *q; q++)
				if (*q == ',')
					*q = ' ';
		}
		if (padded && strstr(padded, pat)) {
			free(padded);
			return line;
		}
		free(padded);
		free(line);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* ---- encoding ---- */

static void test_encode_generic_names(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c;
	char err[200];
	int r = cpw_perf_new(&c, "cycles, task-clock,LLC-load-misses,context-switches", err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(r, 0);
	CU_ASSERT_EQUAL(cpw_perf_count(c), 4);
	const struct perf_event_attr *a = attr_of(c, "cycles");
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT_EQUAL(a->type, PERF_TYPE_HARDWARE);
	CU_ASSERT_EQUAL(a->config, PERF_COUNT_HW_CPU_CYCLES);
	CU_ASSERT_EQUAL(a->inherit, 1);
	CU_ASSERT_EQUAL(a->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	CU_ASSERT_EQUAL(a->size, sizeof(struct perf_event_attr));
	a = attr_of(c, "task-clock");
	CU_ASSERT_EQUAL(a->type, PERF_TYPE_SOFTWARE);
	CU_ASSERT_EQUAL(a->config, PERF_COUNT_SW_TASK_CLOCK);
	CU_ASSERT_STRING_EQUAL(by_name(c, "task-clock")->unit, "msec");
	CU_ASSERT_STRING_EQUAL(by_name(c, "cycles")->unit, "");
	a = attr_of(c, "LLC-load-misses");
	CU_ASSERT_EQUAL(a->type, PERF_TYPE_HW_CACHE);
	CU_ASSERT_EQUAL(a->config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
				   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	CU_ASSERT_EQUAL(cpw_perf_role(c, 2), CPW_ROLE_LLC_LOAD_MISSES);
	/* As root: the kernel side counts too. */
	CU_ASSERT_EQUAL(attr_of(c, "context-switches")->exclude_kernel, 0);
	cpw_perf_free(c);
}

static void test_encode_pmu_specific_names(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c;
	char err[200];
	int r = cpw_perf_new(&c, "perf::PERF_COUNT_HW_INSTRUCTIONS,perf::cycles:u", err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(r, 0);
	const struct perf_event_attr *a = attr_of(c, "perf::PERF_COUNT_HW_INSTRUCTIONS");
	CU_ASSERT_EQUAL(a->type, PERF_TYPE_HARDWARE);
	CU_ASSERT_EQUAL(a->config, PERF_COUNT_HW_INSTRUCTIONS);
	/* The role comes from the encoding, not the spelling: IPC works with any name. */
	CU_ASSERT_EQUAL(cpw_perf_role(c, 0), CPW_ROLE_INSTRUCTIONS);
	CU_ASSERT_EQUAL(cpw_perf_role(c, 1), CPW_ROLE_CYCLES);
	/* An explicit :u wins over the default privilege levels, even as root. */
	CU_ASSERT_EQUAL(attr_of(c, "perf::cycles:u")->exclude_kernel, 1);
	cpw_perf_free(c);
}

static void test_unknown_name_is_einval(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c = (struct cpw_counters *)&c; /* must be reset to NULL */
	char err[200] = "";
	int r = cpw_perf_new(&c, "cycles,no-such-event-xyz", err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-event-xyz"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown event"));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	r = cpw_perf_new(&c, " , ", err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "empty"));
}

static void test_default_set(void)
{
	static const char *const want[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"LLC-load-misses", "branch-misses", "stalled-cycles-frontend", "stalled-cycles-backend",
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	const char *const sys[] = { PERF_FIX "/sys-pmu", PERF_FIX "/sys-nopmu" };
	for (size_t k = 0; k < 2; k++) {
		use_fake(PERF_FIX "/proc-paranoid2", sys[k], 0);
		fake_default_err = ENOENT; /* what the kernel says to a hardware event without a PMU */
		struct cpw_counters *c;
		char err[200];
		CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, NULL, err, sizeof(err)), 0);
		CU_ASSERT_FATAL(cpw_perf_count(c) >= nwant);
		for (size_t i = 0; i < nwant; i++)
			CU_ASSERT_STRING_EQUAL(cpw_perf_get(c, i)->name, want[i]);
		/* Anything after them is top-down, present only where the PMU has it. */
		for (size_t i = nwant; i < cpw_perf_count(c); i++)
			CU_ASSERT(cpw_perf_role(c, i) >= CPW_ROLE_TD_SLOTS);
		CU_ASSERT_EQUAL(cpw_perf_open_child(c, 4242), 0);
		bool no_pmu = k == 1;
#if defined(__x86_64__) || defined(__i386__)
		/* No core PMU on x86: nothing is asked of the kernel (nor encoded). */
		CU_ASSERT_EQUAL(open_calls, no_pmu ? 0 : (int)cpw_perf_count(c));
#else
		CU_ASSERT_EQUAL(open_calls, (int)cpw_perf_count(c));
#endif
		for (size_t i = 0; i < cpw_perf_count(c); i++) {
			const struct cpw_counter_value *v = cpw_perf_get(c, i);
			CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
			CU_ASSERT(isnan(v->value));
			if (no_pmu)
				CU_ASSERT_STRING_EQUAL(v->reason, "no hardware PMU visible (virtual machine?)");
		}
		cpw_perf_free(c);
	}
}

/* ---- errno mapping ---- */

static void test_errno_not_supported(void)
{
	struct cpw_perf_env vm = { .paranoid = 2, .is_root = true, .hw_pmu_present = false };
	struct cpw_perf_env hw = { .paranoid = 2, .is_root = true, .hw_pmu_present = true };
	char reason[160];
	const int errs[] = { ENOENT, ENODEV, EOPNOTSUPP };
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(cpw_perf_errno_status(errs[i], &vm, true, reason, sizeof(reason)),
				CPW_COUNTER_NOT_SUPPORTED);
		CU_ASSERT_STRING_EQUAL(reason, "no hardware PMU visible (virtual machine?)");
		CU_ASSERT_EQUAL(cpw_perf_errno_status(-errs[i], &hw, true, reason, sizeof(reason)),
				CPW_COUNTER_NOT_SUPPORTED);
		CU_ASSERT_PTR_NULL(strstr(reason, "virtual machine"));
		CU_ASSERT(strlen(reason) > 10);
	}
	CU_ASSERT_EQUAL(cpw_perf_errno_status(ENOENT, &hw, true, reason, sizeof(reason)), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "no such event"));
	CU_ASSERT_EQUAL(cpw_perf_errno_status(ENOENT, &vm, false, reason, sizeof(reason)), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "kernel does not offer"));
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EINVAL, &hw, true, reason, sizeof(reason)), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "EINVAL"));
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EBUSY, &hw, true, reason, sizeof(reason)), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "busy"));
	CU_ASSERT_EQUAL(cpw_perf_errno_status(E2BIG, &hw, true, reason, sizeof(reason)), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT(strlen(reason) > 10);
}

static void test_errno_not_permitted(void)
{
	char reason[160];
	struct cpw_perf_env user2 = { .paranoid = 2, .is_root = false, .hw_pmu_present = true };
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EACCES, &user2, true, reason, sizeof(reason)), CPW_COUNTER_NOT_PERMITTED);
	CU_ASSERT_STRING_EQUAL(reason, "perf_event_paranoid is 2: user-space counting of own processes only");
	struct cpw_perf_env user3 = { .paranoid = 3, .is_root = false, .hw_pmu_present = false };
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EPERM, &user3, true, reason, sizeof(reason)), CPW_COUNTER_NOT_PERMITTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "perf_event_paranoid is 3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "no perf events"));
	struct cpw_perf_env root = { .paranoid = -1, .is_root = true, .hw_pmu_present = true };
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EPERM, &root, false, reason, sizeof(reason)), CPW_COUNTER_NOT_PERMITTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "even as root"));
	struct cpw_perf_env unk = { .paranoid = CPW_PARANOID_UNKNOWN, .is_root = false };
	CU_ASSERT_EQUAL(cpw_perf_errno_status(EACCES, &unk, true, reason, sizeof(reason)), CPW_COUNTER_NOT_PERMITTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(reason, "unreadable"));
	CU_ASSERT_STRING_EQUAL(cpw_perf_paranoid_meaning(1), "user and kernel counting of own processes, no CPU-wide events");
	CU_ASSERT_STRING_EQUAL(cpw_perf_paranoid_meaning(-1), "no restrictions");
}

static void test_paranoid_and_pmu_fixtures(void)
{
	int level = 99;
	CU_ASSERT_EQUAL(cpw_perf_read_paranoid(PERF_FIX "/proc-paranoid2", &level), 0);
	CU_ASSERT_EQUAL(level, 2);
	CU_ASSERT_EQUAL(cpw_perf_read_paranoid(PERF_FIX "/proc-paranoid3", &level), 0);
	CU_ASSERT_EQUAL(level, 3);
	CU_ASSERT_EQUAL(cpw_perf_read_paranoid(PERF_FIX "/no-such-root", &level), -ENOENT);
	for (int names_decide = 0; names_decide < 2; names_decide++) {
		CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/sys-pmu", names_decide), 1);
		CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/no-such-root", names_decide), -1);
	}
	/* No core PMU listed: certain only where the names decide (x86). */
	CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/sys-nopmu", true), 0);
	CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/sys-nopmu", false), -1);
	/* A core PMU with another name is found by its type (PERF_TYPE_RAW)... */
	CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/sys-rawpmu", false), 1);
	/* ...which is not read where the names decide. */
	CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(PERF_FIX "/sys-rawpmu", true), 0);
	/* A directory listing nothing proves nothing. */
	char root[] = "/tmp/cpw-sys-XXXXXX", dir[128];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/bus", root);
	CU_ASSERT_EQUAL(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/bus/event_source", root);
	CU_ASSERT_EQUAL(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", root);
	CU_ASSERT_EQUAL(mkdir(dir, 0700), 0);
	CU_ASSERT_EQUAL(cpw_perf_cpu_pmu(root, true), -1);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/bus/event_source", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/bus", root);
	rmdir(dir);
	rmdir(root);
}

/* ---- opening through the fake kernel ---- */

/* Every event missing for one reason (no PMU: every run on such a VM) is the section's one
 * line, not a line each (issue 29 item 7). */
static void test_missing_for_one_reason(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	fake_default_err = ENOENT;
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "cycles,instructions,cache-misses", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_open_child(c, 4242), 0);
	cpw_perf_read(c);
	char *text = render_text(c);
	CU_ASSERT_STRING_EQUAL(text, "Counters: <not supported> cycles, instructions, cache-misses "
			       "(no hardware PMU visible (virtual machine?))\n");
	free(text);
	cpw_perf_free(c);
}

static void test_open_child_maps_errors(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	fake_default_err = ENOENT; /* every hardware event, as on this kind of VM */
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 250000000, 1000, 1000);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 1234, 1000, 1000);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, EOPNOTSUPP, 0, 0, 0);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, EINVAL, 0, 0, 0);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "task-clock,page-faults,cycles,instructions,cache-misses",
					       err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_open_child(c, 4242), 0);
	CU_ASSERT_EQUAL(fds[0].pid, 4242);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->disabled, 1);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->enable_on_exec, 1);
	cpw_perf_read(c);
	const struct cpw_counter_value *v = by_name(c, "task-clock");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_COUNTED);
	CU_ASSERT_DOUBLE_EQUAL(v->value, 250.0, 1e-9); /* ns -> msec */
	CU_ASSERT_STRING_EQUAL(v->reason, "");
	v = by_name(c, "page-faults");
	CU_ASSERT_DOUBLE_EQUAL(v->value, 1234, 1e-9);
	v = by_name(c, "cycles");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT(isnan(v->value));
	CU_ASSERT_STRING_EQUAL(v->reason, "no hardware PMU visible (virtual machine?)");
	v = by_name(c, "instructions");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(v->reason, "no hardware PMU visible (virtual machine?)");
	v = by_name(c, "cache-misses");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(v->reason, "EINVAL"));

	char *text = render_text(c);
	char *line = line_of(text, "cycles");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "<not supported>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "no hardware PMU visible"));
	/* Events missing for one reason share a line (issue 29 item 7); another reason, its own. */
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "cycles, instructions ("));
	CU_ASSERT_PTR_NULL(strstr(strstr(text, "no hardware PMU") + 1, "no hardware PMU"));
	free(line);
	line = line_of(text, "cache-misses");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "EINVAL"));
	free(line);
	line = line_of(text, "task-clock");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "250.00 msec"));
	free(line);
	line = line_of(text, "page-faults");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "1,234"));
	free(line);
	free(text);

	struct cpw_metrics m;
	cpw_metrics_init(&m);
	m.cycles = 5; /* must be overwritten */
	metrics_from_counters(c, &m);
	CU_ASSERT(isnan(m.cycles));
	CU_ASSERT(isnan(m.instructions));
	CU_ASSERT(isnan(m.topdown_memory_bound));
	CU_ASSERT_FALSE(m.hw_counters_available);
	cpw_perf_free(c);
}

static void test_eacces_reports_paranoid_from_fixture(void)
{
	use_fake(PERF_FIX "/proc-paranoid3", PERF_FIX "/sys-pmu", 1000);
	fake_default_err = EACCES;
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "cycles,page-faults", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_env_of(c)->paranoid, 3);
	CU_ASSERT_FALSE(cpw_perf_env_of(c)->is_root);
	CU_ASSERT_TRUE(cpw_perf_env_of(c)->hw_pmu_present);
	cpw_perf_open_child(c, 77);
	cpw_perf_read(c);
	for (size_t i = 0; i < 2; i++) {
		const struct cpw_counter_value *v = cpw_perf_get(c, i);
		CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_PERMITTED);
		CU_ASSERT(isnan(v->value));
		CU_ASSERT_STRING_EQUAL(v->reason, "perf_event_paranoid is 3: no perf events at all for unprivileged users");
	}
	char *text = render_text(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<not permitted>"));
	free(text);
	cpw_perf_free(c);
}

static void test_kernel_only_events_never_numbers(void)
{
	/* Not root, paranoid 2: user space only, so context switches would read 0. */
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 1000);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, 1000, 1000);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, 0, 1000, 1000);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 10, 1000, 1000);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "context-switches,cpu-migrations,page-faults",
					       err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->exclude_kernel, 1);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 2)->exclude_kernel, 1);
	cpw_perf_open_child(c, 99);
	CU_ASSERT_EQUAL(open_calls, 1); /* only page-faults */
	cpw_perf_read(c);
	for (size_t i = 0; i < 2; i++) {
		const struct cpw_counter_value *v = cpw_perf_get(c, i);
		CU_ASSERT_NOT_EQUAL(v->status, CPW_COUNTER_COUNTED);
		CU_ASSERT_NOT_EQUAL(v->status, CPW_COUNTER_MULTIPLEXED);
		CU_ASSERT(isnan(v->value));
		CU_ASSERT_PTR_NOT_NULL(strstr(v->reason, "perf_event_paranoid is 2"));
	}
	CU_ASSERT_EQUAL(by_name(c, "page-faults")->status, CPW_COUNTER_COUNTED);
	char *text = render_text(c);
	char *line = line_of(text, "context-switches");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "<not permitted>"));
	CU_ASSERT_PTR_NULL(strstr(line, " 0 "));
	free(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "user space only: perf_event_paranoid is 2"));
	free(text);
	struct json_object *j = cpw_counters_report_to_json(values_of(c));
	struct json_object *cs, *val;
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(j, "context-switches", &cs));
	CU_ASSERT_TRUE(json_object_object_get_ex(cs, "value", &val));
	CU_ASSERT_PTR_NULL(val);
	json_object_put(j);
	cpw_perf_free(c);

	/* As root the same events open with the kernel side and count. */
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 7, 1000, 1000);
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "context-switches", err, sizeof(err)), 0);
	cpw_perf_open_child(c, 99);
	CU_ASSERT_EQUAL(fds[0].excl_k, false);
	cpw_perf_read(c);
	CU_ASSERT_EQUAL(cpw_perf_get(c, 0)->status, CPW_COUNTER_COUNTED);
	CU_ASSERT_DOUBLE_EQUAL(cpw_perf_get(c, 0)->value, 7, 1e-9);
	cpw_perf_free(c);
}

static void test_eacces_with_kernel_retries_user_only(void)
{
	/* Paranoid 1 lets a user count the kernel side, but a lockdown may still refuse it. */
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "page-faults", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->exclude_kernel, 0);
	/* The fake refuses every open with EACCES. */
	fake_default_err = EACCES;
	cpw_perf_open_child(c, 5);
	/* Both tries were refused: status not-permitted with the paranoid value. */
	CU_ASSERT_EQUAL(open_calls, 2);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->exclude_kernel, 1);
	CU_ASSERT_EQUAL(cpw_perf_get(c, 0)->status, CPW_COUNTER_NOT_PERMITTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(cpw_perf_get(c, 0)->reason, "even as root"));
	cpw_perf_free(c);
}

/* ---- scaling ---- */

static void test_scale(void)
{
	double v, f;
	struct cpw_perf_reading r = { 1000, 200, 200 };
	CU_ASSERT_EQUAL(cpw_perf_scale(&r, &v, &f), CPW_COUNTER_COUNTED);
	CU_ASSERT_DOUBLE_EQUAL(v, 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f, 1, 1e-12);
	r = (struct cpw_perf_reading){ 1000, 400, 100 };
	CU_ASSERT_EQUAL(cpw_perf_scale(&r, &v, &f), CPW_COUNTER_MULTIPLEXED);
	CU_ASSERT_DOUBLE_EQUAL(v, 4000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f, 0.25, 1e-12);
	r = (struct cpw_perf_reading){ 0, 400, 0 };
	CU_ASSERT_EQUAL(cpw_perf_scale(&r, &v, &f), CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT(isnan(v));
	CU_ASSERT_DOUBLE_EQUAL(f, 0, 1e-12);
}

static void test_multiplexed_read_and_report(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-pmu", 0);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1000000, 2000, 1000);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 3000000, 3000, 3000);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 0, 1000, 3000, 3000);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, 250, 3000, 3000);
	fake_rule(PERF_TYPE_HW_CACHE, 0x10002, 0, 600, 3000, 3000);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, 0, 3000, 0); /* never ran */
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "cycles,instructions,cache-references,cache-misses,"
					       "LLC-load-misses,branch-misses", err, sizeof(err)), 0);
	cpw_perf_open_child(c, 1);
	cpw_perf_read(c);
	const struct cpw_counter_value *v = by_name(c, "cycles");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_MULTIPLEXED);
	CU_ASSERT_DOUBLE_EQUAL(v->value, 2000000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(v->running_fraction, 0.5, 1e-12);
	v = by_name(c, "branch-misses");
	CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT(isnan(v->value));
	CU_ASSERT_PTR_NOT_NULL(strstr(v->reason, "not counted"));

	struct cpw_counters_derived d;
	cpw_perf_derive_set(c, &d);
	CU_ASSERT_DOUBLE_EQUAL(d.ipc, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(d.cache_miss_ratio, 0.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(d.llc_mpki, 0.2, 1e-9);
	CU_ASSERT(isnan(d.branch_mpki));

	char *text = render_text(c);
	char *line = line_of(text, "cycles");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "2,000,000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "(50.00%)"));
	free(line);
	line = line_of(text, "instructions");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "1.50  insn per cycle"));
	CU_ASSERT_PTR_NULL(strstr(line, "%)"));
	free(line);
	line = line_of(text, "cache-misses");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "25.00% of all cache refs"));
	free(line);
	line = line_of(text, "LLC-load-misses");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "0.20  LLC misses per 1k insn"));
	free(line);
	line = line_of(text, "branch-misses");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "<not counted>"));
	free(line);
	CU_ASSERT_PTR_NULL(strstr(text, "user space only"));
	free(text);

	struct json_object *j = cpw_counters_report_to_json(values_of(c)), *e, *x;
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(j, "cycles", &e));
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "value", &x));
	CU_ASSERT_EQUAL(json_object_get_int64(x), 2000000);
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "status", &x));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(x), "multiplexed");
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "running_fraction", &x));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), 0.5, 1e-12);
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "reason", &x));
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(j, "branch-misses", &e));
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "value", &x));
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "status", &x));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(x), "not-supported");
	json_object_put(j);

	j = cpw_counters_report_derived_json(values_of(c));
	CU_ASSERT_TRUE(json_object_object_get_ex(j, "ipc", &x));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), 1.5, 1e-9);
	CU_ASSERT_TRUE(json_object_object_get_ex(j, "topdown_memory_bound", &x));
	CU_ASSERT_PTR_NULL(x);
	json_object_put(j);

	struct cpw_metrics m;
	cpw_metrics_init(&m);
	metrics_from_counters(c, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.cycles, 2000000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.llc_load_misses, 600, 1e-9);
	CU_ASSERT(isnan(m.branch_misses));
	CU_ASSERT_TRUE(m.hw_counters_available);
	cpw_perf_free(c);
}

static void test_derive_topdown(void)
{
	double by[CPW_ROLE_COUNT];
	for (size_t i = 0; i < CPW_ROLE_COUNT; i++)
		by[i] = NAN;
	struct cpw_counters_derived d;
	cpw_perf_derive(by, &d);
	CU_ASSERT(isnan(d.ipc) && isnan(d.topdown_memory_bound) && isnan(d.topdown_frontend_bound));
	by[CPW_ROLE_TD_SLOTS] = 1000;
	by[CPW_ROLE_TD_RETIRING] = 300;
	by[CPW_ROLE_TD_BAD_SPEC] = 100;
	by[CPW_ROLE_TD_BE_BOUND] = 400;
	by[CPW_ROLE_TD_STALLS_MEM] = 30;
	by[CPW_ROLE_TD_STALLS_TOTAL] = 60;
	cpw_perf_derive(by, &d);
	CU_ASSERT_DOUBLE_EQUAL(d.topdown_backend_bound, 0.4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(d.topdown_frontend_bound, 0.2, 1e-12); /* the remainder */
	CU_ASSERT_DOUBLE_EQUAL(d.topdown_memory_bound, 0.2, 1e-12);   /* 0.4 x 30/60 */
	by[CPW_ROLE_TD_MEM_BOUND] = 350;
	cpw_perf_derive(by, &d);
	CU_ASSERT_DOUBLE_EQUAL(d.topdown_memory_bound, 0.35, 1e-12);  /* direct wins */
	by[CPW_ROLE_CYCLES] = 0; /* nothing ran: no ratio, not infinity */
	by[CPW_ROLE_INSTRUCTIONS] = 10;
	cpw_perf_derive(by, &d);
	CU_ASSERT(isnan(d.ipc));
}

/* ---- attach mode ---- */

static void test_attach_threads_sum_and_vanish(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 100, 1000, 1000);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "page-faults", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 10), 0);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->disabled, 0);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->enable_on_exec, 0);
	CU_ASSERT_EQUAL(cpw_perf_attr(c, 0)->inherit, 1);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 11), 0);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 10), 0); /* idempotent */
	CU_ASSERT_EQUAL(open_calls, 2);
	cpw_perf_read(c);
	CU_ASSERT_DOUBLE_EQUAL(cpw_perf_get(c, 0)->value, 200, 1e-9);
	/* Thread 11 vanishes and the counts move on: its last value stays in the sum. */
	fds[1].dead = true;
	rules[0].r.value = 150;
	cpw_perf_read(c);
	CU_ASSERT_DOUBLE_EQUAL(cpw_perf_get(c, 0)->value, 250, 1e-9);
	/* A thread gone before it could be opened does not change the event's status. */
	rules[0].err = ESRCH;
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 12), 0);
	cpw_perf_read(c);
	CU_ASSERT_EQUAL(cpw_perf_get(c, 0)->status, CPW_COUNTER_COUNTED);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, -1), -EINVAL);
	cpw_perf_free(c);
}

/* An event the kernel refuses for what it is (ENOENT: no PMU) is not asked for again on
 * every other thread; one refused for the thread (ESRCH: it exited) is. */
static void test_attach_refused_event_once(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	fake_rule(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, ENOENT, 0, 0, 0);
	fake_rule(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, ESRCH, 5, 1000, 1000);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "cycles,page-faults", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 10), 0);
	CU_ASSERT_EQUAL(open_calls, 2);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 11), 0);
	CU_ASSERT_EQUAL(open_calls, 3); /* page-faults again, cycles not */
	rules[1].err = 0;
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 12), 0);
	CU_ASSERT_EQUAL(open_calls, 4);
	cpw_perf_read(c);
	CU_ASSERT_EQUAL(by_name(c, "cycles")->status, CPW_COUNTER_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(by_name(c, "page-faults")->status, CPW_COUNTER_COUNTED);
	cpw_perf_free(c);
}

static void test_attach_skips_inherited_threads(void)
{
	/* proc-paranoid2/20/task/20/stat: a thread born long after the attach (starttime far in the
	 * future, comm "we) ird (name"); 21/stat: one born at boot. */
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "page-faults,task-clock", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 10), 0);
	CU_ASSERT_EQUAL(open_calls, 2);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 20), 0); /* counted through inherit */
	CU_ASSERT_EQUAL(open_calls, 2);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 20), 0);
	CU_ASSERT_EQUAL(open_calls, 2);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 21), 0); /* older than the attach */
	CU_ASSERT_EQUAL(open_calls, 4);
	CU_ASSERT_EQUAL(cpw_perf_attach_thread(c, 22), 0); /* unreadable: armed */
	CU_ASSERT_EQUAL(open_calls, 6);
	cpw_perf_read(c);
	CU_ASSERT_DOUBLE_EQUAL(cpw_perf_get(c, 0)->value, 0, 1e-9);
	CU_ASSERT_EQUAL(cpw_perf_get(c, 0)->status, CPW_COUNTER_COUNTED);
	cpw_perf_free(c);
}

/* The first listing's threads are all armed, their start times unread (20's, in the
 * future, would have it skipped); a later listing's new ones are told by theirs. */
static void test_attach_first_listing_whole(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "page-faults,task-clock", err, sizeof(err)), 0);
	const pid_t first[] = { 10, 20, 10 }, later[] = { 10, 20, 21, 20 };
	cpw_perf_attach_threads(c, first, 3);
	CU_ASSERT_EQUAL(open_calls, 4); /* 10 and 20, once each */
	cpw_perf_attach_threads(c, later, 4);
	CU_ASSERT_EQUAL(open_calls, 6); /* 21, older than the attach */
	cpw_perf_attach_threads(NULL, later, 4);
	cpw_perf_free(c);
}

/* ---- the real kernel ---- */

static void test_real_child(void)
{
	cpw_perf_set_hooks(NULL);
	struct cpw_counters *c;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&c, "task-clock,page-faults,cycles", err, sizeof(err)), 0);
	int gate[2];
	CU_ASSERT_EQUAL_FATAL(pipe(gate), 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char b;
		close(gate[1]);
		if (read(gate[0], &b, 1) < 0)
			_exit(2);
		execl("/bin/sh", "sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", (char *)NULL);
		_exit(127);
	}
	close(gate[0]);
	CU_ASSERT_EQUAL(cpw_perf_open_child(c, pid), 0);
	/* Disabled until exec: nothing counted yet. */
	cpw_perf_read(c);
	CU_ASSERT_NOT_EQUAL(by_name(c, "task-clock")->status, CPW_COUNTER_COUNTED);
	close(gate[1]);
	int st;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cpw_perf_read(c);
	const struct cpw_counter_value *v = by_name(c, "task-clock");
	if (v->status != CPW_COUNTER_NOT_PERMITTED) {
		CU_ASSERT_EQUAL(v->status, CPW_COUNTER_COUNTED);
		CU_ASSERT(v->value > 1.0 && v->value < 60000);
		CU_ASSERT(by_name(c, "page-faults")->value > 10);
	}
	v = by_name(c, "cycles");
	if (cpw_perf_cpu_pmu("/sys", false) != 1) {
		CU_ASSERT_EQUAL(v->status, CPW_COUNTER_NOT_SUPPORTED);
		CU_ASSERT_STRING_EQUAL(v->reason, "no hardware PMU visible (virtual machine?)");
	} else if (v->status == CPW_COUNTER_COUNTED) {
		CU_ASSERT(v->value > 1e6);
	}
	cpw_perf_free(c);
}

static void test_list_events(void)
{
	cpw_perf_set_hooks(NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(cpw_perf_list(f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# hardware PMU: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "perf::PERF_COUNT_HW_CPU_CYCLES"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "perf::PERF_COUNT_SW_TASK_CLOCK"));
	free(buf);
	CU_ASSERT_STRING_EQUAL(cpw_counters_report_status_name(CPW_COUNTER_NOT_PERMITTED), "not-permitted");
	CU_ASSERT_STRING_EQUAL(cpw_counters_report_status_name(CPW_COUNTER_MULTIPLEXED), "multiplexed");
}

/* ---- encoding in another process (perf_transfer.c) ---- */

/* What arrives over the pipe equals what was encoded here: names, attrs and roles. */
static void expect_same_counters(const struct cpw_counters *a, const struct cpw_counters *b)
{
	CU_ASSERT_EQUAL_FATAL(cpw_perf_count(a), cpw_perf_count(b));
	for (size_t i = 0; i < cpw_perf_count(a); i++) {
		CU_ASSERT_STRING_EQUAL(cpw_perf_get(a, i)->name, cpw_perf_get(b, i)->name);
		CU_ASSERT_EQUAL(cpw_perf_role(a, i), cpw_perf_role(b, i));
		CU_ASSERT_EQUAL(memcmp(cpw_perf_attr(a, i), cpw_perf_attr(b, i),
				       sizeof(struct perf_event_attr)), 0);
		/* An event refused as such (the default set without a PMU) stays refused. */
		CU_ASSERT_EQUAL(cpw_perf_get(a, i)->status, cpw_perf_get(b, i)->status);
		CU_ASSERT_STRING_EQUAL(cpw_perf_get(a, i)->reason, cpw_perf_get(b, i)->reason);
	}
}

static void test_transfer_over_pipe(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	const char *lists[] = { NULL, "cycles,page-faults,major-faults" };
	for (size_t k = 0; k < 2; k++) {
		struct cpw_counters *here, *there;
		char err[200];
		int p[2];
		CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
		CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&here, lists[k], err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(cpw_perf_send(lists[k], p[1]), 0);
		close(p[1]);
		CU_ASSERT_EQUAL_FATAL(cpw_perf_receive(p[0], &there, err, sizeof(err)), 0);
		close(p[0]);
		expect_same_counters(here, there);
		CU_ASSERT_EQUAL(cpw_perf_env_of(there)->paranoid, 2);
		cpw_perf_free(here);
		cpw_perf_free(there);
	}
}

static void test_transfer_errors(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters *c = NULL;
	char err[200] = "";
	int p[2];

	/* The sender's error comes through with its message. */
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL(cpw_perf_send("cycles,no-such-event-xyz", p[1]), 0);
	close(p[1]);
	CU_ASSERT_EQUAL(cpw_perf_receive(p[0], &c, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-event-xyz"));
	close(p[0]);

	/* A stream cut in the middle of the events is -EIO, not half a set. */
	char buf[8192];
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL(cpw_perf_send("cycles,page-faults", p[1]), 0);
	close(p[1]);
	ssize_t n = read(p[0], buf, sizeof(buf));
	close(p[0]);
	CU_ASSERT_FATAL(n > 100);
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL(write(p[1], buf, (size_t)n - 10), n - 10);
	close(p[1]);
	CU_ASSERT_EQUAL(cpw_perf_receive(p[0], &c, err, sizeof(err)), -EIO);
	CU_ASSERT_PTR_NULL(c);
	close(p[0]);

	/* Nothing at all (the helper died first) is -EIO too. */
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	close(p[1]);
	CU_ASSERT_EQUAL(cpw_perf_receive(p[0], &c, err, sizeof(err)), -EIO);
	close(p[0]);
}

/* The real helper: forked, reaped, and the same set as encoding here; a bad name fails
 * the same way. Where libpfm4 has nothing to do (the default set without a CPU PMU, known
 * on x86) no helper is forked, and the set is still the same. */
static void test_transfer_helper_process(void)
{
	use_fake(PERF_FIX "/proc-paranoid2", PERF_FIX "/sys-nopmu", 0);
	struct cpw_counters_helper h;
	struct cpw_counters *here, *there;
	char err[200];
	const char *lists[] = { NULL, "task-clock,cycles" };
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(cpw_perf_encode_start(&h, lists[i]), 0);
		pid_t helper = h.pid;
		if (cpw_perf_may_open(lists[i])) {
			CU_ASSERT(helper > 0);
		} else {
			CU_ASSERT_EQUAL(helper, -1); /* nothing for libpfm4: no fork */
		}
		CU_ASSERT(i == 0 || helper > 0); /* a named event always needs libpfm4 */
		CU_ASSERT_EQUAL_FATAL(cpw_perf_encode_finish(&h, &there, err, sizeof(err)), 0);
		if (helper > 0) {
			CU_ASSERT_EQUAL(waitpid(helper, NULL, WNOHANG), -1); /* already reaped */
		}
		CU_ASSERT_EQUAL_FATAL(cpw_perf_new(&here, lists[i], err, sizeof(err)), 0);
		expect_same_counters(here, there);
		cpw_perf_free(here);
		cpw_perf_free(there);
	}

	CU_ASSERT_EQUAL_FATAL(cpw_perf_encode_start(&h, "no-such-event-xyz"), 0);
	CU_ASSERT_EQUAL(cpw_perf_encode_finish(&h, &there, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-event-xyz"));
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("perf", NULL, NULL);
	CU_add_test(s, "encode generic names", test_encode_generic_names);
	CU_add_test(s, "encode PMU-specific names", test_encode_pmu_specific_names);
	CU_add_test(s, "unknown name is -EINVAL with a message", test_unknown_name_is_einval);
	CU_add_test(s, "default event set", test_default_set);
	CU_add_test(s, "ENOENT/ENODEV/EOPNOTSUPP/EINVAL -> not-supported", test_errno_not_supported);
	CU_add_test(s, "EACCES/EPERM -> not-permitted with paranoid", test_errno_not_permitted);
	CU_add_test(s, "paranoid and PMU from fixtures", test_paranoid_and_pmu_fixtures);
	CU_add_test(s, "open_child maps errors per event", test_open_child_maps_errors);
	CU_add_test(s, "events missing for one reason: one line", test_missing_for_one_reason);
	CU_add_test(s, "EACCES reports the fixture's paranoid", test_eacces_reports_paranoid_from_fixture);
	CU_add_test(s, "kernel-only events with exclude_kernel are no numbers", test_kernel_only_events_never_numbers);
	CU_add_test(s, "EACCES with kernel counting retries user-only", test_eacces_with_kernel_retries_user_only);
	CU_add_test(s, "multiplex scaling", test_scale);
	CU_add_test(s, "multiplexed read, derived ratios, text and JSON", test_multiplexed_read_and_report);
	CU_add_test(s, "top-down derivation", test_derive_topdown);
	CU_add_test(s, "attach: threads sum, vanished keep last", test_attach_threads_sum_and_vanish);
	CU_add_test(s, "attach: an event refused as such is not retried per thread", test_attach_refused_event_once);
	CU_add_test(s, "attach: threads born later are inherited", test_attach_skips_inherited_threads);
	CU_add_test(s, "attach: the first listing's threads all armed, their start times unread",
		    test_attach_first_listing_whole);
	CU_add_test(s, "real child through the kernel", test_real_child);
	CU_add_test(s, "--list-events", test_list_events);
	CU_add_test(s, "encoded events travel over a pipe unchanged", test_transfer_over_pipe);
	CU_add_test(s, "transfer: sender errors, cut and empty streams", test_transfer_errors);
	CU_add_test(s, "transfer: the forked helper encodes and is reaped", test_transfer_helper_process);
	return cpw_cunit_run_tap();
}
