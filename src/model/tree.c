/*
 * tree.c: the watched process tree over time (tree.h).
 *
 * One sample: discover the tree from its roots through the children files (only the tree is
 * read), identify new processes once through libproc2, read each process and thread
 * directly through descriptors kept open (skipping what cannot have changed), then fold the
 * readings into cumulative per-process figures, per-interval rates, tree totals and the
 * history ring. Figures never go backwards: a thread that disappears has its last reading
 * banked in its process, and a process that disappears keeps its last figures.
 */
#include "config.h"
#include "model/tree.h"
#include "model/waits.h"
#include "source/waits.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "source/proc_parse.h"
#include "source/procps.h"

/* A thread that did not run since the last sample has its stat read one sample in this
 * many (read_threads()). */
#define STATE_REFRESH 8

struct cpw_thread_slot {
	pid_t tid;
	unsigned generation;
	int schedstat_fd, stat_fd, status_fd; /* kept open; -1 when not */
	uint64_t last_slices, last_oncpu_ns;   /* to tell whether it ran since the last sample */
	char state;                            /* at its last stat read; 0 before the first */
	uint64_t oncpu_ns, runq_ns, vol, invol; /* counted part (minus baseline) */
	uint64_t base_oncpu_ns, base_runq_ns, base_vol, base_invol;
	pid_t *kids;                           /* its children at the last read */
	size_t nkids, kids_alloc;
	struct cpw_wait wait;                  /* what it waited on when last probed */
	bool wait_known;
};

/* A pid waiting to be visited in this sample, with the parent it was found under (0 for a
 * root): a stale cached child whose pid was reused elsewhere is told by its ppid. */
struct frontier_entry {
	pid_t pid;
	pid_t parent;
};

struct seen_entry {
	pid_t pid;
	unsigned generation;
};

struct cpw_tree {
	char proc_root[256];
	bool baseline_existing;
	long hz;
	long page_kib;
	struct cpw_procps *procps; /* opened at the first new process */
	bool procps_wanted;         /* false with a fixture root, a report without users, or once libproc2 failed */
	char identity_error[256];   /* why libproc2 failed; "" otherwise */

	struct cpw_proc *procs;
	size_t nprocs, procs_alloc;

	/* open-addressing map pid -> index of its newest entry in procs */
	int *map;
	size_t map_size;

	unsigned generation;
	double last_sample_s;
	double interval_s;          /* since the previous sample: what each waiting thread adds */
	struct cpw_wait_probe *waitprobe; /* NULL when it could not be allocated */
	struct cpw_waits waits;
	struct cpw_tree_totals totals;
	struct cpw_history history;

	/* Descriptors kept open between samples, within a budget under RLIMIT_NOFILE. */
	size_t kept_fds, max_kept_fds;

	/* scratch for one sample, reused so the hot loop does not allocate */
	struct frontier_entry *front;
	size_t nfront, front_alloc;
	struct seen_entry *seen;   /* pids queued this sample (generation-stamped set) */
	size_t seen_size;
	pid_t *new_pids;           /* first seen this sample, for libproc2 */
	size_t nnew, new_alloc;
	struct cpw_procps_identity *ids;
	size_t ids_alloc;
	pid_t *tids;
	size_t tids_alloc;
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
	p->exited_s = p->missed_s = NAN;
	p->read_bytes = p->write_bytes = NAN;
	p->read_rate = p->write_rate = NAN;
	p->last_read = p->last_write = NAN;
	p->last_sample_s = NAN;
	p->stat_fd = p->io_fd = -1;
	t->map[map_slot(t, pid)] = (int)t->nprocs;
	t->nprocs++;
	t->totals.seen++;
	return p;
}

/* ---- kept descriptors ---- */

static void close_kept(struct cpw_tree *t, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
		t->kept_fds--;
	}
}

/* Reads a small /proc file from offset 0. With a kept descriptor that is one pread; a
 * descriptor of a process that ended fails with ESRCH rather than following a reused pid.
 * Returns the bytes read (NUL-terminated), or -errno. */
