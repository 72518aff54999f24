/*
 * tree.h: the watched process tree over time (model/tree.c).
 *
 * Built from what the /proc reader (source/proc/proc_reader.h) hands it, one sample at a time,
 * and from exit records: per-process cumulative figures, rates over the last interval,
 * tree totals and a bounded history for the live view. It reads nothing itself.
 * Processes that exit stay in the table (alive = false) so totals never lose them.
 */
#ifndef CPW_MODEL_TREE_H
#define CPW_MODEL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "source/proc/proc_reader.h"
#include "model/leak.h" /* leaks: the per-process resident-set series */

/* One thread of a process at the last sample (the live view's thread rows). */
struct cpw_thread_now {
	pid_t tid;
	char comm[16];     /* its name (as the kernel gives it: escape to print); "" until read */
	char state;        /* stat's letter */
	double cpu_pct;    /* on-CPU time over the last interval, % of one core (schedstat) */
	const char *wait;  /* the kind it waits on now ("lock", "network"; a static string); "" on
			    * a CPU or unknown */
	const char *target; /* what it waits on, where known (raw: escape to print): "TCP
			     * 10.0.0.5:5432"; "" when none. The reader's, valid until the next
			     * sample (a copy for each of 4,000 threads would cost 256 KiB) */
};

#define CPW_COMM_MAX 64
#define CPW_CMDLINE_MAX 256
#define CPW_HISTORY_LEN 240 /* points kept for sparklines: 24 s at 0.1 s, 4 min at 1 s */

struct cpw_thread_slot; /* private to tree.c */

struct cpw_proc {
	pid_t pid;
	pid_t ppid;
	char comm[CPW_COMM_MAX];       /* as the kernel gave it: may hold anything; escape to print */
	char cmdline[CPW_CMDLINE_MAX]; /* argv joined with spaces, raw; "" for kernel threads */
	char user[32];                 /* effective user name (libproc2); "" until known */
	bool alive;
	bool reaped;          /* exact figures from wait4 or a taskstats exit record */
	bool preexisting;     /* attach mode: alive before the watch began (figures are deltas) */
	double first_seen_s;  /* seconds since the watch began */
	double last_seen_s;
	double exited_s;      /* when it was found gone; NAN while alive */
	double missed_s;      /* alive but not reached by the last sample; NAN otherwise */

	/* Cumulative over the watch (attach mode: minus the values at first sight). */
	double user_s;
	double sys_s;
	uint64_t minflt;
	uint64_t majflt;
	uint64_t vol_ctxsw;
	uint64_t invol_ctxsw;
	double read_bytes;    /* NAN when /proc/PID/io is unreadable */
	double write_bytes;
	double oncpu_s;       /* schedstat, summed over threads, exited threads included */
	double runq_wait_s;

	uint64_t rss_kib;     /* now (last sample) */
	double pss_kib;       /* proportional set size at the last sample that read it; NAN */
	uint64_t max_rss_kib; /* highest seen (VmHWM when readable) */
	int nthreads;
	char state;           /* main thread's state letter */
	char wait_now[24];    /* what its threads wait on at the last sample: the wait kind most
			       * of them wait on ("network", "lock"...), with how many where it
			       * has several threads ("lock:3"); "" when none waits or unknown */
	bool waits_now;       /* that kind is known and is not its own children: the process
			       * itself waits on something (a phase names it) */

	/* Rates over the last interval, for the live view. */
	double cpu_pct;       /* 100 = one core */
	double minflt_rate;
	double majflt_rate;
	double read_rate;     /* bytes/s, NAN when unreadable */
	double write_rate;
	double ctxsw_rate;

	char io_reason[64];   /* why read_bytes is NAN, "" otherwise */

	/* How its threads shared the CPU (the classifier's serialisation finding). */
	int max_threads;      /* most threads seen at once */
	int cpu_threads;      /* threads that each did >= 10% of its on-CPU time, ended ones too */
	uint64_t samples_in;  /* samples that read its threads */
	uint64_t r_samples;   /* its threads seen in R, summed over those samples */
	int is_python;        /* 1 / 0; -1 unknown (the reader asks once it has a second thread) */
	double exec_s;        /* proc_label: the sample that found its last exec (its name or
			       * command line changed); NAN where none was seen */
	double exec_drained_s; /* by then the exit records of what ended before that exec are
				* in (two intervals later: records come with the next samples) */
	double exec_event_s;  /* exec args: its last exec as the process events connector told
			       * it (root), to the microsecond; NAN where unknown */
	int python_exe;       /* its executable is Python: 1 / 0; -1 unknown (gone unsampled) */
	char python[16];      /* the version its executable's name says ("3.11"); "" unknown */
	/* leaks: its resident set over its life, at bounded memory (model/leak.h) */
	struct cpw_rss_series rss_series;

