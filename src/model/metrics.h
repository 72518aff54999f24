/*
 * metrics.h: the figures of one watched run, the input of the classifier.
 *
 * A plain struct with no pointers into the model, so a classifier test can build one from a
 * fixture. A double that could not be measured is NAN (test with cpw_known()); the reason
 * goes into the report's notes, never a 0. Counts that are always measurable are integers.
 */
#ifndef CPW_MODEL_METRICS_H
#define CPW_MODEL_METRICS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "source/perf/perf.h"

static inline bool cpw_known(double value) { return !isnan(value); }

struct cpw_metrics {
	/* Time: wait4 rusage in run mode, deltas of /proc figures in attach mode. */
	double wall_s;
	double user_s;
	double sys_s;

	/* Parallelism. */
	double cores_usable;     /* affinity ∩ cgroup CPU quota */
	double cores_used;       /* (user + sys) / wall */
	unsigned nprocs;         /* processes seen in the tree, short-lived ones included */
	double top_process_cpu_share; /* largest single process's share of tree CPU, 0..1; NAN */
	int top_process_pid;
	char top_process_comm[32];
	/* The busiest process's threads: do they take turns (a lock, the GIL)? */
	double top_process_threads;     /* most threads it had at once; NAN */
	double top_process_cpu_threads; /* its threads that each did >= 10% of its CPU; NAN */
	double top_process_runnable;    /* its mean R threads per sample; NAN */
	double top_process_lock_share;  /* share 0..1 of its thread samples waiting on a lock
					 * (the wait kind lock: a futex, a kernel mutex, flock...);
					 * NAN: not measured (filled by the wait analysis) */
	int top_process_is_python;      /* 1 Python (exe or a mapped libpython), 0 not, -1 unknown */

	/* Usable CPUs as the tree's threads saw them during the run (the command may narrow
	 * them itself: taskset, numactl, sched_setaffinity), where cores_usable is what
	 * cperfwatch saw at launch. NAN / "" when not sampled. */
	double cores_usable_sampled;    /* mean over samples of (CPUs the threads may use ∩ quota) */
	char cpus_allowed_sampled[64];  /* the union of the threads' Cpus_allowed_list, last sample */

	/* Sampled thread states: thread-samples in each state, over all samples. */
	uint64_t samples;        /* sampling ticks taken */
	uint64_t thread_samples; /* sum over ticks of threads seen */
	uint64_t st_running;     /* R */
	uint64_t st_disk_wait;   /* D with a storage wait channel (or unknown channel) */
	uint64_t st_d_other;     /* D on something that is not storage (locks, NFS, ...) */
	uint64_t st_sleeping;    /* S, I */
	uint64_t st_other;       /* T, t, Z, X ... */
	double avg_runnable_threads; /* mean R threads of the tree per sample */

	/* Scheduler: /proc/PID/task/TID/schedstat sums over every thread seen (seconds). */
	double oncpu_s;
	double runq_wait_s;

	/* Delay accounting (taskstats or stat field 42); NAN where it is off. */
	bool delayacct_on;
	double blkio_delay_s;
	double swapin_delay_s;
	double thrashing_delay_s;
	double reclaim_delay_s;

	/* Memory. */
	uint64_t major_faults;
	uint64_t minor_faults;
	double max_rss_kib;       /* the largest single process (what time reports) */
	double tree_peak_rss_kib; /* sum of the tree's RSS at one moment, highest seen: pages
				   * shared between processes count in each of them */
	double tree_peak_kib;     /* the tree's peak memory, shared pages counted once; NAN */
	char tree_peak_source[8]; /* "cgroup": the peak of the command's own cgroup (exact, page
				   * cache included); "pss": the highest sum of the processes'
				   * proportional set sizes (sampled); "" when unknown */
	double tree_peak_pss_kib; /* the highest PSS sum sampled, whichever the source; NAN */
	double refaults;          /* workingset refaults over the run (cgroup or system); NAN */
	bool refaults_from_cgroup;
	double memory_limit_kib;  /* the cgroup's memory limit where there is one; NAN */
	double page_kib;          /* the machine's page size (KiB); NAN: unknown, 4 assumed */

	/* IO: storage bytes from /proc/PID/io (NAN when unreadable). */
	double read_bytes;
	double write_bytes;
	uint64_t fs_inputs;  /* rusage ru_inblock (512-byte blocks) */
	uint64_t fs_outputs; /* rusage ru_oublock */

