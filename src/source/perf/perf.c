/*
 * perf.c: perf_event counters for the watched tree, named and encoded with libpfm4.
 *
 * Every event gets its own file descriptor (no groups), so one event the PMU cannot count
 * does not sink the others, and inherit works on every kernel (PERF_FORMAT_GROUP with
 * inherit was refused before 4.x). Run mode opens one counter per event on the child before
 * it execs (disabled, enable_on_exec, inherit: every descendant counts, orphans included).
 * Attach mode opens one per event per thread, enabled at once; inherit covers threads and
 * children born after the attach, so those get no counter of their own (they would count
 * twice). Reads scale by time_enabled/time_running and sum over threads.
 * A value the kernel cannot give truly (context switches with kernel counting excluded) is
 * never reported as a number.
 */
#include "config.h"
#include "source/perf/perf.h"
#include "source/perf/perf_private.h"

#include <errno.h>
#include <math.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 64
#define NAME_LEN 96

struct event {
	char name[NAME_LEN];
	struct perf_event_attr attr;
	enum cpw_counter_role role;
	bool hw;          /* needs the CPU's PMU */
	bool kernel_only; /* counts in kernel context only: meaningless with exclude_kernel */
	int last_err;     /* errno of the last failed open, 0 if none */
	size_t nopen;     /* targets this event is open on */
	struct cpw_counter_value v;
};

/* One counted task: the launched child, or one attached thread. */
struct target {
	pid_t tid;
	int *fd;                        /* per event; -1 when not open */
	struct cpw_perf_reading *last;  /* per event: the last good read (kept when it vanishes) */
};

struct cpw_counters {
	struct event *ev;
	size_t nev;
	struct target *t;
	size_t nt, capt;
	size_t find_hint; /* where find_target looks first (see there) */
	struct cpw_perf_env env;
	bool count_kernel;
	double attach_epoch_ticks; /* attach mode: when the first thread was armed; NAN before */
};

/* ---- system calls, replaceable by tests ---- */

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static struct cpw_perf_hooks hooks = {
	.open = sys_perf_event_open, .read = read, .close = close,
	.proc_root = "/proc", .sys_root = "/sys", .euid = -1,
};

/* Whether the kernel registered a CPU PMU (cpw_perf_cpu_pmu), read from sysfs once:
 * libpfm4's set-up and every counter set need it. -2 until asked; set_hooks forgets it (a
 * test's sysfs root). */
static int cpu_pmu_state = -2;

/* On x86 the core PMU is always registered as cpu (cpu_core and cpu_atom on hybrid
 * parts): no such device means no hardware event can open. Elsewhere a core PMU may have
 * another name, and only an open attempt tells. */
#if defined(__x86_64__) || defined(__i386__)
#define CORE_PMU_NAMES_DECIDE true
#else
#define CORE_PMU_NAMES_DECIDE false
#endif

void cpw_perf_set_hooks(const struct cpw_perf_hooks *h)
{
	hooks.open = h && h->open ? h->open : sys_perf_event_open;
	hooks.read = h && h->read ? h->read : read;
	hooks.close = h && h->close ? h->close : close;
	hooks.proc_root = h && h->proc_root ? h->proc_root : "/proc";
	hooks.sys_root = h && h->sys_root ? h->sys_root : "/sys";
	hooks.euid = h ? h->euid : -1;
	cpu_pmu_state = -2;
}

/* ---- libpfm4, initialised only when counters are used (it scans every PMU table) ---- */

/* 1, 0 or -1 as cpw_perf_cpu_pmu says. */
static int cpu_pmu(void)
{
	if (cpu_pmu_state == -2)
		cpu_pmu_state = cpw_perf_cpu_pmu(hooks.sys_root, CORE_PMU_NAMES_DECIDE);
	return cpu_pmu_state;
}

static bool kernel_has_cpu_pmu(void)
{
	return cpu_pmu() == 1;
}

static int pfm_state; /* 0 not tried, 1 ready with every table, 2 ready narrowed, <0 failed */
static bool pfm_generic_only; /* narrowed to the generic perf PMU */

