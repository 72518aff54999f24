/*
 * process_verdict.c: a verdict per process (see process_verdict.h and doc/classification.md,
 * "A verdict per process"). The lanes and thresholds are the classifier's: a process's
 * thread-seconds on a CPU, queued for one, waiting for the disk and waiting on anything
 * else (its children aside), each as a share of its own time. Pure: no I/O, no globals.
 */
#include "classify/process_verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "classify/advice.h"
#include "classify/thresholds.h"
#include "model/metrics.h"
#include "source/proc/interp.h"
#include "util/arith.h"
#include "util/escape.h"

enum pv_lane { PV_CPU, PV_DISK, PV_WAIT, PV_NLANES };

/* One process's figures, in thread-seconds. */
struct pv_in {
	const struct cpw_proc *p;
	const struct cpw_wait_proc_time *w; /* NULL: it never waited, or not probed */
	double cpu, runq, disk, lock, other, life, ref;
	double unnamed; /* of other: off the CPU with no wait of its caught (fit_off_cpu) */
	double io_path; /* of cpu: its system time, the cost of its I/O (io_path()); 0 */
	double share[PV_NLANES];
	bool probed;
	bool serialised;
	bool python;
	enum cpw_class cpu_label;
};

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static double pct(double share)
{
	return 100.0 * share;
}

static double end_of(const struct cpw_proc *p, double now_s)
{
	if (cpw_known(p->exited_s))
		return p->exited_s;
	return cpw_known(now_s) && now_s > p->last_seen_s ? now_s : p->last_seen_s;
}

static double proc_cpu(const struct cpw_proc *p)
{
	double cpu = p->user_s + p->sys_s;

	if (!(cpu > 0) && cpw_known(p->oncpu_s))
		cpu = p->oncpu_s;
	return cpw_known(cpu) && cpu > 0 ? cpu : 0;
}

/* Its own waits: every kind but its children (a parent that waits for its children waits
 * for their work, which is theirs). */
static double own_waits(const struct cpw_wait_proc_time *w)
{
	return w ? w->total_s - w->seconds[CPW_WAIT_CHILD] : 0;
}

static bool is_python(const struct cpw_proc *p)
{
	size_t len = strlen(p->comm);

	if (p->is_python >= 0)
		return p->is_python == 1;
	return cpw_interp_exe_is_python(p->comm) ||
	       (len > 3 && strcmp(p->comm + len - 3, ".py") == 0);
}

/* The threads take turns on a lock: the classifier's rule (classify.c,
 * measure_serialisation) on this process alone, save for other load: beside it the turns
 * still come one at a time, only slower, so "busy" counts the time queued for a CPU, and
 * the woken threads that queue for one (more than serial_runnable_max runnable) are other
 * load's doing where the run-queue wait is past what the turns cause (serial_handoff_runq
 * and the margin). */
static bool takes_turns(const struct pv_in *in, double cores_usable)
{
	const struct cpw_proc *p = in->p;
	double cores = in->life > 0 ? in->cpu / in->life : NAN;
	double wanted = in->life > 0 ? (in->cpu + in->runq) / in->life : NAN;
	double runnable = p->samples_in ? (double)p->r_samples / (double)p->samples_in : NAN;
	double lock_share = in->probed && in->ref > 0 ? in->lock / in->ref : NAN;
	bool queued = in->cpu + in->runq > 0 &&
		in->runq / (in->cpu + in->runq) >= cpw_threshold(CPW_T_SERIAL_HANDOFF_RUNQ) +
		cpw_threshold(CPW_T_DOMINANCE_MARGIN);

	return p->cpu_threads >= 2 && cpw_known(cores) &&
		wanted >= cpw_threshold(CPW_T_SERIAL_CORES_MIN) &&
		cores <= cpw_threshold(CPW_T_SERIAL_CORES_MAX) &&
		cpw_known(runnable) && (runnable <= cpw_threshold(CPW_T_SERIAL_RUNNABLE_MAX) ||
					(queued && cpw_known(lock_share)) ||
					cpw_thresholds_serial_runnable_ok(runnable, lock_share, cores_usable)) &&
		(!cpw_known(lock_share) || lock_share >= cpw_threshold(CPW_T_SERIAL_LOCK_SHARE));
}

/* The share of its thread-time wanting a CPU that its own threads explain: runnable
 * threads past the CPUs it may use queue behind each other (3 threads on 1 CPU: 2/3). */
static double own_queue(const struct cpw_proc *p, double cores_usable)
{
	double runnable = p->samples_in ? (double)p->r_samples / (double)p->samples_in : NAN;

	if (!cpw_known(runnable) || !cpw_known(cores_usable) || cores_usable <= 0 ||
	    runnable <= cores_usable)
		return 0;
	return (runnable - cores_usable) / runnable;
}

