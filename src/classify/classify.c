/*
 * classify.c: the verdict, a pure function from one run's metrics to {class, confidence,
 * evidence, secondary, findings, advice}. No I/O, no allocation, no globals written.
 *
 * The idea (doc/classification.md says it in plain words): decompose the tree's thread
 * lifetime into lanes,
 *   cpu   on-CPU time plus run-queue wait (labelled cpu-bound, memory-bound or cpu-starved),
 *   disk  block-IO wait (delay accounting, else sampled D states with a storage channel),
 *   mem   memory stalls (delay accounting, PSI memory, or D states when refaults explain them),
 *   wait  the rest: asleep (S) or blocked in D on something that is not storage,
 * each as a share of the busy lifetime max(wall, busy thread-seconds). A lane that passes
 * its threshold and dominates the runner-up names the verdict; thrashing wins at a lower
 * share because its stalls make everything else slow; two close lanes make it mixed.
 */
#include "classify/classify.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "classify/advice.h"
#include "classify/thresholds.h"
#include "source/proc/interp.h"
#include "util/arith.h"

/* The page size the run's faults and refaults count in: the machine's, 4 KiB where a
 * recorded fixture does not say. */
static double page_kib(const struct cpw_metrics *m)
{
	return cpw_known(m->page_kib) && m->page_kib > 0 ? m->page_kib : 4.0;
}

#define SRC_RUSAGE "wait4 rusage"
#define SRC_SCHEDSTAT "/proc/PID/task/TID/schedstat"
#define SRC_SAMPLED "sampled /proc/PID/task/TID/stat"
#define SRC_SAMPLED_SPLIT "schedstat off-CPU time split by sampled states"
#define SRC_DELAYACCT "taskstats delay accounting"
#define SRC_PROC_IO "/proc/PID/io"
#define SRC_PERF "perf_event"
#define SRC_WAITS "/proc/PID/task/TID/syscall + wchan"

enum lane { LANE_CPU, LANE_DISK, LANE_MEM, LANE_WAIT, LANE_COUNT };

/* Everything derived from the metrics, computed once. Thread-seconds unless noted. */
struct ctx {
	const struct cpw_metrics *m;
	double wall;
	double lifetime;     /* average threads alive x wall */
	double cpu;          /* on-CPU */
	const char *cpu_src;
	bool cpu_sampled;    /* no rusage, no schedstat: R states stand in */
	double runq;         /* run-queue wait, scaled to the CPU time's coverage */
	double runq_ratio;   /* runq / (on-CPU + runq); NAN when unknown */
	const char *runq_src;
	bool runq_sampled;   /* from R states, not schedstat */
	double runnable;     /* mean R threads per sample */
	double cores;        /* usable CPUs as the threads saw them (else at launch), 1 when unknown */
	bool cores_known;
	bool narrowed;       /* the command narrowed its CPUs below what it was started with */
	bool oversub;
	double runq_own;     /* the run-queue wait its own threads explain: (N - k) / N, or 0 */
	double runq_other;   /* runq_ratio less runq_own: the wait other load causes; NAN */
	bool serialised;     /* the busiest process's threads take turns (a lock) */
	bool python;         /* ... and that process is Python: the lock is the GIL */
	double top_cores;    /* the busiest process's CPU / wall; NAN */
	double disk;
	const char *disk_src;
	bool disk_sampled;
	bool disk_corroborated; /* sampled, and the command's own io.pressure (an exact clock)
				 * shows at least half of that wait */
	double dother;       /* D on something that is not storage */
	double io_path;      /* of cpu: system time that is the cost of the I/O (decompose); 0 */
	double io_bytes;     /* NAN when unknown */
	const char *io_src;
	bool refault_sig;
	bool majflt_excess;
	bool thrash_delay_sig;
	double mem;
	const char *mem_src;
	bool mem_from_dstates;
	bool mem_systemwide;
	double ref;          /* the busy lifetime every share is taken of */
	double share[LANE_COUNT];
	enum cpw_class cpu_label;  /* what the cpu lane is called */
	enum cpw_class work_label; /* cpu-bound or memory-bound, even when starved */
	bool counters;             /* cycles and instructions counted */
	bool mem_by_counters;
	bool mem_by_faults;
	double ipc, mpki, minflt_rate, sys_share;
	bool spawn;                /* the CPU work is creating processes (a fork storm) */
	double spawn_rate;         /* processes started per CPU-second; NAN */
	double samples_quality;    /* 0.6 .. 1, for a share counted from sampled states */
	double exact_quality;      /* 0.75 .. 1, for an exact clock: only the thread count is sampled */
};

static double clamp01(double x)
{
	if (!(x > 0))
		return 0;
	return x > 1 ? 1 : x;
}

static double known_or(double x, double dflt)
{
	return cpw_known(x) ? x : dflt;
}

static double pct(double share)
{
	return 100.0 * share;
}

/* The system share that makes a fault rate page-fault dominated: 60%, or none where
 * faults come more often than one per 20 us of CPU: where a fault's trap is slow (a VM)
 * it is charged as user time, and the system share says little. */
static double sys_share_needed(const struct ctx *c)
{
	return c->minflt_rate >= cpw_threshold(CPW_T_MINFLT_HEAVY) ? 0 : cpw_threshold(CPW_T_SYS_SHARE);
}

/* Adds one evidence line; lines past CPW_EVIDENCE_MAX are dropped (the first are the
 * deciding ones). */
__attribute__((format(printf, 6, 7)))
static struct cpw_evidence *add_evidence(struct cpw_verdict *v, const char *metric, double value,
			 double threshold, const char *source, const char *fmt, ...)
{
	struct cpw_evidence *e;
	va_list ap;

	if (v->nevidence >= CPW_EVIDENCE_MAX)
		return NULL;
	e = &v->evidence[v->nevidence++];
	e->aside = false;
	snprintf(e->metric, sizeof e->metric, "%s", metric);
	e->value = value;
	e->threshold = threshold;
	snprintf(e->source, sizeof e->source, "%s", source);
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
	return e;
}

/* Marks an evidence line as one the text report leaves out: its rule did not fire and its
 * figure is not near its threshold (less than half of it, or for a ceiling, more than
 * half again above it). */
static void set_aside(struct cpw_evidence *e, bool aside)
{
	if (e != NULL)
		e->aside = aside;
}

static bool far_below(double value, double threshold)
{
	return cpw_known(value) && cpw_known(threshold) && value < 0.5 * threshold;
}

__attribute__((format(printf, 2, 3)))
static void add_finding(struct cpw_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nfindings >= CPW_FINDINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(v->findings[v->nfindings++], sizeof v->findings[0], fmt, ap);
	va_end(ap);
}

/* ---- the decomposition ---- */