static long read_kept(struct cpw_tree *t, int *fd, const char *path, char *buf, size_t size)
{
	ssize_t n;

	if (*fd >= 0) {
		n = pread(*fd, buf, size - 1, 0);
		if (n > 0) {
			buf[n] = '\0';
			return (long)n;
		}
		int err = n < 0 ? errno : ESRCH;
		close_kept(t, fd);
		return -err;
	}
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	n = pread(f, buf, size - 1, 0);
	if (n < 0) {
		int err = errno;
		close(f);
		return -err;
	}
	buf[n] = '\0';
	if (t->kept_fds < t->max_kept_fds) {
		*fd = f;
		t->kept_fds++;
	} else {
		close(f);
	}
	return (long)n;
}

/* ---- the frontier of one sample ---- */

static int seen_insert(struct cpw_tree *t, pid_t pid)
{
	if ((t->nfront + 1) * 2 > t->seen_size) {
		size_t size = t->seen_size ? t->seen_size * 2 : 512;
		struct seen_entry *seen = calloc(size, sizeof(*seen));
		if (!seen)
			return -ENOMEM;
		/* Re-insert what this sample has queued so far. */
		for (size_t i = 0; i < t->nfront; i++) {
			size_t h = ((size_t)t->front[i].pid * 2654435761u) & (size - 1);
			while (seen[h].generation == t->generation)
				h = (h + 1) & (size - 1);
			seen[h].pid = t->front[i].pid;
			seen[h].generation = t->generation;
		}
		free(t->seen);
		t->seen = seen;
		t->seen_size = size;
	}
	size_t h = ((size_t)pid * 2654435761u) & (t->seen_size - 1);
	while (t->seen[h].generation == t->generation) {
		if (t->seen[h].pid == pid)
			return 0;
		h = (h + 1) & (t->seen_size - 1);
	}
	t->seen[h].pid = pid;
	t->seen[h].generation = t->generation;
	return 1;
}

static int push_front(struct cpw_tree *t, pid_t pid, pid_t parent)
{
	int fresh = seen_insert(t, pid);
	if (fresh <= 0)
		return fresh;
	if (t->nfront == t->front_alloc) {
		size_t n = t->front_alloc ? t->front_alloc * 2 : 256;
		struct frontier_entry *f = realloc(t->front, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		t->front = f;
		t->front_alloc = n;
	}
	t->front[t->nfront].pid = pid;
	t->front[t->nfront].parent = parent;
	t->nfront++;
	return 1;
}

/* ---- threads ---- */

static void close_slot(struct cpw_tree *t, struct cpw_thread_slot *s)
{
	close_kept(t, &s->schedstat_fd);
	close_kept(t, &s->stat_fd);
	close_kept(t, &s->status_fd);
	free(s->kids);
	s->kids = NULL;
	s->nkids = s->kids_alloc = 0;
}

/* The slot of thread tid, made when it has none. *hint is where the caller looks first and
 * is left just past the slot found: a sample lists a process's threads in the order of the
 * last one, which is the slots' order, so a pool of thousands of threads costs one compare
 * each instead of a search each (which made every sample quadratic in the threads). */
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
	s->schedstat_fd = s->stat_fd = s->status_fd = -1;
	return s;
}

/* The thread ids of a process: itself when it has one thread (no directory to list). */
static size_t list_tids(struct cpw_tree *t, struct cpw_proc *p, long num_threads)
{
	char path[320];

	if (num_threads <= 1) {
		t->tids[0] = p->pid;
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%d/task", t->proc_root, (int)p->pid);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (n == t->tids_alloc) {
			pid_t *tids = realloc(t->tids, t->tids_alloc * 2 * sizeof(*tids));
			if (!tids)
				break;
			t->tids = tids;
			t->tids_alloc *= 2;
		}
		t->tids[n++] = (pid_t)atoi(de->d_name);
	}
	closedir(dir);
	return n;
}