/* Initialises libpfm4, narrowed where allowed. Every PMU table costs ~2.5 ms here (each
 * x86 PMU's detection runs CPUID, which traps on a VM), the generic perf PMU a tenth of
 * that: that is all a machine without a CPU PMU can use. Tracepoints (one event per kernel
 * tracepoint, read from debugfs: 30-60 ms as root where it is mounted) are left out too.
 * A name not found widens to everything (pfm_widen). */
static int pfm_init(bool generic_only, bool hide_tracepoints)
{
	if (pfm_state == 0 && cpw_perf_pfm_load(NULL) < 0) {
		pfm_state = -1;
		return -ENODEV;
	}
	if (pfm_state > 0)
		cpw_perf_pfm.terminate();
	if (generic_only)
		setenv("LIBPFM_FORCE_PMU", "perf", 0);
	bool hidden = hide_tracepoints && cpw_perf_hide_tracepoints(true);
	int r = cpw_perf_pfm.initialize();
	cpw_perf_hide_tracepoints(false);
	if (generic_only)
		unsetenv("LIBPFM_FORCE_PMU");
	pfm_generic_only = generic_only;
	pfm_state = r == PFM_SUCCESS ? (generic_only || hidden ? 2 : 1) : -1;
	return pfm_state > 0 ? 0 : -ENODEV;
}

static int pfm_ready(void)
{
	if (pfm_state == 0)
		pfm_init(!getenv("LIBPFM_FORCE_PMU") && !kernel_has_cpu_pmu(), true);
	return pfm_state > 0 ? 0 : -ENODEV;
}

/* From the narrowed set to every PMU table and the tracepoints, so that any name libpfm4
 * knows can be named. */
static bool pfm_widen(void)
{
	return pfm_state == 2 && pfm_init(false, false) == 0;
}

static int encode_once(const char *name, bool count_kernel, struct perf_event_attr *attr);

/* Encodes name into attr with the default privilege levels; returns a PFM_ERR_* code. */
static int encode(const char *name, bool count_kernel, struct perf_event_attr *attr)
{
	int r = encode_once(name, count_kernel, attr);
	if (r == PFM_ERR_NOTFOUND && pfm_widen())
		r = encode_once(name, count_kernel, attr);
	return r;
}

static int encode_once(const char *name, bool count_kernel, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	int plm = PFM_PLM3 | (count_kernel ? PFM_PLM0 : 0);
	int r = cpw_perf_pfm.get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	attr->size = sizeof(*attr);
	return r;
}

/* The hardware events the verdict uses. None of perf stat's software events: the time
 * section has task-clock (user + sys), context switches and page faults exactly for the
 * whole tree from wait4, and cpu-migrations is used by nothing. Each costs start-up: the
 * first per-task event after a quiet second waits for an RCU grace period (12-40 ms here),
 * and every software event type switches a kernel static key on open and on close,
 * patching the kernel's text with an IPI to every CPU (~0.1 ms each on our VMs). Where no
 * CPU PMU exists this set opens nothing at all. -e counts any of them. */
static const char *const default_events[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"LLC-load-misses", "branch-misses", "stalled-cycles-frontend", "stalled-cycles-backend",
};

/* Top-down level 1 (and memory bound) from general-purpose Intel events, each of which can
 * open alone; the kernel's topdown-* metric events would need a group led by slots. Added
 * to the default set only when the PMU has the slots and backend-bound events. */