static void measure_cpu(struct ctx *c)
{
	const struct cpw_metrics *m = c->m;
	double rusage = NAN;

	if (cpw_known(m->user_s) || cpw_known(m->sys_s))
		rusage = known_or(m->user_s, 0) + known_or(m->sys_s, 0);

	/* schedstat misses threads that lived between two samples, rusage misses nothing in
	 * run mode: take the larger. */
	if (cpw_known(rusage) && (!cpw_known(m->oncpu_s) || rusage >= m->oncpu_s)) {
		c->cpu = rusage;
		c->cpu_src = SRC_RUSAGE;
	} else if (cpw_known(m->oncpu_s)) {
		c->cpu = m->oncpu_s;
		c->cpu_src = SRC_SCHEDSTAT;
	} else {
		c->cpu = (double)m->st_running / (double)m->thread_samples * c->lifetime;
		c->cpu_src = SRC_SAMPLED;
		c->cpu_sampled = true;
	}

	c->runq = 0;
	c->runq_ratio = NAN;
	c->runq_src = SRC_SCHEDSTAT;
	if (cpw_known(m->oncpu_s) && cpw_known(m->runq_wait_s) && m->oncpu_s + m->runq_wait_s > 0) {
		/* The ratio is schedstat's own, so threads it missed do not bias it. */
		c->runq_ratio = m->runq_wait_s / (m->oncpu_s + m->runq_wait_s);
		c->runq = m->oncpu_s > 0 ? m->runq_wait_s * (c->cpu > m->oncpu_s ? c->cpu / m->oncpu_s : 1)
					 : m->runq_wait_s;
	} else if (!c->cpu_sampled) {
		/* R in /proc means running or runnable: sampled R time minus CPU time is the wait. */
		double r_time = (double)m->st_running / (double)m->thread_samples * c->lifetime;

		c->runq = r_time > c->cpu ? r_time - c->cpu : 0;
		if (c->cpu + c->runq > 0)
			c->runq_ratio = c->runq / (c->cpu + c->runq);
		c->runq_src = SRC_SAMPLED;
		c->runq_sampled = true;
	}

	c->runnable = cpw_known(m->avg_runnable_threads) ? m->avg_runnable_threads
		: (double)m->st_running / (double)m->samples;
	/* The CPUs the threads themselves could use during the run, where sampled: the
	 * command may have narrowed what cperfwatch saw at launch (taskset, numactl). */
	if (cpw_known(m->cores_usable_sampled) && m->cores_usable_sampled > 0) {
		c->cores_known = true;
		c->cores = m->cores_usable_sampled;
		c->narrowed = cpw_known(m->cores_usable) &&
			m->cores_usable - c->cores >= cpw_threshold(CPW_T_NARROWED_CPUS);
	} else {
		c->cores_known = cpw_known(m->cores_usable) && m->cores_usable > 0;
		c->cores = c->cores_known ? m->cores_usable : 1;
	}
	c->oversub = c->runnable >= c->cores * cpw_threshold(CPW_T_OVERSUB_RATIO);
	/* N runnable threads on k CPUs wait (N - k) / N of their time by themselves. */
	c->runq_own = c->runnable > c->cores ? (c->runnable - c->cores) / c->runnable : 0;
	/* The command's own cpu.pressure 'some' is the wall time any of its threads waited for
	 * a CPU: the run-queue wait over it is how many waited at once. W at once on k CPUs
	 * wait for each other (W - k) / W of it, even when the burst (a herd of threads woken
	 * together) is too short for the samples to see. */
	if (m->psi_from_cgroup && cpw_known(m->psi_cpu_some_s) && m->psi_cpu_some_s > 0 &&
	    cpw_known(m->runq_wait_s)) {
		double at_once = m->runq_wait_s / m->psi_cpu_some_s;
		double own = at_once > c->cores ? (at_once - c->cores) / at_once : 0;

		if (own > c->runq_own)
			c->runq_own = own;
	}
	c->runq_other = cpw_known(c->runq_ratio) ? c->runq_ratio - c->runq_own : NAN;
}

static void measure_work_kind(struct ctx *c)
{
	const struct cpw_metrics *m = c->m;

	c->ipc = c->mpki = c->minflt_rate = c->sys_share = NAN;
	c->counters = m->hw_counters_available && cpw_known(m->cycles) && cpw_known(m->instructions) &&
		m->cycles > 0 && m->instructions > 0;
	if (c->counters) {
		double misses = cpw_known(m->llc_load_misses) ? m->llc_load_misses : m->cache_misses;

		c->ipc = m->instructions / m->cycles;
		if (cpw_known(misses))
			c->mpki = misses * 1000.0 / m->instructions;
	}
	if (m->hw_counters_available && cpw_known(m->topdown_memory_bound))
		/* Top-down is the better measure where the PMU has it: it decides alone. */
		c->mem_by_counters = m->topdown_memory_bound >= cpw_threshold(CPW_T_TOPDOWN_MEM);
	else if (c->counters && cpw_known(c->mpki))
		c->mem_by_counters = c->ipc < cpw_threshold(CPW_T_IPC_MAX) &&
			c->mpki >= cpw_threshold(CPW_T_LLC_MPKI);

	if (cpw_known(m->user_s) && cpw_known(m->sys_s) && m->user_s + m->sys_s > 0) {
		c->minflt_rate = (double)m->minor_faults / (m->user_s + m->sys_s);
		c->sys_share = m->sys_s / (m->user_s + m->sys_s);
		c->mem_by_faults = cpw_thresholds_faults_are_work(c->minflt_rate, c->sys_share);
	}
	/* Many processes, each a few milliseconds of CPU: the work is starting them (fork's
	 * page-table copies and copy-on-write faults, exec, the loader), not using memory. */
	c->spawn_rate = c->cpu > 0 ? (double)m->nprocs / c->cpu : NAN;
	c->spawn = (double)m->nprocs >= cpw_threshold(CPW_T_SPAWN_MIN_PROCS) && cpw_known(c->spawn_rate) &&
		c->spawn_rate >= cpw_threshold(CPW_T_SPAWN_PER_CPU_S);
	if (c->spawn)
		c->mem_by_faults = false;
	c->work_label = c->mem_by_counters || c->mem_by_faults ? CPW_CLASS_MEMORY_BOUND
							       : CPW_CLASS_CPU_BOUND;
	c->cpu_label = c->work_label;
	/* Starved only by the wait its own threads do not explain: from other load. A tree
	 * that oversubscribes its CPUs is said to, whatever else waits with it. */
	if (cpw_known(c->runq_other) && c->runq_other >= cpw_threshold(CPW_T_RUNQ_RATIO) && !c->oversub)
		c->cpu_label = CPW_CLASS_CPU_STARVED;
}

/* Whether the busiest process is Python: as the reader found it (its executable, or a
 * libpython mapped), else, where the reader did not ask (it asks once a process has a
 * second thread), as its name says: the interpreter's (python3, python3.11, pypy3) or a
 * script's run through its #! line (julia.py). CPU work in Python is never advised threads,
 * so a single-threaded interpreter must be known as one too. */
static bool top_is_python(const struct cpw_metrics *m)
{
	size_t len = strlen(m->top_process_comm);

	if (m->top_process_is_python >= 0)
		return m->top_process_is_python == 1;
	return cpw_interp_exe_is_python(m->top_process_comm) ||
	       (len > 3 && strcmp(m->top_process_comm + len - 3, ".py") == 0);
}

/* The busiest process's threads take turns: several did its CPU work, yet together about
 * one core at a time and about one runnable, with more CPUs free; where the wait analysis
 * measured it, the rest of its thread samples waited on a lock. */
static void measure_serialisation(struct ctx *c)
{
	const struct cpw_metrics *m = c->m;
	double share = cpw_known(m->top_process_cpu_share) ? m->top_process_cpu_share
		: m->nprocs <= 1 ? 1 : NAN;

	c->top_cores = cpw_known(share) && c->wall > 0 ? share * c->cpu / c->wall : NAN;
	c->python = top_is_python(m);
	c->serialised = cpw_known(m->top_process_cpu_threads) && m->top_process_cpu_threads >= 2 &&
		c->cores_known && c->cores >= 2 && cpw_known(c->top_cores) &&
		c->top_cores >= cpw_threshold(CPW_T_SERIAL_CORES_MIN) &&
		c->top_cores <= cpw_threshold(CPW_T_SERIAL_CORES_MAX) &&
		cpw_known(m->top_process_runnable) &&
		(m->top_process_runnable <= cpw_threshold(CPW_T_SERIAL_RUNNABLE_MAX) ||
		 cpw_thresholds_serial_runnable_ok(m->top_process_runnable, m->top_process_lock_share,
						c->cores)) &&
		(!cpw_known(m->top_process_lock_share) ||
		 m->top_process_lock_share >= cpw_threshold(CPW_T_SERIAL_LOCK_SHARE));
	/* Each turn wakes a waiter that then queues for a CPU: that wait is its own. */
	if (c->serialised && c->runq_own < cpw_threshold(CPW_T_SERIAL_HANDOFF_RUNQ)) {
		c->runq_own = cpw_threshold(CPW_T_SERIAL_HANDOFF_RUNQ);
		c->runq_other = cpw_known(c->runq_ratio) ? c->runq_ratio - c->runq_own : NAN;
	}
}

