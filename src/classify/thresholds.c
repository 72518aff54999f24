/*
 * thresholds.c: the classifier's thresholds, one table, each number with where it comes
 * from. doc/classification.md explains them in plain words; keep the two in step.
 *
 * "Share" means a share of the tree's busy lifetime: max(wall, thread-seconds the tree
 * spent on a CPU, in the run queue, in disk wait, in memory stalls or blocked in D),
 * so that idle helper threads (thread pools, BLAS threads) do not dilute it.
 */
#include "classify/thresholds.h"
#include "model/waits.h"
#include "source/waits/wait_kind.h"

#include <stddef.h>
#include <string.h>

const struct cpw_threshold cpw_thresholds[CPW_T_COUNT] = {
	[CPW_T_MIN_WALL_S] = {
		"min_wall_s", 0.25, "s",
		"own calibration: below a quarter second, start-up (exec, dynamic linking, page-ins) "
		"is most of the run and a few samples say nothing" },
	[CPW_T_MIN_SAMPLES] = {
		"min_samples", 5, "samples",
		"own calibration: fewer sampling ticks cannot tell a 20% state share from noise" },
	[CPW_T_FULL_SAMPLES] = {
		"full_samples", 50, "samples",
		"own calibration: from here on, sampled shares are within a few percent; confidence "
		"stops growing with samples" },
	[CPW_T_DOMINANCE] = {
		"dominance", 1.5, "ratio",
		"own calibration: the winning lane must be 1.5x the runner-up, else the run is mixed "
		"(60/40 still names a winner, 55/45 does not)" },
	[CPW_T_DOMINANCE_MARGIN] = {
		"dominance_margin", 0.10, "share",
		"own calibration (issue 27): sleep 1.5; spin 2; fsync 2 put its CPU share at "
		"0.45-0.57 in 13 of 20 runs recorded on the 2-CPU VM, beside 0.22-0.32 disk or "
		"wait; a single cut at 0.50 flipped its headline, a band of 0.10 above it does not" },
	[CPW_T_NOTABLE_SHARE] = {
		"notable_share", 0.20, "share",
		"USE method: 20% is where a resource starts to matter; below that no secondary is named" },
	[CPW_T_CPU_SHARE] = {
		"cpu_share", 0.50, "share",
		"seed heuristic user/(real x parallelism) ~ 1, relaxed: on-CPU (plus run-queue) time "
		"is the majority of the busy lifetime" },
	[CPW_T_RUNQ_RATIO] = {
		"runq_ratio", 0.20, "ratio",
		"USE method saturation: run-queue wait >= 20% of (on-CPU + run-queue wait)" },
	[CPW_T_OVERSUB_RATIO] = {
		"oversub_ratio", 1.25, "ratio",
		"derived from runq_ratio: N runnable threads on k CPUs wait (N-k)/N of their time, "
		"which reaches 20% at N = 1.25 k; below that the wait comes from outside load" },
	[CPW_T_CORES_IDLE_RATIO] = {
		"cores_idle_ratio", 0.75, "ratio",
		"own calibration: a CPU-bound tree using <= 75% of its usable cores leaves at least "
		"a quarter idle, worth a finding" },
	[CPW_T_TOP_PROCESS_SHARE] = {
		"top_process_share", 0.80, "share",
		"own calibration: one process doing >= 80% of a tree's CPU work is the one to profile" },
	[CPW_T_IPC_MAX] = {
		"ipc_max", 1.0, "instr/cycle",
		"top-down practice: cores retire up to 4+ per cycle; below 1 most slots stall" },
	[CPW_T_LLC_MPKI] = {
		"llc_mpki", 10.0, "misses/kinstr",
		"common perf rule of thumb: >= 10 last-level cache misses per 1000 instructions is "
		"memory-latency bound" },
	[CPW_T_TOPDOWN_MEM] = {
		"topdown_memory_bound", 0.20, "share",
		"top-down analysis (Yasin 2014; VTune flags Memory Bound above 20% of pipeline slots)" },
	[CPW_T_MINFLT_PER_CPU_S] = {
		"minflt_per_cpu_s", 20000, "faults/CPU-s",
		"own calibration on this machine: page-fault churn makes ~550k, allocating 1.5 GB "
		"~70k, a compiler or Python ~2k per CPU-second" },
	[CPW_T_SYS_SHARE] = {
		"sys_share", 0.60, "share",
		"own calibration: sys >> user; page-fault churn measured 93% system time" },
	[CPW_T_MINFLT_HEAVY] = {
		"minflt_heavy_per_cpu_s", 50000, "faults/CPU-s",
		"own calibration on a second VM, where a fault's trap costs ~20 us and is charged as "
		"user time: page-fault churn made 65-90k per CPU-second with 39-57% system time; "
		"allocating 1.5 GB in Python ~60k; a program starting cold ~35k, a build ~19k" },
	[CPW_T_SPAWN_MIN_PROCS] = {
		"spawn_min_procs", 100, "processes",
		"own calibration (issue 30): a shell loop running a command per item starts "
		"thousands; a build or a pipeline, tens" },
	[CPW_T_SPAWN_PER_CPU_S] = {
		"spawn_per_cpu_s", 100, "processes/CPU-s",
		"own calibration (issue 30): fork + exec of a small program costs 1-3 ms of CPU "
		"(300-1000 a CPU-second); a compiler job 0.1 s or more (under 10)" },
	[CPW_T_DISK_SHARE] = {
		"disk_share", 0.20, "share",
		"USE method: disk wait >= 20% of the lifetime (doc/classification.md, 3)" },
	[CPW_T_DISK_VS_CPU] = {
		"disk_vs_cpu", 0.50, "ratio",
		"design rule: disk wait larger than half the CPU time, so a compiler with some reads "
		"stays CPU-bound" },
	[CPW_T_IO_MIN_BYTES] = {
		"io_min_bytes", 65536, "bytes",
		"own calibration: D states with less storage traffic than this are not disk (locks, "
		"NFS, a device)" },
	[CPW_T_IO_PATH_SYS_SHARE] = {
		"io_path_sys_share", 0.80, "share",
		"own calibration (issue 27): a process or window that moved storage bytes, waited "
		"for the disk at least notable_share of its time and spent this much of its CPU in "
		"the kernel does nothing but its I/O: that system time is the I/O's cost (dd with "
		"4 KiB O_DIRECT reads: 95-99% system time, 43-50% of its life; a Python loader "
		"parsing what it reads is mostly user time)" },
	[CPW_T_MEMSTALL_SHARE] = {
		"memstall_share", 0.10, "share",
		"PSI practice: memory stalls of 10% of the time already cost throughput (psi.rst's "
		"trigger example is 150 ms per 1 s); measured 17-24% when thrashing on this machine" },
	[CPW_T_REFAULT_MIN_PAGES] = {
		"refault_min_pages", 4096, "pages",
		"own calibration: 16 MiB of refaulted pages is more than noise; a 3 s thrash measured "
		"837k" },
	[CPW_T_REFAULT_LIMIT_RATIO] = {
		"refault_limit_ratio", 0.25, "ratio",
		"own calibration: refaults of a quarter of the pages the memory limit holds mean the "
		"working set is cycling through it" },
	[CPW_T_SYSWIDE_MIN_MAJFLT] = {
		"syswide_min_majflt", 100, "faults",
		"own calibration: system-wide refaults (/proc/vmstat) are only ours when the tree itself "
		"faulted pages in from storage; the thrash workload made 582 in 3 s, fsync and "
		"O_DIRECT loops none" },
	[CPW_T_THRASH_DELAY_SHARE] = {
		"thrash_delay_share", 0.05, "share",
		"delay accounting: thrashing delay is refault waits only, so 5% of the lifetime is "
		"direct evidence" },
	[CPW_T_MAJFLT_RSS_RATIO] = {
		"majflt_rss_ratio", 4.0, "ratio",
		"a cold start reads each page at most once (major faults x 4 KiB <= peak RSS); 4x "
		"more means pages were dropped and read again" },
	[CPW_T_WAIT_SHARE] = {
		"wait_share", 0.50, "share",
		"design rule: most of the lifetime asleep (S) or blocked on something that is not disk" },
	[CPW_T_PSI_SHARE] = {
		"psi_share", 0.10, "share",
		"PSI practice: pressure 'some' >= 10% of the run corroborates a verdict (not needed)" },
	[CPW_T_NARROWED_CPUS] = {
		"narrowed_cpus", 0.5, "CPUs",
		"design rule: the threads' own affinity (and quota) at least half a CPU below what "
		"cperfwatch saw at launch is the command narrowing itself (taskset, numactl)" },
	[CPW_T_SERIAL_CORES_MIN] = {
		"serial_cores_min", 0.5, "cores",
		"design rule: the busiest process must be busy (half a core) for its threads' turns "
		"to be what holds it up" },
	[CPW_T_SERIAL_CORES_MAX] = {
		"serial_cores_max", 1.3, "cores",
		"own calibration: 4 Python threads on the GIL and 4 C threads on one mutex used "
		"0.95-1.1 cores of 2; 1.3 leaves room for work done outside the lock" },
	[CPW_T_SERIAL_RUNNABLE_MAX] = {
		"serial_runnable_max", 1.5, "threads",
		"design rule: threads that wanted a CPU at once but did not get one are starved or "
		"oversubscribed, not serialised; taking turns keeps about one runnable" },
	[CPW_T_SERIAL_LOCK_SHARE] = {
		"serial_lock_share", 0.30, "share",
		"derived: N threads taking turns leave (N-1)/N asleep, 50% for two; 30% of the "
		"samples waiting on a lock allows for work outside it" },
	[CPW_T_SERIAL_HANDOFF_RUNQ] = {
		"serial_handoff_runq", 0.35, "ratio",
		"own calibration: each turn wakes a waiter that queues for a CPU; 4 GIL and 4 mutex "
		"threads measured 11-30% run-queue wait on an idle 2-CPU VM, so only the wait past "
		"35% is other load's" },
	[CPW_T_PHASE_MIN_S] = {
		"phase_min_s", 0.5, "s",
		"own calibration: twice min_wall_s, so a phase is long enough to classify; shorter "
		"changes of the busiest lane are noise (a GC pause, a flush), absorbed by a neighbour "
		"(with min_samples samples at least)" },
	[CPW_T_JOB_STRAGGLER_SHARE] = {
		"job_straggler_share", 0.10, "share",
		"own judgement: a rank ending 10% after the median other rank is worth naming as the "
		"straggler; below that, start-up and scheduling jitter make as much in a job of "
		"identical ranks" },
	[CPW_T_JOB_STRAGGLER_MIN_S] = {
		"job_straggler_min_s", 0.05, "s",
		"own judgement: and at least 50 ms after it, so short jobs' jitter (process start, "
		"the MPI launcher's stagger) names no straggler" },
	[CPW_T_JOB_CPU_SPREAD] = {
		"job_cpu_spread", 0.25, "ratio",
		"own judgement: CPU time is unevenly divided when (max - min) exceeds a quarter of "
		"the mean rank's; a balanced decomposition stays well within that" },
	[CPW_T_JOB_WAITING_RATIO] = {
		"job_waiting_ratio", 0.5, "ratio",
		"own judgement: a rank waited while the others computed when it used less than half "
		"the cores the median other rank used" },
	[CPW_T_JOB_WAITING_OTHERS_CORES] = {
		"job_waiting_others_cores", 0.5, "cores",
		"own judgement: only while the median other rank used at least half a core; else "
		"all of them were waiting, and the ranks' verdicts say so" },
	/* The next three are the probe's and the waits model's own numbers (they cannot
	 * reach up to this table), listed here with why. */
	[CPW_T_POLL_FEW_FDS] = {
		"poll_few_fds", CPW_WAIT_POLL_FEW_FDS, "fds",
		"own calibration: a socket read with a timeout polls 1 fd, subprocess's communicate 2-3, "
		"a multiprocessing pool's handler 1 per worker plus 1; an event loop serves many, so a "
		"poll or select on more than 8 fds is an event loop, on fewer a wait on them" },
	[CPW_T_IDLE_THREAD_SAMPLES] = {
		"idle_thread_samples", CPW_WAIT_IDLE_SAMPLES, "samples",
		"own calibration: a helper thread (not a process's main thread) seen on one lock, queue "
		"or poll without running for this many samples is idle by design, as min_samples" },
	[CPW_T_IDLE_THREAD_S] = {
		"idle_thread_s", CPW_WAIT_IDLE_S, "s",
		"own calibration: ... and for this long at least: lock hand-offs and queue waits of "
		"working threads last milliseconds; a pool's handler threads wait from one finished "
		"job to the next, 0.8 s and more for a Pool(2) of 0.3 s chunks on a loaded 2-CPU VM" },
	/* gpu */
	[CPW_T_GPU_BUSY] = {
		"gpu_busy", 0.5, "share",
		"'busy for most of the run': NVML's utilisation (a kernel ran in the sample period) "
		"above half; below it the PyTorch profiler's overview flags low GPU utilisation" },
	[CPW_T_GPU_SATURATED] = {
		"gpu_saturated", 0.9, "share",
		"own calibration: a device busy 90% of the time is the limit whatever the host does "
		"(nvidia-smi's utilisation counts any kernel running, so 100% is reachable)" },
	[CPW_T_GPU_WAIT_SHARE] = {
		"gpu_wait_share", 0.2, "share",
		"own calibration: host threads blocked in a GPU driver's ioctl a fifth of the wall "
		"time (a blocking synchronize) show the host waiting on the device" },
	[CPW_T_GPU_SPIN_SHARE] = {
		"gpu_spin_share", 0.3, "share",
		"own calibration: CUDA's default wait spins in libcuda (cudaDeviceScheduleAuto spins "
		"where cores outnumber GPUs); a third of the on-CPU samples there is the host "
		"waiting on the device, not computing" },
	[CPW_T_GPU_HOST_CPU] = {
		"gpu_host_cpu", 0.8, "cores",
		"cpu_share's bar for one process: the GPU's holder on a CPU or in its run queue 80% "
		"of its life is bound by the host (the PyTorch profiler's 'CPU exec' dominating the "
		"step)" },
	[CPW_T_GPU_FEEDER_CPU] = {
		"gpu_feeder_cpu", 0.7, "cores",
		"own calibration: a feeder busy 70% of a core keeps its pipe short; the PyTorch "
		"profiler's overview advises more DataLoader workers when data loading is a notable "
		"share of the step" },
	[CPW_T_GPU_NET_WAIT] = {
		"gpu_net_wait", 0.1, "share",
		"the issue's bar after the PyTorch profiler's distributed view: communication that "
		"does not overlap computation, 10% of the step or more" },
	[CPW_T_GPU_MEM] = {
		"gpu_mem", 0.9, "share",
		"own calibration: at 90% of device memory the caching allocator retries and frees "
		"(PyTorch's 'CUDA out of memory' comes soon after); smaller batches or activation "
		"checkpointing" },
	/* Leaks (classify/leak_finding.c, model/leak.c). */
	[CPW_T_LEAK_MIN_GROWTH] = {
		"leak_min_growth", 16384, "KiB",
		"own calibration: glibc's malloc hands memory back above its trim threshold (128 KiB) "
		"and maps blocks above its mmap threshold (up to 32 MiB) on their own, and an "
		"interpreter's start-up moves its RSS by a few MiB; 16 MiB that stay are no noise" },
	[CPW_T_LEAK_MIN_SPAN_S] = {
		"leak_min_span_s", 2, "s",
		"own calibration: growth over less than 2 s is a step (one large allocation, a file "
		"read in), not a steady climb; at the 0.1 s default interval 2 s is 20 samples" },
	[CPW_T_LEAK_STEADY_SHARE] = {
		"leak_steady_share", 0.5, "share",
		"own calibration: each third of the climb adds at least half its even share; a warm-up "
		"(caches, pools, imports) adds nearly nothing in its last third, a leak at a steady "
		"rate its full share" },
	[CPW_T_LEAK_KEPT_SHARE] = {
		"leak_kept_share", 0.9, "share",
		"own calibration: memory is given back when the end holds less than 90% of the peak's "
		"growth; a leak keeps all of it, allocator noise moves it by a few percent" },
};

const struct cpw_threshold *cpw_threshold_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < CPW_T_COUNT; i++)
		if (cpw_thresholds[i].name != NULL && strcmp(cpw_thresholds[i].name, name) == 0)
			return &cpw_thresholds[i];
	return NULL;
}