/* The processes judged, for what one process's verdict needs of the others. */
struct pv_all {
	const struct cpw_proc *(*at)(const void *ctx, size_t i);
	const void *ctx;
	size_t n;
};

/* Whether p waits for its workers: a process pool's parent (multiprocessing.Pool,
 * ProcessPoolExecutor), whose result-handler thread waits on the pipes its children write
 * (a poll on several: no one peer is named), or whose handler threads sleep idle by design
 * through long chunks, while its main thread waits on a lock (the result's event), and
 * whose children compute (their CPU and run-queue wait at least cpu_share of its life)
 * where it does not. Those waits are its workers' work, as a parent's wait4 is its
 * children's. */
static bool waits_for_workers(const struct pv_in *in, const struct pv_all *all)
{
	const struct cpw_proc *p = in->p;
	double share = cpw_threshold(CPW_T_CPU_SHARE), workers = 0;

	/* Its result handler's pipe waits, or its handler threads idle by design (they do not
	 * run while the workers compute long chunks): a pool's shape. */
	if (!in->w || !all || !(in->life > 0) || in->cpu >= share * in->life ||
	    (in->w->seconds[CPW_WAIT_PIPE] <= 0 && !(in->w->idle_s > 0)))
		return false;
	for (size_t i = 0; i < all->n; i++) {
		const struct cpw_proc *q = all->at(all->ctx, i);

		/* On a CPU or queued for one: beside other load they compute whenever they can. */
		if (q->ppid == p->pid && q->pid != p->pid)
			workers += proc_cpu(q) + (cpw_known(q->runq_wait_s) && q->runq_wait_s > 0 ? q->runq_wait_s : 0);
	}
	return workers >= share * in->life;
}

/* A single-threaded process's time off the CPU is exact: from its first sight to its end
 * (its exit record's, else its last sight: never more than it lived), less its CPU and
 * run-queue time (schedstat). Its probed waits only say what that time was: each stands
 * for a whole interval, so they are scaled down to it where they add up to more (a thread
 * caught in D now and then beside other load, queued for a CPU between its reads). Where
 * they add up to less, and it is no parent of a tree process, the rest is the disk's if it
 * moved at least io_min_bytes of storage and was probed waiting on the disk at least as
 * long as on anything else (no wait probed at all counts): a wait that blocks and wakes
 * between two samples is rarely caught (dd's 4 KiB O_DIRECT reads block ~50 us each; runs
 * of dd alone were 37-100% on a CPU by what the probe caught). Otherwise the rest is shared
 * in proportion to the waits caught, or, with none caught, is a wait nobody could name, as
 * without the probe. The waits of a process that had several threads stay as probed
 * (their lives are not kept). The tree's split is the same (cpw_classify_split_off_cpu). */
static void fit_off_cpu(struct pv_in *in, double io, bool parent)
{
	const struct cpw_proc *p = in->p;
	double end = p->reaped && cpw_known(p->exited_s) ? p->exited_s : p->last_seen_s;
	double off = end - p->first_seen_s - in->cpu - in->runq;
	double child = in->w ? in->w->seconds[CPW_WAIT_CHILD] : 0;
	double probed = in->disk + in->lock + in->other + child;
	double rest, own;

	if (p->max_threads > 1 || p->nthreads > 1 || !cpw_known(off))
		return;
	if (off < 0)
		off = 0;
	if (probed > off) {
		double scale = off / probed;

		in->disk *= scale;
		in->lock *= scale;
		in->other *= scale;
		return;
	}
	/* A parent's rest stays in no lane: its storage bytes hold its reaped children's, and
	 * its time off the CPU is mostly theirs (a shell that ran dd was "io-bound, 100%
	 * waiting for the disk" where the probe caught little of its wait for them). */
	if (parent)
		return;
	rest = off - probed;
	own = in->disk + in->lock + in->other;
	if (cpw_known(io) && io >= cpw_threshold(CPW_T_IO_MIN_BYTES) && in->disk >= in->lock + in->other) {
		in->disk += rest;
	} else if (own > 0) {
		/* Shared as the caught waits were, as the tree's split does: where the probe
		 * caught under half of `sleep 1`'s second, it had no verdict at all (2 CI runs
		 * of 3). */
		in->disk += rest * in->disk / own;
		in->lock += rest * in->lock / own;
		in->other += rest * in->other / own;
	} else {
		/* No wait of its caught (seen from its exit record alone, or running at every
		 * look): as without the probe, a wait nobody could name, which alone does not
		 * make it matter (matters()). */
		in->other += rest;
		in->unnamed = rest;
	}
}

