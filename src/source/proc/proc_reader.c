/*
 * proc_reader.c: one sample of the watched tree read from /proc (proc_reader.h).
 *
 * Discovery is breadth first from the roots through each thread's children file. Each
 * process the reader has seen has a handle: its kept descriptors (stat, io) and, per
 * thread, the kept descriptors and the last readings that tell whether the thread ran
 * since the last sample. Handles of processes that are gone are dropped at the end of the
 * sample. Descriptors are kept within a budget under RLIMIT_NOFILE, where each thread's
 * schedstat comes first: it is read every sample, and it is all an idle thread costs.
 */
#include "config.h"
#include "source/proc/proc_reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "source/gpu/cuda_users.h"
#include "source/proc/interp.h"
#include "source/proc/procps.h"
#include "source/python/python_stacks.h"
#include "util/pidmap.h"

/* A thread that did not run since the last sample has its stat read one sample in this
 * many: it may have been woken and have waited for a CPU ever since. */
#define STATE_REFRESH 8
/* Samples at which a command line read empty in the middle of an exec is read again (an
 * exec takes microseconds; a process that stays without one is then left so). */
#define CMDLINE_RETRIES 5
/* A process that did not run since its last PSS reading keeps it while the tree's
 * processes stay the same (its pages did not move; a sharer coming or going changes its
 * share), except at one PSS pass in this many (sharers outside the tree). */
#define PSS_REFRESH 10

struct thread_handle {
	pid_t tid;
	unsigned generation;                  /* last sample that read it */
	int schedstat_fd, stat_fd, status_fd; /* kept open; -1 when not */
	int children_fd;                      /* kept open too, for a main thread: read at each of its runs */
	int syscall_fd;                       /* kept open once it was probed (wait_probe's syscall reader) */
	uint64_t last_slices, last_oncpu_ns;  /* to tell whether it ran since the last sample */
	char state;                           /* at its last stat read; 0 before the first */
	uint64_t vol, invol;                  /* at its last status read */
	pid_t *kids;                          /* its children at the last read */
	size_t nkids, kids_alloc;
	struct cpw_wait *wait;                /* its last wait, once probed (its own allocation:
						 readings point to it while handles move) */
	bool wait_known;                      /* wait holds what it waits on now */
	unsigned probe_generation;            /* the sample whose idle check read probe_sched */
	struct cpw_schedstat probe_sched;     /* its schedstat as that check read it */
};

struct proc_handle {
	pid_t pid, ppid;
	uint64_t starttime_ticks;
	unsigned generation; /* last sample that reached it */
	bool missed;         /* not reached by the last sample, but still there */
	bool python_asked;   /* whether it runs Python, asked once it has a second thread */
	bool python;         /* it runs Python: its executable is python, or it maps libpython
			      * (as asked above): its waits are named by Python function */
	bool pss_cached;     /* last_pss_kib holds its last PSS reading */
	uint64_t pss_faults; /* its page faults (minor and major) at that reading */
	long pss_rss_pages;  /* and its resident pages */
	double last_pss_kib;
	unsigned pss_membership; /* the reader's membership count at that reading */
	char comm[64];       /* at the last reading: a change is an exec, when it is asked again */
	uint64_t startcode;  /* at the last reading: a change is an exec (of a script's
			      * interpreter too, whose name stays the script's) */
	unsigned char cmdline_retries; /* its command line read empty mid-exec: read again */
	int stat_fd, io_fd;
	bool have_stat;      /* last_stat holds its stat at the last sample that reached it */
	bool new_threads;    /* the last sample found threads it did not know: list them again */
	struct cpw_stat_fields last_stat;
	struct thread_handle *threads;
	size_t nthreads, threads_alloc;
	/* A GPU driver's helper thread was seen in it (CUDA's cuda-EvtHandlr): its other
	 * threads' futex waits may be the driver's blocking synchronize. */
	bool driver_helper_seen;
	signed char driver_text_known; /* 0: maps not read yet, 1: [driver_lo, driver_hi) is
					* the driver's code, -1: it maps no driver */
	uint64_t driver_lo, driver_hi;
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

struct cpw_proc_reader {
	char proc_root[256];
	struct cpw_procps *procps; /* opened at the first new process */
	bool procps_wanted;         /* false with a fixture root, a report without users, or once libproc2 failed */
	char identity_error[256];

	struct proc_handle *handles;
	size_t nhandles, handles_alloc;
	struct cpw_pidmap map; /* pid -> index in handles */

	unsigned generation;
	size_t kept_fds, max_kept_fds;
	size_t kept_sched;     /* of kept_fds, threads' schedstat */
	size_t thread_handles; /* threads with a handle */
	size_t threads_coming; /* listed in the process being read, and without one yet */

