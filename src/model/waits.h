/*
 * waits.h: where the tree's off-CPU time went (model/waits.c): thread-seconds per wait
 * kind (each off-CPU thread adds the sample interval), the top targets of each kind, and
 * the same per process; with the probe's counts of what could not be resolved.
 *
 * Threads idle by design are kept apart: a thread other than its process's main thread
 * that waits, without running, on a lock, a pipe queue, several descriptors of a poll or an
 * event loop for at least CPW_WAIT_IDLE_SAMPLES samples and CPW_WAIT_IDLE_S seconds (a
 * pool's handler threads, a spare worker): from the start of that wait its time counts in
 * idle_s, in no kind, target or process total, so neither the dominant kind nor a lock's
 * share nor a pipeline sees it. "Without running" is the probe's own answer carried over
 * (the reader probes a thread again only when its schedstat moved).
 *
 * Python functions: a wait of a thread of a CPython process carries the Python function it
 * waits in (its innermost Python frame, and that frame's caller); its thread-seconds also go
 * to that function on that kind and target (the first CPW_WAIT_FNS_MAX kept, the rest
 * counted). A wait named only after it began (the stack reader came later) brings the
 * seconds it has lasted so far: the thread did not run since, so its frames were those.
 *
 * A plain struct of fixed size (no pointers), so report fixtures can fill one.
 */
#ifndef CPW_MODEL_WAITS_H
#define CPW_MODEL_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "source/waits/wait_kind.h"
#include "source/waits/wait_probe.h"

#define CPW_WAIT_TARGETS_MAX 48 /* distinct (kind, target) pairs kept; the rest is counted */
#define CPW_WAIT_PROCS_MAX 32   /* processes kept; the rest is counted */
#define CPW_WAIT_FNS_MAX 32     /* distinct (kind, target, Python function) kept */
#define CPW_WAIT_FN_LEN 128     /* "qualname (file:first line)" */
/* Threads followed for idleness; past it the one that waited least recently is forgotten.
 * 4,096 (a JVM's or a big pool's helpers; 256 once missed idleness in any pool larger than
 * it): 330 KiB of records, touched only as threads wait (the tree is calloc'd). */
#define CPW_WAIT_THREADS_MAX 4096
#define CPW_WAIT_THREAD_INDEX (2 * CPW_WAIT_THREADS_MAX) /* buckets of their index (a power of 2) */
/* A wait is idle by design from this many samples and seconds on (the classifier's
 * thresholds table lists them: idle_thread_samples, idle_thread_s). */
#define CPW_WAIT_IDLE_SAMPLES 5
#define CPW_WAIT_IDLE_S 0.5

struct cpw_wait_target_time {
	enum cpw_wait_kind kind;
	char target[CPW_WAIT_TARGET_LEN]; /* raw: escape to print */
	pid_t pid;       /* the first process seen waiting on it */
	pid_t peer_pid;  /* a pipe's other end in the tree, 0 when none */
	double seconds;  /* thread-seconds */
};

struct cpw_wait_proc_time {
	pid_t pid;
	char comm[64]; /* raw */
	double seconds[CPW_WAIT_KIND_COUNT];
	double total_s;
	double idle_s; /* its threads' time idle by design, in none of the above */
	/* Of seconds[]: the waits of its helper threads (not the main thread, and less than a
	 * tenth of the on-CPU time of its busiest thread when they waited: a queue's feeder, a
	 * listener), which a process that computes all along does beside its work (the
	 * process verdict). */
	double helper_seconds[CPW_WAIT_KIND_COUNT];
};

/* A Python function's waits on one kind and target. */
struct cpw_wait_fn_time {
	enum cpw_wait_kind kind;
	char target[CPW_WAIT_TARGET_LEN]; /* raw; "" for a wait with none (a lock, a sleep) */
	char fn[CPW_WAIT_FN_LEN];         /* "qualname (file:first line)", raw */
	char caller[CPW_WAIT_FN_LEN];     /* its caller the same way; "" when none, or when
					   * callers differed (several_callers) */
	bool several_callers;
	pid_t pid;                        /* the first process seen waiting in it */
	double seconds;                   /* thread-seconds */
};

/* One thread's current wait, followed to tell idleness by design. */
struct cpw_wait_thread {
	pid_t pid, tid;
	uint64_t seq;       /* the probe of its current wait */
	enum cpw_wait_kind kind;
	int target;         /* its index in targets; -1 none, -2 past the table */
	int fn;             /* its index in fns; -1 none (yet), -2 past the table */
	double wait_s;      /* thread-seconds of the current wait so far */
	double helper_s;    /* ... of which counted as a helper's (helper_seconds) */
	unsigned samples;   /* samples of it */
	bool idle;          /* found idle by design: its time goes to idle_s */
	bool counted;       /* counted once among idle_threads */
	uint64_t last_add;  /* when it last waited, in adds: the oldest record is reused */
	uint16_t older, newer; /* its neighbours in the order of last_add; CPW_WAIT_THREADS_MAX: none */
};