/* A process that does nothing but its I/O (its CPU at least io_path_sys_share in the
 * kernel, storage bytes moved, waiting for the disk at least notable_share of its time)
 * spends that kernel time on its I/O: the disk lane's. dd's 4 KiB O_DIRECT reads spend
 * 43-50% of its life in the kernel and 50-57% waiting, and by a point either way it was
 * io-bound or "mixed" from run to run; both halves are the cost of its small reads. Its
 * shares as reported stay as measured (cpu_share holds that system time). */
static void io_path(struct pv_in *in, double io)
{
	const struct cpw_proc *p = in->p;

	if (!(in->ref > 0) || !(in->cpu > 0) || in->serialised || !cpw_known(p->sys_s) ||
	    !cpw_thresholds_io_path(io, in->disk / in->ref, p->user_s, p->sys_s))
		return;
	in->io_path = cpw_min(p->sys_s, in->cpu);
	in->share[PV_CPU] -= in->io_path / in->ref;
	in->share[PV_DISK] += in->io_path / in->ref;
}

/* Whether p is the parent of a process of the tree. */
static bool parent_of_any(const struct cpw_proc *p, const struct pv_all *all)
{
	for (size_t i = 0; all && i < all->n; i++) {
		const struct cpw_proc *q = all->at(all->ctx, i);

		if (q->ppid == p->pid && q->pid != p->pid)
			return true;
	}
	return false;
}

/* Its CPU went to page faults, by the tree's rule (classify.c: minflt_per_cpu_s, with
 * sys_share of system time below minflt_heavy): memory-bound work, not computing. A
 * parent's faults are its forks' copy-on-write (a fork storm is process creation). A run
 * of one such process was "memory-bound" while its own line said "cpu-bound". */
static bool faulting(const struct cpw_proc *p, bool parent)
{
	double cpu = p->user_s + p->sys_s;

	return !parent && cpu >= cpw_threshold(CPW_T_MIN_WALL_S) && cpw_known(p->sys_s) &&
	       cpw_thresholds_faults_are_work((double)p->minflt / cpu, p->sys_s / cpu);
}

static void measure(struct pv_in *in, const struct cpw_proc *p, const struct cpw_proc_verdict_ctx *with,
		    const struct pv_all *all)
{
	const struct cpw_waits *waits = with->waits;
	double now_s = with->now_s;
	bool parent = parent_of_any(p, all);
	double io;

	memset(in, 0, sizeof *in);
	in->p = p;
	in->probed = waits != NULL && waits->probed;
	in->w = in->probed ? cpw_waits_proc(waits, p->pid) : NULL;
	in->cpu = proc_cpu(p);
	in->runq = cpw_known(p->runq_wait_s) && p->runq_wait_s > 0 ? p->runq_wait_s : 0;
	in->life = end_of(p, now_s) - p->first_seen_s;
	if (!(in->life > 0))
		in->life = 0;
	if (in->w) {
		in->disk = in->w->seconds[CPW_WAIT_DISK] + in->w->seconds[CPW_WAIT_PAGE_IN];
		in->lock = in->w->seconds[CPW_WAIT_LOCK];
		in->other = own_waits(in->w) - in->disk - in->lock;
		if (in->other < 0)
			in->other = 0;
	}
	/* A process that computed all along (its CPU and run-queue time at least cpu_share of
	 * its life) does its helpers' waits beside its work: a DataLoader worker's queue
	 * feeder and listener, 2 of its 3 threads, made it "waiting 66%" on a real GPU host
	 * while its main thread computed throughout. Only its working threads' waits count. */
	if (in->w && in->life > 0 && in->cpu + in->runq >= cpw_threshold(CPW_T_CPU_SHARE) * in->life) {
		const double *h = in->w->helper_seconds;
		double h_disk = h[CPW_WAIT_DISK] + h[CPW_WAIT_PAGE_IN], h_lock = h[CPW_WAIT_LOCK];
		double h_all = 0;

		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
			if (k != CPW_WAIT_CHILD)
				h_all += h[k];
		in->disk = cpw_max(0.0, in->disk - h_disk);
		in->lock = cpw_max(0.0, in->lock - h_lock);
		in->other = cpw_max(0.0, in->other - (h_all - h_disk - h_lock));
	}
	if (waits_for_workers(in, all)) {
		in->other = cpw_max(0.0, in->other - in->w->seconds[CPW_WAIT_PIPE]);
		in->lock = 0;
	}
	io = (cpw_known(p->read_bytes) ? p->read_bytes : 0) + (cpw_known(p->write_bytes) ? p->write_bytes : 0);
	if (in->probed)
		fit_off_cpu(in, cpw_known(p->read_bytes) || cpw_known(p->write_bytes) ? io : NAN, parent);
	/* D states without storage traffic are not disk (a lock, a device). */
	if (cpw_known(p->read_bytes) && io < cpw_threshold(CPW_T_IO_MIN_BYTES)) {
		in->other += in->disk;
		in->disk = 0;
	}
	in->ref = in->cpu + in->runq + in->disk + in->lock + in->other;
	/* Unprobed, what one thread did not spend on a CPU went to waits we cannot name. */
	if (!in->probed && in->life > in->ref) {
		in->other += in->life - in->ref;
		in->ref = in->life;
	}
	in->python = is_python(p);
	in->serialised = takes_turns(in, with->cores_usable);
	in->cpu_label = faulting(p, parent) ? CPW_CLASS_MEMORY_BOUND : CPW_CLASS_CPU_BOUND;
	if (in->cpu + in->runq > 0) {
		double runq_ratio = in->runq / (in->cpu + in->runq) - own_queue(p, with->cores_usable);
		double own = in->serialised ? cpw_threshold(CPW_T_SERIAL_HANDOFF_RUNQ)
			: cpw_threshold(CPW_T_RUNQ_RATIO);

		if (runq_ratio >= own + cpw_threshold(CPW_T_DOMINANCE_MARGIN))
			in->cpu_label = CPW_CLASS_CPU_STARVED;
	}
	if (in->ref > 0) {
		/* Taking turns on a lock is the CPU work's own shape, not a wait of its own. */
		double cpu_lane = in->cpu + in->runq + (in->serialised ? in->lock : 0);
		double wait_lane = in->other + (in->serialised ? 0 : in->lock);

		in->share[PV_CPU] = cpu_lane / in->ref;
		in->share[PV_DISK] = in->disk / in->ref;
		in->share[PV_WAIT] = wait_lane / in->ref;
	}
	io_path(in, io);
}

