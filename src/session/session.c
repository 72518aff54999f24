/*
 * session.c: one watch from the first sample to the report (session.h).
 *
 * It reads the sources in order (start values, samples, end values), hands the whole run's
 * readings to the model's pure fold (model/whole_run.c), and has the classifier judge the
 * figures. Everything the kernel says comes through source/.
 */
#include "config.h"
#include "session/session.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify/budgets.h"
#include "classify/classify.h"
#include "classify/phases.h"
#include "classify/hotspot_advice.h" /* hotspots */
#include "classify/process_verdict.h" /* a verdict per process */
#include "report/process_report.h"     /* ... judged as the writers judge them */
#include "classify/leak_finding.h" /* leaks */
#include "model/metrics.h"
#include "model/proc_label.h" /* proc_label */
#include "model/timeline.h"
#include "model/whole_run.h"
#include "session/sampling.h" /* hotspots */
#include "session/gpu_watch.h" /* gpu */
#include "classify/gpu_verdict.h" /* gpu */
#include "report/series.h"
#include "source/cgroup/cgroup.h"
#include "source/kernel/cpus.h"
#include "source/kernel/fdlimit.h"
#include "source/kernel/proc_events.h" /* exec args */
#include "source/kernel/psi.h"
#include "source/kernel/taskstats.h"
#include "source/kernel/vmstat.h"
#include "source/perf/perf.h"
#include "source/proc/proc_parse.h"
#include "source/proc/proc_pid.h"
#include "source/proc/proc_reader.h"
#include "util/arith.h"

#define PENDING_MAX 4096
/* The roots of a run-mode sample: the children of cperfwatch. */
#define MAX_ROOTS 4096
/* Exit records taken per poll: a small batch keeps the stack shallow (each record is ~300
 * bytes, and every new 4 KiB of stack is a page fault, 2-5 us on our VMs). */
#define EXIT_BATCH 16
/* Proportional set sizes walk each process's page tables: they are read at the first
 * sample, then at most once a second, and no more often than keeps their cost under 1% of
 * the time (PSS_COST_SHARE). Where they give the tree's peak (no group of its own with a
 * memory peak), a sample also reads them once the tree's resident size has grown by a
 * quarter since the last reading (a pool forked after the first sample, data loaded): a
 * run shorter than a second kept the PSS of a command that had just started (81 KiB for
 * a tree of 112 MiB). Growth costs a reading each quarter more, a few dozen from MiB to
 * GiB, within the same cost share; ~1.5 ms for a pool of five Python processes, which a
 * run with its own group does not pay (its PSS is then unknown where no reading came near
 * the tree's peak: CPW_PSS_COVERS). */
#define PSS_PERIOD_S 1.0
#define PSS_COST_SHARE 0.01
#define PSS_GROWTH (1.0 / CPW_PSS_COVERS)

struct cpw_session {
	const struct cpw_config *cfg;
	struct cpw_series_out *series;     /* --series: set by the mode, not owned; NULL none */
	struct cpw_tree *tree;
	struct cpw_counters *counters;     /* NULL when none could be set up */
	struct cpw_counter_values counter_values; /* read at the end, for the report */
	struct timespec start;             /* monotonic: exec (run) or first sample (attach) */
	struct cpw_report report;
	/* The whole run's readings, start values first, end values at the end (whole_run.h). */
	struct cpw_run_readings run;
	struct cpw_psi_files psi_files;    /* held from the start reading to the end one */
	struct cpw_held_file vmstat_file;
	struct cpw_cgroup *cgroup;         /* run mode as root: the command's own cgroup */
	/* Pressure at the last sample, for the timeline's per-point stalls: the group's where
	 * it has its own (run.cgroup_psi_start.available, as for the whole run), else the
	 * system's. */
	struct cpw_psi sample_psi_prev;
	struct cpw_taskstats_listener *exits; /* root: exit records of short-lived processes */
	bool listen_tried;
	/* Exits whose parent is not known yet; allocated at the first (1 MB: most runs never
	 * need it, and mapping and unmapping it cost ~0.1 ms of every start). */
	struct cpw_taskstats_rec *pending;
	uint64_t *pending_drain;           /* the drain each pending record came in */
	struct cpw_begin_window *pending_begin; /* when each pending record's process began */
	size_t npending;
	uint64_t drains;                   /* drain_exits() calls so far */
	double last_drain_s;               /* when the last drain emptied the socket; -inf before */
	uint64_t exit_records;             /* accepted into the tree */
	/* exec args: the arguments of processes shorter than the interval, read at their exec
	 * (root); NULL where the connector could not open, why says why */
	struct cpw_proc_events *execs;
	char execs_why[200];
	uint64_t exits_without_args;       /* exit-only processes left with their name alone */
	/* System pressure read for the live view's snapshots: the files and the last reading. */
	struct cpw_psi_files view_psi_files;
	struct cpw_psi view_psi_prev;
	double view_psi_prev_s;
	struct cpw_proc_reader *reader;    /* reads the tree from /proc for the model */
	double quota_cores;                /* the cgroup's CPU quota at the start; NAN: none */
	bool cores_read;
	bool stale_groups_removed;
	uint64_t target_start_ticks;       /* attach mode: the target's start, from the first sample */
	double next_pss_s;                 /* when the next sample reads the PSS */
	double pss_gate_s;                 /* before it, a reading would cost over PSS_COST_SHARE */
	bool pss_headline;                 /* the tree's peak comes from the PSS: no own group's */
	uint64_t pss_rss_kib;              /* the tree's resident size at the last PSS reading */
	struct cpw_timeline *timeline;     /* one point per sample (model/timeline.c) */
	pid_t roots[MAX_ROOTS];            /* run mode: cperfwatch's children at the last sample */
	int children_fd;                   /* run mode: its children file, kept open; -1: not */
	pid_t self;                        /* cperfwatch's pid: read once (each getpid is a system call) */
	struct cpw_sampling *sampling;     /* hotspots: on-CPU samples by function; NULL: none */
	char delayacct_why[320];           /* why delay accounting is off; "" when on */
	struct cpw_gpu_watch *gpu;         /* gpu: the GPUs, read once a second; NULL: none */
};
/* Closes what the session holds in the kernel (exit records, held files) and removes the
 * command's cgroup. */
