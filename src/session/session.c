/*
 * session.c: one watch from the first sample to the report (session.h).
 */
#include "config.h"
#include "session/session.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify/classify.h"
#include "classify/phases.h"
#include "source/cgroup/cgroup.h"
#include "model/metrics.h"
#include "model/timeline.h"
#include "source/perf/perf.h"
#include "source/kernel/cpus.h"
#include "source/proc/proc_parse.h"
#include "source/proc/proc_reader.h"
#include "source/kernel/psi.h"
#include "source/kernel/taskstats.h"
#include "source/kernel/vmstat.h"
#include "util/arith.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define PENDING_MAX 4096
/* Exit records taken per poll: a small batch keeps the stack shallow (each record is ~300
 * bytes, and every new 4 KiB of stack is a page fault, 2-5 us on our VMs). */
#define EXIT_BATCH 16
/* Proportional set sizes walk each process's page tables: they are read at the first
 * sample, then at most once a second, and no more often than keeps their cost under 1% of
 * the time (PSS_COST_SHARE). */
#define PSS_PERIOD_S 1.0
#define PSS_COST_SHARE 0.01

struct cpw_session_private {
	struct cpw_psi psi_start;          /* system-wide */
	struct cpw_vmstat vmstat_start;
	struct cpw_psi_files psi_files;    /* held from the start reading to the end one */
	struct cpw_held_file vmstat_file;
	struct cpw_cgroup *cgroup;         /* run mode as root: the command's own cgroup */
	struct cpw_psi cgroup_psi_start;
	/* Pressure at the last sample, for the timeline's per-point stalls: the group's where
	 * it has its own (cgroup_psi_start.available, as for the whole run), else the system's. */
	struct cpw_psi sample_psi_prev;
	struct cpw_taskstats_listener *exits; /* root: exit records of short-lived processes */
	bool listen_tried;
	/* Exits whose parent is not known yet; allocated at the first (1 MB: most runs never
	 * need it, and mapping and unmapping it cost ~0.1 ms of every start). */
	struct cpw_taskstats_rec *pending;
	uint64_t *pending_drain;           /* the drain each pending record came in */
	size_t npending;
	uint64_t drains;                   /* drain_exits() calls so far */
	uint64_t exit_records;             /* accepted into the tree */
	/* Delays summed over the exit records of the tree's threads (delay accounting). */
	double blkio_ns, swapin_ns, thrashing_ns, reclaim_ns;
	bool delayacct_on;
	double cores_usable;               /* read with the start values; NAN: unknown */
	/* System pressure read for the live view's snapshots: the files and the last reading. */
	struct cpw_psi_files view_psi_files;
	struct cpw_psi view_psi_prev;
	double view_psi_prev_s;
	struct cpw_proc_reader *reader;    /* reads the tree from /proc for the model */
	double quota_cores;                /* the cgroup's CPU quota at the start; NAN: none */
	/* The CPUs the threads may use, as sampled: the sum over samples that knew them
	 * (each capped by the quota), their count, and the last set. */
	double sampled_cores_sum;
	uint64_t sampled_cores_n;
	char sampled_cpus[64];
	double next_pss_s;                 /* when the next sample reads the PSS */
	struct cpw_timeline *timeline;     /* one point per sample (model/timeline.c) */
};