void cpw_classify_split_off_cpu(double off_s, double per_sample_s, const struct cpw_classify_off_samples *n,
				double io_bytes, struct cpw_classify_off_split *out)
{
	double seen = n->disk + n->d_other + n->asleep + n->other;
	double unseen;

	out->disk = out->d_other = out->wait = 0;
	if (!(off_s > 0) || !(per_sample_s >= 0))
		return;
	if (seen * per_sample_s >= off_s) {
		/* The samples stand for more than the time off the CPU: they share it. */
		out->disk = off_s * n->disk / seen;
		out->d_other = off_s * n->d_other / seen;
		out->wait = off_s - out->disk - out->d_other;
		return;
	}
	out->disk = n->disk * per_sample_s;
	out->d_other = n->d_other * per_sample_s;
	out->wait = (n->asleep + n->other) * per_sample_s;
	unseen = off_s - seen * per_sample_s;
	if (n->io_clock_idle) {
		double rest = n->d_other + n->asleep + n->other;
		if (rest > 0) {
			out->d_other += unseen * n->d_other / rest;
			out->wait += unseen * (n->asleep + n->other) / rest;
		}
	} else if (cpw_known(io_bytes) && io_bytes >= cpw_threshold(CPW_T_IO_MIN_BYTES) &&
		   n->disk >= n->d_other + n->asleep + n->other) {
		out->disk += unseen;
	} else if (seen > 0) {
		out->disk += unseen * n->disk / seen;
		out->d_other += unseen * n->d_other / seen;
		out->wait += unseen * (n->asleep + n->other) / seen;
	}
}

static void measure_io(struct ctx *c)
{
	const struct cpw_metrics *m = c->m;
	double blocks = ((double)m->fs_inputs + (double)m->fs_outputs) * 512.0;

	c->io_bytes = NAN;
	c->io_src = SRC_PROC_IO;
	if (cpw_known(m->read_bytes) || cpw_known(m->write_bytes))
		c->io_bytes = known_or(m->read_bytes, 0) + known_or(m->write_bytes, 0);
	/* rusage blocks count what /proc/PID/io of reaped children no longer shows. */
	if (blocks > 0 && !(c->io_bytes >= blocks)) {
		c->io_bytes = blocks;
		c->io_src = SRC_RUSAGE " (ru_inblock, ru_oublock)";
	}

	if (m->delayacct_on && cpw_known(m->blkio_delay_s)) {
		c->disk = m->blkio_delay_s;
		c->disk_src = SRC_DELAYACCT;
	} else {
		c->disk = (double)m->st_disk_wait / (double)m->thread_samples * c->lifetime;
		c->disk_src = SRC_SAMPLED;
		c->disk_sampled = true;
	}
	c->dother = (double)m->st_d_other / (double)m->thread_samples * c->lifetime;

	/* When the sampler shares a CPU with the tree, it mostly sees the tree's threads when
	 * they are runnable, so sampled R overstates CPU and sampled D understates the disk.
	 * schedstat's on-CPU and run-queue times are exact: the rest of the lifetime is off
	 * the CPU, and the off-CPU samples (D, S, other) only have to split it; what they did
	 * not catch is the disk's where the tree moved storage bytes and was seen waiting on
	 * nothing else more than on the disk (cpw_classify_split_off_cpu). */
	/* A thread waiting for a child (a shell, make, a Python parent) is held up by that
	 * child, whose own time is counted: its sleep is taken out of both the off-CPU time
	 * and the samples that split it, or a parent asleep all the run would dilute its
	 * child's disk wait (the wait analysis measures it; 0 without). */
	double child_wait = cpw_known(m->wait_child_s) && m->wait_child_s > 0 ? m->wait_child_s : 0;
	double per_sample = c->lifetime / (double)m->thread_samples;
	double child_samples = per_sample > 0 ? child_wait / per_sample : 0;
	double sleeping = (double)m->st_sleeping > child_samples ? (double)m->st_sleeping - child_samples : 0;
	/* The child waits add each sample's interval, the lifetime the mean over the samples:
	 * less than half a sample left over is that rounding, no thread asleep. */
	if (sleeping < 0.5)
		sleeping = 0;
	if (c->disk_sampled && cpw_known(m->oncpu_s) && cpw_known(m->runq_wait_s)) {
		/* The tree's own io.pressure is an exact clock of the time some task of it waited
		 * for IO: where it says under the corroborating share of the run, the off-CPU
		 * time no sample saw is not the disk's. */
		struct cpw_classify_off_samples n = {
			.disk = (double)m->st_disk_wait, .d_other = (double)m->st_d_other,
			.asleep = sleeping, .other = (double)m->st_other,
			.io_clock_idle = m->psi_from_cgroup && cpw_known(m->psi_io_some_s) && c->wall > 0 &&
					 m->psi_io_some_s < cpw_threshold(CPW_T_PSI_SHARE) * c->wall,
		};
		struct cpw_classify_off_split split;

		cpw_classify_split_off_cpu(c->lifetime - m->oncpu_s - m->runq_wait_s - child_wait, per_sample, &n,
					   c->io_bytes, &split);
		if (split.disk > c->disk) {
			c->disk = split.disk;
			c->disk_src = SRC_SAMPLED_SPLIT;
		}
		if (split.d_other > c->dother)
			c->dother = split.d_other;
	}
	/* The cgroup's io.pressure counts the time some task of the tree waited for IO: an
	 * exact clock. System-wide pressure would count other programs too. */
	c->disk_corroborated = c->disk_sampled && m->psi_from_cgroup && cpw_known(m->psi_io_some_s) &&
		c->disk > 0 && m->psi_io_some_s >= 0.5 * cpw_min(c->disk, c->wall);
}

static void measure_memory(struct ctx *c)
{
	const struct cpw_metrics *m = c->m;
	double rss = cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib : m->max_rss_kib;
	double limit_pages = cpw_known(m->memory_limit_kib) ? m->memory_limit_kib / page_kib(m) : NAN;

	c->refault_sig = cpw_known(m->refaults) &&
		(m->refaults >= cpw_threshold(CPW_T_REFAULT_MIN_PAGES) ||
		 (cpw_known(limit_pages) && limit_pages > 0 &&
		  m->refaults >= cpw_threshold(CPW_T_REFAULT_LIMIT_RATIO) * limit_pages));
	/* System-wide refaults may be another program's: ours only if the tree faulted pages in. */
	if (c->refault_sig && !m->refaults_from_cgroup &&
	    (double)m->major_faults < cpw_threshold(CPW_T_SYSWIDE_MIN_MAJFLT))
		c->refault_sig = false;
	/* Known refaults say more than major faults: the excess only counts without them. */
	c->majflt_excess = !cpw_known(m->refaults) && cpw_known(rss) && rss > 0 && m->major_faults > 0 &&
		(double)m->major_faults * page_kib(m) >= cpw_threshold(CPW_T_MAJFLT_RSS_RATIO) * rss;

	c->mem = 0;
	c->mem_src = "";
	if (m->delayacct_on && (cpw_known(m->swapin_delay_s) || cpw_known(m->thrashing_delay_s) ||
				cpw_known(m->reclaim_delay_s))) {
		c->mem = known_or(m->swapin_delay_s, 0) + known_or(m->thrashing_delay_s, 0) +
			 known_or(m->reclaim_delay_s, 0);
		c->mem_src = SRC_DELAYACCT;
	} else if (cpw_known(m->psi_mem_some_s) &&
		   (m->psi_from_cgroup || c->refault_sig || c->majflt_excess)) {
		/* System-wide pressure is only ours when our own refaults explain it. */
		c->mem = m->psi_mem_some_s;
		c->mem_src = m->psi_from_cgroup ? "cgroup memory.pressure" : "/proc/pressure/memory";
		c->mem_systemwide = !m->psi_from_cgroup;
	} else if (c->refault_sig || c->majflt_excess) {
		/* No stall clock at all: the storage D states are the page-ins of refaults. */
		c->mem = c->disk;
		c->mem_src = SRC_SAMPLED " (D states with refaults)";
		c->mem_from_dstates = true;
	}
	if (c->mem > c->lifetime)
		c->mem = c->lifetime;
	/* Refault page-ins show up as disk waits too: count them once, as memory stalls. */
	if ((c->refault_sig || c->majflt_excess) && c->mem > 0)
		c->disk = c->disk > c->mem ? c->disk - c->mem : 0;
}