struct topdown_event {
	const char *name;
	enum cpw_counter_role role;
	const char *candidates[3];
};
static const struct topdown_event topdown_events[] = {
	{ "topdown-slots", CPW_ROLE_TD_SLOTS, { "TOPDOWN:SLOTS_P", "TOPDOWN:SLOTS", NULL } },
	{ "topdown-be-bound", CPW_ROLE_TD_BE_BOUND, { "TOPDOWN:BACKEND_BOUND_SLOTS", NULL, NULL } },
	{ "topdown-retiring", CPW_ROLE_TD_RETIRING, { "UOPS_RETIRED:SLOTS", NULL, NULL } },
	{ "topdown-bad-spec", CPW_ROLE_TD_BAD_SPEC, { "TOPDOWN:BAD_SPEC_SLOTS", NULL, NULL } },
	{ "topdown-fe-bound", CPW_ROLE_TD_FE_BOUND,
	  { "IDQ_BUBBLES:CORE", "IDQ_UOPS_NOT_DELIVERED:CORE", NULL } },
	{ "topdown-mem-bound", CPW_ROLE_TD_MEM_BOUND, { "TOPDOWN:MEMORY_BOUND_SLOTS", NULL, NULL } },
	{ "stalls-mem-any", CPW_ROLE_TD_STALLS_MEM, { "CYCLE_ACTIVITY:STALLS_MEM_ANY", NULL, NULL } },
	{ "stalls-total", CPW_ROLE_TD_STALLS_TOTAL, { "CYCLE_ACTIVITY:STALLS_TOTAL", NULL, NULL } },
};

static bool is_hw_attr(const struct perf_event_attr *a)
{
	return a->type != PERF_TYPE_SOFTWARE && a->type != PERF_TYPE_TRACEPOINT &&
	       a->type != PERF_TYPE_BREAKPOINT;
}

