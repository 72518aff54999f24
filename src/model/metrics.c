/*
 * metrics.c: the classifier's input from the model (model/metrics.h).
 */
#include "config.h"
#include "model/metrics.h"
#include "model/tree.h"
#include "model/waits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cpw_metrics_init(struct cpw_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->wall_s = m->user_s = m->sys_s = NAN;
	m->page_kib = NAN;
	m->cores_usable = m->cores_used = NAN;
	m->top_process_cpu_share = NAN;
	m->top_process_threads = m->top_process_cpu_threads = m->top_process_runnable = NAN;
	m->top_process_lock_share = NAN;
	m->top_process_is_python = -1;
	m->cores_usable_sampled = NAN;
	m->avg_runnable_threads = NAN;
	m->oncpu_s = m->runq_wait_s = NAN;
	m->blkio_delay_s = m->swapin_delay_s = m->thrashing_delay_s = m->reclaim_delay_s = NAN;
	m->max_rss_kib = m->tree_peak_rss_kib = NAN;
	m->tree_peak_kib = m->tree_peak_pss_kib = NAN;
	m->tree_peak_source[0] = '\0';
	m->refaults = NAN;
	m->memory_limit_kib = NAN;
	m->read_bytes = m->write_bytes = NAN;
	m->psi_cpu_some_s = m->psi_io_some_s = m->psi_io_full_s = NAN;
	m->psi_mem_some_s = m->psi_mem_full_s = NAN;
	m->cycles = m->instructions = m->cache_references = m->cache_misses = NAN;
	m->llc_load_misses = m->branch_misses = m->stalled_cycles_backend = NAN;
	m->topdown_memory_bound = NAN;
	m->wait_kind_share = m->wait_target_share = m->wait_child_share = NAN;
	m->pipe_wait_s = m->pipe_feeder_cpu_share = m->pipe_feeder_wait_share = m->pipe_feeder_runq_share = NAN;
	m->wait_child_s = NAN;
	m->gpu_busy_share = m->gpu_mem_share = m->gpu_holder_cpu_share = NAN; /* gpu */
	m->gpu_holder_net_wait_share = m->gpu_wait_share = NAN;               /* gpu */
	m->gpu_driver_spin_share = NAN;                                       /* gpu */
}

void cpw_metrics_from_tree(struct cpw_metrics *m, const struct cpw_tree *t)
{
	const struct cpw_tree_totals *tt = cpw_tree_totals(t);
	double oncpu = 0, runq = 0, read = 0, write = 0, cpu_total = 0, top_cpu = -1;
	const struct cpw_proc *top = NULL;
	uint64_t minflt = 0, majflt = 0, vol = 0, invol = 0, max_rss = 0;
	bool io_known = false;

	m->samples = tt->samples;
	m->thread_samples = tt->thread_samples;
	m->st_running = tt->st_running;
	m->st_disk_wait = tt->st_disk_wait;
	m->st_d_other = tt->st_d_other;
	m->st_sleeping = tt->st_sleeping;
	m->st_other = tt->st_other;
	m->avg_runnable_threads = tt->samples ? (double)tt->runnable_sum / (double)tt->samples : NAN;
	/* A sum that never rose above 0 measured no memory (a run so short its one sample found
	 * a zombie): unknown, not 0 KiB. */
	m->tree_peak_rss_kib = tt->thread_samples && tt->peak_rss_kib > 0 ? (double)tt->peak_rss_kib : NAN;
	/* PSS where every live process's could be read at each sample that read them, and one
	 * of them was taken near the tree's peak (CPW_PSS_COVERS). */
	m->tree_peak_pss_kib = tt->pss_samples && !tt->pss_unreadable && tt->peak_pss_kib > 0 &&
				       cpw_tree_pss_covers_peak(tt)
				       ? tt->peak_pss_kib
				       : NAN;
	m->tree_peak_kib = m->tree_peak_pss_kib;
	snprintf(m->tree_peak_source, sizeof(m->tree_peak_source), "%s",
		 cpw_known(m->tree_peak_kib) ? "pss" : "");
	m->nprocs = (unsigned)cpw_tree_size(t);

	for (size_t i = 0; i < cpw_tree_size(t); i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		double cpu = p->user_s + p->sys_s;
		oncpu += p->oncpu_s;
		runq += p->runq_wait_s;
		minflt += p->minflt;
		majflt += p->majflt;
		vol += p->vol_ctxsw;
		invol += p->invol_ctxsw;
		if (p->max_rss_kib > max_rss)
			max_rss = p->max_rss_kib;
		if (!isnan(p->read_bytes)) {
			read += p->read_bytes;
			write += isnan(p->write_bytes) ? 0 : p->write_bytes;
			io_known = true;
		}
		cpu_total += cpu;
		if (cpu > top_cpu) {
			top_cpu = cpu;
			top = p;
			m->top_process_pid = p->pid;
			snprintf(m->top_process_comm, sizeof(m->top_process_comm), "%s", p->comm);
		}
	}
	if (tt->samples) {
		m->oncpu_s = oncpu;
		m->runq_wait_s = runq;
	}
	m->minor_faults = minflt;
	m->major_faults = majflt;
	m->vol_ctxsw = vol;
	m->invol_ctxsw = invol;
	m->max_rss_kib = tt->thread_samples ? (double)max_rss : NAN;
	if (io_known) {
		m->read_bytes = read;
		m->write_bytes = write;
	}
	m->top_process_cpu_share = cpu_total > 0 ? top_cpu / cpu_total : NAN;
	if (top != NULL && top->samples_in > 0) {
		m->top_process_threads = top->max_threads;
		m->top_process_cpu_threads = top->cpu_threads;
		m->top_process_runnable = (double)top->r_samples / (double)top->samples_in;
	}
	if (top != NULL)
		m->top_process_is_python = top->is_python;
}