static void decompose(struct ctx *c)
{
	double busy;

	/* D states without storage traffic are not disk (locks, a device): count them as waits. */
	if (cpw_known(c->io_bytes) && c->io_bytes < cpw_threshold(CPW_T_IO_MIN_BYTES)) {
		c->dother += c->disk;
		c->disk = 0;
	}
	busy = c->cpu + c->runq + c->disk + c->mem + c->dother;
	/* Thread-seconds of run-queue wait can near or exceed the wall time while the tree slept
	 * most of the run: 10,000 threads woken at once each wait a little. The command's own
	 * cpu.pressure 'some' is the wall time that wait took; where the tree was wholly idle
	 * (nothing on a CPU, queued or waiting for storage) for at least the waiting share of
	 * the run, that wall time is what the run-queue wait cost it. */
	if (c->m->psi_from_cgroup && cpw_known(c->m->psi_cpu_some_s) && c->runq > c->m->psi_cpu_some_s) {
		double runq_wall = c->m->psi_cpu_some_s;
		double idle = c->wall - cpw_min(c->cpu, c->wall) - runq_wall - cpw_min(c->disk, c->wall) -
			      cpw_min(c->mem, c->wall);

		if (idle >= cpw_threshold(CPW_T_WAIT_SHARE) * c->wall) {
			c->runq = runq_wall;
			busy = c->cpu + c->runq + c->disk + c->mem + c->dother;
		}
	}
	c->ref = busy > c->wall ? busy : c->wall;
	c->share[LANE_CPU] = (c->cpu + c->runq) / c->ref;
	c->share[LANE_DISK] = c->disk / c->ref;
	c->share[LANE_MEM] = c->mem / c->ref;
	c->share[LANE_WAIT] = clamp01(1.0 - c->share[LANE_CPU] - c->share[LANE_DISK] - c->share[LANE_MEM]);

	c->thrash_delay_sig = c->m->delayacct_on && cpw_known(c->m->thrashing_delay_s) &&
		c->m->thrashing_delay_s / c->ref >= cpw_threshold(CPW_T_THRASH_DELAY_SHARE);
}

/* A tree (or a phase's window) that does nothing but its I/O: storage bytes moved, the
 * disk at least notable_share of its time, its CPU at least io_path_sys_share in the
 * kernel. That system time is its I/O's cost, the disk lane's (dd's 4 KiB O_DIRECT reads:
 * 43-50% of its life in the kernel beside 50-57% waiting, io-bound or "mixed" by a point
 * either way; process_verdict.c judges a process so too). After the decomposition and the
 * serialisation (threads taking turns on a lock are not I/O). */
static void measure_io_path(struct ctx *c)
{
	double user = known_or(c->m->user_s, 0), sys = known_or(c->m->sys_s, 0);

	c->io_path = 0;
	if (!c->serialised && c->cpu > 0 && c->ref > 0 &&
	    cpw_thresholds_io_path(c->io_bytes, c->share[LANE_DISK], user, sys)) {
		c->io_path = c->cpu * sys / (user + sys);
		c->share[LANE_CPU] -= c->io_path / c->ref;
		c->share[LANE_DISK] += c->io_path / c->ref;
	}
}

static enum cpw_class lane_class(const struct ctx *c, enum lane lane)
{
	switch (lane) {
	case LANE_CPU:
		return c->cpu_label;
	case LANE_DISK:
		return CPW_CLASS_IO_BOUND;
	case LANE_MEM:
		/* Memory stalls without refaults (reclaim) are not thrashing. */
		return c->refault_sig || c->majflt_excess || c->thrash_delay_sig ? CPW_CLASS_THRASHING
										 : CPW_CLASS_MEMORY_BOUND;
	case LANE_WAIT:
	case LANE_COUNT:
		break;
	}
	return CPW_CLASS_WAITING;
}

static bool lane_qualifies(const struct ctx *c, enum lane lane)
{
	double s = c->share[lane];

	switch (lane) {
	case LANE_CPU:
		return s >= cpw_threshold(CPW_T_CPU_SHARE);
	case LANE_DISK:
		return s >= cpw_threshold(CPW_T_DISK_SHARE) &&
			c->disk + c->io_path > cpw_threshold(CPW_T_DISK_VS_CPU) * (c->cpu - c->io_path);
	case LANE_MEM:
		return s >= cpw_threshold(CPW_T_MEMSTALL_SHARE) &&
			(c->refault_sig || c->majflt_excess || c->thrash_delay_sig);
	case LANE_WAIT:
		return s >= cpw_threshold(CPW_T_WAIT_SHARE);
	case LANE_COUNT:
		break;
	}
	return false;
}

static double lane_threshold(enum lane lane)
{
	static const enum cpw_threshold_id ids[LANE_COUNT] = {
		[LANE_CPU] = CPW_T_CPU_SHARE, [LANE_DISK] = CPW_T_DISK_SHARE,
		[LANE_MEM] = CPW_T_MEMSTALL_SHARE, [LANE_WAIT] = CPW_T_WAIT_SHARE,
	};
	return cpw_threshold(ids[lane]);
}

/* ---- evidence ---- */

static void psi_line(struct cpw_verdict *v, const char *metric, double stall_s, double wall,
		     const char *file, const char *what)
{
	if (!cpw_known(stall_s) || !(wall > 0))
		return;
	set_aside(add_evidence(v, metric, stall_s / wall, cpw_threshold(CPW_T_PSI_SHARE), file,
			       "%s: %.0f%% of the run (corroborates at >= %.0f%%)", what,
			       pct(stall_s / wall), pct(cpw_threshold(CPW_T_PSI_SHARE))),
		  far_below(stall_s / wall, cpw_threshold(CPW_T_PSI_SHARE)));
}