static struct event *add_event(struct cpw_counters *c, const char *name)
{
	struct event *e = &c->ev[c->nev++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->v.name = e->name;
	e->v.value = NAN;
	e->v.running_fraction = NAN;
	e->v.status = CPW_COUNTER_NOT_SUPPORTED;
	snprintf(e->v.reason, sizeof(e->v.reason), "not opened");
	return e;
}

static void finish_event(struct event *e)
{
	struct perf_event_attr *a = &e->attr;
	a->disabled = 1;
	a->inherit = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	e->hw = is_hw_attr(a);
	e->kernel_only = a->type == PERF_TYPE_SOFTWARE &&
			 (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
			  a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
	if (e->role == CPW_ROLE_NONE)
		e->role = cpw_perf_role_of(a);
	bool clock = a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
	e->v.unit = clock ? "msec" : "";
}

static bool already_named(const struct cpw_counters *c, const char *name)
{
	for (size_t i = 0; i < c->nev; i++)
		if (strcmp(c->ev[i].name, name) == 0)
			return true;
	return false;
}

static int add_named(struct cpw_counters *c, const char *name, char *err, size_t errlen)
{
	if (already_named(c, name))
		return 0;
	if (c->nev >= MAX_EVENTS) {
		snprintf(err, errlen, "too many events (at most %d)", MAX_EVENTS);
		return -E2BIG;
	}
	if (strlen(name) >= NAME_LEN) {
		snprintf(err, errlen, "event name too long: '%.40s...'", name);
		return -EINVAL;
	}
	struct perf_event_attr attr;
	int r = encode(name, c->count_kernel, &attr);
	if (r != PFM_SUCCESS) {
		snprintf(err, errlen, "unknown event '%s' (libpfm4: %s); see --list-events", name,
			 cpw_perf_pfm.strerror(r));
		return -EINVAL;
	}
	struct event *e = add_event(c, name);
	e->attr = attr;
	finish_event(e);
	return 0;
}

static void add_topdown(struct cpw_counters *c)
{
	struct perf_event_attr attr[sizeof(topdown_events) / sizeof(topdown_events[0])];
	bool have[sizeof(topdown_events) / sizeof(topdown_events[0])];
	const size_t n = sizeof(topdown_events) / sizeof(topdown_events[0]);
	for (size_t i = 0; i < n; i++) {
		have[i] = false;
		for (size_t k = 0; k < 3 && topdown_events[i].candidates[k] && !have[i]; k++)
			have[i] = encode_once(topdown_events[i].candidates[k], c->count_kernel, &attr[i]) == PFM_SUCCESS;
	}
	/* Slots and backend bound are the minimum for a share; skip silently otherwise. */
	if (!have[0] || !have[1])
		return;
	bool mem_direct = have[5];
	for (size_t i = 0; i < n && c->nev < MAX_EVENTS; i++) {
		if (!have[i])
			continue;
		if (mem_direct && (topdown_events[i].role == CPW_ROLE_TD_STALLS_MEM ||
				   topdown_events[i].role == CPW_ROLE_TD_STALLS_TOTAL))
			continue;
		struct event *e = add_event(c, topdown_events[i].name);
		e->attr = attr[i];
		e->role = topdown_events[i].role;
		finish_event(e);
	}
}

static void settle_unopened(struct cpw_counters *c);
static bool event_refused(int err);

/* An event the kernel refuses as such (errno err): never opened, its status says why. */
static void add_refused(struct cpw_counters *c, const char *name, const struct perf_event_attr *attr,
			int role, int err)
{
	struct event *e = add_event(c, name);
	e->attr = *attr;
	e->hw = is_hw_attr(attr);
	e->role = role;
	e->last_err = err;
	e->v.unit = "";
}

/* An empty counter set with this process's environment (paranoid level, root, PMU). */
static struct cpw_counters *empty_counters(char *err, size_t errlen)
{
	struct cpw_counters *c = calloc(1, sizeof(*c));
	if (c)
		c->ev = malloc(MAX_EVENTS * sizeof(*c->ev)); /* add_event() clears each one it uses */
	if (!c || !c->ev) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->attach_epoch_ticks = NAN;
	int level;
	c->env.paranoid = cpw_perf_read_paranoid(hooks.proc_root, &level) == 0 ? level : CPW_PARANOID_UNKNOWN;
	c->env.is_root = (hooks.euid >= 0 ? (uid_t)hooks.euid : geteuid()) == 0;
	c->env.hw_pmu_present = kernel_has_cpu_pmu();
	/* Kernel-side counting where it is allowed; paranoid 2 allows user space only. */
	c->count_kernel = c->env.is_root ||
			  (c->env.paranoid != CPW_PARANOID_UNKNOWN && c->env.paranoid <= 1);
	return c;
}

int cpw_perf_new_encoded(struct cpw_counters **out, const struct cpw_event_spec *specs,
			     size_t n, char *err, size_t errlen)
{
	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (n > MAX_EVENTS) {
		snprintf(err, errlen, "too many events (at most %d)", MAX_EVENTS);
		return -E2BIG;
	}
	struct cpw_counters *c = empty_counters(err, errlen);
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int role = specs[i].role >= 0 && specs[i].role < CPW_ROLE_COUNT ? specs[i].role : CPW_ROLE_NONE;
		if (event_refused(specs[i].refused_errno)) {
			add_refused(c, specs[i].name, &specs[i].attr, role, specs[i].refused_errno);
			continue;
		}
		struct event *e = add_event(c, specs[i].name);
		e->attr = specs[i].attr;
		e->role = role;
		finish_event(e);
	}
	settle_unopened(c);
	*out = c;
	return 0;
}

void cpw_perf_spec(const struct cpw_counters *c, size_t i, struct cpw_event_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->name, sizeof(spec->name), "%s", c->ev[i].name);
	spec->attr = c->ev[i].attr;
	spec->role = c->ev[i].role;
	if (c->ev[i].nopen == 0 && event_refused(c->ev[i].last_err))
		spec->refused_errno = c->ev[i].last_err;
}

/* The default set where the kernel certainly has no CPU PMU (a VM without one): every
 * event is a hardware event and would fail to open with ENOENT, so each is reported not
 * supported for that reason without being encoded or opened. That spares libpfm4's set-up
 * (0.3-0.5 ms of start-up, most of it copying its tables on write) and ten failing
 * perf_event_open calls. */
static int new_without_pmu(struct cpw_counters **out, char *err, size_t errlen)
{
	struct cpw_counters *c = empty_counters(err, errlen);
	if (!c)
		return -ENOMEM;
	struct perf_event_attr hw;
	memset(&hw, 0, sizeof(hw));
	hw.type = PERF_TYPE_HARDWARE;
	hw.size = sizeof(hw);
	for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		add_refused(c, default_events[i], &hw, CPW_ROLE_NONE, ENOENT);
	settle_unopened(c);
	*out = c;
	return 0;
}