static void close_sources(struct cpw_session *s)
{
	cpw_psi_files_close(&s->psi_files);
	cpw_psi_files_close(&s->view_psi_files);
	cpw_kfile_held_close(&s->vmstat_file);
	if (s->children_fd >= 0)
		close(s->children_fd);
	s->children_fd = -1;
	cpw_taskstats_unlisten(s->exits);
	s->exits = NULL;
	cpw_proc_events_close(s->execs); /* exec args */
	s->execs = NULL;
	if (s->cgroup)
		cpw_cgroup_destroy(s->cgroup);
	s->cgroup = NULL;
}

static void discard_exits(struct cpw_session *s)
{
	if (!s->exits)
		return;
	struct cpw_taskstats_rec recs[EXIT_BATCH];
	while (cpw_taskstats_poll(s->exits, recs, EXIT_BATCH) > 0)
		;
}

void cpw_session_note(struct cpw_session *s, const char *fmt, ...)
{
	char line[CPW_NOTE_LEN + 8];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cpw_report_note(&s->report, "%s", line);
}

/* Attach mode: the pid must exist, be readable and not be cperfwatch. */
static int check_target(const struct cpw_config *cfg, char *err, size_t errlen)
{
	struct cpw_stat_fields st;
	int rc = cpw_proc_pid_stat(cfg->proc_root, cfg->pid, &st);
	if (rc == -ENOENT || rc == -ESRCH) {
		snprintf(err, errlen, "no process with pid %d", (int)cfg->pid);
		return -ESRCH;
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot read process %d: %s", (int)cfg->pid, strerror(-rc));
		return rc;
	}
	if (cfg->pid == getpid()) {
		snprintf(err, errlen, "will not watch itself (pid %d)", (int)cfg->pid);
		return -EINVAL;
	}
	return 0;
}

struct cpw_session *cpw_session_new(const struct cpw_config *cfg, char *err, size_t errlen)
{
	if (cfg->mode == CPW_MODE_ATTACH && check_target(cfg, err, errlen) < 0)
		return NULL;
	/* Before the reader is made: it sizes its kept descriptors by the limit. */
	if (cpw_fdlimit_raise(err, errlen) < 0)
		return NULL;
	struct cpw_session *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->cfg = cfg;
	s->self = getpid();
	s->report.cfg = cfg;
	s->report.mode = cfg->mode;
	s->report.page_size = sysconf(_SC_PAGESIZE);
	cpw_metrics_init(&s->report.metrics);
	s->report.cgroup_mem_peak_kib = NAN;
	s->pss_headline = true; /* until a group of its own says it has a memory peak */
	s->run.cores_usable = NAN;
	s->run.wall_s = NAN;
	s->run.attach = cfg->mode == CPW_MODE_ATTACH;
	s->run.interval_ms = cfg->interval_ms;
	s->run.page_kib = s->report.page_size > 0 ? (double)s->report.page_size / 1024 : NAN;
	s->quota_cores = NAN;
	s->last_drain_s = -INFINITY;
	s->children_fd = -1;
	s->reader = cpw_proc_reader_new(cfg->proc_root);
	s->timeline = cpw_timeline_new();
	s->tree = cpw_tree_new(cfg->mode == CPW_MODE_ATTACH);
	if (!s->reader || !s->timeline || !s->tree) {
		snprintf(err, errlen, "out of memory");
		cpw_session_free(s);
		return NULL;
	}
	s->report.tree = s->tree;
	s->report.timeline = s->timeline;
	s->report.waits = cpw_tree_waits(s->tree);
	/* hotspots */
	s->sampling = cpw_sampling_new(cfg);
	s->report.hotspots = cpw_sampling_hotspots(s->sampling);
	s->gpu = cpw_gpu_watch_new(cfg->proc_root, cfg->nvml_library); /* gpu */
	/* Only the JSON report names each process's user: the text and OpenMetrics reports
	 * and the live view never load libproc2 (~1 MB of shared libraries, ~1 ms to load). */
	if (cfg->format != CPW_FORMAT_JSON)
		cpw_proc_reader_skip_users(s->reader);
	if (cfg->mode == CPW_MODE_RUN && !cfg->no_cgroup) {
		char why[320] = "";
		if (cpw_cgroup_create(&s->cgroup, cfg->cgroup_root, why, sizeof(why)) < 0) {
			s->cgroup = NULL;
			cpw_report_note(&s->report, "not run in a cgroup of its own (%s): memory "
					"and pressure figures are system-wide", why);
		} else if (why[0]) {
			cpw_report_note(&s->report, "%s", why);
		}
	}
	s->run.cgroup = s->cgroup != NULL;
	return s;
}

bool cpw_session_gate_wanted(const struct cpw_session *s)
{
	return cpw_perf_may_open(s->cfg->events);
}

struct cpw_cgroup_placement *cpw_session_placement(struct cpw_session *s)
{
	return cpw_cgroup_placement(s->cgroup);
}