static void evidence_cpu(const struct ctx *c, struct cpw_verdict *v, bool decisive)
{
	const struct cpw_metrics *m = c->m;

	if (c->cpu_label == CPW_CLASS_CPU_STARVED) {
		add_evidence(v, "runq_ratio", c->runq_ratio, cpw_threshold(CPW_T_RUNQ_RATIO), c->runq_src,
			     "threads waited in the run queue %.0f%% of the time they wanted a CPU (starved at >= %.0f%%)",
			     pct(c->runq_ratio), pct(cpw_threshold(CPW_T_RUNQ_RATIO)));
		add_evidence(v, "avg_runnable_threads", c->runnable, c->cores, SRC_SAMPLED,
			     "%s runnable thread%s on average for %s usable CPU%s%s: they explain %.0f%% of "
			     "the wait, the rest comes from other load",
			     cpw_verdict_figure(c->runnable).s, cpw_verdict_figure_plural(c->runnable),
			     cpw_verdict_figure(c->cores).s, cpw_verdict_figure_plural(c->cores),
			     c->cores_known ? "" : " (assumed, unknown)", pct(c->runq_own));
		if (decisive)
			psi_line(v, "psi_cpu_some_share", m->psi_cpu_some_s, c->wall,
				 m->psi_from_cgroup ? "cgroup cpu.pressure" : "/proc/pressure/cpu",
				 "some task waited for a CPU");
		return;
	}
	add_evidence(v, "cpu_share", c->share[LANE_CPU], cpw_threshold(CPW_T_CPU_SHARE), c->cpu_src,
		     c->oversub ? "on-CPU plus run-queue time is %.0f%% of the busy lifetime (cpu-bound at >= %.0f%%)"
				: "on-CPU time is %.0f%% of the busy lifetime (cpu-bound at >= %.0f%%)",
		     pct(c->share[LANE_CPU]), pct(cpw_threshold(CPW_T_CPU_SHARE)));
	if (!decisive)
		return;
	if (c->oversub)
		add_evidence(v, "avg_runnable_threads", c->runnable,
			     c->cores * cpw_threshold(CPW_T_OVERSUB_RATIO), SRC_SAMPLED,
			     "%s runnable thread%s on average for %s usable CPU%s: it saturates what it may use",
			     cpw_verdict_figure(c->runnable).s, cpw_verdict_figure_plural(c->runnable),
			     cpw_verdict_figure(c->cores).s, cpw_verdict_figure_plural(c->cores));
	if (c->cpu_label == CPW_CLASS_MEMORY_BOUND && c->mem_by_counters) {
		if (cpw_known(m->topdown_memory_bound))
			add_evidence(v, "topdown_memory_bound", m->topdown_memory_bound,
				     cpw_threshold(CPW_T_TOPDOWN_MEM), SRC_PERF,
				     "%.0f%% of pipeline slots are memory bound (memory-bound at >= %.0f%%)",
				     pct(m->topdown_memory_bound), pct(cpw_threshold(CPW_T_TOPDOWN_MEM)));
		else {
			add_evidence(v, "ipc", c->ipc, cpw_threshold(CPW_T_IPC_MAX), SRC_PERF,
				     "%.2f instructions per cycle (memory-bound below %.1f)", c->ipc, cpw_threshold(CPW_T_IPC_MAX));
			add_evidence(v, "llc_mpki", c->mpki, cpw_threshold(CPW_T_LLC_MPKI), SRC_PERF,
				     "%.1f cache misses per 1000 instructions (memory-bound at >= %.0f)", c->mpki,
				     cpw_threshold(CPW_T_LLC_MPKI));
		}
	} else if (c->counters) {
		/* Not memory-bound by the counters: near only when the IPC is low and the misses
		 * at least half the threshold. */
		bool near = c->ipc < 1.5 * cpw_threshold(CPW_T_IPC_MAX) &&
			!far_below(c->mpki, cpw_threshold(CPW_T_LLC_MPKI));

		set_aside(add_evidence(v, "ipc", c->ipc, cpw_threshold(CPW_T_IPC_MAX), SRC_PERF,
				       "%.2f instructions per cycle%s", c->ipc,
				       cpw_known(c->mpki) ? "" : " (cache misses not counted)"), !near);
		if (cpw_known(c->mpki))
			set_aside(add_evidence(v, "llc_mpki", c->mpki, cpw_threshold(CPW_T_LLC_MPKI), SRC_PERF,
					       "%.1f cache misses per 1000 instructions (memory-bound at >= %.0f with IPC < %.1f)",
					       c->mpki, cpw_threshold(CPW_T_LLC_MPKI), cpw_threshold(CPW_T_IPC_MAX)),
				  !near);
	}
	if (c->spawn) {
		add_evidence(v, "spawn_per_cpu_s", c->spawn_rate, cpw_threshold(CPW_T_SPAWN_PER_CPU_S), SRC_RUSAGE,
			     "%u processes, %.0f started per CPU-second (%.1f ms of CPU each): the work is "
			     "creating processes (process creation at >= %.0f)", m->nprocs, c->spawn_rate,
			     1000.0 / c->spawn_rate, cpw_threshold(CPW_T_SPAWN_PER_CPU_S));
		return; /* its faults are fork's copy-on-write: not a memory story */
	}
	/* Without counters the fault figures are why it is (or is not) memory-bound: show them. */
	bool heavy = cpw_known(c->minflt_rate) && c->minflt_rate >= cpw_threshold(CPW_T_MINFLT_HEAVY);
	/* Shown in text where they made it memory-bound, or where the fault rate came near. */
	bool faults_far = !c->mem_by_faults && far_below(c->minflt_rate, cpw_threshold(CPW_T_MINFLT_PER_CPU_S));
	if (cpw_known(c->minflt_rate) && (c->mem_by_faults || !c->counters))
		set_aside(add_evidence(v, "minflt_per_cpu_s", c->minflt_rate,
				       cpw_threshold(heavy ? CPW_T_MINFLT_HEAVY : CPW_T_MINFLT_PER_CPU_S), SRC_RUSAGE,
				       "%.0f minor page faults per CPU-second (memory-bound at >= %.0f, or >= %.0f with "
				       "mostly system time)", c->minflt_rate, cpw_threshold(CPW_T_MINFLT_HEAVY),
				       cpw_threshold(CPW_T_MINFLT_PER_CPU_S)), faults_far);
	if (cpw_known(c->sys_share) && (c->mem_by_faults || !c->counters))
		set_aside(add_evidence(v, "sys_share", c->sys_share, cpw_threshold(CPW_T_SYS_SHARE), SRC_RUSAGE,
				       "system time is %.0f%% of CPU time (page-fault dominated at >= %.0f%%%s)",
				       pct(c->sys_share), pct(cpw_threshold(CPW_T_SYS_SHARE)),
				       heavy ? "; not needed at this fault rate" : ""),
			  faults_far || (!c->mem_by_faults && far_below(c->sys_share, cpw_threshold(CPW_T_SYS_SHARE))));
}

static void evidence_disk(const struct ctx *c, struct cpw_verdict *v, bool decisive)
{
	const struct cpw_metrics *m = c->m;
	double vs_cpu = c->cpu - c->io_path > 0 ? (c->disk + c->io_path) / (c->cpu - c->io_path) : NAN;

	if (c->io_path > 0)
		add_evidence(v, "disk_share", c->share[LANE_DISK], cpw_threshold(CPW_T_DISK_SHARE), c->disk_src,
			     "waiting for storage (%.0f%%) or in the kernel doing that I/O (%.0f%%: system time is "
			     "%.0f%% of its CPU) is %.0f%% of the busy lifetime (io-bound at >= %.0f%%)",
			     pct(c->disk / c->ref), pct(c->io_path / c->ref),
			     pct(c->io_path / c->cpu), pct(c->share[LANE_DISK]), pct(cpw_threshold(CPW_T_DISK_SHARE)));
	else
		add_evidence(v, "disk_share", c->share[LANE_DISK], cpw_threshold(CPW_T_DISK_SHARE), c->disk_src,
			     "waiting for storage is %.0f%% of the busy lifetime (io-bound at >= %.0f%%)",
			     pct(c->share[LANE_DISK]), pct(cpw_threshold(CPW_T_DISK_SHARE)));
	if (!decisive)
		return;
	if (cpw_known(vs_cpu) && c->io_path > 0)
		add_evidence(v, "disk_vs_cpu", vs_cpu, cpw_threshold(CPW_T_DISK_VS_CPU), c->disk_src,
			     "its disk I/O (waits and the kernel's work) is %.1fx its other CPU time (io-bound above %.1fx)",
			     vs_cpu, cpw_threshold(CPW_T_DISK_VS_CPU));
	else if (cpw_known(vs_cpu))
		add_evidence(v, "disk_vs_cpu", vs_cpu, cpw_threshold(CPW_T_DISK_VS_CPU), c->disk_src,
			     "disk wait is %.1fx the CPU time (io-bound above %.1fx)", vs_cpu,
			     cpw_threshold(CPW_T_DISK_VS_CPU));
	else
		add_evidence(v, "disk_vs_cpu", NAN, cpw_threshold(CPW_T_DISK_VS_CPU), c->disk_src,
			     "disk wait with no CPU time measured at all");
	if (cpw_known(c->io_bytes))
		add_evidence(v, "storage_bytes", c->io_bytes, cpw_threshold(CPW_T_IO_MIN_BYTES), c->io_src,
			     "%.1f MiB read and written to storage (disk traffic from %.0f KiB)", c->io_bytes / 1048576.0,
			     cpw_threshold(CPW_T_IO_MIN_BYTES) / 1024.0);
	else
		add_evidence(v, "storage_bytes", NAN, cpw_threshold(CPW_T_IO_MIN_BYTES), SRC_PROC_IO,
			     "storage bytes unknown: the D states could not be confirmed as disk traffic");
	psi_line(v, "psi_io_some_share", m->psi_io_some_s, c->wall,
		 m->psi_from_cgroup ? "cgroup io.pressure" : "/proc/pressure/io", "some task waited for IO");
	if (m->io_file[0])
		add_evidence(v, "io_files", (double)m->io_files_more + 1, NAN, SRC_WAITS,
			     "disk waits were mostly on %.100s%s", m->io_file,
			     m->io_files_more ? " (and other files)" : "");
}