bool cpw_perf_may_open(const char *event_list)
{
	return event_list || cpu_pmu() != 0;
}

int cpw_perf_new(struct cpw_counters **out, const char *event_list, char *err, size_t errlen)
{
	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!cpw_perf_may_open(event_list))
		return new_without_pmu(out, err, errlen);
	const char *why;
	if (cpw_perf_pfm_load(&why) < 0) {
		snprintf(err, errlen, "cannot load libpfm4 (%s): install libpfm4", why);
		return -ENODEV;
	}
	if (pfm_ready() < 0) {
		snprintf(err, errlen, "libpfm4 failed to initialise");
		return -ENODEV;
	}
	struct cpw_counters *c = empty_counters(err, errlen);
	if (!c)
		return -ENOMEM;

	int r = 0;
	if (!event_list) {
		for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]) && r == 0; i++)
			r = add_named(c, default_events[i], err, errlen);
		if (r == 0)
			add_topdown(c);
	} else {
		char *list = strdup(event_list);
		if (!list) {
			cpw_perf_free(c);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		char *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok && r == 0; tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ' || *tok == '\t')
				tok++;
			size_t len = strlen(tok);
			while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
				tok[--len] = '\0';
			if (len)
				r = add_named(c, tok, err, errlen);
		}
		free(list);
		if (r == 0 && c->nev == 0) {
			snprintf(err, errlen, "empty event list");
			r = -EINVAL;
		}
	}
	if (r < 0) {
		cpw_perf_free(c);
		return r;
	}
	*out = c;
	return 0;
}

/* ---- opening ---- */

/* The target of tid, or NULL. Attach mode asks for every thread of the tree on every
 * sample, in the order they were added: looking first just past the last one found makes
 * that one compare per thread instead of a search (quadratic with thousands of threads). */
static struct target *find_target(struct cpw_counters *c, pid_t tid)
{
	if (c->find_hint < c->nt && c->t[c->find_hint].tid == tid)
		return &c->t[c->find_hint++];
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].tid == tid) {
			c->find_hint = i + 1;
			return &c->t[i];
		}
	return NULL;
}

static struct target *new_target(struct cpw_counters *c, pid_t tid)
{
	if (c->nt == c->capt) {
		size_t cap = c->capt ? c->capt * 2 : 8;
		struct target *t = realloc(c->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		c->t = t;
		c->capt = cap;
	}
	struct target *t = &c->t[c->nt];
	t->tid = tid;
	t->fd = malloc(c->nev * sizeof(*t->fd));
	t->last = calloc(c->nev, sizeof(*t->last));
	if (!t->fd || !t->last) {
		free(t->fd);
		free(t->last);
		return NULL;
	}
	for (size_t i = 0; i < c->nev; i++)
		t->fd[i] = -1;
	c->nt++;
	return t;
}

/* Sets the status of events that are open nowhere from why they failed. */
static void settle_unopened(struct cpw_counters *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		struct event *e = &c->ev[i];
		if (e->nopen > 0)
			continue;
		e->v.value = NAN;
		e->v.running_fraction = NAN;
		if (e->kernel_only && e->attr.exclude_kernel) {
			e->v.status = CPW_COUNTER_NOT_PERMITTED;
			if (c->env.paranoid != CPW_PARANOID_UNKNOWN)
				snprintf(e->v.reason, sizeof(e->v.reason),
					 "counts in the kernel only; perf_event_paranoid is %d: %s",
					 c->env.paranoid, cpw_perf_paranoid_meaning(c->env.paranoid));
			else
				snprintf(e->v.reason, sizeof(e->v.reason),
					 "counts in the kernel only, and kernel counting is not allowed");
		} else if (e->last_err) {
			e->v.status = cpw_perf_errno_status(e->last_err, &c->env, e->hw, e->v.reason,
							    sizeof(e->v.reason));
		}
	}
}