	/* One sample's output and scratch, reused so the hot loop does not allocate. */
	struct cpw_proc_reading *procs;
	size_t nprocs, procs_alloc;
	char *cmdlines;                 /* this sample's command lines, CPW_READING_CMDLINE_MAX each */
	size_t ncmdlines, cmdlines_alloc;
	struct cpw_thread_reading *threads;
	size_t nthreads, threads_alloc;
	pid_t *still_there;
	size_t nstill, still_alloc;
	struct frontier_entry *front;
	size_t nfront, front_alloc;
	struct seen_entry *seen;
	size_t seen_size;
	size_t *new_readings; /* indexes in procs of first readings, for libproc2 */
	size_t nnew, new_alloc;
	pid_t *new_pids;
	struct cpw_procps_identity *ids;
	pid_t *tids;
	size_t tids_alloc;
	char *text; /* a children file; grows to the longest */
	size_t text_size;
	struct cpw_cpuset cpus_allowed, thread_cpus; /* the sample's union; one thread's */
	size_t cpus_threads;
	bool want_pss;
	unsigned pss_passes;   /* samples that read the PSS */
	unsigned membership;   /* processes added to or dropped from the handles so far */
	double pss_cost_s;
	struct cpw_wait_probe *waitprobe; /* NULL when it could not be allocated */
	struct thread_handle *probing;    /* the thread the probe reads, during its call */
	pid_t *probe_pids;                /* the processes of the last sample, for the probe */
	struct cpw_python_stacks *python; /* names Python processes' waits by function; NULL: not */
	size_t probe_pids_alloc;
};

static size_t pid_hash(pid_t pid, size_t size) { return ((size_t)pid * 2654435761u) & (size - 1); }

/* Grows a scratch array to hold one more element. Returns 0 or -ENOMEM. */
static int reserve(void **array, size_t *alloc, size_t used, size_t elem, size_t first)
{
	if (used < *alloc)
		return 0;
	size_t n = *alloc ? *alloc * 2 : first;
	void *a = realloc(*array, n * elem);
	if (!a)
		return -ENOMEM;
	*array = a;
	*alloc = n;
	return 0;
}

static struct proc_handle *find_handle(const struct cpw_proc_reader *r, pid_t pid)
{
	int idx = cpw_pidmap_get(&r->map, pid);
	return idx >= 0 ? &r->handles[idx] : NULL;
}

/* ---- kept descriptors ---- */

static void close_kept(struct cpw_proc_reader *r, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
		r->kept_fds--;
	}
}

static void close_sched(struct cpw_proc_reader *r, int *fd)
{
	if (*fd >= 0)
		r->kept_sched--;
	close_kept(r, fd);
}

/* Whether a descriptor just opened may be kept: a thread's schedstat (sched) while the
 * budget has room, any other only where it leaves room for the schedstat of every thread
 * (4,000 threads with their stat and status kept would leave hundreds of them to an open,
 * a read and a close every sample, and to a listing of the task directory each). */
static bool may_keep(const struct cpw_proc_reader *r, bool sched)
{
	if (r->kept_fds >= r->max_kept_fds)
		return false;
	size_t threads = r->thread_handles + r->threads_coming;
	size_t unkept = threads > r->kept_sched ? threads - r->kept_sched : 0;
	return sched || r->kept_fds + unkept < r->max_kept_fds;
}

/* Reads a small /proc file from offset 0. With a kept descriptor that is one pread; a
 * descriptor of a process that ended fails with ESRCH rather than following a reused pid.
 * Returns the bytes read (NUL-terminated), or -errno. */