static enum cpw_class lane_class(const struct pv_in *in, enum pv_lane lane)
{
	switch (lane) {
	case PV_CPU:
		return in->cpu_label;
	case PV_DISK:
		return CPW_CLASS_IO_BOUND;
	case PV_WAIT:
	case PV_NLANES:
		break;
	}
	return CPW_CLASS_WAITING;
}

static double lane_threshold(enum pv_lane lane)
{
	static const enum cpw_threshold_id ids[PV_NLANES] = {
		[PV_CPU] = CPW_T_CPU_SHARE, [PV_DISK] = CPW_T_DISK_SHARE, [PV_WAIT] = CPW_T_WAIT_SHARE,
	};
	return cpw_threshold(ids[lane]);
}

static bool qualifies(const struct pv_in *in, enum pv_lane lane)
{
	if (in->share[lane] < lane_threshold(lane))
		return false;
	return lane != PV_DISK ||
	       in->disk + in->io_path > cpw_threshold(CPW_T_DISK_VS_CPU) * (in->cpu - in->io_path);
}

/* The classifier's rule (classify.c, blocked): a winner close to a notable rival, or less
 * than dominance_margin past its own threshold beside an active rival, is mixed. */
static bool blocked(const struct pv_in *in, enum pv_lane win)
{
	bool near = in->share[win] < lane_threshold(win) + cpw_threshold(CPW_T_DOMINANCE_MARGIN);

	for (int x = 0; x < PV_NLANES; x++) {
		double s = in->share[x];
		bool rival = qualifies(in, (enum pv_lane)x) || x != PV_WAIT;

		if (x == (int)win || s < cpw_threshold(CPW_T_NOTABLE_SHARE))
			continue;
		if (near && rival && lane_class(in, (enum pv_lane)x) != lane_class(in, win))
			return true;
		if (in->share[win] >= cpw_threshold(CPW_T_DOMINANCE) * s)
			continue;
		if (qualifies(in, (enum pv_lane)x) || (x != PV_WAIT && s > in->share[win]))
			return true;
	}
	return false;
}

/* The target of pid's waits of kind with the most thread-seconds, "" when none; *others
 * (where not NULL) says whether it waited on other targets of that kind too. */
static const char *top_target(const struct cpw_waits *waits, pid_t pid, enum cpw_wait_kind kind, bool *others)
{
	const struct cpw_wait_target_time *best = NULL;
	size_t n = 0;

	if (waits != NULL)
		for (size_t i = 0; i < waits->ntargets; i++) {
			const struct cpw_wait_target_time *t = &waits->targets[i];

			if (t->pid != pid || t->kind != kind || !t->target[0])
				continue;
			n++;
			if (!best || t->seconds > best->seconds)
				best = t;
		}
	if (others)
		*others = n > 1;
	return best ? best->target : "";
}

