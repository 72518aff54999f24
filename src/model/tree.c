/*
 * tree.c: the watched process tree over time (tree.h).
 *
 * One sample: discover the tree from its roots through the children files (only the tree is
 * read), read the processes through libproc2 and their threads directly, then fold the
 * readings into cumulative per-process figures, per-interval rates, tree totals and the
 * history ring. Figures never go backwards: a thread that disappears has its last reading
 * banked in its process, and a process that disappears keeps its last figures.
 */
#include "config.h"
#include "cperfwatch/tree.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cperfwatch/proc_parse.h"
#include "cperfwatch/procps.h"

struct cpw_thread_slot {
	pid_t tid;
	unsigned generation;
	uint64_t oncpu_ns, runq_ns, vol, invol; /* counted part (minus baseline) */
	uint64_t base_oncpu_ns, base_runq_ns, base_vol, base_invol;
};

struct cpw_tree {
	char proc_root[256];
	bool baseline_existing;
	long hz;
	struct cpw_procps *procps; /* NULL when libproc2 could not be set up: direct reads */

	struct cpw_proc *procs;
	size_t nprocs, procs_alloc;

	/* open-addressing map pid -> index of its newest entry in procs */
	int *map;
	size_t map_size;

	unsigned generation;
	double last_sample_s;
	struct cpw_tree_totals totals;
	struct cpw_history history;

	/* scratch for one sample, reused so the hot loop does not allocate */
	pid_t *pids;
	size_t npids, pids_alloc;
	struct cpw_procps_row *rows;
	size_t rows_alloc;
};

/* ---- pid map ---- */

static size_t map_slot(const struct cpw_tree *t, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & (t->map_size - 1);
	while (t->map[h] >= 0 && t->procs[t->map[h]].pid != pid)
		h = (h + 1) & (t->map_size - 1);
	return h;
}

static int map_grow(struct cpw_tree *t)
{
	size_t size = t->map_size ? t->map_size * 2 : 256;
	int *map = malloc(size * sizeof(*map));
	if (!map)
		return -ENOMEM;
	free(t->map);
	t->map = map;
	t->map_size = size;
	for (size_t i = 0; i < size; i++)
		map[i] = -1;
	/* Newest entries last, so a reused pid maps to its newest process. */
	for (size_t i = 0; i < t->nprocs; i++)
		t->map[map_slot(t, t->procs[i].pid)] = (int)i;
	return 0;
}

static struct cpw_proc *find_proc(const struct cpw_tree *t, pid_t pid)
{
	if (!t->map_size)
		return NULL;
	int idx = t->map[map_slot(t, pid)];
	return idx >= 0 ? &t->procs[idx] : NULL;
}