int cpw_session_open(struct cpw_session *s, char *err, size_t errlen)
{
	const struct cpw_config *cfg = s->cfg;
	/* Attach mode runs libpfm4 in a helper process while the rest is set up, so the
	 * long watch does not keep libpfm4's tables resident (perf_transfer.c). Run mode
	 * encodes here: a helper would be one more child in wait4's totals, which are the
	 * report's exact figures (and a thread only competes with the command's child for
	 * the CPUs: measured slower on 2 vCPUs). */
	struct cpw_counters_helper encoder = { .pid = -1, .fd = -1, .event_list = cfg->events };
	if (cfg->mode == CPW_MODE_ATTACH)
		cpw_perf_encode_start(&encoder, cfg->events);

	int on = cpw_taskstats_delayacct(cfg->proc_root, s->delayacct_why, sizeof(s->delayacct_why));
	s->run.delayacct_on = on == 1;
	if (on != 1 && !s->delayacct_why[0])
		snprintf(s->delayacct_why, sizeof(s->delayacct_why), "delay accounting is off");
	cpw_session_listen(s);
	if (cpw_perf_encode_finish(&encoder, &s->counters, err, errlen) < 0)
		return -EINVAL;
	/* Exit records so far are from before the watch: the helper's among them. (In run
	 * mode the command may be running already: none is thrown away.) */
	if (cfg->mode == CPW_MODE_ATTACH)
		discard_exits(s);
	return 0;
}

void cpw_session_listen(struct cpw_session *s)
{
	char why[320] = "";
	if (s->listen_tried)
		return;
	s->listen_tried = true;
	/* Exit records catch processes that live shorter than one interval (root only). */
	if (cpw_taskstats_listen(&s->exits, why, sizeof(why)) < 0) {
		s->exits = NULL;
		cpw_report_note(&s->report, "per-process figures of processes shorter than the "
				"interval may be missing: %s", why);
	}
	s->run.exit_records = s->exits != NULL;
	/* exec args: what those processes ran, read at their exec (their records say only
	 * their name). Where it cannot open, a note at the end, only if one lacked them. */
	if (s->exits && cpw_proc_events_open(&s->execs, s->cfg->proc_root, s->execs_why,
					     sizeof(s->execs_why)) < 0)
		s->execs = NULL;
}

/* The CPUs we may use (affinity, our cgroup's quota) do not change during a run. */
static void read_cpus(struct cpw_session *s)
{
	struct cpw_cpus cpus;
	s->run.cores_usable = cpw_cpus_usable(0, s->cfg->cgroup_root, NULL, &cpus) == 0
				      ? cpus.cores_usable : NAN;
	s->quota_cores = cpus.quota_cores;
	s->cores_read = true;
}

void cpw_session_take_child(struct cpw_session *s, pid_t child, bool placed, bool gated,
			    const struct cpw_cgroup_placement *placement)
{
	s->report.pid = child;
	read_cpus(s); /* while the child makes and joins its v1 groups */
	/* No report (the child died before it): nothing to say about its groups. */
	if (placed && !gated && !cpw_cgroup_placement_complete(placement))
		cpw_report_note(&s->report, "the command was already running when it was moved into "
				"the rest of its cgroups (it could not join them itself): their figures may "
				"miss its first moments");
	if (s->cgroup) {
		char why[1024] = "";
		if (cpw_cgroup_add_pid(s->cgroup, child, why, sizeof why) < 0)
			cpw_report_note(&s->report, "the command is not in all of its cgroups (%s): what "
					"those measure comes from the whole system, or is missing", why);
	}
	if (gated && s->counters)
		cpw_perf_open_child(s->counters, child);
}

/* The start values of the whole-run sources. */
static void read_start(struct cpw_session *s)
{
	struct cpw_run_readings *in = &s->run;
	bool group_refaults = false;
	if (s->cgroup) {
		struct cpw_cgroup_stats st;
		cpw_cgroup_read(s->cgroup, &st);
		in->cgroup_psi_start = st.psi;
		group_refaults = st.memory_available && cpw_known(st.refaults);
		/* The group's own peak is the tree's (whole_run.c): the PSS is then JSON's
		 * second figure, not worth a reading at each growth of the tree. */
		s->pss_headline = !(st.memory_available && cpw_known(st.mem_peak_kib));
	}
	/* System-wide pressure only where the group has none of its own (it would be
	 * replaced by the group's). */
	in->system_psi = !in->cgroup_psi_start.available;
	if (in->system_psi)
		cpw_psi_read_system(s->cfg->proc_root, &s->psi_files, &in->psi_start);
	s->sample_psi_prev = in->cgroup_psi_start.available ? in->cgroup_psi_start : in->psi_start;
	/* System-wide refaults only where the group has none of its own. */
	in->vmstat = !group_refaults;
	if (in->vmstat)
		cpw_vmstat_read(s->cfg->proc_root, &s->vmstat_file, &in->vmstat_start);
	if (!s->cores_read)
		read_cpus(s);
}

void cpw_session_start(struct cpw_session *s, const struct timespec *at)
{
	if (at)
		s->start = *at;
	else
		clock_gettime(CLOCK_MONOTONIC, &s->start);
	cpw_sampling_start(s->sampling, &s->start); /* hotspots */
	cpw_proc_events_start(s->execs); /* exec args: its thread, beside the command's start */
	if (s->cfg->mode == CPW_MODE_ATTACH)
		s->report.pid = s->cfg->pid;
	read_start(s);
}

/* The tree's seconds minus the seconds since boot: where the start times in the
 * processes' stat files fall on the session's clock. */