	/* private bookkeeping (tree.c) */
	uint64_t starttime_ticks; /* tells a reused pid from the process we knew */
	uint64_t base_utime, base_stime, base_minflt, base_majflt;
	double base_read, base_write;
	/* The kernel adds a reaped child's IO to its parent's /proc/PID/io: the last raw
	 * figures of this process (what its parent gains when it reaps it), and what its own
	 * reaped children added (taken off its figures, so no byte counts twice). */
	double raw_read, raw_write;
	double child_read, child_write;
	bool io_credited;         /* its raw figures were taken off its parent's */
	uint64_t last_ticks;      /* utime+stime at the previous sample, for rates */
	double last_oncpu_s;      /* oncpu_s at the previous sample, for cpu_pct */
	uint64_t last_minflt, last_majflt, last_ctxsw;
	double last_read, last_write, last_sample_s;
	struct cpw_thread_slot *threads;
	size_t nthreads_used, nthreads_alloc;
	uint64_t banked_oncpu_ns, banked_runq_ns, banked_vol, banked_invol; /* exited threads */
	int banked_cpu_threads;   /* exited threads that counted in cpu_threads */
	uint64_t busiest_thread_ns; /* the most on-CPU time one of its threads had */
	unsigned generation;      /* last sample that saw it */
};

/* The PSS readings' peak stands for the tree's only where one of them was taken while the
 * tree's resident sum was at least this part of its peak: one taken as the command started
 * (a pool forked later, gone within the second) says nothing of it. */
#define CPW_PSS_COVERS 0.8

/* Tree-level figures accumulated over all samples. */
struct cpw_tree_totals {
	uint64_t samples;
	uint64_t thread_samples;
	uint64_t st_running, st_disk_wait, st_d_other, st_sleeping, st_other;
	uint64_t runnable_sum;      /* sum over samples of R threads, for the mean */
	uint64_t rss_kib;           /* the tree's RSS now */
	uint64_t peak_rss_kib;      /* highest sum of the tree's RSS at one moment */
	/* The tree's proportional set sizes (shared pages counted once), at the samples that
	 * read them: the last sum, the highest, how many such samples, and the most live
	 * processes whose PSS could not be read at one of them (with why, for one). */
	double pss_kib, peak_pss_kib;
	uint64_t pss_samples;
	unsigned pss_unreadable;
	int pss_errno;
	uint64_t pss_rss_kib;       /* the tree's highest RSS sum at a sample that read the PSS */
	unsigned alive;             /* processes alive at the last sample */
	unsigned seen;              /* processes ever seen */
	double cpu_pct;             /* tree CPU over the last interval (100 = one core) */
	double read_rate, write_rate, majflt_rate, minflt_rate; /* tree, last interval */
};

/* Whether a PSS reading was taken near the tree's resident peak (CPW_PSS_COVERS): the
 * readings' peak then stands for the tree's. */
static inline bool cpw_tree_pss_covers_peak(const struct cpw_tree_totals *tt)
{
	return (double)tt->pss_rss_kib >= CPW_PSS_COVERS * (double)tt->peak_rss_kib;
}

/* A bounded ring of tree-level points, oldest first when read with cpw_tree_history_at. */
struct cpw_history {
	double cpu_pct[CPW_HISTORY_LEN];
	double rss_kib[CPW_HISTORY_LEN];
	double io_bytes_rate[CPW_HISTORY_LEN];
	double fault_rate[CPW_HISTORY_LEN];
	size_t next;  /* slot to write next */
	size_t count; /* points held, <= CPW_HISTORY_LEN */
};

struct cpw_tree;

/* baseline_existing: attach mode, where figures of processes alive at the first sample
 * count from that sample on. */
struct cpw_tree *cpw_tree_new(bool baseline_existing);
void cpw_tree_free(struct cpw_tree *t);

/* Folds one sample the reader took at now_s (seconds since the watch began) into the
 * model. Processes it did not reach are marked exited (one sample's grace for those the
 * reader found still there). Returns the number of live processes. */
int cpw_tree_apply(struct cpw_tree *t, const struct cpw_proc_sample *sample, double now_s);
/* The watch's seconds less the seconds since boot (the session's clock against the one of a
 * stat's start time): with it, a process a sample finds first has first_seen_s at its
 * start, where that lies within the watch, not at the sample (a process's life is then
 * exact to the tick: dd's began 0.1 s before the first sample that found it, and its share
 * of time off the CPU came out 5 points short). NAN (the default): the sample's time. */
void cpw_tree_set_boot_offset(struct cpw_tree *t, double boot_offset_s);

