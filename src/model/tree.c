/*
 * tree.c: the watched process tree over time (tree.h).
 *
 * One sample, as the /proc reader hands it: fold each process's readings into cumulative
 * per-process figures, per-interval rates, tree totals and the history ring; mark what the
 * sample did not reach as exited. Figures never go backwards: a thread that disappears has
 * its last figures banked in its process, and a process that disappears keeps its last
 * figures. No file is read here (source/proc/proc_reader.c reads them).
 */
#include "config.h"
#include "model/tree.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/waits.h"
#include "source/proc/proc_parse.h"
#include "source/waits/wait_kind.h"
#include "util/pidmap.h"

/* The model's part of a thread: what it counted since the watch began. */
struct cpw_thread_slot {
	pid_t tid;
	unsigned generation;                    /* last sample that read it */
	uint64_t oncpu_ns, runq_ns, vol, invol; /* counted part (minus baseline) */
	uint64_t base_oncpu_ns, base_runq_ns, base_vol, base_invol;
	uint64_t raw_oncpu_ns;                  /* schedstat at the last sample, for the rate */
	struct cpw_thread_now now;
};

struct cpw_tree {
	bool baseline_existing;
	long hz;
	long page_kib;

	struct cpw_proc *procs;
	size_t nprocs, procs_alloc;

	struct cpw_pidmap map;  /* pid -> index of its newest entry in procs */

	unsigned generation;
	double boot_offset_s;   /* cpw_tree_set_boot_offset(); NAN unknown */
	double last_sample_s;
	double interval_s;      /* since the previous sample: what each waiting thread adds */
	struct cpw_waits waits; /* where the off-CPU thread time went */
	int last_pss_errno;     /* why a process's PSS could not be read, at the last such failure */
	struct cpw_tree_totals totals;
	struct cpw_history history;
	struct cpw_rss_series rss_series; /* leaks: the tree's RSS sum (model/leak.h) */
};

static struct cpw_proc *find_proc(const struct cpw_tree *t, pid_t pid)
{
	int idx = cpw_pidmap_get(&t->map, pid);
	return idx >= 0 ? &t->procs[idx] : NULL;
}