static double boot_offset(const struct cpw_session *s)
{
	struct timespec boot;
	if (clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		clock_gettime(CLOCK_MONOTONIC, &boot);
	return cpw_session_elapsed(s) - ((double)boot.tv_sec + (double)boot.tv_nsec / 1e9);
}

/* Whether pid could have forked (or holds as a thread) the process that began in w: a
 * process of the tree that lived then, or in run mode cperfwatch itself (the command and
 * the orphans that come back to it). A pid reused outside the tree is refused by the
 * times. */
static bool may_be_parent(const struct cpw_session *s, pid_t pid, const struct cpw_begin_window *w)
{
	if (s->cfg->mode == CPW_MODE_RUN && pid == s->self)
		return true;
	switch (cpw_tree_may_be_parent(s->tree, pid, w, boot_offset(s))) {
	case CPW_KIN_YES:
		return true;
	case CPW_KIN_NO:
		return false;
	case CPW_KIN_UNSURE:
		break;
	}
	/* It began about when the tree's process ended: the pid is another's if another
	 * process holds it now. */
	struct cpw_stat_fields st;
	uint64_t known = cpw_tree_start_ticks(s->tree, pid);
	return cpw_proc_pid_stat(s->cfg->proc_root, pid, &st) < 0 || known == 0 ||
	       st.starttime_ticks == known;
}

/* Whether a main thread's exit record is of a process the tree holds that has not been
 * reaped: attach mode's root, whose parent is outside the tree. The name and the time it
 * began must match too, in case its pid was reused. */
static bool is_watched_process(const struct cpw_session *s, const struct cpw_taskstats_rec *r,
			       const struct cpw_begin_window *w)
{
	const struct cpw_proc *pr = cpw_tree_find(s->tree, (pid_t)r->pid);
	return pr && !pr->reaped && strncmp(pr->comm, r->comm, 15) == 0 &&
	       cpw_tree_same_process(s->tree, (pid_t)r->pid, w, boot_offset(s));
}

/* exec args: a time in the watch's seconds as CLOCK_MONOTONIC ns (the connector's). */
static uint64_t mono_ns_at(const struct cpw_session *s, double t_s)
{
	double ns = ((double)s->start.tv_sec + (double)s->start.tv_nsec / 1e9 + t_s) * 1e9;
	return ns > 0 ? (uint64_t)ns : 0;
}

/* exec args: pid's arguments from its last exec between begin_s and end_s (the window of
 * its life, so that a process that had the pid before gives nothing), into the model. */
static void take_exec_args(struct cpw_session *s, pid_t pid, double begin_s, double end_s)
{
	char args[CPW_PROC_EVENTS_ARGS_MAX];
	uint64_t at;
	const double tol = 0.05; /* the clocks agree far better; a start time is in 10 ms ticks */
	if (s->execs && cpw_proc_events_args(s->execs, pid, mono_ns_at(s, begin_s - tol),
					     mono_ns_at(s, end_s + tol), args, sizeof(args), &at))
		cpw_tree_exec_args(s->tree, pid, args,
				   (double)at / 1e9 - ((double)s->start.tv_sec + (double)s->start.tv_nsec / 1e9));
}

/* exec args: the last exec of a process the samples found (a parent, at its child's
 * exit record, or any at the end: proc_label tells a wrapper's helpers by it), from its
 * start on. While the ring still holds it: a long run's early execs may be overwritten. */
static void take_parent_exec(struct cpw_session *s, pid_t pid)
{
	uint64_t ticks = cpw_tree_start_ticks(s->tree, pid);
	if (s->execs && ticks)
		take_exec_args(s, pid, (double)ticks / (double)sysconf(_SC_CLK_TCK) + boot_offset(s),
			       cpw_session_elapsed(s));
}

/* Takes one exit record into the model when its process belongs to the tree. */
static bool accept_exit(struct cpw_session *s, const struct cpw_taskstats_rec *r,
			const struct cpw_begin_window *w)
{
	struct cpw_run_readings *in = &s->run;
	bool main_thread = r->pid == r->tgid || r->tgid == 0;

	if (r->is_tgid)
		return true; /* the per-thread records carry what we use */
	if (main_thread ? !may_be_parent(s, (pid_t)r->ppid, w) && !is_watched_process(s, r, w)
			: !may_be_parent(s, (pid_t)r->tgid, w))
		return false;
	in->blkio_ns += (double)r->blkio_delay_total_ns;
	in->swapin_ns += (double)r->swapin_delay_total_ns;
	in->thrashing_ns += (double)r->thrashing_delay_total_ns;
	in->reclaim_ns += (double)r->freepages_delay_total_ns;
	if (main_thread) {
		/* ac_utime/ac_stime are raw tick samples, which misstate a task that shares its
		 * CPU: scaled to sum_exec_runtime as the kernel does for rusage and /proc. */
		double user, sys;
		cpw_taskstats_cpu(r, &user, &sys);
		cpw_tree_record_exit(s->tree, (pid_t)r->pid, (pid_t)r->ppid, r->comm, user, sys,
				     r->minflt, r->majflt, r->hiwater_rss_kib, cpw_session_elapsed(s));
		/* When it ended, to the tick: its children's records are told by it. */
		cpw_tree_exit_after(s->tree, (pid_t)r->pid, (double)r->etime_us / 1e6, boot_offset(s));
		/* exec args: it lived within [w.lb, w.ub + its life] */
		double lived = (double)r->etime_us / 1e6;
		take_exec_args(s, (pid_t)r->pid, w->lb, w->ub + lived);
		const struct cpw_proc *p = cpw_tree_find(s->tree, (pid_t)r->pid);
		if (p && !p->cmdline[0])
			s->exits_without_args++;
		/* It began in w, at or before its exec. */
		if (p && !isnan(p->exec_event_s))
			cpw_tree_exit_began(s->tree, (pid_t)r->pid,
					    p->exec_event_s < w->ub ? p->exec_event_s : w->ub, lived);
		take_parent_exec(s, (pid_t)r->ppid); /* proc_label: before or after its own */
		s->exit_records++;
	}
	return true;
}

static void drop_pending(struct cpw_session *s, size_t i)
{
	s->npending--;
	s->pending[i] = s->pending[s->npending];
	s->pending_drain[i] = s->pending_drain[s->npending];
	s->pending_begin[i] = s->pending_begin[s->npending];
}

static void keep_pending(struct cpw_session *s, const struct cpw_taskstats_rec *r,
			 const struct cpw_begin_window *w)
{
	if (s->npending >= PENDING_MAX)
		return;
	if (!s->pending) {
		s->pending = malloc(PENDING_MAX * sizeof(*s->pending));
		s->pending_drain = malloc(PENDING_MAX * sizeof(*s->pending_drain));
		s->pending_begin = malloc(PENDING_MAX * sizeof(*s->pending_begin));
		if (!s->pending || !s->pending_drain || !s->pending_begin) {
			free(s->pending);
			free(s->pending_drain);
			free(s->pending_begin);
			s->pending = NULL;
			s->pending_drain = NULL;
			s->pending_begin = NULL;
			return;
		}
	}
	s->pending_drain[s->npending] = s->drains;
	s->pending_begin[s->npending] = *w;
	s->pending[s->npending++] = *r;
}

/* Whether a record whose parent is not known yet has a parent that is surely no process of
 * the tree: one alive now, not in the tree, whose ancestors up to init are none of the
 * tree's either (a process forked from the tree since the last sample has a tree process
 * above it). On a busy machine most records are other programs' (a shell loop's 3,000
 * /bin/true): without this they waited three drains each, and under load filled up to 1.2
 * MB of pending records. Answers are kept for the drain (one ancestry read per parent);
 * where the ancestry cannot be read it is not sure, and the record waits as before. */
#define FOREIGN_CACHE 8
#define FOREIGN_DEPTH 16
struct foreign_cache {
	pid_t pid[FOREIGN_CACHE];
	bool foreign[FOREIGN_CACHE];
	size_t n;
};

static bool foreign_parent(const struct cpw_session *s, pid_t ppid, struct foreign_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->pid[i] == ppid)
			return c->foreign[i];
	bool foreign = ppid > 1;
	pid_t p = ppid;
	for (int depth = 0; foreign && depth < FOREIGN_DEPTH && p > 1; depth++) {
		struct cpw_stat_fields st;
		if (cpw_tree_find(s->tree, p) || cpw_proc_pid_stat(s->cfg->proc_root, p, &st) < 0)
			foreign = false; /* the tree's, or gone (its record may be coming): not sure */
		else
			p = st.ppid;
	}
	foreign = foreign && p <= 1; /* reached init: above no tree process */
	if (c->n < FOREIGN_CACHE) {
		c->pid[c->n] = ppid;
		c->foreign[c->n++] = foreign;
	}
	return foreign;
}