static struct cpw_proc *add_proc(struct cpw_tree *t, pid_t pid, double now_s)
{
	if ((t->nprocs + 1) * 2 > t->map_size && map_grow(t) < 0)
		return NULL;
	if (t->nprocs == t->procs_alloc) {
		size_t n = t->procs_alloc ? t->procs_alloc * 2 : 64;
		struct cpw_proc *p = realloc(t->procs, n * sizeof(*p));
		if (!p)
			return NULL;
		t->procs = p;
		t->procs_alloc = n;
	}
	struct cpw_proc *p = &t->procs[t->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->first_seen_s = now_s;
	p->last_seen_s = now_s;
	p->exited_s = NAN;
	p->read_bytes = p->write_bytes = NAN;
	p->read_rate = p->write_rate = NAN;
	p->last_read = p->last_write = NAN;
	p->last_sample_s = NAN;
	t->map[map_slot(t, pid)] = (int)t->nprocs;
	t->nprocs++;
	t->totals.seen++;
	return p;
}

/* ---- discovery ---- */

static int push_pid(struct cpw_tree *t, pid_t pid)
{
	for (size_t i = 0; i < t->npids; i++) /* trees are small; roots may repeat */
		if (t->pids[i] == pid)
			return 0;
	if (t->npids == t->pids_alloc) {
		size_t n = t->pids_alloc ? t->pids_alloc * 2 : 256;
		pid_t *p = realloc(t->pids, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->pids = p;
		t->pids_alloc = n;
	}
	t->pids[t->npids++] = pid;
	return 1;
}

/* Adds the children of every thread of pid. A process that vanished has no task dir. */
static int discover_children(struct cpw_tree *t, pid_t pid)
{
	char path[320];
	char buf[4096];
	pid_t kids[512];

	snprintf(path, sizeof(path), "%s/%d/task", t->proc_root, (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%s/children", t->proc_root, (int)pid,
			 de->d_name);
		long len = cpw_read_file(path, buf, sizeof(buf));
		if (len <= 0)
			continue;
		int n = cpw_parse_pid_list(buf, (size_t)len, kids, sizeof(kids) / sizeof(kids[0]), NULL);
		for (int i = 0; i < n; i++)
			if (push_pid(t, kids[i]) < 0) {
				closedir(dir);
				return -ENOMEM;
			}
	}
	closedir(dir);
	return 0;
}

/* ---- reading one process ---- */

static struct cpw_thread_slot *thread_slot(struct cpw_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nthreads_used; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	if (p->nthreads_used == p->nthreads_alloc) {
		size_t n = p->nthreads_alloc ? p->nthreads_alloc * 2 : 4;
		struct cpw_thread_slot *s = realloc(p->threads, n * sizeof(*s));
		if (!s)
			return NULL;
		p->threads = s;
		p->nthreads_alloc = n;
	}
	struct cpw_thread_slot *s = &p->threads[p->nthreads_used++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	return s;
}

static void read_threads(struct cpw_tree *t, struct cpw_proc *p, bool at_baseline)
{
	char path[320];
	char buf[4096];

	snprintf(path, sizeof(path), "%s/%d/task", t->proc_root, (int)p->pid);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_t tid = (pid_t)atoi(de->d_name);
		int n = snprintf(path, sizeof(path), "%s/%d/task/%d/", t->proc_root, (int)p->pid,
				 (int)tid);
		char *leaf = path + n;
		size_t leaf_room = sizeof(path) - (size_t)n;

		snprintf(leaf, leaf_room, "stat");
		long len = cpw_read_file(path, buf, sizeof(buf));
		struct cpw_stat_fields st;
		if (len <= 0 || cpw_parse_stat(buf, (size_t)len, &st) < 0)
			continue; /* the thread ended between listing and reading */

		struct cpw_thread_slot *slot = thread_slot(p, tid);
		if (!slot)
			continue;
		bool new_slot = slot->generation == 0;
		slot->generation = t->generation;

		switch (st.state) {
		case 'R':
			t->totals.st_running++;
			break;
		case 'D':
			snprintf(leaf, leaf_room, "wchan");
			len = cpw_read_file(path, buf, sizeof(buf));
			if (cpw_wchan_is_storage(len > 0 ? buf : ""))
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

		struct cpw_schedstat ss = { 0, 0, 0 };
		snprintf(leaf, leaf_room, "schedstat");
		len = cpw_read_file(path, buf, sizeof(buf));
		if (len > 0)
			cpw_parse_schedstat(buf, (size_t)len, &ss);

		struct cpw_status_fields sf;
		memset(&sf, 0, sizeof(sf));
		snprintf(leaf, leaf_room, "status");
		len = cpw_read_file(path, buf, sizeof(buf));
		if (len > 0)
			cpw_parse_status(buf, (size_t)len, &sf);

		/* The main thread's status carries the process's VmHWM (since exec: only
		 * meaningful when the watch saw the process start). */
		if (tid == p->pid && sf.has_hwm && !p->preexisting && sf.vm_hwm_kib > p->max_rss_kib)
			p->max_rss_kib = sf.vm_hwm_kib;
		/* stat's rss field can lag (per-thread counters not yet folded into the mm);
		 * status's VmRSS, read here anyway, is current. */
		if (tid == p->pid && sf.vm_rss_kib > 0) {
			p->rss_kib = sf.vm_rss_kib;
			if (p->rss_kib > p->max_rss_kib)
				p->max_rss_kib = p->rss_kib;
		}

		if (new_slot && at_baseline) {
			slot->base_oncpu_ns = ss.oncpu_ns;
			slot->base_runq_ns = ss.runq_ns;
			slot->base_vol = sf.vol_ctxsw;
			slot->base_invol = sf.invol_ctxsw;
		}
		/* Never backwards, whatever a racing read returned. */
#define ADVANCE(field, now, base) \
	if ((now) >= (base) && (now) - (base) > slot->field) slot->field = (now) - (base)
		ADVANCE(oncpu_ns, ss.oncpu_ns, slot->base_oncpu_ns);
		ADVANCE(runq_ns, ss.runq_ns, slot->base_runq_ns);
		ADVANCE(vol, sf.vol_ctxsw, slot->base_vol);
		ADVANCE(invol, sf.invol_ctxsw, slot->base_invol);
#undef ADVANCE
	}
	closedir(dir);

	/* Bank threads that ended, and sum the live ones. */
	uint64_t oncpu = p->banked_oncpu_ns, runq = p->banked_runq_ns;
	uint64_t vol = p->banked_vol, invol = p->banked_invol;
	for (size_t i = 0; i < p->nthreads_used;) {
		struct cpw_thread_slot *s = &p->threads[i];
		if (s->generation != t->generation) {
			p->banked_oncpu_ns += s->oncpu_ns;
			p->banked_runq_ns += s->runq_ns;
			p->banked_vol += s->vol;
			p->banked_invol += s->invol;
			oncpu += s->oncpu_ns;
			runq += s->runq_ns;
			vol += s->vol;
			invol += s->invol;
			p->threads[i] = p->threads[--p->nthreads_used];
			continue;
		}
		oncpu += s->oncpu_ns;
		runq += s->runq_ns;
		vol += s->vol;
		invol += s->invol;
		i++;
	}
	p->oncpu_s = (double)oncpu / 1e9;
	p->runq_wait_s = (double)runq / 1e9;
	p->vol_ctxsw = vol;
	p->invol_ctxsw = invol;
}

static void read_io(struct cpw_tree *t, struct cpw_proc *p, bool at_baseline)
{
	char path[320];
	char buf[1024];
	struct cpw_io_fields io;

	snprintf(path, sizeof(path), "%s/%d/io", t->proc_root, (int)p->pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len < 0 || cpw_parse_io(buf, (size_t)len, &io) < 0) {
		if (len == -EACCES || len == -EPERM)
			snprintf(p->io_reason, sizeof(p->io_reason),
				 "/proc/%d/io: permission denied", (int)p->pid);
		else if (len >= 0 || len != -ENOENT)
			snprintf(p->io_reason, sizeof(p->io_reason), "/proc/%d/io unreadable",
				 (int)p->pid);
		return; /* keep what we had: a vanished process keeps its last figures */
	}
	if (at_baseline) {
		p->base_read = (double)io.read_bytes;
		p->base_write = (double)io.write_bytes;
	}
	double r = (double)io.read_bytes - p->base_read;
	double w = (double)io.write_bytes - p->base_write;
	if (!(p->read_bytes >= r))
		p->read_bytes = r;
	if (!(p->write_bytes >= w))
		p->write_bytes = w;
	p->io_reason[0] = '\0';
}

static void read_once(struct cpw_tree *t, struct cpw_proc *p)
{
	char path[320];
	char buf[CPW_CMDLINE_MAX * 2];

	snprintf(path, sizeof(path), "%s/%d/cmdline", t->proc_root, (int)p->pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len > 0)
		cpw_parse_cmdline(buf, (size_t)len, p->cmdline, sizeof(p->cmdline));
}

/* Fills rows through libproc2, or by reading stat directly where libproc2 is unavailable
 * or pointed elsewhere (fixture proc roots). */
static int read_rows(struct cpw_tree *t)
{
	if (t->rows_alloc < t->npids) {
		struct cpw_procps_row *r = realloc(t->rows, t->pids_alloc * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->rows = r;
		t->rows_alloc = t->pids_alloc;
	}
	if (t->procps)
		return cpw_procps_read(t->procps, t->pids, t->npids, t->rows, t->rows_alloc);

	long page_kib = sysconf(_SC_PAGESIZE) / 1024;
	size_t n = 0;
	for (size_t i = 0; i < t->npids; i++) {
		char path[320];
		char buf[2048];
		struct cpw_stat_fields st;
		snprintf(path, sizeof(path), "%s/%d/stat", t->proc_root, (int)t->pids[i]);
		long len = cpw_read_file(path, buf, sizeof(buf));
		if (len <= 0 || cpw_parse_stat(buf, (size_t)len, &st) < 0)
			continue;
		struct cpw_procps_row *r = &t->rows[n++];
		r->pid = t->pids[i];
		r->ppid = st.ppid;
		r->state = st.state;
		snprintf(r->comm, sizeof(r->comm), "%s", st.comm);
		r->utime_ticks = st.utime_ticks;
		r->stime_ticks = st.stime_ticks;
		r->minflt = st.minflt;
		r->majflt = st.majflt;
		r->rss_kib = (uint64_t)(st.rss_pages > 0 ? st.rss_pages : 0) * (uint64_t)page_kib;
		r->nlwp = (int)st.num_threads;
		r->starttime_ticks = st.starttime_ticks;
	}
	return (int)n;
}

static void mark_exited(struct cpw_proc *p, double now_s)
{
	p->alive = false;
	p->exited_s = now_s;
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

static void fold_row(struct cpw_tree *t, const struct cpw_procps_row *r, double now_s)
{
	struct cpw_proc *p = find_proc(t, r->pid);
	bool at_baseline = false;

	if (p && p->starttime_ticks != r->starttime_ticks) {
		if (p->alive)
			mark_exited(p, now_s); /* the pid was reused: a new process */
		p = NULL;
	}
	if (!p) {
		p = add_proc(t, r->pid, now_s);
		if (!p)
			return;
		p->starttime_ticks = r->starttime_ticks;
		p->alive = true;
		/* In attach mode, what existed at the first sample counts from there on. */
		if (t->baseline_existing && t->generation == 1) {
			at_baseline = true;
			p->preexisting = true;
			p->base_utime = r->utime_ticks;
			p->base_stime = r->stime_ticks;
			p->base_minflt = r->minflt;
			p->base_majflt = r->majflt;
		}
		read_once(t, p);
	}
	p->generation = t->generation;
	p->last_seen_s = now_s;
	p->ppid = r->ppid;
	p->state = r->state;
	snprintf(p->comm, sizeof(p->comm), "%s", r->comm);
	p->nthreads = r->nlwp;
	p->rss_kib = r->rss_kib;
	if (r->rss_kib > p->max_rss_kib)
		p->max_rss_kib = r->rss_kib;

	uint64_t ut = r->utime_ticks > p->base_utime ? r->utime_ticks - p->base_utime : 0;
	uint64_t stt = r->stime_ticks > p->base_stime ? r->stime_ticks - p->base_stime : 0;
	double user_s = (double)ut / (double)t->hz, sys_s = (double)stt / (double)t->hz;
	if (user_s > p->user_s)
		p->user_s = user_s;
	if (sys_s > p->sys_s)
		p->sys_s = sys_s;
	uint64_t minflt = r->minflt > p->base_minflt ? r->minflt - p->base_minflt : 0;
	uint64_t majflt = r->majflt > p->base_majflt ? r->majflt - p->base_majflt : 0;
	if (minflt > p->minflt)
		p->minflt = minflt;
	if (majflt > p->majflt)
		p->majflt = majflt;

	read_threads(t, p, at_baseline);
	read_io(t, p, at_baseline);

	/* Rates over the interval since this process's previous sample. */
	double dt = now_s - p->last_sample_s;
	uint64_t ticks = ut + stt, ctxsw = p->vol_ctxsw + p->invol_ctxsw;
	if (!isnan(p->last_sample_s) && dt > 0) {
		p->cpu_pct = 100.0 * (double)(ticks - (ticks >= p->last_ticks ? p->last_ticks : ticks)) /
			     (double)t->hz / dt;
		p->minflt_rate = rate((double)p->minflt, (double)p->last_minflt, dt);
		p->majflt_rate = rate((double)p->majflt, (double)p->last_majflt, dt);
		p->ctxsw_rate = rate((double)ctxsw, (double)p->last_ctxsw, dt);
		p->read_rate = rate(p->read_bytes, p->last_read, dt);
		p->write_rate = rate(p->write_bytes, p->last_write, dt);
	}
	p->last_ticks = ticks;
	p->last_minflt = p->minflt;
	p->last_majflt = p->majflt;
	p->last_ctxsw = ctxsw;
	p->last_read = p->read_bytes;
	p->last_write = p->write_bytes;
	p->last_sample_s = now_s;
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

int cpw_tree_sample(struct cpw_tree *t, const pid_t *roots, size_t nroots, double now_s)
{
	t->generation++;
	t->npids = 0;
	for (size_t i = 0; i < nroots; i++)
		if (push_pid(t, roots[i]) < 0)
			return -ENOMEM;
	/* Breadth first: t->pids grows while we walk it. */
	for (size_t i = 0; i < t->npids; i++)
		if (discover_children(t, t->pids[i]) < 0)
			return -ENOMEM;

	int nrows = read_rows(t);
	if (nrows < 0)
		return nrows;

	struct cpw_tree_totals *tt = &t->totals;
	uint64_t running_before = tt->st_running;
	for (int i = 0; i < nrows; i++)
		fold_row(t, &t->rows[i], now_s);

	/* What was alive and is gone now has exited. */
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].alive && t->procs[i].generation != t->generation)
			mark_exited(&t->procs[i], now_s);

	tt->samples++;
	tt->runnable_sum += tt->st_running - running_before;
	tt->alive = 0;
	tt->rss_kib = 0;
	tt->cpu_pct = tt->minflt_rate = tt->majflt_rate = 0;
	tt->read_rate = tt->write_rate = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct cpw_proc *p = &t->procs[i];
		if (!p->alive)
			continue;
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
	if (tt->rss_kib > tt->peak_rss_kib)
		tt->peak_rss_kib = tt->rss_kib;
	t->last_sample_s = now_s;
	push_history(t);
	return (int)tt->alive;
}

void cpw_tree_record_exit(struct cpw_tree *t, pid_t pid, pid_t ppid, const char *comm,
			  double user_s, double sys_s, uint64_t minflt, uint64_t majflt,
			  uint64_t max_rss_kib, double now_s)
{
	struct cpw_proc *p = find_proc(t, pid);
	if (!p || p->alive) {
		if (p && p->alive)
			mark_exited(p, now_s);
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

struct cpw_tree *cpw_tree_new(const char *proc_root, bool baseline_existing)
{
	struct cpw_tree *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s", proc_root ? proc_root : "/proc");
	t->baseline_existing = baseline_existing;
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	/* libproc2 reads the real /proc only; a fixture root is read directly. */
	if (strcmp(t->proc_root, "/proc") == 0 && cpw_procps_new(&t->procps) < 0)
		t->procps = NULL;
	if (map_grow(t) < 0) {
		cpw_tree_free(t);
		return NULL;
	}
	return t;
}

void cpw_tree_free(struct cpw_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].threads);
	free(t->procs);
	free(t->map);
	free(t->pids);
	free(t->rows);
	cpw_procps_free(t->procps);
	free(t);
}

size_t cpw_tree_size(const struct cpw_tree *t) { return t->nprocs; }

const struct cpw_proc *cpw_tree_proc(const struct cpw_tree *t, size_t i)
{
	return i < t->nprocs ? &t->procs[i] : NULL;
}

const struct cpw_proc *cpw_tree_find(const struct cpw_tree *t, pid_t pid)
{
	return find_proc(t, pid);
}

const struct cpw_tree_totals *cpw_tree_totals(const struct cpw_tree *t) { return &t->totals; }

const struct cpw_history *cpw_tree_history(const struct cpw_tree *t) { return &t->history; }

double cpw_history_at(const struct cpw_history *h, const double *series, size_t i)
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