static struct cpw_proc *add_proc(struct cpw_tree *t, pid_t pid, double now_s)
{
	if (t->nprocs == t->procs_alloc) {
		size_t n = t->procs_alloc ? t->procs_alloc * 2 : 64;
		struct cpw_proc *p = realloc(t->procs, n * sizeof(*p));
		if (!p)
			return NULL;
		t->procs = p;
		t->procs_alloc = n;
	}
	/* A reused pid maps to its newest process. */
	if (cpw_pidmap_put(&t->map, pid, (int)t->nprocs) < 0)
		return NULL;
	struct cpw_proc *p = &t->procs[t->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->first_seen_s = now_s;
	p->last_seen_s = now_s;
	p->exited_s = p->missed_s = NAN;
	p->read_bytes = p->write_bytes = NAN;
	p->read_rate = p->write_rate = NAN;
	p->last_read = p->last_write = NAN;
	p->last_sample_s = NAN;
	p->last_oncpu_s = NAN;
	p->raw_read = p->raw_write = NAN;
	p->pss_kib = NAN;
	p->is_python = -1;
	p->python_exe = -1;
	p->exec_s = p->exec_drained_s = NAN;
	p->exec_event_s = NAN;
	t->nprocs++;
	t->totals.seen++;
	return p;
}

/* ---- threads ---- */

/* The slot of thread tid, made when it has none. *hint is where the caller looks first and
 * is left just past the slot found: the reader lists a process's threads in the order of
 * the last sample, which is the slots' order, so a pool of thousands of threads costs one
 * compare each instead of a search each. */
static struct cpw_thread_slot *thread_slot(struct cpw_proc *p, pid_t tid, size_t *hint)
{
	if (*hint < p->nthreads_used && p->threads[*hint].tid == tid)
		return &p->threads[(*hint)++];
	for (size_t i = 0; i < p->nthreads_used; i++)
		if (p->threads[i].tid == tid) {
			*hint = i + 1;
			return &p->threads[i];
		}
	if (p->nthreads_used == p->nthreads_alloc) {
		size_t n = p->nthreads_alloc ? p->nthreads_alloc * 2 : 2;
		struct cpw_thread_slot *s = realloc(p->threads, n * sizeof(*s));
		if (!s)
			return NULL;
		p->threads = s;
		p->nthreads_alloc = n;
	}
	*hint = p->nthreads_used + 1;
	struct cpw_thread_slot *s = &p->threads[p->nthreads_used++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	return s;
}

/* What the live view shows of a thread: its name, state, CPU over the last interval and
 * what it waits on. Every thread, every sample: fixed-size copies, no formatting (4,000
 * idle threads cost 10% more per sample with snprintf here). */
static void thread_now(const struct cpw_tree *t, const struct cpw_proc *p, struct cpw_thread_slot *slot,
		       const struct cpw_thread_reading *th, bool new_slot)
{
	struct cpw_thread_now *n = &slot->now;
	n->tid = th->tid;
	if (new_slot || th->ran) { /* a name changes only while it runs */
		const char *name = th->tid == p->pid ? p->comm : th->comm;
		if (name[0]) {
			memcpy(n->comm, name, sizeof(n->comm) - 1);
			n->comm[sizeof(n->comm) - 1] = '\0';
		}
	}
	n->state = th->state;
	n->cpu_pct = 0;
	if (!new_slot && th->has_schedstat && th->sched.oncpu_ns >= slot->raw_oncpu_ns && t->interval_s > 0)
		n->cpu_pct = 100.0 * (double)(th->sched.oncpu_ns - slot->raw_oncpu_ns) / 1e9 / t->interval_s;
	if (th->has_schedstat)
		slot->raw_oncpu_ns = th->sched.oncpu_ns;
	n->wait = n->target = "";
	if (th->wait && (th->state == 'S' || th->state == 'D')) {
		n->wait = cpw_wait_kind_name(th->wait->kind);
		n->target = th->wait->target;
	}
}

static void count_state(struct cpw_tree *t, char state, const char *wchan)
{
	switch (state) {
	case 'R':
		t->totals.st_running++;
		break;
	case 'D':
		if (cpw_proc_parse_wchan_is_storage(wchan))
			t->totals.st_disk_wait++;
		else
			t->totals.st_d_other++;
		break;
	case 'S':
	case 'I':
		t->totals.st_sleeping++;
		break;
	default:
		t->totals.st_other++;
		break;
	}
	t->totals.thread_samples++;
}

/* "kind", or "kind:n" where n > 0, cut to size: every process every sample, without
 * snprintf (a tenth of what 500 idle processes cost the model). */
static void put_wait_now(char *dst, size_t size, const char *kind, unsigned n)
{
	char digits[12] = { 0 };
	size_t len = 0, nd = 0;

	for (; kind[len] && len + 1 < size; len++)
		dst[len] = kind[len];
	for (; n && nd < sizeof(digits); n /= 10)
		digits[nd++] = (char)('0' + n % 10);
	if (nd && len + 1 < size)
		dst[len++] = ':';
	while (nd && len + 1 < size)
		dst[len++] = digits[--nd];
	dst[len] = '\0';
}

/* Folds the threads the reader read of p into its slots, banks those that ended and sums
 * them all. */
static void apply_threads(struct cpw_tree *t, struct cpw_proc *p, const struct cpw_proc_sample *sample,
			  const struct cpw_proc_reading *pr, bool at_baseline)
{
	size_t hint = 0;
	unsigned waiting_in[CPW_WAIT_KIND_COUNT] = { 0 };

	for (size_t i = 0; i < pr->nthreads; i++) {
		const struct cpw_thread_reading *th = &sample->threads[pr->first_thread + i];
		struct cpw_thread_slot *slot = thread_slot(p, th->tid, &hint);
		if (!slot)
			continue;
		bool new_slot = slot->generation == 0;
		slot->generation = t->generation;
		count_state(t, th->state, th->wchan);
		thread_now(t, p, slot, th, new_slot);
		if (th->state == 'R')
			p->r_samples++;
		bool waiting = th->wait && (th->state == 'S' || th->state == 'D');
		if (waiting) {
			/* A helper: not the main thread, and less than a tenth of the
			 * on-CPU time of its process's busiest thread so far (16 threads
			 * taking turns on the GIL are each other's equals, not helpers). */
			bool helper = th->tid != p->pid && p->busiest_thread_ns > 0 &&
				slot->oncpu_ns * 10 < p->busiest_thread_ns;
			cpw_waits_add_thread(&t->waits, p->pid, p->comm, th->wait, t->interval_s, helper);
			if (th->wait->kind >= 0 && th->wait->kind < CPW_WAIT_KIND_COUNT)
				waiting_in[th->wait->kind]++;
		}

		if (th->tid == p->pid && th->has_status) {
			/* The main thread's status carries the process's VmHWM (since exec:
			 * meaningful only when the watch saw the process start) and a current
			 * VmRSS (stat's rss field can lag behind it). */
			if (th->status.has_hwm && !p->preexisting && th->status.vm_hwm_kib > p->max_rss_kib)
				p->max_rss_kib = th->status.vm_hwm_kib;
			if (th->status.vm_rss_kib > 0)
				p->rss_kib = th->status.vm_rss_kib;
		}
		if (th->tid == p->pid && p->rss_kib > p->max_rss_kib)
			p->max_rss_kib = p->rss_kib;

		if (new_slot && at_baseline) {
			slot->base_oncpu_ns = th->sched.oncpu_ns;
			slot->base_runq_ns = th->sched.runq_ns;
			slot->base_vol = th->status.vol_ctxsw;
			slot->base_invol = th->status.invol_ctxsw;
		}
		/* Never backwards, whatever a racing read returned. */
#define ADVANCE(field, now, base) \
	if ((now) >= (base) && (now) - (base) > slot->field) slot->field = (now) - (base)
		ADVANCE(oncpu_ns, th->sched.oncpu_ns, slot->base_oncpu_ns);
		ADVANCE(runq_ns, th->sched.runq_ns, slot->base_runq_ns);
		ADVANCE(vol, th->status.vol_ctxsw, slot->base_vol);
		ADVANCE(invol, th->status.invol_ctxsw, slot->base_invol);
#undef ADVANCE
	}

	/* What its threads wait on now: the kind most of them wait on, with how many where it
	 * has more than one thread ("lock:3"); "" when none waits. */
	int most = -1;
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		if (waiting_in[k] && (most < 0 || waiting_in[k] > waiting_in[most]))
			most = k;
	p->waits_now = most >= 0 && most != CPW_WAIT_CHILD;
	if (most < 0)
		p->wait_now[0] = '\0';
	else
		put_wait_now(p->wait_now, sizeof(p->wait_now), cpw_wait_kind_name((enum cpw_wait_kind)most),
			     pr->nthreads > 1 ? waiting_in[most] : 0);

	/* Bank threads that ended, and sum every thread. A thread counts among the CPU
	 * threads when it did a tenth of the process's on-CPU time (the previous total, for
	 * one that ended). */
	uint64_t prev_oncpu_ns = (uint64_t)(p->oncpu_s * 1e9);
	p->samples_in++;
	uint64_t oncpu = p->banked_oncpu_ns, runq = p->banked_runq_ns;
	uint64_t vol = p->banked_vol, invol = p->banked_invol;
	/* Ended ones go, the others keep their order (thread_slot()'s hint relies on it). */
	size_t kept = 0;
	for (size_t i = 0; i < p->nthreads_used; i++) {
		const struct cpw_thread_slot *s = &p->threads[i];
		if (s->oncpu_ns > p->busiest_thread_ns)
			p->busiest_thread_ns = s->oncpu_ns;
		oncpu += s->oncpu_ns;
		runq += s->runq_ns;
		vol += s->vol;
		invol += s->invol;
		if (s->generation != t->generation) {
			p->banked_oncpu_ns += s->oncpu_ns;
			p->banked_runq_ns += s->runq_ns;
			p->banked_vol += s->vol;
			p->banked_invol += s->invol;
			if (s->oncpu_ns > 0 && s->oncpu_ns * 10 >= prev_oncpu_ns)
				p->banked_cpu_threads++;
		} else {
			p->threads[kept++] = *s;
		}
	}
	p->nthreads_used = kept;
	p->oncpu_s = (double)oncpu / 1e9;
	p->runq_wait_s = (double)runq / 1e9;
	p->cpu_threads = p->banked_cpu_threads;
	for (size_t i = 0; i < p->nthreads_used; i++)
		if (p->threads[i].oncpu_ns > 0 && p->threads[i].oncpu_ns * 10 >= oncpu)
			p->cpu_threads++;
	p->vol_ctxsw = vol;
	p->invol_ctxsw = invol;
}

static void apply_io(struct cpw_proc *p, const struct cpw_proc_reading *pr, bool at_baseline)
{
	if (!pr->io_read) {
		if (pr->io_errno == EACCES || pr->io_errno == EPERM)
			snprintf(p->io_reason, sizeof(p->io_reason),
				 "/proc/%d/io: permission denied", (int)p->pid);
		else if (pr->io_errno && pr->io_errno != ENOENT && pr->io_errno != ESRCH)
			snprintf(p->io_reason, sizeof(p->io_reason), "/proc/%d/io unreadable",
				 (int)p->pid);
		return; /* keep what we had: a vanished process keeps its last figures */
	}
	if (at_baseline) {
		p->base_read = (double)pr->io.read_bytes;
		p->base_write = (double)pr->io.write_bytes;
	}
	p->raw_read = (double)pr->io.read_bytes;
	p->raw_write = (double)pr->io.write_bytes;
	double r = p->raw_read - p->base_read - p->child_read;
	double w = p->raw_write - p->base_write - p->child_write;
	if (!(p->read_bytes >= r))
		p->read_bytes = r;
	if (!(p->write_bytes >= w))
		p->write_bytes = w;
	p->io_reason[0] = '\0';
}

/* Its parent reaps it (or has): the parent's /proc/PID/io gains its raw figures, which
 * are this process's already. Its IO after the last sample stays counted under the parent
 * (a parent that ignores SIGCHLD gains nothing, and is undercounted by as much). */
static void credit_parent_io(struct cpw_tree *t, struct cpw_proc *p)
{
	if (p->io_credited || isnan(p->raw_read))
		return;
	p->io_credited = true;
	struct cpw_proc *parent = find_proc(t, p->ppid);
	if (!parent || !parent->alive || parent == p)
		return;
	parent->child_read += p->raw_read;
	parent->child_write += p->raw_write;
}

static void mark_exited(struct cpw_tree *t, struct cpw_proc *p, double now_s)
{
	credit_parent_io(t, p);
	p->alive = false;
	p->exited_s = now_s;
	p->wait_now[0] = '\0'; /* it waits on nothing now (the view sorts on it) */
	p->waits_now = false;
	p->cpu_pct = 0;
	p->minflt_rate = p->majflt_rate = p->ctxsw_rate = 0;
	p->read_rate = p->write_rate = isnan(p->read_bytes) ? NAN : 0;
	p->rss_kib = 0;
	/* Bank every thread: the process is gone. */
	for (size_t i = 0; i < p->nthreads_used; i++) {
		p->banked_oncpu_ns += p->threads[i].oncpu_ns;
		p->banked_runq_ns += p->threads[i].runq_ns;
		p->banked_vol += p->threads[i].vol;
		p->banked_invol += p->threads[i].invol;
	}
	p->nthreads_used = 0;
}

static double rate(double now_val, double last_val, double dt)
{
	if (isnan(now_val) || isnan(last_val) || dt <= 0)
		return NAN;
	double d = now_val - last_val;
	return d > 0 ? d / dt : 0;
}

static double begin_of(const struct cpw_tree *t, const struct cpw_proc *p, double boot_offset_s);

/* When p began, in the watch's seconds, where that was within the watch; NAN before it or
 * unknown. A start time is whole ticks, cut down: the command, started at 0, reads up to a
 * tick before it, which is 0. */
static double begin_in_watch(const struct cpw_tree *t, const struct cpw_proc *p, double boot_offset_s)
{
	double begin = begin_of(t, p, boot_offset_s);
	if (!(begin >= -1.0 / (double)t->hz))
		return NAN;
	return begin > 0 ? begin : 0;
}

/* The CPU p used since its previous sample, in seconds: schedstat's on-CPU time, exact,
 * where the ticks (utime+stime, whole 1/hz) agree with it to one tick; else the ticks.
 * Ticks alone made a busy process 90%, 100% or 110% from one 0.1 s sample to the next, a
 * sleeper that ran 1 ms 10%; schedstat alone misses a thread that ended between two
 * samples (its last run is never read), which the process's ticks hold. Without schedstat
 * (oncpu_s never moved) the ticks. */
static double cpu_in_interval_s(const struct cpw_proc *p, uint64_t ticks, double hz)
{
	double by_ticks = (double)(ticks >= p->last_ticks ? ticks - p->last_ticks : 0) / hz;
	if (!(p->oncpu_s > 0) || isnan(p->last_oncpu_s) || p->oncpu_s < p->last_oncpu_s)
		return by_ticks;
	double exact = p->oncpu_s - p->last_oncpu_s;
	return fabs(exact - by_ticks) <= 1.0 / hz + 1e-6 ? exact : by_ticks; /* 1 us: rounding */
}

/* Folds one process's readings into the model. */
static void apply_proc(struct cpw_tree *t, const struct cpw_proc_sample *sample,
		       const struct cpw_proc_reading *pr, double now_s)
{
	const struct cpw_stat_fields *st = &pr->stat;
	struct cpw_proc *p = find_proc(t, pr->pid);

	struct cpw_proc *dead = p && !p->alive ? p : NULL;
	if (dead)
		p = NULL; /* an old entry: a zombie we already know ended, or a reused pid */
	/* An exit record (taskstats, wait4) can come before a sample finds the process as a
	 * zombie: it is the same process, already counted exactly. A record carries no start
	 * time, so the first matching sight supplies it. */
	if (dead && dead->reaped && (dead->starttime_ticks == 0 || dead->starttime_ticks == st->starttime_ticks)) {
		dead->starttime_ticks = st->starttime_ticks;
		return;
	}
	if (p && p->starttime_ticks != st->starttime_ticks) {
		mark_exited(t, p, now_s); /* a reused pid */
		p = NULL;
	}

	bool at_baseline = false;
	if (!p) {
		p = add_proc(t, pr->pid, now_s);
		if (!p)
			return;
		p->starttime_ticks = st->starttime_ticks;
		p->alive = true;
		/* It began before this sample found it: at its start, where that was within the
		 * watch (attach mode's processes of the first sample count from there on). */
		double begin = begin_in_watch(t, p, t->boot_offset_s);
		if (!(t->baseline_existing && t->generation == 1) && begin < now_s)
			p->first_seen_s = begin;
		/* In attach mode, what existed at the first sample counts from there on. */
		if (t->baseline_existing && t->generation == 1) {
			at_baseline = true;
			p->preexisting = true;
			p->base_utime = st->utime_ticks;
			p->base_stime = st->stime_ticks;
			p->base_minflt = st->minflt;
			p->base_majflt = st->majflt;
		}
	}
	if (pr->cmdline_read) /* first, or after an exec */
		snprintf(p->cmdline, sizeof(p->cmdline), "%s", pr->cmdline);
	if (pr->cmdline_read && !pr->first) { /* proc_label: the helpers it ran before fold */
		p->exec_s = now_s;
		p->exec_drained_s = now_s + 2 * (isnan(t->interval_s) ? 0 : t->interval_s);
		/* leaks: an exec replaces its memory: the new program's series starts here */
		memset(&p->rss_series, 0, sizeof(p->rss_series));
	}
	if (pr->cmdline_read && pr->python_exe >= 0) { /* python version: read with the command line */
		p->python_exe = pr->python_exe;
		snprintf(p->python, sizeof(p->python), "%s", pr->python);
	}
	if (pr->first)
		snprintf(p->user, sizeof(p->user), "%s", pr->user);
	p->generation = t->generation;
	p->missed_s = NAN;
	p->last_seen_s = now_s;
	p->ppid = st->ppid;
	p->state = st->state;
	/* prctl(PR_SET_NAME) and exec change the name: follow it. */
	if (strcmp(p->comm, st->comm) != 0)
		snprintf(p->comm, sizeof(p->comm), "%s", st->comm);
	p->nthreads = (int)st->num_threads;
	if (p->nthreads > p->max_threads)
		p->max_threads = p->nthreads;
	if (pr->is_python >= 0)
		p->is_python = pr->is_python;
	/* Zombies and kernel threads have an empty smaps_rollup, a process that just ended
	 * none: no memory of their own. Other failures (permissions) are unknown. */
	if (!isnan(pr->pss_kib))
		p->pss_kib = pr->pss_kib;
	else if (pr->pss_errno == ESRCH || pr->pss_errno == ENOENT)
		p->pss_kib = 0;
	else if (pr->pss_errno) {
		p->pss_kib = NAN;
		t->last_pss_errno = pr->pss_errno;
	}
	p->rss_kib = (uint64_t)(st->rss_pages > 0 ? st->rss_pages : 0) * (uint64_t)t->page_kib;

	uint64_t ut = st->utime_ticks > p->base_utime ? st->utime_ticks - p->base_utime : 0;
	uint64_t stt = st->stime_ticks > p->base_stime ? st->stime_ticks - p->base_stime : 0;
	double user_s = (double)ut / (double)t->hz, sys_s = (double)stt / (double)t->hz;
	if (user_s > p->user_s)
		p->user_s = user_s;
	if (sys_s > p->sys_s)
		p->sys_s = sys_s;
	uint64_t minflt = st->minflt > p->base_minflt ? st->minflt - p->base_minflt : 0;
	uint64_t majflt = st->majflt > p->base_majflt ? st->majflt - p->base_majflt : 0;
	if (minflt > p->minflt)
		p->minflt = minflt;
	if (majflt > p->majflt)
		p->majflt = majflt;

	apply_threads(t, p, sample, pr, at_baseline);
	apply_io(p, pr, at_baseline);

	/* Rates over the interval since this process's previous sample. */
	double dt = now_s - p->last_sample_s;
	uint64_t ticks = ut + stt, ctxsw = p->vol_ctxsw + p->invol_ctxsw;
	if (!isnan(p->last_sample_s) && dt > 0) {
		p->cpu_pct = 100.0 * cpu_in_interval_s(p, ticks, (double)t->hz) / dt;
		p->minflt_rate = rate((double)p->minflt, (double)p->last_minflt, dt);
		p->majflt_rate = rate((double)p->majflt, (double)p->last_majflt, dt);
		p->ctxsw_rate = rate((double)ctxsw, (double)p->last_ctxsw, dt);
		p->read_rate = rate(p->read_bytes, p->last_read, dt);
		p->write_rate = rate(p->write_bytes, p->last_write, dt);
	}
	p->last_ticks = ticks;
	p->last_oncpu_s = p->oncpu_s;
	p->last_minflt = p->minflt;
	p->last_majflt = p->majflt;
	p->last_ctxsw = ctxsw;
	p->last_read = p->read_bytes;
	p->last_write = p->write_bytes;
	p->last_sample_s = now_s;
}

/* The tree's PSS at a sample that read it: processes whose PSS is unknown are counted
 * (the peak is then a lower bound), never taken as 0. */
static void sum_pss(struct cpw_tree *t)
{
	struct cpw_tree_totals *tt = &t->totals;
	double sum = 0;
	unsigned unknown = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct cpw_proc *p = &t->procs[i];
		if (!p->alive)
			continue;
		/* One not reached by this sample (its one sample's grace) keeps its last PSS,
		 * or is left out: its file was not even tried. */
		if (isnan(p->pss_kib) && p->generation == t->generation)
			unknown++;
		else if (!isnan(p->pss_kib))
			sum += p->pss_kib;
	}
	tt->pss_kib = sum;
	if (sum > tt->peak_pss_kib)
		tt->peak_pss_kib = sum;
	if (tt->rss_kib > tt->pss_rss_kib)
		tt->pss_rss_kib = tt->rss_kib;
	tt->pss_samples++;
	if (unknown > tt->pss_unreadable) {
		tt->pss_unreadable = unknown;
		tt->pss_errno = t->last_pss_errno;
	}
}

static bool reader_found_still_there(const struct cpw_proc_sample *sample, pid_t pid)
{
	size_t lo = 0, hi = sample->nstill_there;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sample->still_there[mid] == pid)
			return true;
		if (sample->still_there[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void push_history(struct cpw_tree *t)
{
	struct cpw_history *h = &t->history;
	const struct cpw_tree_totals *tt = &t->totals;
	double io = (isnan(tt->read_rate) ? 0 : tt->read_rate) + (isnan(tt->write_rate) ? 0 : tt->write_rate);

	h->cpu_pct[h->next] = tt->cpu_pct;
	h->rss_kib[h->next] = (double)tt->rss_kib;
	h->io_bytes_rate[h->next] = io;
	h->fault_rate[h->next] = tt->majflt_rate + tt->minflt_rate;
	h->next = (h->next + 1) % CPW_HISTORY_LEN;
	if (h->count < CPW_HISTORY_LEN)
		h->count++;
}

int cpw_tree_apply(struct cpw_tree *t, const struct cpw_proc_sample *sample, double now_s)
{
	struct cpw_tree_totals *tt = &t->totals;
	uint64_t running_before = tt->st_running;

	t->generation++;
	t->interval_s = now_s - t->last_sample_s;
	/* Exits first: a parent that reaped a child has the child's IO in its own figures
	 * (credit_parent_io), which must be known before those figures are read. */
	for (size_t i = 0; i < sample->nprocs; i++) {
		struct cpw_proc *p = find_proc(t, sample->procs[i].pid);
		if (p && p->alive && p->starttime_ticks == sample->procs[i].stat.starttime_ticks)
			p->generation = t->generation;
	}
	/* What was alive and was not found has exited, unless it is still there: an orphan
	 * between its dead parent and its new one is under neither for a moment. It gets one
	 * sample's grace; marked exited, it would be listed twice once found again. */
	for (size_t i = 0; i < t->nprocs; i++) {
		struct cpw_proc *p = &t->procs[i];
		if (!p->alive || p->generation == t->generation)
			continue;
		if (isnan(p->missed_s) && reader_found_still_there(sample, p->pid)) {
			p->missed_s = now_s;
			continue;
		}
		mark_exited(t, p, isnan(p->missed_s) ? now_s : p->missed_s);
	}
	for (size_t i = 0; i < sample->nprocs; i++)
		apply_proc(t, sample, &sample->procs[i], now_s);

	tt->samples++;
	tt->runnable_sum += tt->st_running - running_before;
	tt->alive = 0;
	tt->rss_kib = 0;
	tt->cpu_pct = tt->minflt_rate = tt->majflt_rate = 0;
	tt->read_rate = tt->write_rate = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct cpw_proc *p = &t->procs[i];
		if (!p->alive)
			continue;
		/* leaks: read now, not a stale figure; not a zombie's (its memory is gone) */
		if (p->generation == t->generation && p->rss_kib > 0 && p->state != 'Z' && p->state != 'X')
			cpw_leak_series_add(&p->rss_series, now_s, (double)p->rss_kib);
		tt->alive++;
		tt->rss_kib += p->rss_kib;
		tt->cpu_pct += p->cpu_pct;
		tt->minflt_rate += p->minflt_rate;
		tt->majflt_rate += p->majflt_rate;
		if (!isnan(p->read_rate))
			tt->read_rate += p->read_rate;
		if (!isnan(p->write_rate))
			tt->write_rate += p->write_rate;
	}
	if (sample->pss_read)
		sum_pss(t);
	if (sample->wait_stats)
		cpw_waits_set_probe_stats(&t->waits, sample->wait_stats);
	if (tt->rss_kib > tt->peak_rss_kib)
		tt->peak_rss_kib = tt->rss_kib;
	t->last_sample_s = now_s;
	push_history(t);
	cpw_leak_series_add(&t->rss_series, now_s, (double)tt->rss_kib); /* leaks */
	return (int)tt->alive;
}

void cpw_tree_record_exit(struct cpw_tree *t, pid_t pid, pid_t ppid, const char *comm,
			  double user_s, double sys_s, uint64_t minflt, uint64_t majflt,
			  uint64_t max_rss_kib, double now_s)
{
	struct cpw_proc *p = find_proc(t, pid);
	if (!p || p->alive) {
		if (p && p->alive)
			mark_exited(t, p, now_s);
		else if (!(p = add_proc(t, pid, now_s)))
			return;
	}
	if (!p->alive && isnan(p->exited_s))
		p->exited_s = now_s;
	p->reaped = true;
	p->ppid = ppid;
	if (!p->comm[0] && comm)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	/* Exact figures replace sampled ones, but never lower them (attach baselines). */
	double u = user_s - (double)p->base_utime / (double)t->hz;
	double s = sys_s - (double)p->base_stime / (double)t->hz;
	if (u > p->user_s)
		p->user_s = u;
	if (s > p->sys_s)
		p->sys_s = s;
	if (minflt > p->base_minflt && minflt - p->base_minflt > p->minflt)
		p->minflt = minflt - p->base_minflt;
	if (majflt > p->base_majflt && majflt - p->base_majflt > p->majflt)
		p->majflt = majflt - p->base_majflt;
	if (max_rss_kib > p->max_rss_kib)
		p->max_rss_kib = max_rss_kib;
}

void cpw_tree_exec_args(struct cpw_tree *t, pid_t pid, const char *cmdline, double exec_s)
{
	struct cpw_proc *p = find_proc(t, pid);
	if (!p || !cmdline[0] || exec_s <= p->exec_event_s)
		return;
	p->exec_event_s = exec_s;
	if (!p->cmdline[0] || p->generation == 0 || exec_s > p->last_seen_s)
		snprintf(p->cmdline, sizeof(p->cmdline), "%s", cmdline);
}

void cpw_tree_exit_began(struct cpw_tree *t, pid_t pid, double begin_s, double lived_s)
{
	struct cpw_proc *p = find_proc(t, pid);
	if (!p || p->alive || p->generation > 0 || isnan(begin_s) || !(lived_s >= 0))
		return;
	p->first_seen_s = begin_s;
	p->exited_s = begin_s + lived_s;
}

/* Ticks of the start time are 10 ms; the clocks the windows come from agree to well
 * under this. */
#define BEGIN_TOLERANCE_S 0.05

/* When p began, in the tree's seconds; NAN where its stat was never read. */
static double begin_of(const struct cpw_tree *t, const struct cpw_proc *p, double boot_offset_s)
{
	if (p->starttime_ticks == 0)
		return NAN;
	return (double)p->starttime_ticks / (double)t->hz + boot_offset_s;
}

enum cpw_kinship cpw_tree_may_be_parent(const struct cpw_tree *t, pid_t pid,
					const struct cpw_begin_window *w, double boot_offset_s)
{
	const struct cpw_proc *p = find_proc(t, pid);
	if (!p)
		return CPW_KIN_NO;
	double begin = begin_of(t, p, boot_offset_s);
	/* A child is forked after its parent began... */
	if (!isnan(begin) && w->ub < begin - BEGIN_TOLERANCE_S)
		return CPW_KIN_NO;
	/* ...and before it ended. */
	if (p->alive || isnan(p->exited_s) || w->ub <= p->exited_s + BEGIN_TOLERANCE_S)
		return CPW_KIN_YES;
	return w->lb > p->exited_s + BEGIN_TOLERANCE_S ? CPW_KIN_NO : CPW_KIN_UNSURE;
}

void cpw_tree_exit_after(struct cpw_tree *t, pid_t pid, double lived_s, double boot_offset_s)
{
	struct cpw_proc *p = find_proc(t, pid);
	if (!p || p->alive)
		return;
	double begin = begin_of(t, p, boot_offset_s), end = begin + lived_s;
	if (!isnan(end) && (isnan(p->exited_s) || end < p->exited_s))
		p->exited_s = end;
	/* exec args: and it began then, not when a sample first found it (the table's start
	 * and duration), where that was within the watch. */
	double in_watch = begin_in_watch(t, p, boot_offset_s);
	if (in_watch < p->first_seen_s)
		p->first_seen_s = in_watch;
}

void cpw_tree_set_boot_offset(struct cpw_tree *t, double boot_offset_s)
{
	t->boot_offset_s = boot_offset_s;
}

uint64_t cpw_tree_start_ticks(const struct cpw_tree *t, pid_t pid)
{
	const struct cpw_proc *p = find_proc(t, pid);
	return p ? p->starttime_ticks : 0;
}

bool cpw_tree_same_process(const struct cpw_tree *t, pid_t pid, const struct cpw_begin_window *w,
			   double boot_offset_s)
{
	const struct cpw_proc *p = find_proc(t, pid);
	if (!p)
		return false;
	double begin = begin_of(t, p, boot_offset_s);
	return isnan(begin) ||
	       (w->lb <= begin + BEGIN_TOLERANCE_S && w->ub >= begin - BEGIN_TOLERANCE_S);
}

struct cpw_tree *cpw_tree_new(bool baseline_existing)
{
	struct cpw_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->baseline_existing = baseline_existing;
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	t->page_kib = sysconf(_SC_PAGESIZE) / 1024;
	t->boot_offset_s = NAN;
	/* t->waits: calloc's zeroes are an empty table, as cpw_waits_init() makes, without
	 * touching the threads' records no thread has used. */
	cpw_pidmap_init(&t->map);
	return t;
}

void cpw_tree_free(struct cpw_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].threads);
	free(t->procs);
	cpw_pidmap_free(&t->map);
	free(t);
}