void cpw_metrics_from_counters(struct cpw_metrics *m, const struct cpw_counter_figures *f)
{
	m->cycles = f->cycles;
	m->instructions = f->instructions;
	m->cache_references = f->cache_references;
	m->cache_misses = f->cache_misses;
	m->llc_load_misses = f->llc_load_misses;
	m->branch_misses = f->branch_misses;
	m->stalled_cycles_backend = f->stalled_cycles_backend;
	m->topdown_memory_bound = f->topdown_memory_bound;
	m->hw_counters_available = !isnan(m->cycles) && !isnan(m->instructions);
}

void cpw_metrics_thread_shares(const struct cpw_metrics *m, struct cpw_thread_shares *s)
{
	double n = (double)m->thread_samples;
	if (m->thread_samples == 0) {
		s->running = s->runnable = s->disk_wait = s->d_other = s->sleeping = s->other = NAN;
		return;
	}
	double r = (double)m->st_running / n;
	double split = 1; /* all of R is running unless schedstat says otherwise */
	if (cpw_known(m->oncpu_s) && cpw_known(m->runq_wait_s) && m->oncpu_s + m->runq_wait_s > 0)
		split = m->oncpu_s / (m->oncpu_s + m->runq_wait_s);
	s->running = r * split;
	s->runnable = r * (1 - split);
	s->disk_wait = (double)m->st_disk_wait / n;
	s->d_other = (double)m->st_d_other / n;
	s->sleeping = (double)m->st_sleeping / n;
	s->other = (double)m->st_other / n;
}

/* The process's CPU over its lifetime in the watch (1 = one core), NAN when unknown. */
static double lifetime_cpu(const struct cpw_proc *p)
{
	double end = p->alive || isnan(p->exited_s) ? p->last_seen_s : p->exited_s;
	double life = end - p->first_seen_s;
	return life > 0 ? (p->user_s + p->sys_s) / life : NAN;
}

/* The process of the tree waiting longest on a pipe that another process of the tree
 * feeds, and that feeder's own figures. */