static void evidence_mem(const struct ctx *c, struct cpw_verdict *v, bool decisive)
{
	const struct cpw_metrics *m = c->m;

	add_evidence(v, "memstall_share", c->share[LANE_MEM], cpw_threshold(CPW_T_MEMSTALL_SHARE),
		     c->mem_src, "stalled on memory %.0f%% of the busy lifetime (thrashing at >= %.0f%% with refaults)",
		     pct(c->share[LANE_MEM]), pct(cpw_threshold(CPW_T_MEMSTALL_SHARE)));
	if (!decisive)
		return;
	if (cpw_known(m->refaults)) {
		double limit_pages = cpw_known(m->memory_limit_kib) ? m->memory_limit_kib / page_kib(m) : NAN;
		double need = cpw_threshold(CPW_T_REFAULT_MIN_PAGES);

		if (cpw_known(limit_pages) && limit_pages > 0 &&
		    cpw_threshold(CPW_T_REFAULT_LIMIT_RATIO) * limit_pages < need)
			need = cpw_threshold(CPW_T_REFAULT_LIMIT_RATIO) * limit_pages;
		add_evidence(v, "refaults", m->refaults, need,
			     m->refaults_from_cgroup ? "cgroup memory.stat workingset_refault"
						     : "/proc/vmstat workingset_refault",
			     "%.0f pages were evicted and read again (significant from %.0f)", m->refaults, need);
	}
	if (c->thrash_delay_sig)
		add_evidence(v, "thrashing_delay_s", m->thrashing_delay_s,
			     cpw_threshold(CPW_T_THRASH_DELAY_SHARE) * c->ref, SRC_DELAYACCT,
			     "%.2f s waiting for refaulted pages", m->thrashing_delay_s);
	if (c->majflt_excess) {
		double rss = cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib : m->max_rss_kib;

		add_evidence(v, "majflt_vs_rss", (double)m->major_faults * page_kib(m) / rss,
			     cpw_threshold(CPW_T_MAJFLT_RSS_RATIO), SRC_RUSAGE,
			     "major faults brought in %.1fx the peak RSS: more than a cold start reads",
			     (double)m->major_faults * page_kib(m) / rss);
	}
	if (cpw_known(m->memory_limit_kib) && m->memory_limit_kib > 0) {
		double read = m->fs_inputs > 0 ? (double)m->fs_inputs * 512.0 : known_or(m->read_bytes, NAN);

		if (cpw_known(read))
			add_evidence(v, "read_vs_limit", read / (m->memory_limit_kib * 1024.0), NAN, SRC_RUSAGE,
				     "read %.0f MiB through a %.0f MiB memory limit", read / 1048576.0,
				     m->memory_limit_kib / 1024.0);
	}
	psi_line(v, "psi_mem_full_share", m->psi_mem_full_s, c->wall,
		 m->psi_from_cgroup ? "cgroup memory.pressure" : "/proc/pressure/memory",
		 "every task stalled on memory (full)");
}

/* What the waits were on (model/waits.c): the dominant kind and its top target. */
static void wait_kind_evidence(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	if (!m->wait_kind[0])
		return;
	add_evidence(v, "wait_kind", m->wait_kind_share, NAN, SRC_WAITS,
		     "%.0f%% of the thread time waiting was on %s%s", pct(m->wait_kind_share), m->wait_kind,
		     cpw_known(m->wait_child_share) && m->wait_child_share > 0 && strcmp(m->wait_kind, "child")
			     ? " (waits for a child process aside)" : "");
	if (m->wait_target[0])
		add_evidence(v, "wait_target", m->wait_target_share, NAN, SRC_WAITS,
			     "%s waits: %.0f%% on %.80s", m->wait_kind, pct(m->wait_target_share), m->wait_target);
}

static void evidence_wait(const struct ctx *c, struct cpw_verdict *v, bool decisive)
{
	const struct cpw_metrics *m = c->m;
	double sleeping = (double)m->st_sleeping / (double)m->thread_samples;

	add_evidence(v, "wait_share", c->share[LANE_WAIT], cpw_threshold(CPW_T_WAIT_SHARE),
		     SRC_SAMPLED " + " SRC_RUSAGE,
		     "off-CPU and not waiting for storage %.0f%% of the busy lifetime (waiting at >= %.0f%%)",
		     pct(c->share[LANE_WAIT]), pct(cpw_threshold(CPW_T_WAIT_SHARE)));
	if (!decisive)
		return;
	add_evidence(v, "sleeping_share", sleeping, NAN, SRC_SAMPLED,
		     "%.0f%% of thread samples were asleep (S): timers, pipes, sockets, futexes, a child",
		     pct(sleeping));
	if (m->st_d_other > 0)
		add_evidence(v, "d_other_share", (double)m->st_d_other / (double)m->thread_samples, NAN,
			     SRC_SAMPLED, "%.0f%% of thread samples were blocked (D) on something that is not storage",
			     pct((double)m->st_d_other / (double)m->thread_samples));
	wait_kind_evidence(m, v);
}

static void evidence_lane(const struct ctx *c, struct cpw_verdict *v, enum lane lane, bool decisive)
{
	switch (lane) {
	case LANE_CPU:
		evidence_cpu(c, v, decisive);
		break;
	case LANE_DISK:
		evidence_disk(c, v, decisive);
		break;
	case LANE_MEM:
		evidence_mem(c, v, decisive);
		break;
	case LANE_WAIT:
	case LANE_COUNT:
		evidence_wait(c, v, decisive);
		break;
	}
}

/* ---- confidence ---- */

static double lane_quality(const struct ctx *c, enum lane lane, enum cpw_class cls)
{
	double q = 1.0;

	switch (lane) {
	case LANE_CPU:
		if (c->cpu_sampled)
			q *= 0.7;
		if (cls == CPW_CLASS_CPU_STARVED && c->runq_sampled)
			q *= 0.8;
		if (cls == CPW_CLASS_CPU_BOUND && !c->counters)
			q *= 0.95; /* it might be memory-bound: nothing here can tell */
		if (cls != CPW_CLASS_CPU_STARVED && (!cpw_known(c->runq_ratio) || c->runq_sampled))
			q *= 0.85; /* run-queue wait unknown or sampled: it might be starved */
		break;
	case LANE_DISK:
		if (c->disk_sampled && !c->disk_corroborated)
			q *= 0.9;
		if (!cpw_known(c->io_bytes))
			q *= 0.8;
		break;
	case LANE_MEM:
		if (c->mem_from_dstates)
			q *= 0.75;
		if (c->mem_systemwide)
			q *= 0.9;
		if (!c->refault_sig && !c->thrash_delay_sig)
			q *= 0.8; /* only major faults against RSS */
		break;
	case LANE_WAIT:
	case LANE_COUNT:
		break;
	}
	return q;
}

/* Whether the winning lane's time comes from sampled states rather than an exact clock. */
static bool lane_sampled(const struct ctx *c, enum lane lane, enum cpw_class cls)
{
	switch (lane) {
	case LANE_CPU:
		return c->cpu_sampled || (cls == CPW_CLASS_CPU_STARVED && c->runq_sampled);
	case LANE_DISK:
		return c->disk_sampled && !c->disk_corroborated;
	case LANE_MEM:
		return c->mem_from_dstates;
	case LANE_WAIT:
	case LANE_COUNT:
		break;
	}
	return true; /* the wait lane is what the sampled states leave */
}

/* A share counted from n sampled states is uncertain by its binomial standard error
 * sqrt(p (1 - p) / n): a pure sleep is sure after a few samples, a 60% share is not. Never
 * below the quality of the sample count itself. */
static double sampled_quality(const struct ctx *c, double share)
{
	double p = clamp01(share), n = (double)c->m->thread_samples;
	double q = n > 0 ? 1.0 - 2.0 * cpw_sqrt(p * (1.0 - p) / n) : 0;

	return q > c->samples_quality ? q : c->samples_quality;
}

static double corroboration(const struct ctx *c, enum cpw_class cls)
{
	const struct cpw_metrics *m = c->m;
	double stall = NAN;

	if (cls == CPW_CLASS_CPU_STARVED)
		stall = m->psi_cpu_some_s;
	else if (cls == CPW_CLASS_IO_BOUND)
		stall = m->psi_io_some_s;
	else if (cls == CPW_CLASS_THRASHING)
		stall = m->psi_mem_full_s;
	return cpw_known(stall) && stall / c->wall >= cpw_threshold(CPW_T_PSI_SHARE) ? 0.05 : 0;
}

static double confidence(const struct ctx *c, enum lane win, enum cpw_class cls, double runner_up)
{
	double thr = lane_threshold(win);
	double share = c->share[win];
	double margin, dominance, conf;

	if (cls == CPW_CLASS_CPU_STARVED) {
		thr = cpw_threshold(CPW_T_RUNQ_RATIO);
		share = c->runq_other;
	}
	margin = clamp01((share - thr) / (1.0 - thr));
	dominance = runner_up > 0 ? clamp01((c->share[win] / runner_up - cpw_threshold(CPW_T_DOMINANCE)) /
					    cpw_threshold(CPW_T_DOMINANCE))
				  : 1.0;
	/* Few samples only weaken a share that was sampled: rusage, schedstat and delay
	 * accounting are exact however short the run. */
	conf = (0.6 + 0.25 * margin + 0.15 * dominance) *
		(lane_sampled(c, win, cls) ? sampled_quality(c, c->share[win]) : c->exact_quality) *
		lane_quality(c, win, cls);
	conf += corroboration(c, cls);
	return conf < 0.05 ? 0.05 : conf > 0.99 ? 0.99 : conf;
}