/* Reads pending exit records; those whose parent is not known yet wait in pending (a
 * child's record comes before its short-lived parent's). */
static void drain_exits(struct cpw_session *s)
{
	struct cpw_taskstats_rec recs[EXIT_BATCH];
	int n;

	if (!s->exits)
		return;
	cpw_proc_events_start(s->execs); /* exec args: attach mode's, at the first sample */
	s->drains++;
	/* Each record came after the last drain and before now: its process began between
	 * those minus its elapsed time. */
	double now = cpw_session_elapsed(s);
	struct foreign_cache foreign = { .n = 0 };
	while ((n = cpw_taskstats_poll(s->exits, recs, EXIT_BATCH)) > 0)
		for (int i = 0; i < n; i++) {
			double lived = (double)recs[i].etime_us / 1e6;
			struct cpw_begin_window w = { s->last_drain_s - lived, now - lived };
			bool main_thread = recs[i].pid == recs[i].tgid || recs[i].tgid == 0;
			if (!accept_exit(s, &recs[i], &w) && !recs[i].is_tgid &&
			    !foreign_parent(s, (pid_t)(main_thread ? recs[i].ppid : recs[i].tgid), &foreign))
				keep_pending(s, &recs[i], &w);
		}
	s->last_drain_s = now;
	/* Accepting one may make another's parent known: repeat until nothing moves. */
	for (bool moved = true; moved;) {
		moved = false;
		for (size_t i = 0; i < s->npending;) {
			if (accept_exit(s, &s->pending[i], &s->pending_begin[i])) {
				drop_pending(s, i);
				moved = true;
			} else {
				i++;
			}
		}
	}
	/* A parent unknown three drains on (a sample in between would have found it in the
	 * tree) is not of the tree: most pending records are other programs' exits, which
	 * would otherwise fill the buffer on a busy machine (1.3 MB). */
	for (size_t i = 0; i < s->npending;) {
		if (s->drains - s->pending_drain[i] >= 3)
			drop_pending(s, i);
		else
			i++;
	}
}

struct timespec cpw_session_started_at(const struct cpw_session *s)
{
	return s->start;
}

double cpw_session_elapsed(const struct cpw_session *s)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - s->start.tv_sec) + (double)(now.tv_nsec - s->start.tv_nsec) / 1e9;
}

/* The stall seconds since the previous sample (from the start for the first), from the
 * same pressure files as the whole run's figures. False where either reading is missing. */
static bool pressure_since_last_sample(struct cpw_session *s, struct cpw_tl_pressure *out)
{
	struct cpw_psi now, d;
	bool from_cgroup = s->run.cgroup_psi_start.available;

	if (from_cgroup)
		cpw_cgroup_read_psi(s->cgroup, &now);
	else
		cpw_psi_read_system(s->cfg->proc_root, &s->psi_files, &now);
	if (!now.available)
		return false;
	bool have_prev = s->sample_psi_prev.available;
	cpw_psi_delta(&s->sample_psi_prev, &now, &d);
	s->sample_psi_prev = now;
	if (!have_prev)
		return false;
	out->cpu_some_s = (double)d.cpu_some_us / 1e6;
	out->io_some_s = (double)d.io_some_us / 1e6;
	out->mem_some_s = (double)d.mem_some_us / 1e6;
	out->from_cgroup = from_cgroup;
	return true;
}

/* The roots of one sample: run mode, cperfwatch's own children; attach mode, the target,
 * while its pid is still the process it was (a pid taken by another process since is not
 * watched: its tree is not ours). */
static size_t sample_roots(struct cpw_session *s)
{
	if (s->cfg->mode == CPW_MODE_ATTACH) {
		uint64_t start;
		if (s->target_start_ticks &&
		    (cpw_proc_pid_start_ticks(s->cfg->proc_root, s->cfg->pid, &start) < 0 ||
		     start != s->target_start_ticks))
			return 0;
		s->roots[0] = s->cfg->pid;
		return 1;
	}
	/* cperfwatch is single-threaded: its main thread's children file lists them all. */
	int n = cpw_proc_pid_children(s->cfg->proc_root, s->self, &s->children_fd, s->roots, MAX_ROOTS);
	return n > 0 ? (size_t)n : 0;
}