int cpw_children_of(const char *proc_root, pid_t pid, pid_t *out, size_t max)
{
	char path[320];
	char buf[8192];

	/* cperfwatch is single-threaded: its main thread's children file lists them all. */
	snprintf(path, sizeof(path), "%s/%d/task/%d/children", proc_root, (int)pid, (int)pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	return cpw_parse_pid_list(buf, (size_t)len, out, max, NULL);
}

static void discard_exits(struct cpw_session *s)
{
	if (!s->priv->exits)
		return;
	struct cpw_taskstats_rec recs[EXIT_BATCH];
	while (cpw_taskstats_poll(s->priv->exits, recs, EXIT_BATCH) > 0)
		;
}

int cpw_session_init(struct cpw_session *s, const struct cpw_config *cfg, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->report.cfg = cfg;
	s->report.mode = cfg->mode;
	s->report.page_size = sysconf(_SC_PAGESIZE);
	cpw_metrics_init(&s->report.metrics);
	s->report.cgroup_mem_peak_kib = NAN;
	s->priv = calloc(1, sizeof(*s->priv));
	if (s->priv) {
		s->priv->cores_usable = NAN;
		s->priv->quota_cores = NAN;
		s->priv->reader = cpw_proc_reader_new(cfg->proc_root);
		s->priv->timeline = cpw_timeline_new();
	}
	s->tree = cpw_tree_new(cfg->mode == CPW_MODE_ATTACH);
	if (!s->priv || !s->priv->reader || !s->priv->timeline || !s->tree) {
		snprintf(err, errlen, "out of memory");
		cpw_session_free(s);
		return -ENOMEM;
	}
	s->report.tree = s->tree;
	s->report.timeline = s->priv->timeline;
	s->report.waits = cpw_tree_waits(s->tree);
	/* Only the JSON report names each process's user: the text and OpenMetrics reports
	 * and the live view never load libproc2 (~1 MB of shared libraries, ~1 ms to load). */
	if (cfg->format != CPW_FORMAT_JSON)
		cpw_proc_reader_skip_users(s->priv->reader);
	if (cfg->mode == CPW_MODE_RUN && !cfg->no_cgroup) {
		char why[320] = "";
		struct cpw_session_private *p = s->priv;
		if (cpw_cgroup_create(&p->cgroup, CGROUP_ROOT, why, sizeof(why)) < 0) {
			p->cgroup = NULL;
			cpw_report_note(&s->report, "not run in a cgroup of its own (%s): memory "
					"and pressure figures are system-wide", why);
		} else if (why[0]) {
			cpw_report_note(&s->report, "%s", why);
		}
	}
	return 0;
}

struct cpw_cgroup_placement *cpw_session_placement(struct cpw_session *s)
{
	return cpw_cgroup_placement(s->priv->cgroup);
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
		cpw_counters_encode_start(&encoder, cfg->events);

	char why[320] = "";
	struct cpw_session_private *p = s->priv;
	int on = cpw_taskstats_delayacct(cfg->proc_root, why, sizeof(why));
	p->delayacct_on = on == 1;
	if (on != 1)
		cpw_report_note(&s->report, "%s; disk waits come from sampled thread states instead",
				why[0] ? why : "delay accounting is off");
	cpw_session_listen(s);
	if (cpw_counters_encode_finish(&encoder, &s->counters, err, errlen) < 0)
		return -EINVAL;
	s->report.counters = s->counters;
	/* Exit records so far are from before the watch: the helper's among them. (In run
	 * mode the command may be running already: none is thrown away.) */
	if (cfg->mode == CPW_MODE_ATTACH)
		discard_exits(s);
	return 0;
}

void cpw_session_listen(struct cpw_session *s)
{
	struct cpw_session_private *p = s->priv;
	char why[320] = "";
	if (p->listen_tried)
		return;
	p->listen_tried = true;
	/* Exit records catch processes that live shorter than one interval (root only). */
	if (cpw_taskstats_listen(&p->exits, why, sizeof(why)) < 0) {
		p->exits = NULL;
		cpw_report_note(&s->report, "per-process figures of processes shorter than the "
				"interval may be missing: %s", why);
	}
}

int cpw_session_adopt(struct cpw_session *s, pid_t child)
{
	char why[1024] = "";
	if (!s->priv->cgroup)
		return 0;
	int err = cpw_cgroup_add_pid(s->priv->cgroup, child, why, sizeof why);
	if (err < 0)
		cpw_report_note(&s->report, "the command is not in all of its cgroups (%s): what "
				"those measure comes from the whole system, or is missing", why);
	return err;
}

void cpw_session_begin(struct cpw_session *s)
{
	cpw_session_start_clock(s);
	cpw_session_read_start(s);
}

void cpw_session_start_clock(struct cpw_session *s)
{
	clock_gettime(CLOCK_MONOTONIC, &s->start);
}

void cpw_session_start_at(struct cpw_session *s, const struct timespec *t)
{
	s->start = *t;
}

void cpw_session_read_start(struct cpw_session *s)
{
	struct cpw_session_private *p = s->priv;
	bool group_refaults = false;
	if (p->cgroup) {
		struct cpw_cgroup_stats st;
		cpw_cgroup_read(p->cgroup, &st);
		p->cgroup_psi_start = st.psi;
		group_refaults = st.memory_available && cpw_known(st.refaults);
	}
	/* System-wide pressure only where the group has none of its own (it would be
	 * replaced by the group's). */
	if (!p->cgroup_psi_start.available)
		cpw_psi_read_system(s->cfg->proc_root, &p->psi_files, &p->psi_start);
	p->sample_psi_prev = p->cgroup_psi_start.available ? p->cgroup_psi_start : p->psi_start;
	/* System-wide refaults only where the group has none of its own. */
	if (!group_refaults)
		cpw_vmstat_read(s->cfg->proc_root, &p->vmstat_file, &p->vmstat_start);
	if (isnan(p->cores_usable))
		cpw_session_read_cpus(s);
}

void cpw_session_read_cpus(struct cpw_session *s)
{
	/* The CPUs we may use (affinity, our cgroup's quota) do not change during a run. */
	struct cpw_cpus cpus;
	s->priv->cores_usable = cpw_cpus_usable(0, CGROUP_ROOT, NULL, &cpus) == 0 ? cpus.cores_usable
										  : NAN;
	s->priv->quota_cores = cpus.quota_cores;
}

static bool in_tree(const struct cpw_session *s, pid_t pid)
{
	return cpw_tree_find(s->tree, pid) != NULL ||
	       (s->cfg->mode == CPW_MODE_RUN && pid == getpid());
}

/* Whether a main thread's exit record is of a process the tree holds that has not been
 * reaped: attach mode's root, whose parent is outside the tree. The name must match too,
 * in case its pid was reused. */
static bool is_watched_process(const struct cpw_session *s, const struct cpw_taskstats_rec *r)
{
	const struct cpw_proc *pr = cpw_tree_find(s->tree, (pid_t)r->pid);
	return pr && !pr->reaped && strncmp(pr->comm, r->comm, 15) == 0;
}

/* Takes one exit record into the model when its process belongs to the tree. */
static bool accept_exit(struct cpw_session *s, const struct cpw_taskstats_rec *r)
{
	struct cpw_session_private *p = s->priv;
	bool main_thread = r->pid == r->tgid || r->tgid == 0;

	if (r->is_tgid)
		return true; /* the per-thread records carry what we use */
	if (main_thread ? !in_tree(s, (pid_t)r->ppid) && !is_watched_process(s, r)
			: !in_tree(s, (pid_t)r->tgid))
		return false;
	p->blkio_ns += (double)r->blkio_delay_total_ns;
	p->swapin_ns += (double)r->swapin_delay_total_ns;
	p->thrashing_ns += (double)r->thrashing_delay_total_ns;
	p->reclaim_ns += (double)r->freepages_delay_total_ns;
	if (main_thread) {
		/* ac_utime/ac_stime are raw tick samples, which overstate a task that shares its
		 * CPU; scale them to sum_exec_runtime as the kernel does for rusage and /proc. */
		double user = (double)r->utime_us / 1e6, sys = (double)r->stime_us / 1e6;
		double exact = (double)r->cpu_run_virtual_total_ns / 1e9;
		if (exact > 0 && user + sys > 0) {
			double scale = exact / (user + sys);
			user *= scale;
			sys *= scale;
		}
		cpw_tree_record_exit(s->tree, (pid_t)r->pid, (pid_t)r->ppid, r->comm, user, sys,
				     r->minflt, r->majflt, r->hiwater_rss_kib, cpw_session_elapsed(s));
		p->exit_records++;
	}
	return true;
}

/* Reads pending exit records; those whose parent is not known yet wait in pending (a
 * child's record comes before its short-lived parent's). */
static void drain_exits(struct cpw_session *s)
{
	struct cpw_session_private *p = s->priv;
	struct cpw_taskstats_rec recs[EXIT_BATCH];
	int n;

	if (!p->exits)
		return;
	p->drains++;
	while ((n = cpw_taskstats_poll(p->exits, recs, EXIT_BATCH)) > 0)
		for (int i = 0; i < n; i++) {
			if (accept_exit(s, &recs[i]) || p->npending >= PENDING_MAX)
				continue;
			if (!p->pending) {
				p->pending = malloc(PENDING_MAX * sizeof(*p->pending));
				p->pending_drain = malloc(PENDING_MAX * sizeof(*p->pending_drain));
				if (!p->pending || !p->pending_drain) {
					free(p->pending);
					free(p->pending_drain);
					p->pending = NULL;
					p->pending_drain = NULL;
					continue;
				}
			}
			p->pending_drain[p->npending] = p->drains;
			p->pending[p->npending++] = recs[i];
		}
	/* Accepting one may make another's parent known: repeat until nothing moves. */
	for (bool moved = true; moved;) {
		moved = false;
		for (size_t i = 0; i < p->npending;) {
			if (accept_exit(s, &p->pending[i])) {
				p->npending--;
				p->pending[i] = p->pending[p->npending];
				p->pending_drain[i] = p->pending_drain[p->npending];
				moved = true;
			} else {
				i++;
			}
		}
	}
	/* A parent unknown three drains on (a sample in between would have found it in the
	 * tree) is not of the tree: most pending records are other programs' exits, which
	 * would otherwise fill the buffer on a busy machine (1.3 MB). */
	for (size_t i = 0; i < p->npending;) {
		if (p->drains - p->pending_drain[i] >= 3) {
			p->npending--;
			p->pending[i] = p->pending[p->npending];
			p->pending_drain[i] = p->pending_drain[p->npending];
		} else {
			i++;
		}
	}
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
	struct cpw_session_private *p = s->priv;
	struct cpw_psi now, d;

	if (p->cgroup_psi_start.available)
		cpw_cgroup_read_psi(p->cgroup, &now);
	else
		cpw_psi_read_system(s->cfg->proc_root, &p->psi_files, &now);
	if (!now.available)
		return false;
	bool have_prev = p->sample_psi_prev.available;
	cpw_psi_delta(&p->sample_psi_prev, &now, &d);
	p->sample_psi_prev = now;
	if (!have_prev)
		return false;
	out->cpu_some_s = (double)d.cpu_some_us / 1e6;
	out->io_some_s = (double)d.io_some_us / 1e6;
	out->mem_some_s = (double)d.mem_some_us / 1e6;
	out->from_cgroup = p->cgroup_psi_start.available;
	return true;
}

int cpw_session_sample(struct cpw_session *s, const pid_t *roots, size_t nroots)
{
	struct cpw_session_private *p = s->priv;
	struct cpw_proc_sample sample;
	double now = cpw_session_elapsed(s);
	if (now >= p->next_pss_s)
		cpw_proc_reader_want_pss(p->reader);
	int rc = cpw_proc_reader_sample(p->reader, roots, nroots, &sample);
	if (rc == 0) {
		if (sample.pss_read)
			p->next_pss_s = now + cpw_max(PSS_PERIOD_S, sample.pss_cost_s / PSS_COST_SHARE);
		rc = cpw_tree_apply(s->tree, &sample, now);
		/* The CPUs the threads themselves may use now: the command may narrow them
		 * (taskset, numactl, os.sched_setaffinity) after cperfwatch saw its own. */
		if (sample.cpus_threads > 0) {
			double cores = cpw_cpuset_count(sample.cpus_allowed);
			if (cpw_known(p->quota_cores) && p->quota_cores < cores)
				cores = p->quota_cores;
			p->sampled_cores_sum += cores;
			p->sampled_cores_n++;
			cpw_cpuset_format(sample.cpus_allowed, p->sampled_cpus, sizeof(p->sampled_cpus));
		}
	}
	drain_exits(s);
	if (rc >= 0) { /* a sample that failed (out of memory) is no point of the series */
		struct cpw_tl_pressure stalls;
		cpw_timeline_record(p->timeline, s->tree, now,
				    pressure_since_last_sample(s, &stalls) ? &stalls : NULL);
	}
	return rc;
}

static void fill_from_model(struct cpw_session *s, struct cpw_metrics *m)
{
	cpw_metrics_from_tree(m, s->tree);
	cpw_metrics_from_waits(m, cpw_tree_waits(s->tree), s->tree);
	m->cores_usable = s->priv->cores_usable;
	if (s->priv->sampled_cores_n > 0) {
		m->cores_usable_sampled = s->priv->sampled_cores_sum / (double)s->priv->sampled_cores_n;
		snprintf(m->cpus_allowed_sampled, sizeof(m->cpus_allowed_sampled), "%s", s->priv->sampled_cpus);
	}
}

/* Stall seconds over the run, from two readings of cumulative PSI totals (us). */
static void psi_into_metrics(const struct cpw_psi *start, const struct cpw_psi *end, struct cpw_metrics *m)
{
	struct cpw_psi d;
	cpw_psi_delta(start, end, &d);
	m->psi_cpu_some_s = (double)d.cpu_some_us / 1e6;
	m->psi_io_some_s = (double)d.io_some_us / 1e6;
	m->psi_io_full_s = (double)d.io_full_us / 1e6;
	m->psi_mem_some_s = (double)d.mem_some_us / 1e6;
	m->psi_mem_full_s = (double)d.mem_full_us / 1e6;
}

/* The whole-run sources: deltas of pressure and refaults, the cgroup's exact figures. */
static void fill_whole_run(struct cpw_session *s, struct cpw_metrics *m)
{
	struct cpw_session_private *p = s->priv;
	struct cpw_report *r = &s->report;
	struct cpw_psi end;
	struct cpw_vmstat vm;

	if (!p->cgroup_psi_start.available) {
		if (cpw_psi_read_system(s->cfg->proc_root, &p->psi_files, &end) == 0 &&
		    p->psi_start.available &&
		    end.available) {
			psi_into_metrics(&p->psi_start, &end, m);
		} else {
			cpw_report_note(r, "pressure (PSI) unavailable: %s",
					p->psi_start.reason[0] ? p->psi_start.reason : end.reason);
		}
	}
	if (p->vmstat_start.has_refaults &&
	    cpw_vmstat_read(s->cfg->proc_root, &p->vmstat_file, &vm) == 0 &&
	    vm.has_refaults)
		m->refaults = (double)(vm.refaults - p->vmstat_start.refaults);

	if (p->cgroup) {
		struct cpw_cgroup_stats st;
		cpw_cgroup_read(p->cgroup, &st);
		if (st.memory_available) {
			if (cpw_known(st.refaults)) {
				m->refaults = st.refaults;
				m->refaults_from_cgroup = true;
			}
			m->memory_limit_kib = st.mem_limit_kib;
			r->cgroup_mem_peak_kib = st.mem_peak_kib;
			/* The command's own group: every page of the tree counted once. */
			if (cpw_known(st.mem_peak_kib)) {
				m->tree_peak_kib = st.mem_peak_kib;
				snprintf(m->tree_peak_source, sizeof(m->tree_peak_source), "cgroup");
			}
		} else if (st.memory_reason[0]) {
			cpw_report_note(r, "cgroup memory figures unavailable: %s", st.memory_reason);
		}
		if (st.psi.available && p->cgroup_psi_start.available) {
			psi_into_metrics(&p->cgroup_psi_start, &st.psi, m);
			m->psi_from_cgroup = true;
		}
		if (p->cgroup_psi_start.available && !m->psi_from_cgroup)
			cpw_report_note(r, "pressure (PSI) of the command's cgroup unavailable at the end");
	}
	if (!m->refaults_from_cgroup && cpw_known(m->refaults))
		cpw_report_note(r, "refaults are system-wide (/proc/vmstat): other programs add to them");
	m->delayacct_on = p->delayacct_on;
	if (p->delayacct_on) {
		m->blkio_delay_s = p->blkio_ns / 1e9;
		m->swapin_delay_s = p->swapin_ns / 1e9;
		m->thrashing_delay_s = p->thrashing_ns / 1e9;
		m->reclaim_delay_s = p->reclaim_ns / 1e9;
	}
}

/* The figures so far, for the live view (cheap: no I/O beyond what sampling read). */
static void interim_metrics(struct cpw_session *s, struct cpw_metrics *m)
{
	cpw_metrics_init(m);
	fill_from_model(s, m);
	m->wall_s = cpw_session_elapsed(s);
	double user = 0, sys = 0;
	for (size_t i = 0; i < cpw_tree_size(s->tree); i++) {
		user += cpw_tree_proc(s->tree, i)->user_s;
		sys += cpw_tree_proc(s->tree, i)->sys_s;
	}
	m->user_s = user;
	m->sys_s = sys;
	if (m->wall_s > 0)
		m->cores_used = (user + sys) / m->wall_s;
}

/* Attach mode: a process that ended while watched is reaped by its own parent, so the
 * figures of its last interval come only from its exit record (root). Without records,
 * says how much may be missing. */
static void note_unrecorded_exits(struct cpw_session *s)
{
	unsigned unrecorded = 0;

	if (s->cfg->mode != CPW_MODE_ATTACH)
		return;
	for (size_t i = 0; i < cpw_tree_size(s->tree); i++) {
		const struct cpw_proc *pr = cpw_tree_proc(s->tree, i);
		if (!pr->alive && !pr->reaped && !isnan(pr->exited_s))
			unrecorded++;
	}
	if (unrecorded)
		cpw_report_note(&s->report, "%u process(es) ended while watched without an exit record%s: "
				"up to one interval (%u ms) of each one's CPU time, faults and IO may be missing",
				unrecorded, s->priv->exits ? "" : " (exit records need root)",
				s->cfg->interval_ms);
}

bool cpw_session_finish(struct cpw_session *s)
{
	struct cpw_report *r = &s->report;
	struct cpw_metrics *m = &r->metrics;

	drain_exits(s);
	fill_from_model(s, m);
	fill_whole_run(s, m);
	if (!cpw_known(m->wall_s))
		m->wall_s = cpw_session_elapsed(s);
	if (r->mode == CPW_MODE_RUN && r->rusage_known) {
		/* wait4 is exact for everything reaped; the samples fill in the rest. */
		m->user_s = (double)r->ru.ru_utime.tv_sec + (double)r->ru.ru_utime.tv_usec / 1e6;
		m->sys_s = (double)r->ru.ru_stime.tv_sec + (double)r->ru.ru_stime.tv_usec / 1e6;
		m->vol_ctxsw = (uint64_t)r->ru.ru_nvcsw;
		m->invol_ctxsw = (uint64_t)r->ru.ru_nivcsw;
		m->fs_inputs = (uint64_t)r->ru.ru_inblock;
		m->fs_outputs = (uint64_t)r->ru.ru_oublock;
		if ((uint64_t)r->ru.ru_majflt > m->major_faults)
			m->major_faults = (uint64_t)r->ru.ru_majflt;
		if ((uint64_t)r->ru.ru_minflt > m->minor_faults)
			m->minor_faults = (uint64_t)r->ru.ru_minflt;
		if (!cpw_known(m->max_rss_kib) || (double)r->ru.ru_maxrss > m->max_rss_kib)
			m->max_rss_kib = (double)r->ru.ru_maxrss;
	} else {
		double user = 0, sys = 0;
		for (size_t i = 0; i < cpw_tree_size(s->tree); i++) {
			user += cpw_tree_proc(s->tree, i)->user_s;
			sys += cpw_tree_proc(s->tree, i)->sys_s;
		}
		m->user_s = user;
		m->sys_s = sys;
	}
	if (m->wall_s > 0)
		m->cores_used = (m->user_s + m->sys_s) / m->wall_s;
	if (s->counters) {
		cpw_counters_read(s->counters);
		struct cpw_counter_figures f;
		cpw_counters_figures(s->counters, &f);
		cpw_metrics_from_counters(m, &f);
	}
	/* Storage IO that could not be read is N/A, with the reason. */
	unsigned io_unreadable = 0;
	const char *io_reason = NULL;
	for (size_t i = 0; i < cpw_tree_size(s->tree); i++) {
		const struct cpw_proc *pr = cpw_tree_proc(s->tree, i);
		if (pr->io_reason[0]) {
			io_unreadable++;
			io_reason = io_reason ? io_reason : pr->io_reason;
		}
	}
	if (io_unreadable)
		cpw_report_note(r, "storage IO of %u process(es) is unavailable (%s): it counts as N/A, not 0",
				io_unreadable, io_reason);
	note_unrecorded_exits(s);
	const struct cpw_tree_totals *tt = cpw_tree_totals(s->tree);
	if (!m->tree_peak_source[0] && tt->pss_unreadable && tt->pss_errno)
		cpw_report_note(r, "the tree's peak memory (shared pages counted once) is unknown: the "
				   "proportional set size of %u process(es) is unreadable (smaps_rollup: %s)",
				tt->pss_unreadable, strerror(tt->pss_errno));
	const char *identity_error = cpw_proc_reader_identity_error(s->priv->reader);
	if (identity_error)
		cpw_report_note(r, "process users are unknown: %s", identity_error);
	if (m->samples == 0)
		cpw_report_note(r, "no sample of the tree was taken (it ran shorter than the %u ms "
				   "interval): thread states and per-process figures are unavailable",
				r->cfg->interval_ms);
	cpw_classify(m, &r->verdict);
	/* The phases, each with its verdict, and the run's verdict told by them. */
	cpw_phases_find(cpw_timeline_point(s->priv->timeline, 0), cpw_timeline_count(s->priv->timeline),
			m->cores_usable, r->cfg->interval_ms / 1000.0, &r->phases);
	cpw_phases_refine_verdict(&r->phases, m, &r->verdict);
	return cpw_report_check_budgets(r);
}

void cpw_session_remove_stale_groups(struct cpw_session *s)
{
	if (s->priv)
		cpw_cgroup_remove_stale(s->priv->cgroup);
}

void cpw_session_snapshot(struct cpw_session *s, struct cpw_view_snapshot *snap)
{
	struct cpw_session_private *p = s->priv;
	struct cpw_psi psi;
	struct cpw_metrics m;
	double t = cpw_session_elapsed(s);

	snap->tree = s->tree;
	snap->target = 0; /* the caller says which process the view is about */
	interim_metrics(s, &m);
	cpw_classify(&m, &snap->verdict);
	snap->elapsed_s = t;
	snap->cores_usable = p->cores_usable;
	/* The phases so far, once per snapshot: at most CPW_TIMELINE_CAPACITY points. They
	 * refine the verdict as they do the report's, so that the advice on screen is the
	 * advice the report will give. */
	snap->timeline = p->timeline;
	cpw_phases_find(cpw_timeline_point(p->timeline, 0), cpw_timeline_count(p->timeline),
			p->cores_usable, s->cfg->interval_ms / 1000.0, &snap->phases);
	cpw_phases_refine_verdict(&snap->phases, &m, &snap->verdict);
	snap->psi_available = snap->psi_ok = false;
	if (cpw_psi_read_system(s->cfg->proc_root, &p->view_psi_files, &psi) < 0 || !psi.available)
		return;
	/* Pressure as the share of the interval since the last snapshot that some task stalled. */
	snap->psi_available = true;
	if (p->view_psi_prev.available && t > p->view_psi_prev_s) {
		struct cpw_psi d;
		double us = (t - p->view_psi_prev_s) * 1e6;
		cpw_psi_delta(&p->view_psi_prev, &psi, &d);
		snap->psi_cpu = 100.0 * (double)d.cpu_some_us / us;
		snap->psi_io = 100.0 * (double)d.io_some_us / us;
		snap->psi_mem = 100.0 * (double)d.mem_some_us / us;
		snap->psi_ok = true;
	}
	p->view_psi_prev = psi;
	p->view_psi_prev_s = t;
}

void cpw_session_close_sources(struct cpw_session *s)
{
	struct cpw_session_private *p = s->priv;
	if (!p)
		return;
	cpw_psi_files_close(&p->psi_files);
	cpw_psi_files_close(&p->view_psi_files);
	cpw_held_file_close(&p->vmstat_file);
	cpw_taskstats_unlisten(p->exits);
	p->exits = NULL;
	if (p->cgroup)
		cpw_cgroup_destroy(p->cgroup);
	p->cgroup = NULL;
}

void cpw_session_free(struct cpw_session *s)
{
	cpw_session_close_sources(s);
	cpw_tree_free(s->tree);
	s->tree = NULL;
	if (s->priv)
		cpw_proc_reader_free(s->priv->reader);
	cpw_counters_free(s->counters);
	s->counters = NULL;
	if (s->priv) {
		free(s->priv->pending);
		free(s->priv->pending_drain);
		cpw_timeline_free(s->priv->timeline);
	}
	free(s->priv);
	s->priv = NULL;
}
