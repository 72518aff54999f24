/*
 * sampler.c: the cpu-clock sampler (sampler.h): opens the events, maps one ring buffer per
 * CPU, and drains them in time order into named stacks (sample_maps.c).
 *
 * Nothing is opened before cpw_sampler_arm(): the first per-task perf event after a quiet
 * second waits for an RCU grace period (12-40 ms, doc/performance.md), so the session arms
 * it once the command has run long enough to be worth a profile, and a short command pays
 * nothing.
 *
 * Which threads an event follows is kept (followed): those armed, and those a followed
 * thread started, whose FORK records the drains bring (an inherited event writes the record
 * at the clone, so it is in the rings before any later listing of the tree names the
 * thread); EXIT records take them out. cpw_sampler_arm_new() arms the rest of a listing:
 * threads that began before arming but after the listing it was given.
 */
#include "config.h"
#include "source/sample/sample_private.h"

#include <errno.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/kernel/kfile.h"
#include "util/pidmap.h"

/* 2^RING_PAGES_LOG2 data pages per CPU: 128 KiB holds ~200 samples of a 64-frame chain, two
 * seconds at 99 Hz of a thread on every CPU, ten times the default interval. */
#define RING_PAGES_LOG2 5
#define THREADS_MAX 1024
#define CPUS_MAX 1024
/* Threads passed over (ended, refused) remembered so that a listing that still names them
 * (the tree refreshes a process's thread list every few samples) does not try them again;
 * forgotten past this many, so a reused thread id is not kept out for long. */
#define PASSED_MAX 1024

struct ring {
	int fd;                  /* the event whose buffer it is; -1 none on this CPU */
	void *base;              /* header page, then the data */
	size_t data_size;
};

struct cpw_sampler {
	const char *proc_root;
	int hz;
	int ncpu;
	struct ring *rings;
	int *fds;                /* every event, the rings' included */
	size_t nfds, fds_cap;
	bool armed;
	bool kernel;             /* kernel samples allowed */
	bool build_id;           /* MMAP2 records carry build-ids */
	unsigned threads_armed, threads_refused, threads_late;
	uint64_t samples, lost;
	struct cpw_pidmap followed; /* tid -> 1: an event of ours follows it */
	struct cpw_pidmap passed;   /* tid -> 0: ended or refused when it was to be armed */
	struct cpw_symtab *syms;
	unsigned char *buf;      /* records copied out of the rings, per drain */
	size_t buf_cap;
	size_t page;
};

static long perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(const char *proc_root)
{
	char path[256], text[32];
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc_root);
	ssize_t n = cpw_kfile_read(path, text, sizeof(text));
	return n > 0 ? atoi(text) : 2;
}

static void reason(int err, const char *proc_root, char *why, size_t len)
{
	int level = read_paranoid(proc_root);
	if (err == EACCES || err == EPERM) {
		if (geteuid() == 0)
			snprintf(why, len, "perf_event_open refused even as root (%s): seccomp, a "
				 "container or lockdown", strerror(err));
		else
			snprintf(why, len, "perf_event_paranoid is %d and cperfwatch is not root (%s); "
				 "sampling needs it at 2 or below", level, strerror(err));
	} else if (err == ENOSYS) {
		snprintf(why, len, "this kernel has no perf events (ENOSYS), or seccomp forbids them");
	} else if (err == EMFILE || err == ENFILE) {
		snprintf(why, len, "too few file descriptors (one per thread and CPU; the open-files "
			 "limit leaves sampling half of what it allows past 128)");
	} else {
		snprintf(why, len, "perf_event_open of cpu-clock failed: %s", strerror(err));
	}
}