static void count_state(struct cpw_tree *t, char state, const char *wchan)
{
	switch (state) {
	case 'R':
		t->totals.st_running++;
		break;
	case 'D':
		if (cpw_wchan_is_storage(wchan))
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

/* Re-reads a thread's children list into its cache. */
static void read_kids(struct cpw_tree *t, struct cpw_thread_slot *s, const char *path)
{
	char buf[4096];
	pid_t kids[512];

	long len = cpw_read_file(path, buf, sizeof(buf));
	int n = len > 0 ? cpw_parse_pid_list(buf, (size_t)len, kids, sizeof(kids) / sizeof(kids[0]), NULL) : 0;
	if (n < 0)
		n = 0;
	if ((size_t)n > s->kids_alloc) {
		pid_t *k = realloc(s->kids, (size_t)n * sizeof(*k));
		if (!k)
			return;
		s->kids = k;
		s->kids_alloc = (size_t)n;
	}
	if (n > 0)
		memcpy(s->kids, kids, (size_t)n * sizeof(*kids));
	s->nkids = (size_t)n;
}

/* Reads every thread of p; returns true when any of them ran since the last sample. */
static bool read_threads(struct cpw_tree *t, struct cpw_proc *p, const struct cpw_stat_fields *st,
			 bool at_baseline)
{
	char path[320];
	char buf[4096];
	bool any_ran = false;

	size_t ntids = list_tids(t, p, st->num_threads), hint = 0;
	for (size_t i = 0; i < ntids; i++) {
		pid_t tid = t->tids[i];
		int plen = snprintf(path, sizeof(path), "%s/%d/task/%d/", t->proc_root, (int)p->pid,
				    (int)tid);
		char *leaf = path + plen;
		size_t leaf_room = sizeof(path) - (size_t)plen;

		struct cpw_thread_slot *slot = thread_slot(p, tid, &hint);
		if (!slot)
			continue;
		bool new_slot = slot->generation == 0;

		struct cpw_schedstat ss = { 0, 0, 0 };
		snprintf(leaf, leaf_room, "schedstat");
		long len = read_kept(t, &slot->schedstat_fd, path, buf, sizeof(buf));
		bool have_ss = len > 0 && cpw_parse_schedstat(buf, (size_t)len, &ss) == 0;
		/* A thread that was not scheduled since the last sample cannot have changed its
		 * context switches, memory high-water mark or children. Without schedstat (a
		 * kernel without it, or the thread just ended) that cannot be told. */
		bool ran = new_slot || !have_ss || ss.slices != slot->last_slices ||
			   ss.oncpu_ns != slot->last_oncpu_ns;

		/* State: the process's stat is its main thread's. A thread that did not run since
		 * the last sample is asleep as it was (S or D), unless it was woken and has waited
		 * for a CPU ever since: its stat is read again one sample in STATE_REFRESH, so an
		 * idle thread of a large pool costs one read (its schedstat) most samples. */
		char state = st->state;
		if (tid != p->pid) {
			if (ran || (t->generation + (unsigned)tid) % STATE_REFRESH == 0 || !slot->state) {
				struct cpw_stat_fields ts;
				snprintf(leaf, leaf_room, "stat");
				len = read_kept(t, &slot->stat_fd, path, buf, sizeof(buf));
				if (len <= 0 || cpw_parse_stat(buf, (size_t)len, &ts) < 0)
					continue; /* the thread ended between listing and reading */
				slot->state = ts.state;
			}
			state = slot->state;
		}
		slot->generation = t->generation;
		slot->last_slices = ss.slices;
		slot->last_oncpu_ns = ss.oncpu_ns;
		any_ran |= ran;

		const char *wchan = "";
		if (state == 'D') {
			snprintf(leaf, leaf_room, "wchan");
			if (cpw_read_file(path, buf, sizeof(buf)) > 0)
				wchan = buf;
		}
		count_state(t, state, wchan);
		/* Waits: a thread off the CPU is probed when it ran since the last sample (it may
		 * wait on something else now) or was never probed; others keep their last wait. */
		if (t->waitprobe && (state == 'S' || state == 'D')) {
			bool have = slot->wait_known && !ran && !slot->wait.retry;
			if (!have) {
				struct cpw_wait now;
				int rc = cpw_wait_probe_thread(t->waitprobe, p->pid, tid, state, &now);
				/* Seen without its target (the call not caught), a wait of the same
				 * kind keeps the target its thread had. */
				if (rc == 0 && !now.target[0] && slot->wait_known && slot->wait.kind == now.kind) {
					memcpy(now.target, slot->wait.target, sizeof(now.target));
					now.peer_pid = slot->wait.peer_pid;
				}
				if (rc == 0)
					slot->wait = now;
				/* Back on a CPU when probed (its state said S or D): its last wait
				 * stands for this sample, when it has one. */
				have = rc == 0 || (rc == -EAGAIN && slot->wait_known);
			}
			slot->wait_known = have;
			if (have)
				cpw_waits_add(&t->waits, p->pid, p->comm, &slot->wait, t->interval_s);
		}
		if (tid == p->pid)
			snprintf(p->wait_now, sizeof(p->wait_now), "%s",
				 (state == 'S' || state == 'D') && slot->wait_known
					 ? cpw_wait_kind_name(slot->wait.kind) : "");

		struct cpw_status_fields sf;
		memset(&sf, 0, sizeof(sf));
		if (ran) {
			snprintf(leaf, leaf_room, "status");
			len = read_kept(t, &slot->status_fd, path, buf, sizeof(buf));
			if (len > 0)
				cpw_parse_status(buf, (size_t)len, &sf);
			snprintf(leaf, leaf_room, "children");
			read_kids(t, slot, path);
			if (tid == p->pid) {
				/* The main thread's status carries the process's VmHWM (since exec:
				 * meaningful only when the watch saw the process start) and a
				 * current VmRSS (stat's rss field can lag behind it). */
				if (sf.has_hwm && !p->preexisting && sf.vm_hwm_kib > p->max_rss_kib)
					p->max_rss_kib = sf.vm_hwm_kib;
				if (sf.vm_rss_kib > 0)
					p->rss_kib = sf.vm_rss_kib;
			}
		} else {
			sf.vol_ctxsw = slot->vol + slot->base_vol;
			sf.invol_ctxsw = slot->invol + slot->base_invol;
		}
		if (tid == p->pid && p->rss_kib > p->max_rss_kib)
			p->max_rss_kib = p->rss_kib;

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
		for (size_t k = 0; k < slot->nkids; k++)
			push_front(t, slot->kids[k], p->pid);
	}

	/* Bank threads that ended, and sum every thread. */
	uint64_t oncpu = p->banked_oncpu_ns, runq = p->banked_runq_ns;
	uint64_t vol = p->banked_vol, invol = p->banked_invol;
	for (size_t i = 0; i < p->nthreads_used;) {
		struct cpw_thread_slot *s = &p->threads[i];
		oncpu += s->oncpu_ns;
		runq += s->runq_ns;
		vol += s->vol;
		invol += s->invol;
		if (s->generation != t->generation) {
			p->banked_oncpu_ns += s->oncpu_ns;
			p->banked_runq_ns += s->runq_ns;
			p->banked_vol += s->vol;
			p->banked_invol += s->invol;
			close_slot(t, s);
			p->threads[i] = p->threads[--p->nthreads_used];
			continue;
		}
		i++;
	}
	p->oncpu_s = (double)oncpu / 1e9;
	p->runq_wait_s = (double)runq / 1e9;
	p->vol_ctxsw = vol;
	p->invol_ctxsw = invol;
	return any_ran;
}

static void read_io(struct cpw_tree *t, struct cpw_proc *p, bool at_baseline)
{
	char path[320];
	char buf[1024];
	struct cpw_io_fields io;

	snprintf(path, sizeof(path), "%s/%d/io", t->proc_root, (int)p->pid);
	long len = read_kept(t, &p->io_fd, path, buf, sizeof(buf));
	if (len < 0 || cpw_parse_io(buf, (size_t)len, &io) < 0) {
		if (len == -EACCES || len == -EPERM)
			snprintf(p->io_reason, sizeof(p->io_reason),
				 "/proc/%d/io: permission denied", (int)p->pid);
		else if (len != -ENOENT && len != -ESRCH)
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

static void read_cmdline(struct cpw_tree *t, struct cpw_proc *p)
{
	char path[320];
	char buf[CPW_CMDLINE_MAX * 2];

	snprintf(path, sizeof(path), "%s/%d/cmdline", t->proc_root, (int)p->pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len > 0)
		cpw_parse_cmdline(buf, (size_t)len, p->cmdline, sizeof(p->cmdline));
}

static void mark_exited(struct cpw_tree *t, struct cpw_proc *p, double now_s)
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
		close_slot(t, &p->threads[i]);
	}
	p->nthreads_used = 0;
	close_kept(t, &p->stat_fd);
	close_kept(t, &p->io_fd);
}

/* Whether p, not reached by this sample, still runs: its stat reads, with the same start
 * time, and it is not a zombie. Through the path, not a kept descriptor: that is what
 * tells an ended process (its /proc directory is gone once it is reaped). */
static bool still_there(const struct cpw_tree *t, const struct cpw_proc *p)
{
	char path[320], buf[2048];
	struct cpw_stat_fields st;
	snprintf(path, sizeof(path), "%s/%d/stat", t->proc_root, (int)p->pid);
	long len = cpw_read_file(path, buf, sizeof(buf));
	return len > 0 && cpw_parse_stat(buf, (size_t)len, &st) == 0 &&
	       st.starttime_ticks == p->starttime_ticks && st.state != 'Z' && st.state != 'X';
}

static double rate(double now_val, double last_val, double dt)
{
	if (isnan(now_val) || isnan(last_val) || dt <= 0)
		return NAN;
	double d = now_val - last_val;
	return d > 0 ? d / dt : 0;
}

/* Reads one process of the frontier: its stat, threads, IO, and queues its children. */
static void visit(struct cpw_tree *t, pid_t pid, pid_t parent, double now_s)
{
	char path[320];
	char buf[2048];
	struct cpw_stat_fields st;
	struct cpw_proc *p = find_proc(t, pid);
	int fd = -1;
	long len;

	struct cpw_proc *dead = p && !p->alive ? p : NULL;
	if (dead)
		p = NULL; /* an old entry: a zombie we already know ended, or a reused pid */
	snprintf(path, sizeof(path), "%s/%d/stat", t->proc_root, (int)pid);
	len = read_kept(t, p ? &p->stat_fd : &fd, path, buf, sizeof(buf));
	if (len <= 0 || cpw_parse_stat(buf, (size_t)len, &st) < 0) {
		close_kept(t, &fd);
		return; /* gone: not seen in this sample, so marked exited below */
	}
	/* An exit record (taskstats, wait4) can come before a sample finds the process as a
	 * zombie: it is the same process, already counted exactly. A record carries no start
	 * time, so the first matching sight supplies it. */
	if (dead && dead->reaped && (dead->starttime_ticks == 0 || dead->starttime_ticks == st.starttime_ticks)) {
		dead->starttime_ticks = st.starttime_ticks;
		close_kept(t, &fd);
		return;
	}
	/* A cached child whose pid now belongs to someone else's process. */
	if (parent && st.ppid != parent && !(p && p->ppid == st.ppid)) {
		close_kept(t, &fd);
		return;
	}
	if (p && p->starttime_ticks != st.starttime_ticks) {
		mark_exited(t, p, now_s); /* reused pid behind a re-opened path */
		p = NULL;
	}

	bool at_baseline = false;
	if (!p) {
		p = add_proc(t, pid, now_s);
		if (!p) {
			close_kept(t, &fd);
			return;
		}
		p->stat_fd = fd;
		p->starttime_ticks = st.starttime_ticks;
		p->alive = true;
		/* In attach mode, what existed at the first sample counts from there on. */
		if (t->baseline_existing && t->generation == 1) {
			at_baseline = true;
			p->preexisting = true;
			p->base_utime = st.utime_ticks;
			p->base_stime = st.stime_ticks;
			p->base_minflt = st.minflt;
			p->base_majflt = st.majflt;
		}
		read_cmdline(t, p);
		if (t->nnew == t->new_alloc) {
			size_t n = t->new_alloc ? t->new_alloc * 2 : 64;
			pid_t *np = realloc(t->new_pids, n * sizeof(*np));
			if (np) {
				t->new_pids = np;
				t->new_alloc = n;
			}
		}
		if (t->nnew < t->new_alloc)
			t->new_pids[t->nnew++] = pid;
	}
	p->generation = t->generation;
	p->missed_s = NAN;
	p->last_seen_s = now_s;
	p->ppid = st.ppid;
	p->state = st.state;
	/* prctl(PR_SET_NAME) and exec change the name: follow it. */
	if (strcmp(p->comm, st.comm) != 0)
		snprintf(p->comm, sizeof(p->comm), "%s", st.comm);
	p->nthreads = (int)st.num_threads;
	p->rss_kib = (uint64_t)(st.rss_pages > 0 ? st.rss_pages : 0) * (uint64_t)t->page_kib;

	uint64_t ut = st.utime_ticks > p->base_utime ? st.utime_ticks - p->base_utime : 0;
	uint64_t stt = st.stime_ticks > p->base_stime ? st.stime_ticks - p->base_stime : 0;
	double user_s = (double)ut / (double)t->hz, sys_s = (double)stt / (double)t->hz;
	if (user_s > p->user_s)
		p->user_s = user_s;
	if (sys_s > p->sys_s)
		p->sys_s = sys_s;
	uint64_t minflt = st.minflt > p->base_minflt ? st.minflt - p->base_minflt : 0;
	uint64_t majflt = st.majflt > p->base_majflt ? st.majflt - p->base_majflt : 0;
	if (minflt > p->minflt)
		p->minflt = minflt;
	if (majflt > p->majflt)
		p->majflt = majflt;

	/* IO needs the process to run: it is re-read only when a thread ran. */
	if (read_threads(t, p, &st, at_baseline) || isnan(p->last_sample_s))
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

/* Asks libproc2 who the processes first seen in this sample are. */
static void identify_new(struct cpw_tree *t)
{
	if (t->nnew == 0 || !t->procps_wanted)
		return;
	/* Opened at the first new process, not at start-up (procps.c says why). */
	if (!t->procps &&
	    cpw_procps_new(&t->procps, t->identity_error, sizeof(t->identity_error)) < 0) {
		t->procps_wanted = false;
		return;
	}
	if (t->ids_alloc < t->nnew) {
		struct cpw_procps_identity *ids = realloc(t->ids, t->new_alloc * sizeof(*ids));
		if (!ids)
			return;
		t->ids = ids;
		t->ids_alloc = t->new_alloc;
	}
	int n = cpw_procps_identify(t->procps, t->new_pids, t->nnew, t->ids, t->ids_alloc);
	for (int i = 0; i < n; i++) {
		struct cpw_proc *p = find_proc(t, t->ids[i].pid);
		if (!p || !p->alive || p->starttime_ticks != t->ids[i].starttime_ticks)
			continue;
		snprintf(p->user, sizeof(p->user), "%s", t->ids[i].user);
	}
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
	struct cpw_tree_totals *tt = &t->totals;
	uint64_t running_before = tt->st_running;

	t->generation++;
	t->nfront = 0;
	t->nnew = 0;
	t->interval_s = now_s - t->last_sample_s;
	if (t->waitprobe) {
		/* The processes of the last sample: where the other end of a pipe is looked for. */
		pid_t *alive = malloc((t->nprocs + 1) * sizeof(*alive));
		size_t nalive = 0;
		for (size_t i = 0; alive && i < t->nprocs; i++)
			if (t->procs[i].alive)
				alive[nalive++] = t->procs[i].pid;
		cpw_wait_probe_begin_sample(t->waitprobe, alive, alive ? nalive : 0);
		free(alive);
	}
	for (size_t i = 0; i < nroots; i++)
		if (push_front(t, roots[i], 0) < 0)
			return -ENOMEM;
	/* Breadth first: visiting a process queues its children. */
	for (size_t i = 0; i < t->nfront; i++)
		visit(t, t->front[i].pid, t->front[i].parent, now_s);
	identify_new(t);

	/* What was alive and was not found has exited, unless it is still there: an orphan
	 * between its dead parent and its new one is under neither for a moment. It gets one
	 * sample's grace; marked exited, it would be listed twice once found again. */
	for (size_t i = 0; i < t->nprocs; i++) {
		struct cpw_proc *p = &t->procs[i];
		if (!p->alive || p->generation == t->generation)
			continue;
		if (isnan(p->missed_s) && still_there(t, p)) {
			p->missed_s = now_s;
			continue;
		}
		mark_exited(t, p, isnan(p->missed_s) ? now_s : p->missed_s);
	}

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
	if (t->waitprobe)
		cpw_waits_set_probe_stats(&t->waits, cpw_wait_probe_stats(t->waitprobe));
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

struct cpw_tree *cpw_tree_new(const char *proc_root, bool baseline_existing)
{
	struct cpw_tree *t = calloc(1, sizeof(*t));
	struct rlimit nofile;

	if (!t)
		return NULL;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s", proc_root ? proc_root : "/proc");
	t->baseline_existing = baseline_existing;
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	t->page_kib = sysconf(_SC_PAGESIZE) / 1024;
	/* Keeping descriptors open saves an open and a close per file per sample: raise the
	 * soft limit to the hard one and keep a margin for everything else. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		if (nofile.rlim_cur < nofile.rlim_max) {
			nofile.rlim_cur = nofile.rlim_max > 65536 ? 65536 : nofile.rlim_max;
			setrlimit(RLIMIT_NOFILE, &nofile);
			getrlimit(RLIMIT_NOFILE, &nofile);
		}
		t->max_kept_fds = nofile.rlim_cur > 256 ? (size_t)nofile.rlim_cur - 128 : 0;
	}
	t->tids_alloc = 64;
	t->tids = malloc(t->tids_alloc * sizeof(*t->tids));
	/* libproc2 reads the real /proc only; a fixture root is read directly. */
	t->procps_wanted = strcmp(t->proc_root, "/proc") == 0;
	cpw_waits_init(&t->waits);
	t->waitprobe = cpw_wait_probe_new(t->proc_root, 0);
	if (!t->tids || map_grow(t) < 0) {
		cpw_tree_free(t);
		return NULL;
	}
	return t;
}

void cpw_tree_free(struct cpw_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct cpw_proc *p = &t->procs[i];
		for (size_t j = 0; j < p->nthreads_used; j++)
			close_slot(t, &p->threads[j]);
		close_kept(t, &p->stat_fd);
		close_kept(t, &p->io_fd);
		free(p->threads);
	}
	free(t->procs);
	cpw_wait_probe_free(t->waitprobe);
	free(t->map);
	free(t->front);
	free(t->seen);
	free(t->new_pids);
	free(t->ids);
	free(t->tids);
	cpw_procps_free(t->procps);
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

const struct cpw_proc *cpw_tree_find(const struct cpw_tree *t, pid_t pid)
{
	return find_proc(t, pid);
}

const struct cpw_tree_totals *cpw_tree_totals(const struct cpw_tree *t) { return &t->totals; }

void cpw_tree_skip_users(struct cpw_tree *t)
{
	t->procps_wanted = false;
}

const char *cpw_tree_identity_error(const struct cpw_tree *t)
{
	return t->identity_error[0] ? t->identity_error : NULL;
}

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

const struct cpw_waits *cpw_tree_waits(const struct cpw_tree *t)
{
	return &t->waits;
}