/* Attach mode: a counter on every live thread of the tree (new ones as they appear). */
static void arm_counters(struct cpw_session *s)
{
	pid_t tids[4096];
	if (!s->counters || s->cfg->mode != CPW_MODE_ATTACH)
		return;
	size_t n = cpw_tree_live_tids(s->tree, tids, sizeof(tids) / sizeof(tids[0]));
	cpw_perf_attach_threads(s->counters, tids, n);
}

/* The CPUs the threads themselves may use now: the command may narrow them (taskset,
 * numactl, os.sched_setaffinity) after cperfwatch saw its own. */
static void sample_cores(struct cpw_session *s, const struct cpw_proc_sample *sample)
{
	if (sample->cpus_threads == 0)
		return;
	double cores = cpw_proc_parse_cpuset_count(sample->cpus_allowed);
	if (cpw_known(s->quota_cores) && s->quota_cores < cores)
		cores = s->quota_cores;
	s->run.sampled_cores_sum += cores;
	s->run.sampled_cores_n++;
	cpw_proc_parse_cpuset_format(sample->cpus_allowed, s->run.sampled_cpus, sizeof(s->run.sampled_cpus));
}

/* Empty groups that earlier runs killed with SIGKILL left beside the command's own go
 * once the command runs (at the first sample, or at the end of a run too short for one),
 * off the path that start-up takes. */
static void remove_stale_groups(struct cpw_session *s)
{
	if (!s->stale_groups_removed) {
		s->stale_groups_removed = true;
		cpw_cgroup_remove_stale(s->cgroup);
	}
}

/* ---- --series (issue 29): each sample's point written as it is taken ---- */

void cpw_session_set_series(struct cpw_session *s, struct cpw_series_out *out)
{
	s->series = out;
}

static void write_series(struct cpw_session *s)
{
	const struct cpw_tl_point *p = cpw_timeline_last_sample(s->timeline);
	if (!s->series || !p || s->series->error)
		return;
	int rc = cpw_series_write(s->series, p, cpw_tree_totals(s->tree)->alive);
	if (rc < 0)
		cpw_session_note(s, "--series %s: not written after its line %lu: %s", s->series->path,
				 s->series->lines, strerror(-rc));
}

int cpw_session_sample(struct cpw_session *s)
{
	remove_stale_groups(s);
	size_t nroots = sample_roots(s);
	if (nroots == 0) {
		/* Attach mode: the target is gone (its pid may be another's): the watch is over. */
		if (s->cfg->mode == CPW_MODE_ATTACH)
			cpw_tree_end(s->tree, cpw_session_elapsed(s));
		drain_exits(s);
		return 0;
	}
	struct cpw_proc_sample sample;
	double now = cpw_session_elapsed(s);
	/* grown: by the last sample's resident size (this one's is not read yet) */
	bool grown = s->pss_headline &&
		     (double)cpw_tree_totals(s->tree)->rss_kib > PSS_GROWTH * (double)s->pss_rss_kib;
	if (now >= s->next_pss_s || (grown && now >= s->pss_gate_s))
		cpw_proc_reader_want_pss(s->reader);
	int rc = cpw_proc_reader_sample(s->reader, s->roots, nroots, &sample);
	if (rc == 0) {
		double gap = sample.pss_cost_s / PSS_COST_SHARE;
		if (sample.pss_read) {
			s->next_pss_s = now + cpw_max(PSS_PERIOD_S, gap);
			s->pss_gate_s = now + gap;
		}
		cpw_tree_set_boot_offset(s->tree, boot_offset(s));
		rc = cpw_tree_apply(s->tree, &sample, now);
		sample_cores(s, &sample);
		if (sample.pss_read)
			s->pss_rss_kib = cpw_tree_totals(s->tree)->rss_kib;
	}
	drain_exits(s);
	if (rc < 0) {
		s->run.samples_failed++;
		s->run.sample_errno = -rc;
	}
	if (rc >= 0) { /* a sample that failed (out of memory) is no point of the series */
		struct cpw_tl_pressure stalls;
		cpw_timeline_set_gpu(s->timeline, cpw_gpu_watch_busy_now(s->gpu)); /* gpu */
		cpw_timeline_record(s->timeline, s->tree, now,
				    pressure_since_last_sample(s, &stalls) ? &stalls : NULL);
		write_series(s); /* --series: the point just recorded, as one line */
		arm_counters(s);
		cpw_sampling_step(s->sampling, s->tree, now, &s->report); /* hotspots */
		/* hotspots: waits named by Python function once the stack reader is there */
		cpw_proc_reader_set_python(s->reader, cpw_sampling_python(s->sampling));
		cpw_gpu_watch_step(s->gpu, s->tree, now); /* gpu */
	}
	if (s->cfg->mode == CPW_MODE_ATTACH && s->target_start_ticks == 0)
		s->target_start_ticks = cpw_tree_start_ticks(s->tree, s->cfg->pid);
	return rc;
}

bool cpw_session_target_alive(const struct cpw_session *s)
{
	const struct cpw_proc *p = cpw_tree_find(s->tree, s->cfg->pid);
	/* A zombie target has ended: only its parent's wait is missing. A process that took
	 * its pid since is another one. */
	return p && p->alive && p->state != 'Z' &&
	       (s->target_start_ticks == 0 || p->starttime_ticks == s->target_start_ticks);
}

void cpw_session_zombie(struct cpw_session *s, pid_t pid)
{
	struct cpw_stat_fields st;
	if (cpw_proc_pid_stat(s->cfg->proc_root, pid, &st) < 0)
		return;
	double hz = (double)sysconf(_SC_CLK_TCK);
	double now = cpw_session_elapsed(s);
	cpw_tree_record_exit(s->tree, pid, st.ppid, st.comm, (double)st.utime_ticks / hz,
			     (double)st.stime_ticks / hz, st.minflt, st.majflt, 0, now);
	/* exec args: a zombie's cmdline is empty; it lived from its start time to now */
	take_exec_args(s, pid, (double)st.starttime_ticks / hz + boot_offset(s), now);
}