struct cpw_sampler *cpw_sampler_new(const char *proc_root, int hz, char *why, size_t len)
{
	proc_root = proc_root ? proc_root : "/proc";
	if (geteuid() != 0 && read_paranoid(proc_root) > 2) {
		reason(EACCES, proc_root, why, len);
		return NULL;
	}
	struct cpw_sampler *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	s->proc_root = proc_root;
	s->hz = hz;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	s->ncpu = n > 0 && n <= CPUS_MAX ? (int)n : 1;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->kernel = true;
	s->build_id = true;
	s->rings = calloc((size_t)s->ncpu, sizeof(*s->rings));
	s->syms = cpw_sample_symtab_new(proc_root);
	if (!s->rings || !s->syms) {
		cpw_sampler_free(s);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	for (int c = 0; c < s->ncpu; c++)
		s->rings[c].fd = -1;
	cpw_pidmap_init(&s->followed);
	cpw_pidmap_init(&s->passed);
	return s;
}

static void attr_init(const struct cpw_sampler *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = (uint64_t)s->hz;
	a->sample_type = CPW_SAMPLE_TYPE;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_max_stack = CPW_STACK_MAX;
	a->build_id = s->build_id;
	a->exclude_kernel = !s->kernel;
	a->exclude_hv = 1;
}

static int keep_fd(struct cpw_sampler *s, int fd)
{
	if (s->nfds == s->fds_cap) {
		size_t cap = s->fds_cap ? s->fds_cap * 2 : 64;
		int *p = realloc(s->fds, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->fds = p;
		s->fds_cap = cap;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

/* Opens the event of one thread on one CPU, falling back to what the kernel allows
 * (no kernel samples, no build-ids in MMAP2 on kernels before 5.12). */
static int open_one(struct cpw_sampler *s, pid_t tid, int cpu)
{
	for (;;) {
		struct perf_event_attr a;
		attr_init(s, &a);
		long fd = perf_open(&a, tid, cpu);
		if (fd >= 0)
			return (int)fd;
		int err = errno;
		if ((err == EACCES || err == EPERM) && s->kernel) {
			s->kernel = false;
			continue;
		}
		if (err == EINVAL && s->build_id) {
			s->build_id = false;
			continue;
		}
		return -err;
	}
}

/* Ties an event to its CPU's ring buffer, mapping it for the first event of the CPU. */
static int attach_ring(struct cpw_sampler *s, int cpu, int fd)
{
	struct ring *r = &s->rings[cpu];
	if (r->fd >= 0)
		return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0 ? -errno : 0;
	size_t data = s->page << RING_PAGES_LOG2;
	void *base = mmap(NULL, s->page + data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->base = base;
	r->data_size = data;
	return 0;
}

/* Descriptors the sampler may keep: half of what the open-files limit leaves past a margin
 * of 128 (the reader keeps up to the other half: source/proc/proc_reader.c), so that
 * sampling never takes the descriptors the samples of the tree need. */
static size_t fd_budget(void)
{
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0)
		return 0;
	rlim_t cur = nofile.rlim_cur == RLIM_INFINITY ? 65536 : nofile.rlim_cur;
	return cur > 256 ? (size_t)(cur - 128) / 2 : 0;
}

/* How arming one thread went. */
enum arm_result { ARM_DONE, ARM_ENDED, ARM_REFUSED, ARM_FULL };

/* Opens one thread's event on every CPU, tied to the CPUs' rings; *first_err keeps the first
 * refusal's errno. A thread that ended (ESRCH on every CPU) is ARM_ENDED. */
static enum arm_result arm_thread(struct cpw_sampler *s, pid_t tid, size_t budget, int *first_err)
{
	if (s->threads_armed >= THREADS_MAX)
		return ARM_FULL;
	if (s->nfds + (size_t)s->ncpu > budget) {
		if (!*first_err)
			*first_err = EMFILE;
		return ARM_REFUSED;
	}
	bool any = false, ended = false;
	for (int cpu = 0; cpu < s->ncpu; cpu++) {
		int fd = open_one(s, tid, cpu);
		if (fd == -ESRCH) {
			ended = true;
			continue;
		}
		if (fd == -ENODEV)
			continue; /* an offline CPU */
		if (fd < 0) {
			if (!*first_err)
				*first_err = -fd;
			continue;
		}
		int rc = keep_fd(s, fd);
		if (rc == 0)
			rc = attach_ring(s, cpu, fd);
		if (rc < 0) {
			if (!*first_err)
				*first_err = -rc;
			if (s->nfds && s->fds[s->nfds - 1] == fd)
				s->nfds--;
			close(fd);
			continue;
		}
		any = true;
	}
	if (!any)
		return ended ? ARM_ENDED : ARM_REFUSED;
	s->threads_armed++;
	/* Out of memory here costs only a second event on it, should a listing name it again
	 * before its records say otherwise: nothing is lost. */
	(void)cpw_pidmap_put(&s->followed, tid, 1);
	return ARM_DONE;
}

/* Remembers a thread that could not be armed, so that it is neither tried nor counted again. */
static void pass_over(struct cpw_sampler *s, pid_t tid)
{
	if (s->passed.used >= PASSED_MAX) {
		cpw_pidmap_free(&s->passed);
		cpw_pidmap_init(&s->passed);
	}
	(void)cpw_pidmap_put(&s->passed, tid, 0); /* out of memory: at worst tried again */
}

int cpw_sampler_arm(struct cpw_sampler *s, const pid_t *tids, size_t n, char *why, size_t len)
{
	int first_err = 0;
	size_t budget = fd_budget();
	s->armed = true;
	for (size_t i = 0; i < n; i++)
		if (arm_thread(s, tids[i], budget, &first_err) != ARM_DONE) {
			s->threads_refused++; /* the note says: ended, or beyond the limit */
			pass_over(s, tids[i]);
		}
	if (s->threads_armed == 0)
		reason(first_err ? first_err : ESRCH, s->proc_root, why, len);
	return (int)s->threads_armed;
}

int cpw_sampler_arm_new(struct cpw_sampler *s, const pid_t *tids, size_t n)
{
	/* A dropped record may have been a FORK: a thread armed twice would count twice. */
	if (!s || !s->armed || s->lost)
		return 0;
	int first_err = 0, armed = 0;
	size_t budget = 0;
	bool budget_read = false;
	for (size_t i = 0; i < n; i++) {
		if (cpw_pidmap_get(&s->followed, tids[i]) >= 0 || cpw_pidmap_get(&s->passed, tids[i]) >= 0)
			continue;
		if (!budget_read) { /* only when there is one to arm */
			budget = fd_budget();
			budget_read = true;
		}
		enum arm_result res = arm_thread(s, tids[i], budget, &first_err);
		if (res == ARM_DONE) {
			armed++;
			continue;
		}
		/* Past THREADS_MAX: the session counted the threads past its listing at arming,
		 * and a thread listed now may be one of those. */
		if (res == ARM_REFUSED)
			s->threads_refused++;
		pass_over(s, tids[i]);
	}
	s->threads_late += (unsigned)armed;
	return armed;
}

void cpw_sampler_prime(struct cpw_sampler *s, const pid_t *pids, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		cpw_sample_symtab_prime(s->syms, pids[i]);
}

bool cpw_sampler_armed(const struct cpw_sampler *s)
{
	return s && s->armed;
}

/* Copies the new records of one ring to the end of s->buf and frees their room. */
static int copy_ring(struct cpw_sampler *s, struct ring *r, size_t *used)
{
	struct perf_event_mmap_page *meta = r->base;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint64_t avail = head - tail;
	if (avail == 0)
		return 0;
	if (avail > r->data_size)
		avail = r->data_size; /* cannot happen: the kernel does not overwrite unread data */
	if (*used + avail > s->buf_cap) {
		size_t cap = s->buf_cap ? s->buf_cap : 65536;
		while (cap < *used + avail)
			cap *= 2;
		unsigned char *p = realloc(s->buf, cap);
		if (!p)
			return -ENOMEM;
		s->buf = p;
		s->buf_cap = cap;
	}
	const unsigned char *data = (const unsigned char *)r->base + s->page;
	size_t start = (size_t)(tail & (r->data_size - 1));
	size_t first = r->data_size - start < avail ? r->data_size - start : (size_t)avail;
	memcpy(s->buf + *used, data + start, first);
	memcpy(s->buf + *used + first, data, (size_t)avail - first);
	*used += (size_t)avail;
	__atomic_store_n(&meta->data_tail, tail + avail, __ATOMIC_RELEASE);
	return 0;
}

struct rec_ref {
	uint64_t time;
	size_t off;
	size_t len;
	uint32_t seq; /* keeps the order of equal times */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cpw_sampler_drain(struct cpw_sampler *s, cpw_stack_fn fn, void *ctx)
{
	if (!s || !s->armed)
		return 0;
	size_t used = 0;
	for (int c = 0; c < s->ncpu; c++)
		if (s->rings[c].fd >= 0 && copy_ring(s, &s->rings[c], &used) < 0)
			break;
	if (used == 0)
		return 0;
	/* Index the records and order them by time across the CPUs' buffers: a child's first
	 * sample may sit in another CPU's buffer than its FORK. */
	size_t cap = used / sizeof(struct perf_event_header) + 1;
	struct rec_ref *refs = malloc(cap * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	size_t n = 0;
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= used;) {
		struct perf_event_header h;
		memcpy(&h, s->buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > used - off)
			break;
		struct cpw_rec r;
		uint64_t t = cpw_sample_parse(s->buf + off, h.size, &r) == 0 ? r.time : 0;
		refs[n] = (struct rec_ref){ t, off, h.size, (uint32_t)n };
		n++;
		off += h.size;
	}
	qsort(refs, n, sizeof(*refs), cmp_ref);
	int taken = 0;
	struct cpw_stack *st = malloc(sizeof(*st));
	for (size_t i = 0; st && i < n; i++) {
		struct cpw_rec r;
		if (cpw_sample_parse(s->buf + refs[i].off, refs[i].len, &r) != 0)
			continue;
		switch (r.type) {
		case PERF_RECORD_SAMPLE:
			if (cpw_sample_symtab_resolve(s->syms, &r, st)) {
				fn(ctx, st);
				s->samples++;
				taken++;
			}
			break;
		case PERF_RECORD_MMAP2:
			cpw_sample_symtab_mmap(s->syms, &r);
			break;
		case PERF_RECORD_COMM:
			cpw_sample_symtab_comm(s->syms, &r);
			break;
		case PERF_RECORD_FORK: /* a thread or process that inherited a followed one's event */
			cpw_sample_symtab_fork(s->syms, &r);
			(void)cpw_pidmap_put(&s->followed, (pid_t)r.tid, 1);
			break;
		case PERF_RECORD_EXIT:
			cpw_sample_symtab_exit(s->syms, &r);
			cpw_pidmap_remove(&s->followed, (pid_t)r.tid);
			break;
		case PERF_RECORD_LOST:
			s->lost += r.lost;
			break;
		default:
			break;
		}
	}
	free(st);
	free(refs);
	cpw_sample_symtab_end_drain(s->syms);
	return taken;
}

void cpw_sampler_get_stats(const struct cpw_sampler *s, struct cpw_sampler_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	cpw_sample_symtab_stats(s->syms, out);
	out->samples = s->samples;
	out->lost = s->lost;
	out->threads_armed = s->threads_armed;
	out->threads_refused = s->threads_refused;
	out->threads_late = s->threads_late;
	out->hz = s->hz;
}

bool cpw_sampler_source_line(struct cpw_sampler *s, const char *func, const char *file, char *out, size_t len)
{
	return s && cpw_sample_symtab_source_line(s->syms, func, file, out, len);
}

void cpw_sampler_source_lines_done(struct cpw_sampler *s)
{
	if (s)
		cpw_sample_symtab_lines_done(s->syms);
}

void cpw_sampler_free(struct cpw_sampler *s)
{
	if (!s)
		return;
	for (int c = 0; s->rings && c < s->ncpu; c++)
		if (s->rings[c].base)
			munmap(s->rings[c].base, s->page + s->rings[c].data_size);
	for (size_t i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	free(s->fds);
	free(s->rings);
	cpw_pidmap_free(&s->followed);
	cpw_pidmap_free(&s->passed);
	cpw_sample_symtab_free(s->syms);
	free(s->buf);
	free(s);
}