struct cpw_waits {
	double seconds[CPW_WAIT_KIND_COUNT]; /* thread-seconds per kind */
	double total_s;
	struct cpw_wait_target_time targets[CPW_WAIT_TARGETS_MAX];
	size_t ntargets;
	double untracked_target_s; /* thread-seconds on targets past the table */
	struct cpw_wait_proc_time procs[CPW_WAIT_PROCS_MAX];
	size_t nprocs;
	double untracked_proc_s;
	struct cpw_wait_fn_time fns[CPW_WAIT_FNS_MAX]; /* by Python function */
	size_t nfns;
	double untracked_fn_s;               /* thread-seconds named in functions past the table */
	double idle_s;                       /* thread-seconds idle by design, in no kind */
	unsigned idle_threads;               /* threads found idle by design */
	struct cpw_wait_thread threads[CPW_WAIT_THREADS_MAX];
	size_t nthreads;
	uint64_t adds;                       /* waits added: the threads' clock */
	/* Each sample adds every waiting thread of the tree: a thread's record is found
	 * through an index on (pid, tid), slot + 1 per bucket (0: empty; linear probing), and
	 * the one that waited least recently is the head of a list in the order of last_add,
	 * so 4,000 threads cost a few compares each rather than a pass over the table. */
	uint16_t thread_index[CPW_WAIT_THREAD_INDEX];
	uint16_t oldest, newest; /* CPW_WAIT_THREADS_MAX: none */
	bool probed;                         /* the probe ran at least once */
	struct cpw_wait_probe_stats probe;   /* its counts: denied, no syscall file, over budget */
};

void cpw_waits_init(struct cpw_waits *w);
/* Adds one probed wait of a thread of pid (comm raw) lasting seconds: to its kind, target
 * and process, or to idle_s once the thread (wait->tid) is idle by design. */
void cpw_waits_add(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
		   double seconds);
/* The same, for a thread that is a helper of its process (see helper_seconds) or not. */
void cpw_waits_add_thread(struct cpw_waits *w, pid_t pid, const char *comm, const struct cpw_wait *wait,
			  double seconds, bool helper);
/* Whether a wait of thread tid of pid, not run since it began, may be idle by design: not
 * the main thread; a lock, a pipe queue, a poll on several descriptors, an event loop, an
 * accept on a unix-domain listener (a local service's helper). */
bool cpw_waits_idle_kind(pid_t pid, const struct cpw_wait *wait);

/* Keeps a copy of the probe's counts for the report's notes. */
void cpw_waits_set_probe_stats(struct cpw_waits *w, const struct cpw_wait_probe_stats *s);
/* Orders targets, functions and processes by thread-seconds, largest first (before
 * reporting). */
void cpw_waits_sort(struct cpw_waits *w);
/* A copy of w for a report, sorted (cpw_waits_sort()): everything but the per-thread
 * records and their index, which no report reads (copied whole, they were most of the
 * struct's 0.5 MB, written twice a run into fresh pages). NULL when out of memory; free()
 * it. */
struct cpw_waits *cpw_waits_sorted_copy(const struct cpw_waits *w);

/* The kind that took the most thread-seconds, waits for a child left aside unless they
 * are all there is (a parent waiting for its child waits for what the child waits on);
 * -1 when nothing was waited. *share gets its share of the thread-seconds counted. */
int cpw_waits_dominant(const struct cpw_waits *w, double *share);
/* The same over thread-seconds per kind (a timeline point's, a phase's): the kind with the
 * most, waits for a child aside unless they are all there is; -1 with none. *share (may be
 * NULL): its share of those counted. */
int cpw_waits_seconds_dominant(const double seconds[CPW_WAIT_KIND_COUNT], double *share);
/* The target of kind with the most thread-seconds (after cpw_waits_sort), NULL if none. */
const struct cpw_wait_target_time *cpw_waits_top_target(const struct cpw_waits *w, enum cpw_wait_kind kind);
/* The Python function that waited longest on kind (after cpw_waits_sort; pid > 0: in
 * that process only), NULL if none. */
const struct cpw_wait_fn_time *cpw_waits_top_fn(const struct cpw_waits *w, enum cpw_wait_kind kind, pid_t pid);
/* The process record of pid, NULL when it never waited or was past the table. */
const struct cpw_wait_proc_time *cpw_waits_proc(const struct cpw_waits *w, pid_t pid);
/* Its dominant kind in the same manner, -1 when none. */
int cpw_waits_proc_dominant(const struct cpw_wait_proc_time *p, double *share);

#endif
