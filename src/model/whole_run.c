/*
 * whole_run.c: the whole run's figures from its start and end readings (whole_run.h).
 * No I/O: everything comes in through struct cpw_run_readings.
 */
#include "config.h"
#include "model/whole_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/waits.h"
#include "util/arith.h"

static void note(struct cpw_run_notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct cpw_run_notes *notes, const char *fmt, ...)
{
	if (notes->n >= CPW_RUN_NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(notes->line[notes->n++], CPW_RUN_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* The tree's part, the waits' and the cores: what the samples gave. */
static void from_samples(const struct cpw_run_readings *in, const struct cpw_tree *tree, struct cpw_metrics *m)
{
	cpw_metrics_from_tree(m, tree);
	cpw_metrics_from_waits(m, cpw_tree_waits(tree), tree);
	m->cores_usable = in->cores_usable;
	m->page_kib = in->page_kib;
	if (in->sampled_cores_n > 0) {
		m->cores_usable_sampled = in->sampled_cores_sum / (double)in->sampled_cores_n;
		snprintf(m->cpus_allowed_sampled, sizeof(m->cpus_allowed_sampled), "%s", in->sampled_cpus);
	}
}

static void cpu_from_tree(const struct cpw_tree *tree, struct cpw_metrics *m)
{
	double user = 0, sys = 0;
	for (size_t i = 0; i < cpw_tree_size(tree); i++) {
		user += cpw_tree_proc(tree, i)->user_s;
		sys += cpw_tree_proc(tree, i)->sys_s;
	}
	m->user_s = user;
	m->sys_s = sys;
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

/* Pressure, refaults, the cgroup's exact figures and the delays of the exit records. */
static void from_whole_run_sources(const struct cpw_run_readings *in, struct cpw_metrics *m,
				   double *cgroup_mem_peak_kib, struct cpw_run_notes *notes)
{
	if (in->system_psi) {
		if (in->psi_start.available && in->psi_end.available)
			psi_into_metrics(&in->psi_start, &in->psi_end, m);
		else
			note(notes, "pressure (PSI) unavailable: %s",
			     in->psi_start.reason[0] ? in->psi_start.reason : in->psi_end.reason);
	}
	if (in->vmstat && in->vmstat_start.has_refaults && in->vmstat_end.has_refaults)
		m->refaults = (double)(in->vmstat_end.refaults - in->vmstat_start.refaults);

	if (in->cgroup) {
		const struct cpw_cgroup_stats *st = &in->cgroup_end;
		if (st->memory_available) {
			if (cpw_known(st->refaults)) {
				m->refaults = st->refaults;
				m->refaults_from_cgroup = true;
			}
			m->memory_limit_kib = st->mem_limit_kib;
			*cgroup_mem_peak_kib = st->mem_peak_kib;
			/* The command's own group: every page of the tree counted once. */
			if (cpw_known(st->mem_peak_kib)) {
				m->tree_peak_kib = st->mem_peak_kib;
				snprintf(m->tree_peak_source, sizeof(m->tree_peak_source), "cgroup");
			}
		} else if (st->memory_reason[0]) {
			note(notes, "cgroup memory figures unavailable: %s", st->memory_reason);
		}
		if (st->psi.available && in->cgroup_psi_start.available) {
			psi_into_metrics(&in->cgroup_psi_start, &st->psi, m);
			m->psi_from_cgroup = true;
		}
		if (in->cgroup_psi_start.available && !m->psi_from_cgroup)
			note(notes, "pressure (PSI) of the command's cgroup unavailable at the end");
	}
	if (!m->refaults_from_cgroup && cpw_known(m->refaults))
		note(notes, "refaults are system-wide (/proc/vmstat): other programs add to them");
	m->delayacct_on = in->delayacct_on;
	if (in->delayacct_on) {
		m->blkio_delay_s = in->blkio_ns / 1e9;
		m->swapin_delay_s = in->swapin_ns / 1e9;
		m->thrashing_delay_s = in->thrashing_ns / 1e9;
		m->reclaim_delay_s = in->reclaim_ns / 1e9;
	}
}

/* Run mode: wait4 is exact for everything reaped; the samples fill in the rest. */
static void from_rusage(const struct rusage *ru, struct cpw_metrics *m)
{
	m->user_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
	m->sys_s = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
	m->vol_ctxsw = (uint64_t)ru->ru_nvcsw;
	m->invol_ctxsw = (uint64_t)ru->ru_nivcsw;
	m->fs_inputs = (uint64_t)ru->ru_inblock;
	m->fs_outputs = (uint64_t)ru->ru_oublock;
	if ((uint64_t)ru->ru_majflt > m->major_faults)
		m->major_faults = (uint64_t)ru->ru_majflt;
	if ((uint64_t)ru->ru_minflt > m->minor_faults)
		m->minor_faults = (uint64_t)ru->ru_minflt;
	if (!cpw_known(m->max_rss_kib) || (double)ru->ru_maxrss > m->max_rss_kib)
		m->max_rss_kib = (double)ru->ru_maxrss;
}

/* What the tree could not say, and why. */
static void note_gaps(const struct cpw_run_readings *in, const struct cpw_tree *tree,
		      const struct cpw_metrics *m, struct cpw_run_notes *notes)
{
	/* Storage IO that could not be read is N/A, with the reason. */
	unsigned io_unreadable = 0, unrecorded = 0;
	const char *io_reason = NULL;
	for (size_t i = 0; i < cpw_tree_size(tree); i++) {
		const struct cpw_proc *pr = cpw_tree_proc(tree, i);
		if (pr->io_reason[0]) {
			io_unreadable++;
			io_reason = io_reason ? io_reason : pr->io_reason;
		}
		/* Attach mode: a process that ended while watched is reaped by its own parent,
		 * so its last interval comes only from its exit record (root). */
		if (in->attach && !pr->alive && !pr->reaped && !isnan(pr->exited_s))
			unrecorded++;
	}
	if (io_unreadable)
		note(notes, "storage IO of %u process(es) is unavailable (%s): it counts as N/A, not 0",
		     io_unreadable, io_reason);
	if (unrecorded)
		note(notes, "%u process(es) ended while watched without an exit record%s: "
		     "up to one interval (%u ms) of each one's CPU time, faults and IO may be missing",
		     unrecorded, in->exit_records ? "" : " (exit records need root)", in->interval_ms);
	const struct cpw_tree_totals *tt = cpw_tree_totals(tree);
	if (!m->tree_peak_source[0] && tt->pss_unreadable && tt->pss_errno)
		note(notes, "the tree's peak memory (shared pages counted once) is unknown: the "
		     "proportional set size of %u process(es) is unreadable (smaps_rollup: %s)",
		     tt->pss_unreadable, strerror(tt->pss_errno));
	else if (!m->tree_peak_source[0] && tt->pss_samples && tt->peak_pss_kib > 0 && !cpw_tree_pss_covers_peak(tt))
		note(notes, "the tree's peak memory (shared pages counted once) is unknown: it grew "
		     "after its last proportional set size reading (one is taken each time the tree "
		     "grows by a quarter, within 1%% of the time)");
	if (in->exit_record_overflows)
		note(notes, "exit records were lost %llu time(s) (the kernel's socket buffer overflowed, "
		     "at least one record each time): processes shorter than the interval may be "
		     "missing from the per-process figures", (unsigned long long)in->exit_record_overflows);
	if (in->samples_failed)
		note(notes, "%u sample(s) of the tree could not be read (%s): thread states and "
		     "per-process figures miss them", in->samples_failed, strerror(in->sample_errno));
	if (in->identity_error)
		note(notes, "process users are unknown: %s", in->identity_error);
	if (m->samples == 0)
		note(notes, "no sample of the tree was taken (it ran shorter than the %u ms "
		     "interval): thread states and per-process figures are unavailable", in->interval_ms);
}

void cpw_whole_run_fold(const struct cpw_run_readings *in, const struct cpw_tree *tree,
			struct cpw_metrics *m, double *cgroup_mem_peak_kib, struct cpw_run_notes *notes)
{
	*cgroup_mem_peak_kib = NAN;
	from_samples(in, tree, m);
	from_whole_run_sources(in, m, cgroup_mem_peak_kib, notes);
	m->wall_s = in->wall_s;
	if (!in->attach && in->rusage_known)
		from_rusage(&in->ru, m);
	else
		cpu_from_tree(tree, m);
	if (m->wall_s > 0)
		m->cores_used = (m->user_s + m->sys_s) / m->wall_s;
	if (in->counters)
		cpw_metrics_from_counters(m, &in->counter_figures);
	note_gaps(in, tree, m, notes);
}

void cpw_whole_run_so_far(const struct cpw_run_readings *in, const struct cpw_tree *tree,
			  double elapsed_s, struct cpw_metrics *m)
{
	cpw_metrics_init(m);
	from_samples(in, tree, m);
	m->wall_s = elapsed_s;
	cpu_from_tree(tree, m);
	if (m->wall_s > 0)
		m->cores_used = (m->user_s + m->sys_s) / m->wall_s;
}