const struct cpw_tree *cpw_session_tree(const struct cpw_session *s)
{
	return s->tree;
}

const struct cpw_config *cpw_session_config(const struct cpw_session *s)
{
	return s->cfg;
}

/* What the mode says of how the watch ended, in the notes (before the fold's). */
static void note_end(struct cpw_session *s, const struct cpw_session_end *end, double wall_s)
{
	struct cpw_report *r = &s->report;
	switch (end->cause) {
	case CPW_END_COMMAND_EXITED:
		if (r->descendants_running)
			cpw_report_note(r, "%u descendant process(es) were still running when the command "
					"exited; their figures are sampled, not exact (use --wait-all to wait "
					"for them)", r->descendants_running);
		return;
	case CPW_END_VIEW_QUIT:
		cpw_report_note(r, "the watch was ended from the live view");
		break;
	case CPW_END_TARGET_EXITED:
		cpw_report_note(r, "process %d ended while watched", (int)s->cfg->pid);
		break;
	case CPW_END_SIGNAL:
		cpw_report_note(r, "the watch was stopped by signal %d", end->signal);
		break;
	case CPW_END_DURATION:
		break;
	}
	cpw_report_note(r, "figures cover the %.1f s watched, not the process's life before it", wall_s);
}

/* Run mode: what is still running below cperfwatch is sampled so the report lists it;
 * when nothing is, every process has ended. */
static void sample_what_is_left(struct cpw_session *s)
{
	if (s->cfg->mode != CPW_MODE_RUN)
		return;
	if (sample_roots(s) == 0) {
		cpw_tree_end(s->tree, cpw_session_elapsed(s)); /* everything was waited for */
		return;
	}
	cpw_session_sample(s);
	s->report.descendants_running = cpw_tree_totals(s->tree)->alive;
}

/* The end values of the whole-run sources. */
static void read_end(struct cpw_session *s)
{
	struct cpw_run_readings *in = &s->run;
	if (in->system_psi)
		cpw_psi_read_system(s->cfg->proc_root, &s->psi_files, &in->psi_end);
	if (in->vmstat && in->vmstat_start.has_refaults &&
	    cpw_vmstat_read(s->cfg->proc_root, &s->vmstat_file, &in->vmstat_end) < 0)
		in->vmstat_end.has_refaults = false;
	if (s->cgroup)
		cpw_cgroup_read(s->cgroup, &in->cgroup_end);
	in->exit_record_overflows = s->exits ? cpw_taskstats_lost(s->exits) : 0;
	if (!s->execs && s->execs_why[0] && s->exits_without_args) /* exec args */
		cpw_report_note(&s->report, "%llu process(es) shorter than the interval are named "
				"without their arguments: %s", (unsigned long long)s->exits_without_args,
				s->execs_why);
	if (s->counters) {
		cpw_perf_read(s->counters);
		cpw_perf_figures(s->counters, &in->counter_figures);
		cpw_perf_values(s->counters, &s->counter_values);
		s->report.counters = &s->counter_values;
		in->counters = true;
	}
	in->identity_error = cpw_proc_reader_identity_error(s->reader);
}

const struct cpw_report *cpw_session_end(struct cpw_session *s, const struct cpw_session_end *end,
					 bool *budget_broken)
{
	struct cpw_report *r = &s->report;
	struct cpw_run_readings *in = &s->run;

	/* Read, in order. */
	remove_stale_groups(s);
	in->wall_s = cpw_known(end->wall_s) ? end->wall_s : cpw_session_elapsed(s);
	sample_what_is_left(s);
	drain_exits(s);
	for (size_t i = 0; s->execs && i < cpw_tree_size(s->tree); i++) { /* exec args */
		const struct cpw_proc *p = cpw_tree_proc(s->tree, i);
		if (cpw_tree_find(s->tree, p->pid) == p) /* not a pid's earlier holder */
			take_parent_exec(s, p->pid);
	}
	read_end(s);
	cpw_sampling_finish(s->sampling, r); /* hotspots */
	in->rusage_known = end->rusage_known;
	in->ru = end->ru;
	r->rusage_known = end->rusage_known;
	r->ru = end->ru;
	r->exit_known = end->exit_known;
	if (end->exit_known) {
		if (WIFSIGNALED(end->wait_status))
			r->exit_signal = WTERMSIG(end->wait_status);
		else
			r->exit_code = WEXITSTATUS(end->wait_status);
	}
	note_end(s, end, in->wall_s);

	/* Fold. */
	struct cpw_run_notes notes = { .n = 0 };
	cpw_whole_run_fold(in, s->tree, &r->metrics, &r->cgroup_mem_peak_kib, &notes);
	for (int i = 0; i < notes.n; i++)
		cpw_report_note(r, "%s", notes.line[i]);

	/* Judge: the verdict, the phases each with its own (they refine the run's), budgets. */
	cpw_gpu_watch_finish(s->gpu, s->tree, r); /* gpu: its metrics, before the verdict */
	/* Said only where it changes a figure: a run whose threads waited for storage (D) in 5%
	 * of their samples or more (JSON's delays.enabled says it always). */
	if (s->delayacct_why[0] && (r->metrics.st_disk_wait + r->metrics.st_d_other) * 20 >= r->metrics.thread_samples &&
	    r->metrics.st_disk_wait + r->metrics.st_d_other > 0)
		cpw_report_note(r, "%s; disk waits come from sampled thread states instead", s->delayacct_why);
	cpw_classify(&r->metrics, &r->verdict);
	cpw_phases_find(cpw_timeline_point(s->timeline, 0), cpw_timeline_count(s->timeline),
			r->metrics.cores_usable, s->cfg->interval_ms / 1000.0, &r->phases);
	{ /* A verdict per process (issue 27, 3): a phase that is one process's work takes it,
	   * and the tree's advice holds for each. */
		struct cpw_proc_verdicts pvs;

		cpw_process_report_judge(r, &pvs); /* as the writers judge them */
		cpw_phases_refine_verdict(&r->phases, &r->metrics, &pvs, &r->verdict);
		cpw_process_verdict_guard_advice(&pvs, &r->verdict);
	}
	/* proc_label: each phase's main process by its arguments */
	for (int i = 0; i < r->phases.n; i++) {
		const struct cpw_proc *p = cpw_tree_find(s->tree, r->phases.phase[i].procs[0].pid);
		if (p && r->phases.phase[i].procs[0].pid)
			cpw_proc_label_args(p, sizeof r->phases.phase[i].who - 1, r->phases.phase[i].who,
					    sizeof r->phases.phase[i].who);
	}
	cpw_hotspot_advice_append(r->hotspots, &r->verdict); /* hotspots */
	cpw_hotspot_advice_name_turns(r->hotspots, &r->verdict);
	cpw_gpu_verdict_apply(&r->metrics, &r->verdict); /* gpu: gpu-bound, and a held GPU that idles */
	cpw_phases_retell(&r->phases, &r->verdict);       /* gpu: "gpu-bound overall; ..." */
	cpw_leak_finding_add(s->tree, &r->leaks, &r->verdict); /* leaks */
	*budget_broken = cpw_budgets_check(s->cfg, &r->metrics, &r->verdict, r->budgets, &r->nbudgets);

	/* The groups go now, so that the kernel's clean-up of them overlaps the report; not
	 * where descendants still run in them (moving them out and retrying the rmdir can take
	 * up to 2 s: that waits until cpw_session_free(), after the report). */
	if (!r->descendants_running)
		close_sources(s);
	return r;
}