static bool event_refused(int err)
{
	return err == ENOENT || err == ENODEV || err == EOPNOTSUPP || err == EINVAL || err == E2BIG;
}

static int open_on(struct cpw_counters *c, pid_t tid, bool run_mode)
{
	if (find_target(c, tid))
		return 0;
	struct target *t = new_target(c, tid);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < c->nev; i++) {
		struct event *e = &c->ev[i];
		/* With kernel counting excluded these read 0 whatever happens: do not open. */
		if (e->kernel_only && e->attr.exclude_kernel)
			continue;
		/* Refused for what it is (no such PMU or event, a bad attribute), not for the
		 * thread: every other thread would be refused too. Attach mode opens each event
		 * on every thread of the tree; on a VM that was 8 failing calls per thread. */
		if (e->nopen == 0 && event_refused(e->last_err))
			continue;
		e->attr.disabled = run_mode ? 1 : 0;
		e->attr.enable_on_exec = run_mode ? 1 : 0;
		int fd = hooks.open(&e->attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM) && !e->attr.exclude_kernel) {
			/* Kernel counting refused (capabilities, lockdown): user space only. */
			e->attr.exclude_kernel = 1;
			e->attr.exclude_hv = 1;
			if (e->kernel_only)
				continue;
			fd = hooks.open(&e->attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			/* A thread that exited before we got to it says nothing about the event. */
			if (errno != ESRCH || e->nopen == 0)
				e->last_err = errno;
			continue;
		}
		t->fd[i] = fd;
		e->nopen++;
		e->v.status = CPW_COUNTER_COUNTED;
		e->v.reason[0] = '\0';
		e->v.value = 0;
		e->v.running_fraction = 1;
	}
	settle_unopened(c);
	return 0;
}

int cpw_perf_open_child(struct cpw_counters *c, pid_t child)
{
	if (!c || child <= 0)
		return -EINVAL;
	return open_on(c, child, true);
}

/* Clock ticks since boot, the unit of /proc/PID/stat's starttime. */
static double boot_ticks_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9) * (double)sysconf(_SC_CLK_TCK);
}

/* starttime (field 22) of a thread, in ticks since boot; NAN when unreadable. Read from
 * the thread's own task/TID/stat: /proc/TID/stat is the whole process's, and the kernel
 * sums every thread of it for each read (4,000 threads armed made that 4,000 squared). */
static double thread_start_ticks(pid_t tid)
{
	char path[512], buf[1024];
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", hooks.proc_root, (int)tid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return NAN;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields resume after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return NAN;
	p++;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p + 1, ' ');
	}
	return p ? strtod(p + 1, NULL) : NAN;
}

int cpw_perf_attach_thread(struct cpw_counters *c, pid_t tid)
{
	if (!c || tid <= 0)
		return -EINVAL;
	if (find_target(c, tid))
		return 0;
	if (isnan(c->attach_epoch_ticks)) {
		c->attach_epoch_ticks = boot_ticks_now();
	} else {
		/* A thread born after the first threads were armed descends from an armed one,
		 * and inherit already counts it: a counter of its own would count it twice.
		 * One tick of margin for threads born while the first ones were being armed. */
		double born = thread_start_ticks(tid);
		if (!isnan(born) && born > c->attach_epoch_ticks + 1.0)
			return new_target(c, tid) ? 0 : -ENOMEM; /* remembered, no counters */
	}
	return open_on(c, tid, false);
}

void cpw_perf_attach_threads(struct cpw_counters *c, const pid_t *tids, size_t n)
{
	if (!c)
		return;
	bool first = isnan(c->attach_epoch_ticks);
	if (first)
		c->attach_epoch_ticks = boot_ticks_now();
	for (size_t i = 0; i < n; i++) {
		if (!first)
			cpw_perf_attach_thread(c, tids[i]);
		else if (tids[i] > 0 && !find_target(c, tids[i]))
			open_on(c, tids[i], false);
	}
}

