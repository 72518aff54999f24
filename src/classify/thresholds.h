/*
 * thresholds.h: the one table of numbers the classifier decides with.
 *
 * Every threshold has a name (as it appears in evidence and in doc/classification.md), a
 * value, a unit and where the number comes from (USE method, PSI practice, top-down
 * analysis, our own calibration). Reports and documentation cite them from here, so a
 * recalibration is one edit in src/classify/thresholds.c.
 */
#ifndef CPW_CLASSIFY_THRESHOLDS_H
#define CPW_CLASSIFY_THRESHOLDS_H

#include <math.h>
#include <stdbool.h>

enum cpw_threshold_id {
	/* Enough data to say anything. */
	CPW_T_MIN_WALL_S,
	CPW_T_MIN_SAMPLES,
	CPW_T_FULL_SAMPLES,
	/* Choosing between lanes (cpu, disk, memory stall, waiting). */
	CPW_T_DOMINANCE,
	CPW_T_DOMINANCE_MARGIN,
	CPW_T_NOTABLE_SHARE,
	/* CPU. */
	CPW_T_CPU_SHARE,
	CPW_T_RUNQ_RATIO,
	CPW_T_OVERSUB_RATIO,
	CPW_T_CORES_IDLE_RATIO,
	CPW_T_TOP_PROCESS_SHARE,
	/* Memory-bound (on-CPU time that is really memory). */
	CPW_T_IPC_MAX,
	CPW_T_LLC_MPKI,
	CPW_T_TOPDOWN_MEM,
	CPW_T_MINFLT_PER_CPU_S,
	CPW_T_SYS_SHARE,
	CPW_T_MINFLT_HEAVY,
	/* Process creation (a fork storm): many short processes. */
	CPW_T_SPAWN_MIN_PROCS,
	CPW_T_SPAWN_PER_CPU_S,
	/* Storage. */
	CPW_T_DISK_SHARE,
	CPW_T_DISK_VS_CPU,
	CPW_T_IO_MIN_BYTES,
	CPW_T_IO_PATH_SYS_SHARE,
	/* Thrashing. */
	CPW_T_MEMSTALL_SHARE,
	CPW_T_REFAULT_MIN_PAGES,
	CPW_T_REFAULT_LIMIT_RATIO,
	CPW_T_SYSWIDE_MIN_MAJFLT,
	CPW_T_THRASH_DELAY_SHARE,
	CPW_T_MAJFLT_RSS_RATIO,
	/* Waiting. */
	CPW_T_WAIT_SHARE,
	/* Corroboration by pressure stall information. */
	CPW_T_PSI_SHARE,
	/* Usable CPUs narrowed by the command itself. */
	CPW_T_NARROWED_CPUS,
	/* Serialisation: threads taking turns on a lock. */
	CPW_T_SERIAL_CORES_MIN,
	CPW_T_SERIAL_CORES_MAX,
	CPW_T_SERIAL_RUNNABLE_MAX,
	CPW_T_SERIAL_LOCK_SHARE,
	CPW_T_SERIAL_HANDOFF_RUNQ,
	/* Phases. */
	CPW_T_PHASE_MIN_S,
	/* A job of many ranks (--merge): imbalance across them. */
	CPW_T_JOB_STRAGGLER_SHARE,
	CPW_T_JOB_STRAGGLER_MIN_S,
	CPW_T_JOB_CPU_SPREAD,
	CPW_T_JOB_WAITING_RATIO,
	CPW_T_JOB_WAITING_OTHERS_CORES,
	/* What a wait is on (used by the probe and the waits model, defined beside them). */
	CPW_T_POLL_FEW_FDS,
	CPW_T_IDLE_THREAD_SAMPLES,
	CPW_T_IDLE_THREAD_S,
	/* gpu: the GPU's verdict and its findings (classify/gpu_verdict.c). */
	CPW_T_GPU_BUSY,
	CPW_T_GPU_SATURATED,
	CPW_T_GPU_WAIT_SHARE,
	CPW_T_GPU_SPIN_SHARE,
	CPW_T_GPU_HOST_CPU,
	CPW_T_GPU_FEEDER_CPU,
	CPW_T_GPU_NET_WAIT,
	CPW_T_GPU_MEM,
	/* Memory that grows and is not given back (classify/leak_finding.c). */
	CPW_T_LEAK_MIN_GROWTH,
	CPW_T_LEAK_MIN_SPAN_S,
	CPW_T_LEAK_STEADY_SHARE,
	CPW_T_LEAK_KEPT_SHARE,
	CPW_T_COUNT
};

struct cpw_threshold {
	const char *name;   /* stable identifier, e.g. "disk_share" */
	double value;
	const char *unit;   /* "s", "share", "ratio", "pages", ... */
	const char *source; /* where the number comes from, one line */
};

/* Indexed by enum cpw_threshold_id; read-only. */
extern const struct cpw_threshold cpw_thresholds[CPW_T_COUNT];

/* The value of a threshold (shorthand for the classifier). */
static inline double cpw_threshold(enum cpw_threshold_id id) { return cpw_thresholds[id].value; }

/* Taking turns past serial_runnable_max: N threads on one lock keep about one runnable,
 * but a turn's hand-off briefly runs two (the waker and the woken), and 16 samples of a
 * 1.5 s run put the mean at 1.3-1.6 (gil_threads.py, 1 run in 15 above 1.5). Where the
 * lock waits were sampled and reach serial_lock_share, the threads are asleep on the lock,
 * not starved: fewer runnable than the usable CPUs is still taking turns. */
static inline bool cpw_thresholds_serial_runnable_ok(double runnable, double lock_share, double cores)
{
	return !isnan(runnable) && !isnan(lock_share) && !isnan(cores) &&
	       lock_share >= cpw_threshold(CPW_T_SERIAL_LOCK_SHARE) && runnable < cores;
}

/* Page faults as the work (memory-bound, first touches): at least minflt_per_cpu_s minor
 * faults per CPU-second, with sys_share of the CPU in the kernel below minflt_heavy. The
 * tree's rule (classify.c) and a process's (process_verdict.c). */
static inline bool cpw_thresholds_faults_are_work(double minflt_rate, double sys_share)
{
	return minflt_rate >= cpw_threshold(CPW_T_MINFLT_PER_CPU_S) &&
	       (minflt_rate >= cpw_threshold(CPW_T_MINFLT_HEAVY) || sys_share >= cpw_threshold(CPW_T_SYS_SHARE));
}

/* Rule 2b (doc/classification.md): system time that is the I/O's own cost, where at least
 * io_min_bytes of storage moved, the disk lane is notable_share of the busy time or more,
 * and io_path_sys_share of the CPU (user_s + sys_s) is system time. The tree's, a phase's
 * and a process's. */
static inline bool cpw_thresholds_io_path(double io_bytes, double disk_share, double user_s, double sys_s)
{
	return !isnan(io_bytes) && io_bytes >= cpw_threshold(CPW_T_IO_MIN_BYTES) &&
	       disk_share >= cpw_threshold(CPW_T_NOTABLE_SHARE) && sys_s > 0 && !isnan(user_s) &&
	       sys_s >= cpw_threshold(CPW_T_IO_PATH_SYS_SHARE) * (user_s + sys_s);
}

/* The entry with that name, or NULL. */
const struct cpw_threshold *cpw_threshold_find(const char *name);

#endif