	/* Context switches (rusage in run mode, /proc status sums in attach). */
	uint64_t vol_ctxsw;
	uint64_t invol_ctxsw;

	/* Pressure stall information: deltas of total= over the run, in seconds; NAN where
	 * /proc/pressure is absent. System-wide unless psi_from_cgroup. */
	double psi_cpu_some_s;
	double psi_io_some_s;
	double psi_io_full_s;
	double psi_mem_some_s;
	double psi_mem_full_s;
	bool psi_from_cgroup;

	/* Hardware counters (NAN where not counted). */
	double cycles;
	double instructions;
	double cache_references;
	double cache_misses;
	double llc_load_misses;
	double branch_misses;
	double stalled_cycles_backend;
	double topdown_memory_bound; /* share 0..1 of slots, where the PMU exposes top-down */
	bool hw_counters_available;

	/* Waits (model/waits.c): what off-CPU threads waited on; "" and NAN where not probed.
	 * Strings are raw (from the kernel): escape to print. */
	char wait_kind[16];          /* the dominant kind, child waits aside: "network", "lock"... */
	double wait_kind_share;      /* its share of the thread-seconds waited, 0..1 */
	char wait_target[160];       /* its top target ("TCP 127.0.0.1:8080"); "" when none */
	double wait_target_share;    /* that target's share of the kind's thread-seconds */
	double wait_child_share;     /* share of the waiting that was for a child process */
	double wait_child_s;         /* thread-seconds waiting for a child (wait4, waitid); NAN */
	char io_file[160];           /* the file most waited on for disk; "" when none */
	unsigned io_files_more;      /* other files waited on for disk */
	/* A pipeline: a process of the tree waiting on a pipe that another one feeds. */
	double pipe_wait_s;          /* thread-seconds the waiter spent on it; NAN when none */
	int pipe_waiter_pid;
	char pipe_waiter_comm[32];
	int pipe_feeder_pid;
	char pipe_feeder_comm[32];
	double pipe_feeder_cpu_share;   /* the feeder's CPU over its lifetime (1 = one core) */
	double pipe_feeder_runq_share;  /* ... and its run-queue wait (schedstat); NAN: unknown */
	char pipe_feeder_wait_kind[16]; /* the feeder's own dominant wait; "" when none */
	double pipe_feeder_wait_share;

	/* gpu: the GPUs the tree used (model/gpu.c fills it; NAN and 0 where none was read). */
	int gpu_devices_held;         /* devices a process of the tree was seen on */
	double gpu_busy_share;        /* mean busy share of those devices over the readings, 0..1 */
	double gpu_mem_share;         /* their peak memory used over their total, 0..1 */
	int gpu_holder_pid;           /* the tree's process with the most SM share (else memory) */
	char gpu_holder_comm[32];     /* raw */
	double gpu_holder_cpu_share;  /* its time on a CPU or in the run queue over its lifetime
				       * (schedstat; rusage where none): 1 = one core wanted */
	double gpu_holder_net_wait_share; /* its threads' network waits over its lifetime */
	double gpu_wait_share;        /* the tree's gpu waits (thread-seconds) over the wall time */
	double gpu_driver_spin_share; /* share of the on-CPU samples in libcuda (CUDA's default
				       * wait spins there); NAN without hotspots */
};

/* Fills every double with NAN and every count with 0. */
void cpw_metrics_init(struct cpw_metrics *m);

struct cpw_tree;
/* The model's part of the metrics: tree totals and per-process figures (metrics.c). */
void cpw_metrics_from_tree(struct cpw_metrics *m, const struct cpw_tree *t);
/* The counters' part: the figures the classifier reads, and whether cycles and
 * instructions were both counted. */
void cpw_metrics_from_counters(struct cpw_metrics *m, const struct cpw_counter_figures *f);

struct cpw_waits;
/* The waits' part: dominant kind, its top target, the files, the pipeline (the tree gives
 * the feeder's CPU). */
void cpw_metrics_from_waits(struct cpw_metrics *m, const struct cpw_waits *w, const struct cpw_tree *t);

/* The share of thread samples in each state, 0..1 (NAN without samples). R samples are
 * split into running and runnable by schedstat's on-CPU against run-queue time. */
struct cpw_thread_shares {
	double running, runnable, disk_wait, d_other, sleeping, other;
};
void cpw_metrics_thread_shares(const struct cpw_metrics *m, struct cpw_thread_shares *s);

#endif