/* ---- reading ---- */

void cpw_perf_read(struct cpw_counters *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		struct event *e = &c->ev[i];
		if (e->nopen == 0)
			continue;
		double sum = 0;
		uint64_t enabled = 0, running = 0;
		bool scaled = false, ran = false;
		for (size_t k = 0; k < c->nt; k++) {
			struct target *t = &c->t[k];
			if (t->fd[i] < 0)
				continue;
			uint64_t buf[3];
			ssize_t n = hooks.read(t->fd[i], buf, sizeof(buf));
			/* A short or failed read (the thread vanished): keep its last value. */
			if (n == (ssize_t)sizeof(buf)) {
				t->last[i].value = buf[0];
				t->last[i].enabled_ns = buf[1];
				t->last[i].running_ns = buf[2];
			}
			double v, frac;
			enum cpw_counter_status st = cpw_perf_scale(&t->last[i], &v, &frac);
			enabled += t->last[i].enabled_ns;
			running += t->last[i].running_ns;
			if (st == CPW_COUNTER_NOT_SUPPORTED)
				continue;
			ran = true;
			scaled |= st == CPW_COUNTER_MULTIPLEXED;
			sum += v;
		}
		if (!ran) {
			e->v.value = NAN;
			e->v.running_fraction = 0;
			e->v.status = CPW_COUNTER_NOT_SUPPORTED;
			snprintf(e->v.reason, sizeof(e->v.reason), enabled == 0
				 ? "not counted: the command never ran with the counter enabled"
				 : "not counted: the event never got a hardware counter");
			continue;
		}
		if (strcmp(e->v.unit, "msec") == 0)
			sum /= 1e6; /* clocks count nanoseconds */
		e->v.value = sum;
		e->v.status = scaled ? CPW_COUNTER_MULTIPLEXED : CPW_COUNTER_COUNTED;
		e->v.running_fraction = scaled && enabled ? (double)running / (double)enabled : 1;
		e->v.reason[0] = '\0';
	}
}

/* ---- access ---- */

size_t cpw_perf_count(const struct cpw_counters *c)
{
	return c ? c->nev : 0;
}

const struct cpw_counter_value *cpw_perf_get(const struct cpw_counters *c, size_t i)
{
	return c && i < c->nev ? &c->ev[i].v : NULL;
}

enum cpw_counter_role cpw_perf_role(const struct cpw_counters *c, size_t i)
{
	return c && i < c->nev ? c->ev[i].role : CPW_ROLE_NONE;
}

const struct cpw_perf_env *cpw_perf_env_of(const struct cpw_counters *c)
{
	return &c->env;
}

const struct perf_event_attr *cpw_perf_attr(const struct cpw_counters *c, size_t i)
{
	return c && i < c->nev ? &c->ev[i].attr : NULL;
}

static bool has_number(const struct cpw_counter_value *v)
{
	return v->status == CPW_COUNTER_COUNTED || v->status == CPW_COUNTER_MULTIPLEXED;
}

/* The first number counted for each role, NAN for a role nothing counted. */
static void values_by_role(const struct cpw_counters *c, double by_role[CPW_ROLE_COUNT])
{
	for (size_t r = 0; r < CPW_ROLE_COUNT; r++)
		by_role[r] = NAN;
	for (size_t i = 0; c && i < c->nev; i++) {
		const struct event *e = &c->ev[i];
		if (e->role != CPW_ROLE_NONE && has_number(&e->v) && isnan(by_role[e->role]))
			by_role[e->role] = e->v.value;
	}
}

void cpw_perf_derive_set(const struct cpw_counters *c, struct cpw_counters_derived *d)
{
	double by_role[CPW_ROLE_COUNT];
	values_by_role(c, by_role);
	cpw_perf_derive(by_role, d);
}

