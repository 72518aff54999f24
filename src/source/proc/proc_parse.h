/*
 * proc_parse.h: pure parsers for the /proc files cperfwatch reads directly (what libproc2
 * lacks: per-thread state, schedstat, context switches, children lists, wait channels).
 * They take a buffer, never a path, so fuzz targets and fixtures can feed them.
 * Each returns 0, or -EINVAL when the text is not what the kernel writes.
 */
#ifndef CPW_SOURCE_PROC_PROC_PARSE_H
#define CPW_SOURCE_PROC_PROC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpw_stat_fields {
	char comm[64];
	char state;
	pid_t ppid;
	uint64_t flags;       /* field 9: the kernel's PF_ flags (CPW_PF_KTHREAD) */
	uint64_t minflt;
	uint64_t majflt;
	uint64_t utime_ticks;
	uint64_t stime_ticks;
	long num_threads;
	uint64_t starttime_ticks;
	long rss_pages;
	uint64_t startcode;   /* field 26: where its program's code starts; another after an
			       * exec (0 where the kernel hides it: another user's process) */
	uint64_t blkio_ticks; /* field 42: delay accounting, 0 when it is off */
	bool has_blkio;
};

/* A kernel thread's bit in the flags of its stat (include/linux/sched.h: PF_KTHREAD). */
#define CPW_PF_KTHREAD 0x00200000u

struct cpw_schedstat {
	uint64_t oncpu_ns;  /* time spent on the CPU */
	uint64_t runq_ns;   /* time spent waiting on a run queue */
	uint64_t slices;    /* timeslices run */
};

struct cpw_status_fields {
	uint64_t vol_ctxsw;
	uint64_t invol_ctxsw;
	uint64_t vm_hwm_kib;
	uint64_t vm_rss_kib;
	bool has_ctxsw;
	bool has_hwm;
};

struct cpw_io_fields {
	uint64_t rchar, wchar, read_bytes, write_bytes, cancelled_write_bytes;
};

/* A set of CPU numbers, as /proc/PID/task/TID/status writes it in Cpus_allowed_list
 * ("0-3,8,10-11"). 8192 is the largest NR_CPUS a distribution kernel is built with. */
#define CPW_CPUSET_MAX 8192
struct cpw_cpuset {
	uint64_t bits[CPW_CPUSET_MAX / 64];
};

int cpw_proc_parse_stat(const char *buf, size_t len, struct cpw_stat_fields *out);
int cpw_proc_parse_schedstat(const char *buf, size_t len, struct cpw_schedstat *out);
int cpw_proc_parse_status(const char *buf, size_t len, struct cpw_status_fields *out);
int cpw_proc_parse_io(const char *buf, size_t len, struct cpw_io_fields *out);
/* smaps_rollup: the process's proportional set size (each shared page divided among the
 * processes that map it), KiB. Returns 0, or -EINVAL without a Pss line. */
int cpw_proc_parse_smaps_rollup_pss(const char *buf, size_t len, uint64_t *pss_kib);
/* A children file: pids separated by spaces. Returns how many were stored (at most max; the
 * rest are counted in *more when not NULL), or -EINVAL. */
int cpw_proc_parse_pid_list(const char *buf, size_t len, pid_t *out, size_t max, size_t *more);
/* cmdline: NUL-separated argv into one line joined by spaces. */
void cpw_proc_parse_cmdline(const char *buf, size_t len, char *out, size_t outlen);
/* A CPU list ("0-3,8"; ends at a newline or len; "" is the empty set). Returns how many
 * CPUs it holds, or -EINVAL (reversed range, CPU >= CPW_CPUSET_MAX, junk). */
int cpw_proc_parse_cpu_list(const char *buf, size_t len, struct cpw_cpuset *out);
/* The Cpus_allowed_list line of a status file: the CPUs the thread may run on. Returns
 * their count, or -EINVAL when the line is missing or malformed. */
int cpw_proc_parse_cpus_allowed(const char *buf, size_t len, struct cpw_cpuset *out);
int cpw_proc_parse_cpuset_count(const struct cpw_cpuset *set);
/* into |= from: the tree may use a CPU when any of its threads may. */
void cpw_proc_parse_cpuset_union(struct cpw_cpuset *into, const struct cpw_cpuset *from);
/* Writes the set as the kernel does ("0-3,8"); a list too long for out ends in "...". */
void cpw_proc_parse_cpuset_format(const struct cpw_cpuset *set, char *out, size_t outlen);
/* True when a D-state wait channel name is storage IO (page/buffer/bio waits, journal),
 * false for locks, pipes, sockets, NFS and the like. Unknown or empty names count as
 * storage, since that is what D mostly is. */
bool cpw_proc_parse_wchan_is_storage(const char *wchan);

/* Reads a whole small file into buf (NUL-terminated). Returns bytes read, or -errno. */
long cpw_proc_parse_read_file(const char *path, char *buf, size_t size);

#endif