static long read_kept(struct cpw_proc_reader *r, int *fd, const char *path, char *buf, size_t size, bool sched)
{
	ssize_t n;

	if (*fd >= 0) {
		n = pread(*fd, buf, size - 1, 0);
		if (n > 0) {
			buf[n] = '\0';
			return (long)n;
		}
		int err = n < 0 ? errno : ESRCH;
		if (sched)
			close_sched(r, fd);
		else
			close_kept(r, fd);
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
	if (may_keep(r, sched)) {
		*fd = f;
		r->kept_fds++;
		r->kept_sched += sched;
	} else {
		close(f);
	}
	return (long)n;
}

/* The wait probe's reader of a thread's syscall file (cpw_wait_file_reader): through the
 * descriptor the thread keeps, where it is the one being probed. */
static long read_syscall_kept(void *ctx, pid_t pid, pid_t tid, const char *path, char *buf, size_t size)
{
	struct cpw_proc_reader *r = ctx;
	(void)pid;
	if (!r->probing || r->probing->tid != tid)
		return cpw_proc_parse_read_file(path, buf, size);
	return read_kept(r, &r->probing->syscall_fd, path, buf, size, false);
}

/* ---- handles ---- */

static void close_thread(struct cpw_proc_reader *r, struct thread_handle *th)
{
	close_sched(r, &th->schedstat_fd);
	close_kept(r, &th->stat_fd);
	close_kept(r, &th->status_fd);
	close_kept(r, &th->children_fd);
	close_kept(r, &th->syscall_fd);
	free(th->kids);
	th->kids = NULL;
	th->nkids = th->kids_alloc = 0;
	free(th->wait);
	th->wait = NULL;
	th->wait_known = false;
	r->thread_handles--;
}

/* Forgets everything read of h (a reused pid): it will be read as a new process. */
static void reset_handle(struct cpw_proc_reader *r, struct proc_handle *h)
{
	for (size_t i = 0; i < h->nthreads; i++)
		close_thread(r, &h->threads[i]);
	h->nthreads = 0;
	close_kept(r, &h->stat_fd);
	close_kept(r, &h->io_fd);
	h->pss_cached = false;
	h->have_stat = false;
	r->membership++;
}

static struct proc_handle *add_handle(struct cpw_proc_reader *r, pid_t pid)
{
	if (reserve((void **)&r->handles, &r->handles_alloc, r->nhandles, sizeof(*r->handles), 64) < 0)
		return NULL;
	if (cpw_pidmap_put(&r->map, pid, (int)r->nhandles) < 0)
		return NULL;
	struct proc_handle *h = &r->handles[r->nhandles];
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->stat_fd = h->io_fd = -1;
	r->nhandles++;
	r->membership++;
	return h;
}

static void drop_handle(struct cpw_proc_reader *r, size_t i)
{
	struct proc_handle *h = &r->handles[i];
	reset_handle(r, h);
	free(h->threads);
	cpw_pidmap_remove(&r->map, h->pid);
	size_t last = --r->nhandles;
	if (i != last) {
		r->handles[i] = r->handles[last];
		/* Only the index changes: the slot is there, the put cannot fail. */
		cpw_pidmap_put(&r->map, r->handles[i].pid, (int)i);
	}
}

/* ---- the frontier of one sample ---- */

static int seen_insert(struct cpw_proc_reader *r, pid_t pid)
{
	if ((r->nfront + 1) * 2 > r->seen_size) {
		size_t size = r->seen_size ? r->seen_size * 2 : 512;
		struct seen_entry *seen = calloc(size, sizeof(*seen));
		if (!seen)
			return -ENOMEM;
		/* Re-insert what this sample has queued so far. */
		for (size_t i = 0; i < r->nfront; i++) {
			size_t h = pid_hash(r->front[i].pid, size);
			while (seen[h].generation == r->generation)
				h = (h + 1) & (size - 1);
			seen[h].pid = r->front[i].pid;
			seen[h].generation = r->generation;
		}
		free(r->seen);
		r->seen = seen;
		r->seen_size = size;
	}
	size_t h = pid_hash(pid, r->seen_size);
	while (r->seen[h].generation == r->generation) {
		if (r->seen[h].pid == pid)
			return 0;
		h = (h + 1) & (r->seen_size - 1);
	}
	r->seen[h].pid = pid;
	r->seen[h].generation = r->generation;
	return 1;
}

static int push_front(struct cpw_proc_reader *r, pid_t pid, pid_t parent)
{
	int fresh = seen_insert(r, pid);
	if (fresh <= 0)
		return fresh;
	if (reserve((void **)&r->front, &r->front_alloc, r->nfront, sizeof(*r->front), 256) < 0)
		return -ENOMEM;
	r->front[r->nfront].pid = pid;
	r->front[r->nfront].parent = parent;
	r->nfront++;
	return 1;
}

/* ---- threads ---- */

/* The handle of thread tid, made when it has none. *hint is where the caller looks first
 * and is left just past the one found: a sample lists a process's threads in the order of
 * the last one, so a pool of thousands of threads costs one compare each instead of a
 * search each (which made every sample quadratic in the threads). */
static struct thread_handle *thread_handle(struct cpw_proc_reader *r, struct proc_handle *h, pid_t tid,
					   size_t *hint)
{
	if (*hint < h->nthreads && h->threads[*hint].tid == tid)
		return &h->threads[(*hint)++];
	for (size_t i = 0; i < h->nthreads; i++)
		if (h->threads[i].tid == tid) {
			*hint = i + 1;
			return &h->threads[i];
		}
	if (reserve((void **)&h->threads, &h->threads_alloc, h->nthreads, sizeof(*h->threads), 2) < 0)
		return NULL;
	*hint = h->nthreads + 1;
	struct thread_handle *th = &h->threads[h->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->schedstat_fd = th->stat_fd = th->status_fd = th->children_fd = th->syscall_fd = -1;
	r->thread_handles++;
	if (r->threads_coming)
		r->threads_coming--;
	return th;
}

/* The thread ids of a process: itself when it has one thread (no directory to list). */
static size_t list_tids(struct cpw_proc_reader *r, pid_t pid, long num_threads)
{
	char path[320];

	if (num_threads <= 1) {
		r->tids[0] = pid;
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%d/task", r->proc_root, (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (reserve((void **)&r->tids, &r->tids_alloc, n, sizeof(*r->tids), 64) < 0)
			break;
		r->tids[n++] = (pid_t)atoi(de->d_name);
	}
	closedir(dir);
	return n;
}

/* A children file through its kept descriptor (opened and kept as read_kept() does, where
 * keep): unlike the others it is empty for a thread with no children, which is no error. */
static long read_children(struct cpw_proc_reader *r, int *fd, bool keep, const char *path, char *buf, size_t size)
{
	bool kept = *fd >= 0;
	int f = kept ? *fd : open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	ssize_t n = pread(f, buf, size - 1, 0);
	int err = n < 0 ? errno : 0;
	if (kept && n < 0) {
		close_kept(r, fd);
	} else if (!kept && n >= 0 && keep && may_keep(r, false)) {
		*fd = f;
		r->kept_fds++;
	} else if (!kept) {
		close(f);
	}
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return (long)n;
}

/* Re-reads a thread's children list into its cache, however long it is; through a kept
 * descriptor where keep (a main thread's: 4,000 threads' would take the budget the files
 * read at every sample need, for files read only when a thread ran). */
static void read_kids(struct cpw_proc_reader *r, struct thread_handle *th, bool keep, const char *path)
{
	long len;

	for (;;) {
		len = read_children(r, &th->children_fd, keep, path, r->text, r->text_size);
		if (len < 0 || (size_t)len + 1 < r->text_size)
			break;
		char *bigger = realloc(r->text, r->text_size * 2);
		if (!bigger)
			break;
		r->text = bigger;
		r->text_size *= 2;
	}
	th->nkids = 0;
	if (len <= 0)
		return;
	size_t more = 0;
	int n = cpw_proc_parse_pid_list(r->text, (size_t)len, th->kids, th->kids_alloc, &more);
	if (n >= 0 && more > 0) {
		pid_t *k = realloc(th->kids, ((size_t)n + more) * sizeof(*k));
		if (!k)
			return;
		th->kids = k;
		th->kids_alloc = (size_t)n + more;
		n = cpw_proc_parse_pid_list(r->text, (size_t)len, th->kids, th->kids_alloc, NULL);
	}
	th->nkids = n > 0 ? (size_t)n : 0;
}

/* The Python functions a thread of a Python process waits in (source/python/): asked once
 * for each wait probed, or, for a wait probed before the stack reader came, at the first
 * sample after. Only threads seen waiting cost it. */
static void name_wait(struct cpw_proc_reader *r, const struct proc_handle *h, struct thread_handle *th,
		      const struct cpw_thread_reading *out)
{
	struct cpw_python_frame f[2];
	struct cpw_wait *w = th->wait;
	int n = cpw_python_stacks_waiting(r->python, h->pid, th->tid, h->comm,
					  out->has_schedstat ? out->sched.oncpu_ns : 0, f);
	w->py_asked = true;
	if (n >= 1) {
		w->py_fn = f[0].name;
		w->py_fn_where = f[0].where;
	}
	if (n >= 2) {
		w->py_caller = f[1].name;
		w->py_caller_where = f[1].where;
	}
}

/* What thread th (in S or D) waits on: probed again when it ran since the last sample (it
 * may wait on something else now), was never probed, or its target may resolve now;
 * otherwise its last wait stands. */
/* Whether a futex wait of thread th is CUDA's blocking synchronize: the process has the
 * driver's helper thread, and the waiting thread's stack returns into the driver's code. */
static bool futex_in_gpu_driver(struct cpw_proc_reader *r, struct proc_handle *h, const struct cpw_wait *w)
{
	if (!h->driver_helper_seen || w->driver_helper || !w->user_sp)
		return false;
	if (h->driver_text_known == 0)
		h->driver_text_known = cpw_cuda_users_read_driver_text(r->proc_root, h->pid, &h->driver_lo,
									&h->driver_hi) ? 1 : -1;
	return h->driver_text_known > 0 &&
	       cpw_wait_probe_stack_returns_into(r->waitprobe, h->pid, w->user_sp, h->driver_lo, h->driver_hi);
}

static void probe_wait(struct cpw_proc_reader *r, struct proc_handle *h, struct thread_handle *th,
		       struct cpw_thread_reading *out)
{
	bool have = th->wait_known && !out->ran && !th->wait->retry;
	if (!have) {
		struct cpw_wait now;
		/* A thread in D had its wait channel read just now (for its state's kind). */
		r->probing = th;
		int rc = cpw_wait_probe_thread(r->waitprobe, h->pid, th->tid, out->state,
					       out->state == 'D' ? out->wchan : NULL, &now);
		r->probing = NULL;
		/* Seen without its target (the call not caught), a wait of the same kind keeps
		 * the target the thread had. */
		if (rc == 0 && !now.target[0] && now.syscall_nr == CPW_SYSCALL_UNREAD &&
		    now.detail == CPW_WAIT_DETAIL_OK && th->wait_known && th->wait->kind == now.kind) {
			memcpy(now.target, th->wait->target, sizeof(now.target));
			now.peer_pid = th->wait->peer_pid;
		}
		/* Its name was read where it ran; otherwise the last probe's word stands. */
		now.driver_helper = th->tid != h->pid &&
			(out->comm[0] ? cpw_wait_kind_driver_thread(out->comm)
				      : th->wait != NULL && th->wait->driver_helper);
		if (now.driver_helper)
			h->driver_helper_seen = true;
		if (rc == 0 && now.kind == CPW_WAIT_LOCK && futex_in_gpu_driver(r, h, &now)) {
			now.kind = CPW_WAIT_GPU;
			snprintf(now.target, sizeof(now.target), "the CUDA driver (a blocking synchronize)");
		}
		if (rc == 0 && !th->wait && !(th->wait = malloc(sizeof(*th->wait))))
			rc = -ENOMEM;
		if (rc == 0)
			*th->wait = now;
		/* Back on a CPU when probed (its state said S or D): its last wait stands for
		 * this sample, when it has one. */
		have = rc == 0 || (rc == -EAGAIN && th->wait_known);
	}
	th->wait_known = have;
	out->wait = have ? th->wait : NULL;
	if (out->wait && h->python && r->python && !th->wait->py_asked)
		name_wait(r, h, th, out);
}

/* The path of a thread's file, made at its first file of the sample (an idle thread
 * reads none by path). */
struct thread_path {
	char path[320];
	int plen; /* of its directory's prefix; -1 before it is made */
};

static const char *thread_file(const struct cpw_proc_reader *r, pid_t pid, pid_t tid, struct thread_path *tp,
			       const char *leaf)
{
	if (tp->plen < 0)
		tp->plen = snprintf(tp->path, sizeof(tp->path), "%s/%d/task/%d/", r->proc_root, (int)pid, (int)tid);
	size_t room = sizeof(tp->path) - (size_t)tp->plen, len = strlen(leaf);
	if (len >= room)
		len = room - 1;
	memcpy(tp->path + tp->plen, leaf, len);
	tp->path[(size_t)tp->plen + len] = '\0';
	return tp->path;
}

/* Reads one thread into out. Returns false when it ended between listing and reading. */
static bool read_thread(struct cpw_proc_reader *r, struct proc_handle *h, struct thread_handle *th,
			char main_state, struct cpw_thread_reading *out)
{
	struct thread_path tp = { .plen = -1 };
	char buf[4096];
	bool new_thread = th->generation == 0;

	memset(out, 0, sizeof(*out));
	out->tid = th->tid;
	long len;
	if (th->probe_generation == r->generation) { /* read just now by idle_since_last() */
		out->has_schedstat = true;
		out->sched = th->probe_sched;
	} else {
		len = read_kept(r, &th->schedstat_fd, thread_file(r, h->pid, th->tid, &tp, "schedstat"), buf,
				sizeof(buf), true);
		out->has_schedstat = len > 0 && cpw_proc_parse_schedstat(buf, (size_t)len, &out->sched) == 0;
		if (!out->has_schedstat)
			memset(&out->sched, 0, sizeof(out->sched));
	}
	/* A thread that was not scheduled since the last sample cannot have changed its
	 * context switches, memory high-water mark or children. Without schedstat (a kernel
	 * without it, or the thread just ended) that cannot be told. */
	out->ran = new_thread || !out->has_schedstat || out->sched.slices != th->last_slices ||
		   out->sched.oncpu_ns != th->last_oncpu_ns;

	/* State: the process's stat is its main thread's. Another thread that did not run is
	 * asleep as it was (S or D), unless it was woken and has waited for a CPU ever since:
	 * its stat is read again one sample in STATE_REFRESH. */
	if (th->tid == h->pid) {
		th->state = main_state;
	} else if (out->ran || (r->generation + (unsigned)th->tid) % STATE_REFRESH == 0 || !th->state) {
		struct cpw_stat_fields ts;
		len = read_kept(r, &th->stat_fd, thread_file(r, h->pid, th->tid, &tp, "stat"), buf, sizeof(buf),
				false);
		if (len <= 0 || cpw_proc_parse_stat(buf, (size_t)len, &ts) < 0)
			return false;
		th->state = ts.state;
		snprintf(out->comm, sizeof(out->comm), "%.15s", ts.comm);
	}
	out->state = th->state;
	th->generation = r->generation;
	th->last_slices = out->sched.slices;
	th->last_oncpu_ns = out->sched.oncpu_ns;

	if (out->state == 'D') {
		if (cpw_proc_parse_read_file(thread_file(r, h->pid, th->tid, &tp, "wchan"), buf, sizeof(buf)) > 0) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(out->wchan, sizeof(out->wchan), "%s", buf);
		}
	}
	if (r->waitprobe && (out->state == 'S' || out->state == 'D'))
		probe_wait(r, h, th, out);
	if (out->ran) {
		len = read_kept(r, &th->status_fd, thread_file(r, h->pid, th->tid, &tp, "status"), buf,
				sizeof(buf), false);
		out->has_status = len > 0 && cpw_proc_parse_status(buf, (size_t)len, &out->status) == 0;
		if (out->has_status && cpw_proc_parse_cpus_allowed(buf, (size_t)len, &r->thread_cpus) > 0) {
			cpw_proc_parse_cpuset_union(&r->cpus_allowed, &r->thread_cpus);
			r->cpus_threads++;
		}
		if (out->has_status && out->status.has_ctxsw) {
			th->vol = out->status.vol_ctxsw;
			th->invol = out->status.invol_ctxsw;
		}
		read_kids(r, th, th->tid == h->pid, thread_file(r, h->pid, th->tid, &tp, "children"));
	}
	if (!out->has_status)
		memset(&out->status, 0, sizeof(out->status));
	out->status.vol_ctxsw = th->vol;
	out->status.invol_ctxsw = th->invol;
	return true;
}

/* The thread ids of h as the last sample left them (none was made or ended since: that
 * takes a thread that runs). */
static size_t known_tids(struct cpw_proc_reader *r, const struct proc_handle *h)
{
	size_t n = 0;
	for (; n < h->nthreads; n++) {
		if (reserve((void **)&r->tids, &r->tids_alloc, n, sizeof(*r->tids), 64) < 0)
			break;
		r->tids[n] = h->threads[n].tid;
	}
	return n;
}

/* Reads every thread of h into the sample; queues their children. The threads are listed
 * from its task directory, or, where idle (idle_since_last()), are the ones it had.
 * Returns true when any of them ran since the last sample. */
static bool read_threads(struct cpw_proc_reader *r, struct proc_handle *h, const struct cpw_stat_fields *st,
			 struct cpw_proc_reading *pr, bool idle)
{
	bool any_ran = false;
	size_t ntids = idle ? known_tids(r, h) : list_tids(r, h->pid, st->num_threads), hint = 0;
	h->new_threads = false;

	pr->first_thread = r->nthreads;
	r->threads_coming = ntids > h->nthreads ? ntids - h->nthreads : 0;
	for (size_t i = 0; i < ntids; i++) {
		struct thread_handle *th = thread_handle(r, h, r->tids[i], &hint);
		if (!th || reserve((void **)&r->threads, &r->threads_alloc, r->nthreads,
				   sizeof(*r->threads), 256) < 0)
			continue;
		h->new_threads |= th->generation == 0;
		if (!read_thread(r, h, th, st->state, &r->threads[r->nthreads]))
			continue;
		any_ran |= r->threads[r->nthreads].ran;
		r->nthreads++;
		for (size_t k = 0; k < th->nkids; k++) {
			push_front(r, th->kids[k], h->pid);
			if (r->waitprobe && !find_handle(r, th->kids[k])) /* new: its fds hold pipe ends too */
				cpw_wait_probe_add_process(r->waitprobe, th->kids[k]);
		}
	}
	pr->nthreads = r->nthreads - pr->first_thread;
	r->threads_coming = 0;

	/* Forget threads that ended, keeping the others in order (the order the next sample
	 * lists them in, which thread_handle()'s hint relies on). */
	size_t kept = 0;
	for (size_t i = 0; i < h->nthreads; i++) {
		if (h->threads[i].generation != r->generation)
			close_thread(r, &h->threads[i]);
		else
			h->threads[kept++] = h->threads[i];
	}
	h->nthreads = kept;
	return any_ran;
}

static void read_io(struct cpw_proc_reader *r, struct proc_handle *h, struct cpw_proc_reading *pr)
{
	char path[320];
	char buf[1024];

	snprintf(path, sizeof(path), "%s/%d/io", r->proc_root, (int)h->pid);
	long len = read_kept(r, &h->io_fd, path, buf, sizeof(buf), false);
	if (len < 0)
		pr->io_errno = (int)-len;
	else if (cpw_proc_parse_io(buf, (size_t)len, &pr->io) < 0)
		pr->io_errno = EINVAL;
	else
		pr->io_read = true;
}

/* The proportional set size, through the path: read at a slow pace, it is not worth a
 * kept descriptor. */
static void read_pss(struct cpw_proc_reader *r, struct cpw_proc_reading *pr)
{
	char path[320];
	char buf[2048];
	struct timespec t0, t1;
	uint64_t pss;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(path, sizeof(path), "%s/%d/smaps_rollup", r->proc_root, (int)pr->pid);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	if (len < 0)
		pr->pss_errno = (int)-len;
	else if (cpw_proc_parse_smaps_rollup_pss(buf, (size_t)len, &pss) < 0)
		pr->pss_errno = len == 0 ? ESRCH : EINVAL; /* empty: a zombie or a kernel thread */
	else
		pr->pss_kib = (double)pss;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->pss_cost_s += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* Reads pr's command line into the sample; returns the bytes read, or -errno. */
static long read_cmdline(struct cpw_proc_reader *r, struct cpw_proc_reading *pr)
{
	char path[320];
	char buf[CPW_READING_CMDLINE_MAX * 2];

	/* A slot in the sample's pool (pointers are made once the sample is done: the pool
	 * may move as it grows). */
	if (reserve((void **)&r->cmdlines, &r->cmdlines_alloc, r->ncmdlines, CPW_READING_CMDLINE_MAX, 16) < 0)
		return -ENOMEM;
	char *line = r->cmdlines + r->ncmdlines * CPW_READING_CMDLINE_MAX;
	line[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/cmdline", r->proc_root, (int)pr->pid);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	if (len > 0)
		cpw_proc_parse_cmdline(buf, (size_t)len, line, CPW_READING_CMDLINE_MAX);
	/* A new process's is what it is, even empty (a kernel thread); after an exec an
	 * unreadable one leaves the last. */
	pr->cmdline_read = len > 0 || pr->first;
	if (pr->cmdline_read)
		r->ncmdlines++; /* the pool's lines are in the order of the readings that have one */
	return len;
}

/* Whether none of h's threads was scheduled since the last sample: then its stat, IO,
 * threads and children are what they were (a process changes them by running: a fork or
 * a clone makes the parent run, an exit the one that ends, a fault or a read the one
 * that takes it), and it costs one schedstat read a thread, through descriptors kept
 * since it was last read (so it is the same process, not a reused pid). Its stat is read
 * anyway one sample in STATE_REFRESH (visit()): a process woken and waiting for a CPU
 * ever since is R without having run, and what others do to it (reclaim shrinking its
 * RSS, a renice) shows there; its threads are still the ones it had. Reached under
 * another parent than its own (a reparented orphan), it is read. The schedstats read are
 * kept for read_thread(). */
static bool idle_since_last(struct cpw_proc_reader *r, struct proc_handle *h, pid_t parent)
{
	char buf[256];

	/* Threads seen for the first time had their schedstat read after the listing: one
	 * that cloned in between (a program making its threads as it starts, just as it is
	 * first seen) has the clone in the figures this would compare with, and its new
	 * thread in no list. CI met that once: a thread never sampled for a whole run. */
	if (!h->have_stat || h->nthreads == 0 || h->new_threads || h->last_stat.num_threads != (long)h->nthreads ||
	    (parent && parent != h->ppid))
		return false;
	for (size_t i = 0; i < h->nthreads; i++) {
		struct thread_handle *th = &h->threads[i];
		if (th->schedstat_fd < 0 || th->generation == 0)
			return false;
		ssize_t n = pread(th->schedstat_fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return false; /* read_thread() reads it again, and closes it */
		buf[n] = '\0';
		if (cpw_proc_parse_schedstat(buf, (size_t)n, &th->probe_sched) != 0)
			return false;
		th->probe_generation = r->generation;
		if (th->probe_sched.slices != th->last_slices || th->probe_sched.oncpu_ns != th->last_oncpu_ns)
			return false;
	}
	return true;
}

/* Reads one process of the frontier: its stat, threads and IO; queues its children. */
static void visit(struct cpw_proc_reader *r, pid_t pid, pid_t parent)
{
	struct cpw_stat_fields st;
	struct proc_handle *h = find_handle(r, pid);
	int fd = -1;
	bool idle = h && idle_since_last(r, h, parent);

	if (idle && (r->generation + (unsigned)pid) % STATE_REFRESH != 0) {
		st = h->last_stat;
	} else {
		char path[320];
		char buf[2048];
		snprintf(path, sizeof(path), "%s/%d/stat", r->proc_root, (int)pid);
		long len = read_kept(r, h ? &h->stat_fd : &fd, path, buf, sizeof(buf), false);
		if (len <= 0 || cpw_proc_parse_stat(buf, (size_t)len, &st) < 0) {
			close_kept(r, &fd);
			return; /* gone: not reached by this sample */
		}
	}
	/* A cached child whose pid now belongs to someone else's process. */
	if (parent && st.ppid != parent && !(h && h->ppid == st.ppid)) {
		close_kept(r, &fd);
		return;
	}
	bool first = false;
	if (h && h->starttime_ticks != st.starttime_ticks) {
		reset_handle(r, h); /* a reused pid behind a re-opened path */
		first = true;
	}
	if (!h) {
		h = add_handle(r, pid);
		if (!h) {
			close_kept(r, &fd);
			return;
		}
		h->stat_fd = fd;
		first = true;
	}
	if (reserve((void **)&r->procs, &r->procs_alloc, r->nprocs, sizeof(*r->procs), 64) < 0)
		return;
	h->starttime_ticks = st.starttime_ticks;
	h->ppid = st.ppid;
	h->generation = r->generation;
	h->missed = false;

	struct cpw_proc_reading *pr = &r->procs[r->nprocs++];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->first = first;
	pr->stat = st;
	pr->is_python = -1;
	pr->pss_kib = NAN;
	bool renamed = first || strcmp(h->comm, st.comm) != 0 ||
		       (st.startcode && h->startcode && st.startcode != h->startcode);
	h->startcode = st.startcode;
	if (renamed) {
		snprintf(h->comm, sizeof(h->comm), "%s", st.comm);
		h->python_asked = false;
		h->driver_helper_seen = false; /* an exec: another program */
		h->driver_text_known = 0;
		h->python = false;
	}
	/* Threads that may take turns on the GIL: asked once, when a second thread appears. */
	if (!h->python_asked && st.num_threads >= 2) {
		int py = cpw_interp_process_is_python(r->proc_root, pid);
		pr->is_python = py < 0 ? -1 : py;
		h->python_asked = py >= 0; /* asked again next sample where it could not tell */
		h->python = h->python || py == 1;
	}
	pr->python_exe = -1;
	if (renamed || h->cmdline_retries) { /* after an exec the command line is another */
		long len = read_cmdline(r, pr);
		/* In the middle of an exec (its name already the new program's, its arguments
		 * not yet in place) the command line reads empty: read again at the next
		 * samples. A kernel thread's and a zombie's stay empty. */
		if (len == 0 && !(st.flags & CPW_PF_KTHREAD) && st.state != 'Z')
			h->cmdline_retries = renamed ? CMDLINE_RETRIES : h->cmdline_retries - 1;
		else
			h->cmdline_retries = 0;
		/* python version: one readlink of exe, at first sight or an exec */
		int py = cpw_interp_process_python_version(r->proc_root, pid, pr->python, sizeof(pr->python));
		pr->python_exe = py < 0 ? -1 : py;
		h->python = h->python || py == 1;
	}
	if (first) {
		if (reserve((void **)&r->new_readings, &r->new_alloc, r->nnew, sizeof(*r->new_readings), 64) == 0)
			r->new_readings[r->nnew++] = r->nprocs - 1;
	}
	/* The threads it had, unless one ran (a clone, an exit) or its count moved (at a
	 * refresh of an idle one's stat); IO needs the process to run: it is re-read only when
	 * a thread ran. */
	bool ran = read_threads(r, h, &st, pr, idle && !first && st.num_threads == (long)h->nthreads);
	if (ran || first)
		read_io(r, h, pr);
	h->last_stat = st;
	h->have_stat = true;
	/* Its PSS moves when a page is mapped, copied on write or dropped: a fault or a change
	 * of its resident size. One that runs without either (a loop of arithmetic) keeps its
	 * reading: walking its page tables cost 36 % of the main thread's CPU for a pool of four
	 * such workers. (A page another process stops sharing moves it too, unseen until the
	 * tree's membership changes or the refresh, as for one that did not run.) */
	uint64_t faults = st.minflt + st.majflt;
	if (r->want_pss) {
		if (!h->pss_cached || faults != h->pss_faults || st.rss_pages != h->pss_rss_pages ||
		    h->pss_membership != r->membership || r->pss_passes % PSS_REFRESH == 0) {
			read_pss(r, pr);
			h->pss_cached = !isnan(pr->pss_kib);
			h->last_pss_kib = pr->pss_kib;
			h->pss_membership = r->membership;
			h->pss_faults = faults;
			h->pss_rss_pages = st.rss_pages;
		} else {
			pr->pss_kib = h->last_pss_kib;
		}
	}
}

/* Whether h, not reached by this sample, still runs: its stat reads, with the same start
 * time, and it is not a zombie. Through the path, not a kept descriptor: that is what
 * tells an ended process (its /proc directory is gone once it is reaped). */
static bool still_there(const struct cpw_proc_reader *r, const struct proc_handle *h)
{
	char path[320], buf[2048];
	struct cpw_stat_fields st;
	snprintf(path, sizeof(path), "%s/%d/stat", r->proc_root, (int)h->pid);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	return len > 0 && cpw_proc_parse_stat(buf, (size_t)len, &st) == 0 &&
	       st.starttime_ticks == h->starttime_ticks && st.state != 'Z' && st.state != 'X';
}

/* Asks libproc2 who the processes first read in this sample are. */
static void identify_new(struct cpw_proc_reader *r)
{
	if (r->nnew == 0 || !r->procps_wanted)
		return;
	/* Opened at the first new process, not at start-up (procps.c says why). */
	if (!r->procps && cpw_procps_new(&r->procps, r->identity_error, sizeof(r->identity_error)) < 0) {
		r->procps_wanted = false;
		return;
	}
	pid_t *pids = realloc(r->new_pids, r->nnew * sizeof(*pids));
	if (pids)
		r->new_pids = pids;
	struct cpw_procps_identity *ids = realloc(r->ids, r->nnew * sizeof(*ids));
	if (ids)
		r->ids = ids;
	if (!pids || !ids)
		return;
	for (size_t i = 0; i < r->nnew; i++)
		pids[i] = r->procs[r->new_readings[i]].pid;
	int n = cpw_procps_identify(r->procps, pids, r->nnew, ids, r->nnew);
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < r->nnew; j++) {
			struct cpw_proc_reading *pr = &r->procs[r->new_readings[j]];
			if (pr->pid != ids[i].pid)
				continue;
			if (pr->stat.starttime_ticks == ids[i].starttime_ticks)
				snprintf(pr->user, sizeof(pr->user), "%s", ids[i].user);
			break;
		}
}

static int compare_pids(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Drops the handles of processes this sample did not reach, but for those still there
 * the first time (listed in still_there). */
static void sweep(struct cpw_proc_reader *r)
{
	r->nstill = 0;
	for (size_t i = 0; i < r->nhandles;) {
		struct proc_handle *h = &r->handles[i];
		if (h->generation == r->generation) {
			i++;
			continue;
		}
		if (!h->missed && still_there(r, h) &&
		    reserve((void **)&r->still_there, &r->still_alloc, r->nstill, sizeof(*r->still_there), 16) == 0) {
			h->missed = true;
			r->still_there[r->nstill++] = h->pid;
			i++;
			continue;
		}
		drop_handle(r, i);
	}
	if (r->nstill > 1)
		qsort(r->still_there, r->nstill, sizeof(*r->still_there), compare_pids);
}

int cpw_proc_reader_sample(struct cpw_proc_reader *r, const pid_t *roots, size_t nroots,
			   struct cpw_proc_sample *out)
{
	r->generation++;
	r->nfront = r->nprocs = r->nthreads = r->nnew = r->ncmdlines = 0;
	if (r->waitprobe) {
		/* The processes of the last sample: where the other end of a pipe is looked for. */
		if (r->probe_pids_alloc < r->nhandles) {
			pid_t *pids = realloc(r->probe_pids, r->nhandles * sizeof(*pids));
			if (pids) {
				r->probe_pids = pids;
				r->probe_pids_alloc = r->nhandles;
			}
		}
		size_t n = r->probe_pids_alloc >= r->nhandles ? r->nhandles : 0;
		for (size_t i = 0; i < n; i++)
			r->probe_pids[i] = r->handles[i].pid;
		cpw_wait_probe_begin_sample(r->waitprobe, r->probe_pids, n);
	}
	memset(&r->cpus_allowed, 0, sizeof(r->cpus_allowed));
	r->cpus_threads = 0;
	r->pss_cost_s = 0;
	for (size_t i = 0; i < nroots; i++)
		if (push_front(r, roots[i], 0) < 0)
			return -ENOMEM;
	/* Breadth first: visiting a process queues its children. */
	for (size_t i = 0; i < r->nfront; i++)
		visit(r, r->front[i].pid, r->front[i].parent);
	identify_new(r);
	sweep(r);
	for (size_t i = 0, line = 0; i < r->nprocs; i++) {
		struct cpw_proc_reading *pr = &r->procs[i];
		pr->cmdline = pr->cmdline_read ? r->cmdlines + line++ * CPW_READING_CMDLINE_MAX : "";
	}

	out->procs = r->procs;
	out->nprocs = r->nprocs;
	out->threads = r->threads;
	out->nthreads = r->nthreads;
	out->still_there = r->still_there;
	out->nstill_there = r->nstill;
	out->cpus_allowed = &r->cpus_allowed;
	out->cpus_threads = r->cpus_threads;
	out->wait_stats = r->waitprobe ? cpw_wait_probe_stats(r->waitprobe) : NULL;
	out->pss_read = r->want_pss;
	r->pss_passes += r->want_pss;
	out->pss_cost_s = r->pss_cost_s;
	r->want_pss = false;
	return 0;
}

struct cpw_proc_reader *cpw_proc_reader_new(const char *proc_root)
{
	struct cpw_proc_reader *r = calloc(1, sizeof(*r));
	struct rlimit nofile;

	if (!r)
		return NULL;
	snprintf(r->proc_root, sizeof(r->proc_root), "%s", proc_root ? proc_root : "/proc");
	/* Keeping descriptors open saves an open and a close per file per sample, within the
	 * limit (the session raised it: source/kernel/fdlimit.h): half of what it allows past a
	 * margin of 128 for everything else; the sampler may keep the other half. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0)
		r->max_kept_fds = nofile.rlim_cur > 256 ? ((size_t)nofile.rlim_cur - 128) / 2 : 0;
	r->tids_alloc = 64;
	r->tids = malloc(r->tids_alloc * sizeof(*r->tids));
	r->text_size = 4096;
	r->text = malloc(r->text_size);
	/* libproc2 reads the real /proc only; a fixture root is read directly. */
	r->procps_wanted = strcmp(r->proc_root, "/proc") == 0;
	r->waitprobe = cpw_wait_probe_new(r->proc_root, 0);
	if (r->waitprobe)
		cpw_wait_probe_set_syscall_reader(r->waitprobe, read_syscall_kept, r);
	cpw_pidmap_init(&r->map);
	if (!r->tids || !r->text) {
		cpw_proc_reader_free(r);
		return NULL;
	}
	return r;
}

void cpw_proc_reader_free(struct cpw_proc_reader *r)
{
	if (!r)
		return;
	while (r->nhandles)
		drop_handle(r, r->nhandles - 1);
	free(r->handles);
	cpw_pidmap_free(&r->map);
	free(r->procs);
	free(r->cmdlines);
	free(r->threads);
	free(r->still_there);
	free(r->front);
	free(r->seen);
	free(r->new_readings);
	free(r->new_pids);
	free(r->ids);
	free(r->tids);
	free(r->text);
	free(r->probe_pids);
	cpw_wait_probe_free(r->waitprobe);
	cpw_procps_free(r->procps);
	free(r);
}

void cpw_proc_reader_want_pss(struct cpw_proc_reader *r)
{
	r->want_pss = true;
}

void cpw_proc_reader_set_python(struct cpw_proc_reader *r, struct cpw_python_stacks *ps)
{
	r->python = ps;
}

void cpw_proc_reader_skip_users(struct cpw_proc_reader *r)
{
	r->procps_wanted = false;
}

const char *cpw_proc_reader_identity_error(const struct cpw_proc_reader *r)
{
	return r->identity_error[0] ? r->identity_error : NULL;
}