/* The arguments of pid's exec at exec_s, learnt after the fact (the process events
 * connector: a process shorter than the interval, or one that exec'd after its last
 * sample): where later than its exec_event_s, exec_s becomes it, and the arguments replace
 * its command line where no sample read one, or the exec came after the last sample that
 * did. No process of that pid: nothing. */
void cpw_tree_exec_args(struct cpw_tree *t, pid_t pid, const char *cmdline, double exec_s);

/* exec args: when a process no sample found began (begin_s: its exec, the nearest known)
 * and ended (begin_s + lived_s, its exit record's elapsed time), in place of when its exit
 * record was read: the table's start, end and duration. Sampled processes: nothing. */
void cpw_tree_exit_began(struct cpw_tree *t, pid_t pid, double begin_s, double lived_s);

/* Records exact figures for a process that was reaped (wait4 rusage of that one process,
 * taskstats exit record...). Adds the process if it was never sampled (short-lived). */
void cpw_tree_record_exit(struct cpw_tree *t, pid_t pid, pid_t ppid, const char *comm,
			  double user_s, double sys_s, uint64_t minflt, uint64_t majflt,
			  uint64_t max_rss_kib, double now_s);

/* When a process began, as the kernel's exit record lets one bound it, in the tree's
 * seconds (since the watch began): lb <= its fork <= ub. The record gives the elapsed time
 * at exit; it arrived between two drains of the records, which bound the exit. */
struct cpw_begin_window {
	double lb, ub;
};
/* Whether the process that began in w could be a child (or a thread) of the tree's newest
 * process with pid: it began no earlier than that process (its stat's start time) and no
 * later than it ended. NO where the times rule it out (a pid reused by a process outside
 * the tree), UNSURE where w spans the end of a process that has ended (the caller asks
 * whether the pid is held by another process now). boot_offset_s: the tree's seconds
 * minus the seconds since boot (CLOCK_BOOTTIME), at any one moment. */
enum cpw_kinship { CPW_KIN_NO, CPW_KIN_YES, CPW_KIN_UNSURE };
enum cpw_kinship cpw_tree_may_be_parent(const struct cpw_tree *t, pid_t pid,
					const struct cpw_begin_window *w, double boot_offset_s);
/* Whether the process that began in w is the tree's process with pid itself (its stat's
 * start time lies in w), not another one that took its pid; true where its start time is
 * unknown. */
bool cpw_tree_same_process(const struct cpw_tree *t, pid_t pid, const struct cpw_begin_window *w,
			   double boot_offset_s);

/* The process with pid lived lived_s from its start (an exit record's elapsed time): where
 * its start is known, when it ended is known to the tick, closer than when it was found
 * gone; and its first_seen_s becomes its start where that was within the watch and before
 * the first sample that found it. */
void cpw_tree_exit_after(struct cpw_tree *t, pid_t pid, double lived_s, double boot_offset_s);
/* The start time (clock ticks after boot) of the tree's newest process with pid; 0 when
 * not known. */
uint64_t cpw_tree_start_ticks(const struct cpw_tree *t, pid_t pid);

/* Marks every process still alive as exited: the watch is over and nothing is left. */
void cpw_tree_end(struct cpw_tree *t, double now_s);

size_t cpw_tree_size(const struct cpw_tree *t);
const struct cpw_proc *cpw_tree_proc(const struct cpw_tree *t, size_t i); /* order of first sight */
/* The threads of p seen at the last sample (none once it has exited), in the order the
 * reader lists them; valid until the next sample. */
size_t cpw_tree_proc_thread_count(const struct cpw_proc *p);
const struct cpw_thread_now *cpw_tree_proc_thread(const struct cpw_proc *p, size_t i);
const struct cpw_proc *cpw_tree_find(const struct cpw_tree *t, pid_t pid);
const struct cpw_tree_totals *cpw_tree_totals(const struct cpw_tree *t);
const struct cpw_history *cpw_tree_history(const struct cpw_tree *t);
/* leaks: the tree's resident-set sum over the run, at bounded memory (model/leak.h). */
const struct cpw_rss_series *cpw_tree_rss_series(const struct cpw_tree *t);
/* Point i (0 = oldest) of one history series. */
double cpw_tree_history_at(const struct cpw_history *h, const double *series, size_t i);

/* Where the tree's off-CPU thread time went (model/waits.h), probed at each sample. */
struct cpw_waits;
const struct cpw_waits *cpw_tree_waits(const struct cpw_tree *t);

/* Every tid of every live process at the last sample (attach mode arms counters on them).
 * Returns the count written to tids (at most max). */
size_t cpw_tree_live_tids(const struct cpw_tree *t, pid_t *tids, size_t max);
/* How many threads the live processes had at the last sample (cpw_tree_live_tids() writes
 * at most max of them). */
size_t cpw_tree_live_thread_count(const struct cpw_tree *t);

#endif