void cpw_session_snapshot(struct cpw_session *s, struct cpw_view_snapshot *snap)
{
	struct cpw_psi psi;
	struct cpw_metrics m;
	double t = cpw_session_elapsed(s);

	snap->tree = s->tree;
	snap->target = 0; /* the caller says which process the view is about */
	cpw_whole_run_so_far(&s->run, s->tree, t, &m);
	cpw_gpu_watch_metrics(s->gpu, s->tree, s->report.hotspots, t, &m); /* gpu */
	cpw_classify(&m, &snap->verdict);
	snap->elapsed_s = t;
	snap->cores_usable = s->run.cores_usable;
	/* The phases so far, once per snapshot: at most CPW_TIMELINE_CAPACITY points. They
	 * refine the verdict as they do the report's, so that the advice on screen is the
	 * advice the report will give. */
	snap->timeline = s->timeline;
	cpw_phases_find(cpw_timeline_point(s->timeline, 0), cpw_timeline_count(s->timeline),
			s->run.cores_usable, s->cfg->interval_ms / 1000.0, &snap->phases);
	/* A verdict per process so far (issue 27, 3), the view's column; a phase that is one
	 * process's work takes it, and the advice holds for each, as the report's does. */
	{
		struct cpw_proc_verdict_ctx with = {
			.waits = cpw_tree_waits(s->tree), .now_s = t,
			.cores_usable = cpw_known(m.cores_usable_sampled) ? m.cores_usable_sampled : m.cores_usable,
		};

		cpw_process_verdict_judge_tree(s->tree, &with, &snap->procs);
	}
	cpw_phases_refine_verdict(&snap->phases, &m, &snap->procs, &snap->verdict);
	cpw_process_verdict_guard_advice(&snap->procs, &snap->verdict);
	/* The top functions so far, as the report's advice will name them. */
	cpw_hotspot_advice_append(s->report.hotspots, &snap->verdict); /* hotspots */
	cpw_hotspot_advice_name_turns(s->report.hotspots, &snap->verdict);
	cpw_sampling_view(s->sampling, s->cfg, &snap->hot);            /* hotspots: f's panel */
	/* gpu: its verdict and the header's figures, as the report's */
	cpw_gpu_verdict_apply(&m, &snap->verdict);
	cpw_phases_retell(&snap->phases, &snap->verdict);
	snap->gpu_busy = cpw_gpu_watch_busy_now(s->gpu);
	if (!cpw_gpu_watch_memory_now(s->gpu, &snap->gpu_mem_used_b, &snap->gpu_mem_total_b))
		snap->gpu_mem_used_b = snap->gpu_mem_total_b = NAN;
	snap->psi_available = snap->psi_ok = false;
	if (cpw_psi_read_system(s->cfg->proc_root, &s->view_psi_files, &psi) < 0 || !psi.available)
		return;
	/* Pressure as the share of the interval since the last snapshot that some task stalled. */
	snap->psi_available = true;
	if (s->view_psi_prev.available && t > s->view_psi_prev_s) {
		struct cpw_psi d;
		double us = (t - s->view_psi_prev_s) * 1e6;
		cpw_psi_delta(&s->view_psi_prev, &psi, &d);
		snap->psi_cpu = 100.0 * (double)d.cpu_some_us / us;
		snap->psi_io = 100.0 * (double)d.io_some_us / us;
		snap->psi_mem = 100.0 * (double)d.mem_some_us / us;
		snap->psi_ok = true;
	}
	s->view_psi_prev = psi;
	s->view_psi_prev_s = t;
}

void cpw_session_free(struct cpw_session *s)
{
	if (!s)
		return;
	close_sources(s);
	cpw_tree_free(s->tree);
	cpw_proc_reader_free(s->reader);
	cpw_perf_free(s->counters);
	free(s->pending);
	free(s->pending_drain);
	free(s->pending_begin);
	cpw_timeline_free(s->timeline);
	cpw_sampling_free(s->sampling); /* hotspots */
	cpw_gpu_watch_free(s->gpu); /* gpu */
	free(s);
}