/* ---- findings ---- */

static void parallel_findings(const struct ctx *c, struct cpw_verdict *v)
{
	const struct cpw_metrics *m = c->m;
	double used = cpw_known(m->cores_used) ? m->cores_used : c->cpu / c->wall;
	bool cpu_verdict = v->cls == CPW_CLASS_CPU_BOUND || v->cls == CPW_CLASS_MEMORY_BOUND;

	if (c->spawn && c->share[LANE_CPU] >= cpw_threshold(CPW_T_NOTABLE_SHARE))
		add_finding(v, "process creation: %u processes started, %.1f ms of CPU each (fork, exec, "
			       "page-table copies)", m->nprocs, 1000.0 / c->spawn_rate);
	if (c->serialised)
		add_finding(v, "%.0f threads, about one core at a time: they take turns on a lock%s",
			    m->top_process_cpu_threads,
			    c->python ? ", Python's global interpreter lock (GIL)" : "");
	if (c->narrowed) {
		if (m->cpus_allowed_sampled[0] != '\0')
			add_finding(v, "the command limited itself to CPU%s %.40s (%s of the %s it was started with)",
				    strpbrk(m->cpus_allowed_sampled, ",-") ? "s" : "", m->cpus_allowed_sampled,
				    cpw_verdict_figure(c->cores).s, cpw_verdict_figure(m->cores_usable).s);
		else
			add_finding(v, "the command limited itself to %s CPU%s (of the %s it was started with)",
				    cpw_verdict_figure(c->cores).s, cpw_verdict_figure_plural(c->cores),
				    cpw_verdict_figure(m->cores_usable).s);
	}
	if (c->oversub && c->share[LANE_CPU] >= cpw_threshold(CPW_T_NOTABLE_SHARE)) {
		if (c->cores_known)
			add_finding(v, "the tree oversubscribes its %s usable CPU%s (%s runnable thread%s on average)",
				    cpw_verdict_figure(c->cores).s, cpw_verdict_figure_plural(c->cores), cpw_verdict_figure(c->runnable).s,
				    cpw_verdict_figure_plural(c->runnable));
		else
			add_finding(v, "the tree keeps %.1f threads runnable on average (usable CPUs unknown)",
				    c->runnable);
	}
	if (cpu_verdict && c->cores_known && c->cores > 1 && !c->oversub &&
	    used <= c->cores * cpw_threshold(CPW_T_CORES_IDLE_RATIO))
		add_finding(v, "uses %.1f of %s usable cores", used, cpw_verdict_figure(c->cores).s);
	if (m->nprocs > 1 && cpw_known(m->top_process_cpu_share) &&
	    m->top_process_cpu_share >= cpw_threshold(CPW_T_TOP_PROCESS_SHARE))
		add_finding(v, "one process (pid %d, %.31s) did %.0f%% of the CPU work", m->top_process_pid,
			    m->top_process_comm[0] ? m->top_process_comm : "?", pct(m->top_process_cpu_share));
	if ((v->cls == CPW_CLASS_CPU_BOUND ||
	     (v->cls == CPW_CLASS_MIXED && v->secondary == CPW_CLASS_CPU_BOUND)) && !c->counters)
		add_finding(v, "memory stalls are not observable here (no hardware counters)");
}

static void evidence_serialised(const struct ctx *c, struct cpw_verdict *v)
{
	const struct cpw_metrics *m = c->m;
	char locks[64] = "";

	if (cpw_known(m->top_process_lock_share))
		snprintf(locks, sizeof locks, ", %.0f%% of its thread samples waiting on a lock",
			 pct(m->top_process_lock_share));
	else
		snprintf(locks, sizeof locks, " (lock waits not sampled)");
	add_evidence(v, "serialised_threads", m->top_process_cpu_threads, 2, SRC_SCHEDSTAT,
		     "pid %d: %.0f threads each did >= 10%% of its CPU work on %.2f cores, %.2f "
		     "runnable on average%s", m->top_process_pid, m->top_process_cpu_threads,
		     c->top_cores, m->top_process_runnable, locks);
}

/* What the advice may and may not recommend, from what was measured. */
static void advice_facts(const struct ctx *c, struct cpw_advice_facts *f)
{
	const struct cpw_metrics *m = c->m;
	double used = cpw_known(m->cores_used) ? m->cores_used : c->cpu / c->wall;

	memset(f, 0, sizeof *f);
	f->cores = c->cores_known ? c->cores : NAN;
	f->cores_used = used;
	f->runnable = c->runnable;
	f->oversub = c->oversub;
	f->saturated = c->oversub || !c->cores_known || used > c->cores * cpw_threshold(CPW_T_CORES_IDLE_RATIO);
	f->serialised = c->serialised;
	f->threads = c->serialised ? (int)m->top_process_cpu_threads : 0;
	f->python = c->python;
	f->spawn = c->spawn;
	f->first_touch = c->mem_by_faults && !c->mem_by_counters;
	f->nprocs = c->m->nprocs;
	f->spawn_ms = c->spawn && c->spawn_rate > 0 ? 1000.0 / c->spawn_rate : NAN;
}

/* A process of the tree waiting on a pipe that another one feeds: the feeder sets the pace,
 * so its own class is what the pipeline needs fixed. */
static void pipeline_finding(const struct ctx *c, struct cpw_verdict *v)
{
	const struct cpw_metrics *m = c->m;
	char feeder_class[48];

	if (!cpw_known(m->pipe_wait_s) || m->pipe_wait_s < cpw_threshold(CPW_T_NOTABLE_SHARE) * c->wall)
		return;
	/* A feeder that itself waits on a pipe, and computes little, waits on its waiter in
	 * turn: a queue of requests and answers (a multiprocessing pool's task and result
	 * pipes), not a stage that sets the pace. */
	if (strcmp(m->pipe_feeder_wait_kind, "pipe") == 0 &&
	    !(cpw_known(m->pipe_feeder_cpu_share) && m->pipe_feeder_cpu_share >= cpw_threshold(CPW_T_CPU_SHARE)))
		return;
	if (cpw_known(m->pipe_feeder_cpu_share) && m->pipe_feeder_cpu_share >= cpw_threshold(CPW_T_CPU_SHARE))
		snprintf(feeder_class, sizeof feeder_class, "cpu-bound (%.0f%% of a core)",
			 pct(m->pipe_feeder_cpu_share));
	else if (cpw_known(m->pipe_feeder_cpu_share) && cpw_known(m->pipe_feeder_runq_share) &&
		 m->pipe_feeder_cpu_share + m->pipe_feeder_runq_share >= cpw_threshold(CPW_T_CPU_SHARE))
		/* Beside other load it computes whenever it gets a CPU: the same stage. */
		snprintf(feeder_class, sizeof feeder_class, "cpu-bound, starved (%.0f%% of a core, queued %.0f%%)",
			 pct(m->pipe_feeder_cpu_share), pct(m->pipe_feeder_runq_share));
	else if (strcmp(m->pipe_feeder_wait_kind, "disk") == 0)
		snprintf(feeder_class, sizeof feeder_class, "io-bound");
	else if (m->pipe_feeder_wait_kind[0])
		snprintf(feeder_class, sizeof feeder_class, "waiting (on %s)", m->pipe_feeder_wait_kind);
	else
		snprintf(feeder_class, sizeof feeder_class, "of unknown class");
	add_finding(v, "%.15s waits on a pipe fed by %.15s (pid %d) %.0f%% of the run; %.15s is %s: "
		       "the pipeline's bottleneck", m->pipe_waiter_comm[0] ? m->pipe_waiter_comm : "?",
		    m->pipe_feeder_comm[0] ? m->pipe_feeder_comm : "?", m->pipe_feeder_pid,
		    pct(m->pipe_wait_s / c->wall), m->pipe_feeder_comm[0] ? m->pipe_feeder_comm : "it", feeder_class);
}

/* ---- unknown ---- */