static void fill_pipeline(struct cpw_metrics *m, const struct cpw_waits *w, const struct cpw_tree *t)
{
	const struct cpw_wait_target_time *best = NULL;

	for (size_t i = 0; i < w->ntargets; i++) {
		const struct cpw_wait_target_time *x = &w->targets[i];
		if (x->kind == CPW_WAIT_PIPE && x->peer_pid > 0 && x->peer_pid != x->pid &&
		    (!best || x->seconds > best->seconds))
			best = x;
	}
	if (!best)
		return;
	const struct cpw_proc *waiter = cpw_tree_find(t, best->pid);
	const struct cpw_proc *feeder = cpw_tree_find(t, best->peer_pid);
	m->pipe_wait_s = best->seconds;
	m->pipe_waiter_pid = best->pid;
	m->pipe_feeder_pid = best->peer_pid;
	snprintf(m->pipe_waiter_comm, sizeof(m->pipe_waiter_comm), "%s", waiter ? waiter->comm : "");
	snprintf(m->pipe_feeder_comm, sizeof(m->pipe_feeder_comm), "%s", feeder ? feeder->comm : "");
	if (feeder) {
		m->pipe_feeder_cpu_share = lifetime_cpu(feeder);
		double cpu = feeder->user_s + feeder->sys_s;
		if (cpw_known(feeder->runq_wait_s) && cpw_known(m->pipe_feeder_cpu_share) && cpu > 0)
			m->pipe_feeder_runq_share = m->pipe_feeder_cpu_share * feeder->runq_wait_s / cpu;
	}
	const struct cpw_wait_proc_time *fw = cpw_waits_proc(w, best->peer_pid);
	int fk = fw ? cpw_waits_proc_dominant(fw, &m->pipe_feeder_wait_share) : -1;
	if (fk >= 0)
		snprintf(m->pipe_feeder_wait_kind, sizeof(m->pipe_feeder_wait_kind), "%s",
			 cpw_wait_kind_name((enum cpw_wait_kind)fk));
}

void cpw_metrics_from_waits(struct cpw_metrics *m, const struct cpw_waits *w, const struct cpw_tree *t)
{
	if (!w || !(w->total_s > 0))
		return;
	int k = cpw_waits_dominant(w, &m->wait_kind_share);
	m->wait_child_share = w->seconds[CPW_WAIT_CHILD] / w->total_s;
	m->wait_child_s = w->seconds[CPW_WAIT_CHILD];
	if (k >= 0) {
		snprintf(m->wait_kind, sizeof(m->wait_kind), "%s", cpw_wait_kind_name((enum cpw_wait_kind)k));
		const struct cpw_wait_target_time *top = cpw_waits_top_target(w, (enum cpw_wait_kind)k);
		if (top && w->seconds[k] > 0) {
			snprintf(m->wait_target, sizeof(m->wait_target), "%s", top->target);
			m->wait_target_share = top->seconds / w->seconds[k];
		}
	}
	/* Files waited on for disk, most first (paths only: not "socket:[..]" leftovers). */
	const struct cpw_wait_target_time *file = NULL;
	unsigned nfiles = 0;
	for (size_t i = 0; i < w->ntargets; i++) {
		const struct cpw_wait_target_time *x = &w->targets[i];
		if (x->kind != CPW_WAIT_DISK || x->target[0] != '/')
			continue;
		nfiles++;
		if (!file || x->seconds > file->seconds)
			file = x;
	}
	m->io_files_more = nfiles > 0 ? nfiles - 1 : 0;
	if (file)
		snprintf(m->io_file, sizeof(m->io_file), "%s", file->target);
	if (t)
		fill_pipeline(m, w, t);
	/* The busiest process's share of thread time asleep on a lock (a futex): what tells
	 * threads taking turns on a lock from threads that mostly sleep on other things. */
	const struct cpw_wait_proc_time *top_waits = t ? cpw_waits_proc(w, m->top_process_pid) : NULL;
	const struct cpw_proc *top = t ? cpw_tree_find(t, m->top_process_pid) : NULL;
	if (top_waits && top && cpw_known(top->oncpu_s) && cpw_known(top->runq_wait_s)) {
		double lifetime = top_waits->total_s + top->oncpu_s + top->runq_wait_s;
		if (lifetime > 0)
			m->top_process_lock_share = top_waits->seconds[CPW_WAIT_LOCK] / lifetime;
	}
}