static const char *lane_words(const struct pv_in *in, enum pv_lane lane)
{
	if (lane == PV_CPU)
		return in->cpu_label == CPW_CLASS_CPU_STARVED ? "on or queued for a CPU" : "on a CPU";
	if (lane == PV_DISK)
		return in->io_path > 0 ? "on its disk I/O (waiting, or in the kernel doing it)"
				       : "waiting for the disk";
	return "waiting";
}

static void bytes_words(double b, char *buf, size_t len)
{
	if (b >= 1024.0 * 1024.0)
		snprintf(buf, len, "%s MiB", cpw_verdict_figure(b / (1024.0 * 1024.0)).s);
	else
		snprintf(buf, len, "%s KiB", cpw_verdict_figure(b / 1024.0).s);
}

static void finding_disk(const struct pv_in *in, const struct cpw_waits *waits, char *f, size_t len)
{
	const struct cpw_proc *p = in->p;
	bool writes = cpw_known(p->write_bytes) && (!cpw_known(p->read_bytes) || p->write_bytes > p->read_bytes);
	double bytes = writes ? p->write_bytes : p->read_bytes;
	bool others;
	const char *target = top_target(waits, p->pid, CPW_WAIT_DISK, &others);
	char amount[32] = "", esc[CPW_WAIT_TARGET_LEN * 4];

	if (cpw_known(bytes) && bytes > 0)
		bytes_words(bytes, amount, sizeof amount);
	cpw_escape_utf8(target, esc, sizeof esc);
	/* The bytes are the process's, the file where its waits were caught: "of FILE" only
	 * where it waited on that one (a cat of many files read 44 MiB, not of the one
	 * its longest wait was on). */
	if (esc[0] && others)
		snprintf(f, len, "%s%s%s (its disk waits mostly on %s), %.0f%% of its time waiting for the disk",
			 writes ? "writes" : "reads", amount[0] ? " " : "", amount, esc, pct(in->disk / in->ref));
	else
		snprintf(f, len, "%s%s%s%s%s, %.0f%% of its time waiting for the disk",
			 writes ? "writes" : "reads", amount[0] ? " " : "", amount, esc[0] ? " of " : "", esc,
			 pct(in->disk / in->ref));
	if (in->io_path > 0) {
		size_t used = strlen(f);

		snprintf(f + used, len - used, " and %.0f%% in the kernel doing that I/O",
			 pct(in->io_path / in->ref));
	}
}

/* Appends ", in FUNCTION": the Python function the process waited in longest on kind
 * (model/waits.h; the first process seen waiting in it), where one was named and it fits
 * whole. */
static void append_function(const struct cpw_waits *waits, pid_t pid, enum cpw_wait_kind kind, char *f, size_t len)
{
	const struct cpw_wait_fn_time *fn = waits ? cpw_waits_top_fn(waits, kind, pid) : NULL;
	char esc[CPW_WAIT_FN_LEN * 4];
	size_t used = strlen(f);

	if (!fn)
		return;
	cpw_escape_utf8(fn->fn, esc, sizeof esc);
	if (used + strlen(esc) + sizeof(", in ") < len)
		snprintf(f + used, len - used, ", in %s", esc);
}

static void finding_wait(const struct pv_in *in, const struct cpw_waits *waits, char *f, size_t len)
{
	double share = 0;
	int kind = in->w ? cpw_waits_proc_dominant(in->w, &share) : -1;
	const char *target;
	char esc[CPW_WAIT_TARGET_LEN * 4];

	if (kind < 0 || kind == CPW_WAIT_CHILD) {
		snprintf(f, len, "%.0f%% of its time off the CPU%s", pct(in->share[PV_WAIT]),
			 in->probed ? "" : " (what it waited on was not probed)");
		return;
	}
	target = top_target(waits, in->p->pid, (enum cpw_wait_kind)kind, NULL);
	cpw_escape_utf8(target, esc, sizeof esc);
	snprintf(f, len, "%.0f%% of its time waiting, mostly on %s%s%s%s",
		 pct(in->share[PV_WAIT]), kind == CPW_WAIT_TIMER ? "a " : "",
		 cpw_wait_kind_name((enum cpw_wait_kind)kind), esc[0] ? ": " : "", esc);
	append_function(waits, in->p->pid, (enum cpw_wait_kind)kind, f, len);
}