void cpw_perf_values(const struct cpw_counters *c, struct cpw_counter_values *out)
{
	memset(out, 0, sizeof(*out));
	out->paranoid = c ? c->env.paranoid : CPW_PARANOID_UNKNOWN;
	cpw_perf_derive_set(c, &out->derived);
	for (size_t i = 0; c && i < c->nev && out->n < CPW_COUNTER_VALUES_MAX; i++) {
		const struct event *e = &c->ev[i];
		struct cpw_counter_reading *r = &out->ev[out->n++];
		snprintf(r->name, sizeof(r->name), "%s", e->v.name ? e->v.name : "");
		snprintf(r->unit, sizeof(r->unit), "%s", e->v.unit ? e->v.unit : "");
		r->value = e->v.value;
		r->status = e->v.status;
		r->running_fraction = e->v.running_fraction;
		snprintf(r->reason, sizeof(r->reason), "%s", e->v.reason);
		r->role = e->role;
		r->user_only = e->attr.exclude_kernel;
	}
}

void cpw_perf_figures(const struct cpw_counters *c, struct cpw_counter_figures *f)
{
	double by_role[CPW_ROLE_COUNT];
	values_by_role(c, by_role);
	f->cycles = by_role[CPW_ROLE_CYCLES];
	f->instructions = by_role[CPW_ROLE_INSTRUCTIONS];
	f->cache_references = by_role[CPW_ROLE_CACHE_REFERENCES];
	f->cache_misses = by_role[CPW_ROLE_CACHE_MISSES];
	f->llc_load_misses = by_role[CPW_ROLE_LLC_LOAD_MISSES];
	f->branch_misses = by_role[CPW_ROLE_BRANCH_MISSES];
	f->stalled_cycles_backend = by_role[CPW_ROLE_STALLED_BACKEND];
	struct cpw_counters_derived d;
	cpw_perf_derive(by_role, &d);
	f->topdown_memory_bound = d.topdown_memory_bound;
}

void cpw_perf_free(struct cpw_counters *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->nt; k++) {
		for (size_t i = 0; i < c->nev; i++)
			if (c->t[k].fd[i] >= 0)
				hooks.close(c->t[k].fd[i]);
		free(c->t[k].fd);
		free(c->t[k].last);
	}
	free(c->t);
	free(c->ev);
	free(c);
}

/* ---- --list-events ---- */

static void list_pmu(FILE *out, pfm_pmu_t p, const pfm_pmu_info_t *pinfo)
{
	fprintf(out, "%s: %s (%d events)\n", pinfo->name, pinfo->desc ? pinfo->desc : "", pinfo->nevents);
	for (int idx = pinfo->first_event; idx != -1; idx = cpw_perf_pfm.get_event_next(idx)) {
		pfm_event_info_t einfo;
		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (cpw_perf_pfm.get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS || einfo.pmu != p)
			continue;
		fprintf(out, "  %s::%s\n", pinfo->name, einfo.name);
		for (int a = 0; a < einfo.nattrs; a++) {
			pfm_event_attr_info_t ainfo;
			memset(&ainfo, 0, sizeof(ainfo));
			ainfo.size = sizeof(ainfo);
			if (cpw_perf_pfm.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) == PFM_SUCCESS &&
			    ainfo.type == PFM_ATTR_UMASK)
				fprintf(out, "  %s::%s:%s\n", pinfo->name, einfo.name, ainfo.name);
		}
	}
}

int cpw_perf_list(FILE *out)
{
	/* The list names the tracepoints too; the PMUs stay those that can count here. */
	if (pfm_ready() < 0 || (pfm_state == 2 && pfm_init(pfm_generic_only, false) < 0))
		return -ENODEV;
	bool hw = kernel_has_cpu_pmu();
	fprintf(out, "# hardware PMU: %s\n", hw ? "present" : "none visible (virtual machine?): "
		"only software events will count; the default set's hardware events are reported "
		"<not supported>");
	fprintf(out, "# default set: ");
	for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		fprintf(out, "%s%s", i ? "," : "", default_events[i]);
	fprintf(out, "\n");
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (cpw_perf_pfm.get_pmu_info(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		list_pmu(out, p, &pinfo);
	}
	return ferror(out) ? -EIO : 0;
}