static bool too_little_data(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	bool unknown = false;

	if (!cpw_known(m->wall_s) || m->wall_s <= 0) {
		add_evidence(v, "wall_s", m->wall_s, cpw_threshold(CPW_T_MIN_WALL_S), SRC_RUSAGE,
			     "the run's wall time is unknown");
		unknown = true;
	} else if (m->wall_s < cpw_threshold(CPW_T_MIN_WALL_S)) {
		add_evidence(v, "wall_s", m->wall_s, cpw_threshold(CPW_T_MIN_WALL_S), SRC_RUSAGE,
			     "the run lasted %.3f s (< %.2f s): start-up dominates, too short to judge",
			     m->wall_s, cpw_threshold(CPW_T_MIN_WALL_S));
		unknown = true;
	}
	if ((double)m->samples < cpw_threshold(CPW_T_MIN_SAMPLES)) {
		add_evidence(v, "samples", (double)m->samples, cpw_threshold(CPW_T_MIN_SAMPLES), SRC_SAMPLED,
			     "only %llu sampling tick%s (< %.0f): run longer or lower --interval",
			     (unsigned long long)m->samples, m->samples == 1 ? "" : "s", cpw_threshold(CPW_T_MIN_SAMPLES));
		unknown = true;
	} else if (m->thread_samples == 0) {
		add_evidence(v, "thread_samples", 0, 1, SRC_SAMPLED,
			     "no thread of the tree was seen in any sample");
		unknown = true;
	}
	return unknown;
}

/* ---- choosing ---- */

/* A qualifying lane does not win when another notable lane is close (within the dominance
 * ratio) and either qualifies too or is an active lane (cpu, disk, memory) larger than it.
 * The wait lane is the residual: short of its own threshold it blocks nothing. */
static bool blocked(const struct ctx *c, enum lane win)
{
	/* The margin: beside a notable rival (an active lane, or a wait lane that qualifies),
	 * a winner less than dominance_margin past its own threshold is mixed, so that the
	 * run-to-run spread of a share near the threshold does not flip the headline. */
	bool near = c->share[win] < lane_threshold(win) + cpw_threshold(CPW_T_DOMINANCE_MARGIN);

	for (int x = 0; x < LANE_COUNT; x++) {
		double s = c->share[x];
		bool rival = lane_qualifies(c, (enum lane)x) || x != LANE_WAIT;

		if (x == (int)win || s < cpw_threshold(CPW_T_NOTABLE_SHARE))
			continue;
		if (near && rival && lane_class(c, (enum lane)x) != lane_class(c, win))
			return true;
		if (c->share[win] >= cpw_threshold(CPW_T_DOMINANCE) * s)
			continue;
		if (lane_qualifies(c, (enum lane)x) || (x != LANE_WAIT && s > c->share[win]))
			return true;
	}
	return false;
}

/* The largest other lane, for the secondary. When thrashing, the disk waits are its
 * page-ins and mostly-system CPU time is its kernel work: neither is a second story. */
static int runner_up(const struct ctx *c, const enum lane order[LANE_COUNT], int win)
{
	for (int i = 0; i < LANE_COUNT; i++) {
		enum lane x = order[i];

		if ((int)x == win || (win >= 0 && lane_class(c, x) == lane_class(c, (enum lane)win)))
			continue;
		if (win == LANE_MEM && (x == LANE_DISK ||
					(x == LANE_CPU && cpw_known(c->sys_share) &&
					 c->sys_share >= sys_share_needed(c))))
			continue;
		return x;
	}
	return -1;
}

/* ---- the verdict ---- */

/* Everything the rules read, from the metrics (enough data assumed). */
static void measure_all(struct ctx *c, const struct cpw_metrics *m)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	c->wall = m->wall_s;
	c->lifetime = (double)m->thread_samples / (double)m->samples * c->wall;
	c->samples_quality = 0.6 + 0.4 * clamp01(((double)m->samples - cpw_threshold(CPW_T_MIN_SAMPLES)) /
						  (cpw_threshold(CPW_T_FULL_SAMPLES) - cpw_threshold(CPW_T_MIN_SAMPLES)));
	/* An exact clock's share is only as uncertain as the sampled thread count in its
	 * denominator: settled at three times the minimum samples. */
	c->exact_quality = 0.75 + 0.25 * clamp01(((double)m->samples - cpw_threshold(CPW_T_MIN_SAMPLES)) /
						  (2 * cpw_threshold(CPW_T_MIN_SAMPLES)));
	measure_cpu(c);
	measure_io(c);
	measure_memory(c);
	decompose(c);
	measure_serialisation(c);
	measure_io_path(c);
	measure_work_kind(c);
}

void cpw_classify_advise(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	struct ctx c;
	struct cpw_advice_facts facts;

	if (m == NULL || !cpw_known(m->wall_s) || m->wall_s <= 0 || m->samples == 0 ||
	    m->thread_samples == 0) {
		if (m != NULL)
			cpw_advice_fill(m, NULL, v);
		return;
	}
	measure_all(&c, m);
	advice_facts(&c, &facts);
	cpw_advice_fill(m, &facts, v);
}

void cpw_classify(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	struct ctx c;
	enum lane order[LANE_COUNT] = { LANE_CPU, LANE_DISK, LANE_MEM, LANE_WAIT };
	int win = -1, rival = -1;
	struct cpw_advice_facts facts;

	memset(v, 0, sizeof *v);
	v->cls = CPW_CLASS_UNKNOWN;
	v->secondary = CPW_CLASS_NONE;
	v->confidence = 0.1;
	if (m == NULL || too_little_data(m, v)) {
		if (m != NULL)
			cpw_advice_fill(m, NULL, v);
		return;
	}

	measure_all(&c, m);

	/* Lanes by share, largest first; a stable insertion sort of four keeps ties in lane order. */
	for (int i = 1; i < LANE_COUNT; i++) {
		enum lane x = order[i];
		int j = i;

		while (j > 0 && c.share[order[j - 1]] < c.share[x]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}

	if (lane_qualifies(&c, LANE_MEM)) {
		/* Thrashing wins at a lower share: its stalls are why everything else is slow. */
		win = LANE_MEM;
	} else {
		for (int i = 0; i < LANE_COUNT && win < 0; i++)
			if (order[i] != LANE_MEM && lane_qualifies(&c, order[i]))
				win = order[i];
		if (win >= 0 && blocked(&c, (enum lane)win))
			win = -1;
	}
	rival = runner_up(&c, order, win);

	if (win >= 0) {
		bool secondary_from_rival = false;

		v->cls = lane_class(&c, (enum lane)win);
		if (rival >= 0 && c.share[rival] >= cpw_threshold(CPW_T_NOTABLE_SHARE)) {
			v->secondary = lane_class(&c, (enum lane)rival);
			secondary_from_rival = true;
		} else if (v->cls == CPW_CLASS_CPU_STARVED) {
			/* What the work is when it does get a CPU. */
			v->secondary = c.work_label;
		}
		v->confidence = confidence(&c, (enum lane)win, v->cls, rival >= 0 ? c.share[rival] : 0);
		evidence_lane(&c, v, (enum lane)win, true);
		if (secondary_from_rival)
			evidence_lane(&c, v, (enum lane)rival, false);
	} else {
		/* No lane qualifies, or two are close: name the top two (two lanes can carry the
		 * same name: on-CPU memory-bound and reclaim stalls; then the next one). */
		enum lane a = order[0], b = order[1];

		for (int i = 2; i < LANE_COUNT && lane_class(&c, b) == lane_class(&c, a); i++)
			b = order[i];

		v->cls = CPW_CLASS_MIXED;
		v->secondary = lane_class(&c, a);
		v->confidence = (0.3 + 0.25 * clamp01(c.share[b] / c.share[a])) * c.samples_quality;
		add_finding(v, "no single resource dominates: %s (%.0f%%) and %s (%.0f%%)",
			    cpw_verdict_class_name(lane_class(&c, a)), pct(c.share[a]),
			    cpw_verdict_class_name(lane_class(&c, b)), pct(c.share[b]));
		evidence_lane(&c, v, a, true);
		evidence_lane(&c, v, b, true);
	}
	pipeline_finding(&c, v); /* first: findings past CPW_FINDINGS_MAX are dropped */
	parallel_findings(&c, v);
	if (c.serialised)
		evidence_serialised(&c, v);
	if ((v->cls == CPW_CLASS_CPU_BOUND) && !c.counters)
		/* The finding says it in the text. */
		set_aside(add_evidence(v, "hw_counters", NAN, NAN, SRC_PERF,
				       "memory stalls are not observable here (no hardware counters)"), true);
	advice_facts(&c, &facts);
	cpw_advice_fill(m, &facts, v);
}