/* Threads that take turns on a lock (the GIL) name the Python function they wait in. */
static void finding_cpu(const struct pv_in *in, const struct cpw_waits *waits, char *f, size_t len)
{
	const struct cpw_proc *p = in->p;
	double cores = in->life > 0 ? in->cpu / in->life : NAN;
	double sys = in->cpu > 0 ? p->sys_s / in->cpu : NAN;
	char extra[64] = "";

	if (in->serialised && in->cpu_label == CPW_CLASS_CPU_STARVED) {
		snprintf(f, len, "%d threads take turns on %s, queued for a CPU %.0f%% of the time "
			 "they wanted one", p->cpu_threads, in->python ? "the GIL" : "a lock",
			 pct(in->runq / (in->cpu + in->runq)));
		append_function(waits, p->pid, CPW_WAIT_LOCK, f, len);
		return;
	}
	if (in->serialised) {
		snprintf(f, len, "%d threads take turns on %s, %s core%s between them", p->cpu_threads,
			 in->python ? "the GIL" : "a lock", cpw_verdict_figure(cores).s, cpw_verdict_figure_plural(cores));
		append_function(waits, p->pid, CPW_WAIT_LOCK, f, len);
		return;
	}
	if (in->cpu_label == CPW_CLASS_CPU_STARVED) {
		snprintf(f, len, "runnable, but queued for a CPU %.0f%% of its time",
			 pct(in->ref > 0 ? in->runq / in->ref : 0));
		return;
	}
	if (in->cpu_label == CPW_CLASS_MEMORY_BOUND) {
		snprintf(f, len, "%s minor page faults per CPU-second, %.0f%% of its CPU in the kernel: "
			 "first touches of fresh memory", cpw_verdict_figure((double)p->minflt / proc_cpu(p)).s,
			 pct(cpw_known(sys) ? sys : 0));
		return;
	}
	if (cpw_known(sys) && sys >= cpw_threshold(CPW_T_SYS_SHARE))
		snprintf(extra, sizeof extra, ", %.0f%% of it in the kernel", pct(sys));
	if (p->cpu_threads >= 2)
		snprintf(f, len, "%d threads on %s core%s, %.0f%% of its time on a CPU%s", p->cpu_threads,
			 cpw_verdict_figure(cores).s, cpw_verdict_figure_plural(cores), pct(in->share[PV_CPU]), extra);
	else
		snprintf(f, len, "%s on one thread, %.0f%% of its time on a CPU%s",
			 in->python ? "pure Python" : "computes", pct(in->share[PV_CPU]), extra);
}

static double confidence(const struct pv_in *in, enum pv_lane win, double runner_up)
{
	double past = clamp01((in->share[win] - lane_threshold(win)) / (1 - lane_threshold(win)));
	double dominance = runner_up > 0 ? clamp01((in->share[win] / runner_up - cpw_threshold(CPW_T_DOMINANCE)) /
						   cpw_threshold(CPW_T_DOMINANCE)) : 1;
	double sampled = in->life >= 4 * cpw_threshold(CPW_T_MIN_WALL_S) ? 1 : 0.8;

	return (0.5 + 0.25 * past + 0.25 * dominance) * sampled;
}