void cpw_tree_end(struct cpw_tree *t, double now_s)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].alive)
			mark_exited(t, &t->procs[i], now_s);
	t->totals.alive = 0;
	t->totals.rss_kib = 0;
}

size_t cpw_tree_size(const struct cpw_tree *t) { return t->nprocs; }

const struct cpw_proc *cpw_tree_proc(const struct cpw_tree *t, size_t i)
{
	return i < t->nprocs ? &t->procs[i] : NULL;
}

size_t cpw_tree_proc_thread_count(const struct cpw_proc *p)
{
	return p->alive ? p->nthreads_used : 0;
}

const struct cpw_thread_now *cpw_tree_proc_thread(const struct cpw_proc *p, size_t i)
{
	return i < cpw_tree_proc_thread_count(p) ? &p->threads[i].now : NULL;
}

const struct cpw_proc *cpw_tree_find(const struct cpw_tree *t, pid_t pid)
{
	return find_proc(t, pid);
}

const struct cpw_tree_totals *cpw_tree_totals(const struct cpw_tree *t) { return &t->totals; }

const struct cpw_history *cpw_tree_history(const struct cpw_tree *t) { return &t->history; }
const struct cpw_rss_series *cpw_tree_rss_series(const struct cpw_tree *t) { return &t->rss_series; } /* leaks */

double cpw_tree_history_at(const struct cpw_history *h, const double *series, size_t i)
{
	if (i >= h->count)
		return NAN;
	size_t oldest = (h->next + CPW_HISTORY_LEN - h->count) % CPW_HISTORY_LEN;
	return series[(oldest + i) % CPW_HISTORY_LEN];
}

size_t cpw_tree_live_tids(const struct cpw_tree *t, pid_t *tids, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct cpw_proc *p = &t->procs[i];
		if (!p->alive)
			continue;
		for (size_t j = 0; j < p->nthreads_used && n < max; j++)
			tids[n++] = p->threads[j].tid;
	}
	return n;
}

size_t cpw_tree_live_thread_count(const struct cpw_tree *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].alive)
			n += t->procs[i].nthreads_used;
	return n;
}

const struct cpw_waits *cpw_tree_waits(const struct cpw_tree *t)
{
	return &t->waits;
}