static void judge_one(const struct pv_in *in, const struct cpw_waits *waits, struct cpw_proc_verdict *pv)
{
	enum pv_lane order[PV_NLANES] = { PV_CPU, PV_DISK, PV_WAIT };
	int win = -1;
	size_t len = sizeof pv->finding;

	pv->cls = CPW_CLASS_UNKNOWN;
	pv->secondary = CPW_CLASS_NONE;
	pv->confidence = 0.1;
	if (in->ref < cpw_threshold(CPW_T_MIN_WALL_S)) {
		snprintf(pv->finding, len, "%s s of CPU and waits: too little to judge",
			 cpw_verdict_figure(in->ref).s);
		return;
	}
	for (int i = 1; i < PV_NLANES; i++) {
		enum pv_lane x = order[i];
		int j = i;

		while (j > 0 && in->share[order[j - 1]] < in->share[x]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	for (int i = 0; i < PV_NLANES && win < 0; i++)
		if (qualifies(in, order[i]))
			win = order[i];
	if (win >= 0 && blocked(in, (enum pv_lane)win))
		win = -1;
	if (win < 0) {
		enum pv_lane a = order[0], b = order[1];

		pv->cls = CPW_CLASS_MIXED;
		pv->secondary = lane_class(in, a);
		pv->confidence = 0.3 + 0.25 * (in->share[a] > 0 ? clamp01(in->share[b] / in->share[a]) : 0);
		snprintf(pv->finding, len, "no single resource dominates: %.0f%% of its time %s, %.0f%% %s",
			 pct(in->share[a]), lane_words(in, a), pct(in->share[b]), lane_words(in, b));
		return;
	}
	pv->cls = lane_class(in, (enum pv_lane)win);
	{
		enum pv_lane r = order[0] == (enum pv_lane)win ? order[1] : order[0];

		if (in->share[r] >= cpw_threshold(CPW_T_NOTABLE_SHARE) &&
		    lane_class(in, r) != pv->cls)
			pv->secondary = lane_class(in, r);
		pv->confidence = confidence(in, (enum pv_lane)win, in->share[r]);
	}
	if (win == PV_DISK)
		finding_disk(in, waits, pv->finding, len);
	else if (win == PV_WAIT)
		finding_wait(in, waits, pv->finding, len);
	else
		finding_cpu(in, waits, pv->finding, len);
}

/* The tree's totals the shares of "matters" are taken of. */
struct pv_totals {
	double cpu, waits, rss_kib;
};

static const char *matters(const struct pv_in *in, const struct pv_totals *tot)
{
	double notable = cpw_threshold(CPW_T_NOTABLE_SHARE);
	double waits = in->ref - in->cpu - in->runq - in->unnamed;

	/* What it did itself, as far as it is known: unprobed, only its CPU and queue; probed,
	 * not the waits nobody named. */
	double active = in->probed ? in->ref - in->unnamed : in->cpu + in->runq;

	if (in->cpu >= cpw_threshold(CPW_T_MIN_WALL_S) && tot->cpu > 0 && in->cpu >= notable * tot->cpu)
		return "cpu";
	if (in->probed && waits >= cpw_threshold(CPW_T_MIN_WALL_S) && waits >= notable * tot->waits)
		return "waits";
	/* Busy as long as a phase (on a CPU, queued, or waiting on something not its
	 * children): part of the run's story, however busy the others. */
	if (active >= cpw_threshold(CPW_T_PHASE_MIN_S))
		return "time";
	if ((double)in->p->max_rss_kib >= CPW_PROC_VERDICT_MEM_MIN_KIB && tot->rss_kib > 0 &&
	    (double)in->p->max_rss_kib >= notable * tot->rss_kib)
		return "memory";
	return NULL;
}

/* The CPW_PROC_VERDICTS_MAX processes that matter with the most thread-seconds: their
 * indices, in order of first sight. */
struct pv_top {
	size_t index[CPW_PROC_VERDICTS_MAX];
	double busy[CPW_PROC_VERDICTS_MAX];
	size_t n;
};

static void top_add(struct pv_top *top, size_t i, double busy, size_t *left_out)
{
	size_t at = top->n;

	if (top->n >= CPW_PROC_VERDICTS_MAX) {
		size_t least = 0;

		for (size_t k = 1; k < top->n; k++)
			if (top->busy[k] < top->busy[least])
				least = k;
		(*left_out)++;
		if (!(busy > top->busy[least]))
			return;
		/* The one with the least goes; the rest keep their order. */
		memmove(&top->index[least], &top->index[least + 1], (top->n - least - 1) * sizeof top->index[0]);
		memmove(&top->busy[least], &top->busy[least + 1], (top->n - least - 1) * sizeof top->busy[0]);
		at = top->n - 1;
	} else {
		top->n++;
	}
	top->index[at] = i;
	top->busy[at] = busy;
}

void cpw_process_verdict_judge(const struct cpw_proc *(*at)(const void *ctx, size_t i),
			       const void *ctx, size_t n, const struct cpw_proc_verdict_ctx *with,
			       struct cpw_proc_verdicts *out)
{
	const struct cpw_waits *waits = with->waits;
	double now_s = with->now_s;
	struct pv_totals tot = { 0, 0, 0 };
	struct pv_top top = { .n = 0 };

	const struct pv_all all = { at, ctx, n };

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *p = at(ctx, i);

		tot.cpu += proc_cpu(p);
		tot.rss_kib += (double)p->max_rss_kib;
	}
	if (waits != NULL && waits->probed)
		for (size_t i = 0; i < waits->nprocs; i++)
			tot.waits += own_waits(&waits->procs[i]);
	for (size_t i = 0; i < n; i++) {
		struct pv_in in;

		measure(&in, at(ctx, i), with, &all);
		if (matters(&in, &tot) != NULL)
			top_add(&top, i, in.ref, &out->left_out);
	}
	for (size_t k = 0; k < top.n; k++) {
		const struct cpw_proc *p = at(ctx, top.index[k]);
		struct pv_in in;
		struct cpw_proc_verdict *pv;
		const char *why;

		measure(&in, p, with, &all);
		why = matters(&in, &tot);
		pv = &out->v[out->n++];
		pv->pid = p->pid;
		snprintf(pv->comm, sizeof pv->comm, "%s", p->comm);
		pv->from_s = p->first_seen_s;
		pv->to_s = end_of(p, now_s);
		pv->cpu_s = in.cpu;
		pv->cpu_share = in.ref > 0 ? in.cpu / in.ref : NAN;
		pv->runq_share = in.ref > 0 ? in.runq / in.ref : NAN;
		pv->disk_share = in.ref > 0 ? in.disk / in.ref : NAN;
		pv->wait_share = in.ref > 0 ? (in.lock + in.other) / in.ref : NAN;
		pv->python = p->is_python >= 0 ? p->is_python : in.python;
		pv->serialised = in.serialised;
		pv->threads = p->cpu_threads;
		snprintf(pv->why, sizeof pv->why, "%s", why);
		judge_one(&in, waits, pv);
	}
}

static const struct cpw_proc *array_at(const void *ctx, size_t i)
{
	return &((const struct cpw_proc *)ctx)[i];
}

void cpw_process_verdict_judge_array(const struct cpw_proc *procs, size_t n,
				     const struct cpw_proc_verdict_ctx *with,
				     struct cpw_proc_verdicts *out)
{
	cpw_process_verdict_judge(array_at, procs, n, with, out);
}

static const struct cpw_proc *tree_at(const void *ctx, size_t i)
{
	return cpw_tree_proc((const struct cpw_tree *)ctx, i);
}

void cpw_process_verdict_judge_tree(const struct cpw_tree *t, const struct cpw_proc_verdict_ctx *with,
				    struct cpw_proc_verdicts *out)
{
	cpw_process_verdict_judge(tree_at, t, t ? cpw_tree_size(t) : 0, with, out);
}

void cpw_process_verdict_sentence(const struct cpw_proc_verdict *pv, char *buf, size_t len)
{
	char comm[CPW_COMM_MAX * 4];

	cpw_escape_utf8(pv->comm, comm, sizeof comm);
	snprintf(buf, len, "%s (pid %d), %.1f-%.1f s: %s", comm, (int)pv->pid, pv->from_s, pv->to_s,
		 pv->finding);
}

/* ---- the tree's advice, held to every process's finding ---- */

#define THREADS_ADVICE "parallelise (threads, processes, make -j)"
#define PER_PROCESS_NAMED 3

void cpw_process_verdict_guard_advice(const struct cpw_proc_verdicts *pvs, struct cpw_verdict *v)
{
	bool python = false, serialised = false, named = false;

	if (pvs == NULL || v == NULL)
		return;
	for (size_t i = 0; i < pvs->n; i++) {
		const struct cpw_proc_verdict *pv = &pvs->v[i];

		if (pv->python == 1 && (pv->cls == CPW_CLASS_CPU_BOUND || pv->serialised))
			python = true;
		serialised |= pv->serialised;
	}
	/* More threads help neither Python's CPU work nor threads that take turns on a lock. */
	if (python)
		cpw_advice_replace(v, THREADS_ADVICE, "parallelise with processes (multiprocessing, "
			"concurrent.futures.ProcessPoolExecutor; Python threads take turns on the GIL)");
	else if (serialised)
		cpw_advice_replace(v, THREADS_ADVICE, "parallelise with processes or make -j (more threads take "
			"turns on the same lock)");
	/* The processes that matter in the advice: those judged otherwise than the tree, the
	 * first PER_PROCESS_NAMED by name (a shell loop of twelve runs named twelve, and the
	 * functions the Hotspots add after them no longer fit). */
	unsigned more = 0, shown = 0;
	for (size_t i = 0; i < pvs->n; i++) {
		const struct cpw_proc_verdict *pv = &pvs->v[i];
		char line[160], comm[CPW_COMM_MAX * 4];

		if (pv->cls == v->cls || pv->cls == CPW_CLASS_UNKNOWN || pv->cls == CPW_CLASS_MIXED)
			continue;
		if (shown == PER_PROCESS_NAMED) {
			more++;
			continue;
		}
		cpw_escape_utf8(pv->comm, comm, sizeof comm);
		snprintf(line, sizeof line, "%s %s (pid %d) %s", named ? "," : " Per process:", comm,
			 (int)pv->pid, cpw_verdict_class_name(pv->cls));
		cpw_advice_append(v, "", line);
		named = true;
		shown++;
	}
	if (more) {
		char line[64];
		snprintf(line, sizeof line, " and %u more (under Processes)", more);
		cpw_advice_append(v, "", line);
	}
	if (named)
		cpw_advice_append(v, "", ": see its finding.");
}
