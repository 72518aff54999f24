/*
 * taskstats.h: per-task accounting from the kernel over generic netlink: delays (waiting for
 * a CPU, for block IO, swap-in, reclaim, thrashing), CPU times, faults, IO bytes, peak RSS.
 *
 * Two uses: query one live task or thread group, and listen for the records the kernel
 * sends when any task exits, so processes shorter than a sampling interval are still
 * counted. Both need CAP_NET_ADMIN (root): otherwise -EPERM with a reason.
 * Delay totals other than cpu_delay need kernel.task_delayacct=1; cperfwatch never switches
 * it on: cpw_taskstats_delayacct() says whether it is.
 */
#ifndef CPW_SOURCE_KERNEL_TASKSTATS_H
#define CPW_SOURCE_KERNEL_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpw_taskstats_rec {
	bool is_tgid;           /* a whole thread group's aggregate, not one thread */
	uint32_t id;            /* the tid (or tgid when is_tgid) the kernel says it is about */
	uint16_t version;       /* the kernel's struct taskstats version */
	uint32_t pid, ppid, tgid; /* ac_pid, ac_ppid, ac_tgid (tgid 0 before version 12) */
	char comm[33];
	uint32_t exitcode;      /* a wait(2) status: exit code << 8, or the signal */
	uint8_t flags;          /* ac_flag: AFORK, ASU, ACORE, AXSIG */
	uint64_t btime;         /* begin time, seconds since the epoch */
	uint64_t etime_us;      /* elapsed time */
	uint64_t utime_us, stime_us;
	uint64_t minflt, majflt;
	uint64_t hiwater_rss_kib, hiwater_vm_kib;
	uint64_t read_bytes, write_bytes, cancelled_write_bytes; /* storage IO */
	uint64_t read_char, write_char;                          /* all read()/write() */
	uint64_t nvcsw, nivcsw;
	/* Delays in ns, with counts; cpu_* is filled even with delay accounting off. */
	uint64_t cpu_count, cpu_delay_total_ns, cpu_run_real_total_ns;
	uint64_t cpu_run_virtual_total_ns; /* sum_exec_runtime: the exact CPU time */
	uint64_t blkio_count, blkio_delay_total_ns;
	uint64_t swapin_count, swapin_delay_total_ns;
	uint64_t freepages_count, freepages_delay_total_ns;  /* direct reclaim */
	uint64_t thrashing_count, thrashing_delay_total_ns;
	uint64_t compact_count, compact_delay_total_ns;
};

/* Pure parser of one netlink datagram from the TASKSTATS family: each TASKSTATS_CMD_NEW
 * message's TASKSTATS_TYPE_AGGR_PID / _AGGR_TGID gives one record. Stores up to max records
 * and returns how many it found, or a negative errno carried by an NLMSG_ERROR, or -EBADMSG
 * for a malformed buffer. Kernel and header struct versions may differ: the smaller size is
 * copied, missing fields read 0. Safe on any input (fuzzed). */
int cpw_taskstats_parse(const void *buf, size_t len, struct cpw_taskstats_rec *recs, size_t max);

/* A record's user and system CPU, in seconds, as the kernel gives them to rusage and /proc:
 * ac_utime and ac_stime are raw scheduler-tick samples, scaled here to the exact CPU time
 * (cpu_run_virtual_total) as cputime_adjust() does. Where no tick landed on the task (under
 * load on a hypervisor a thread's 60 ms of CPU can get none) the exact time is all user, as
 * there; where the exact time is missing (0), the ticks stand. Pure. */
void cpw_taskstats_cpu(const struct cpw_taskstats_rec *r, double *user_s, double *sys_s);

/* Whether delay accounting is on: 1, 0, or -errno when <proc_root>/sys/kernel/task_delayacct
 * cannot be read (kernels before 5.14 have no sysctl: on unless booted with nodelayacct).
 * why says which, for the report. */
int cpw_taskstats_delayacct(const char *proc_root, char *why, size_t whylen);

/* --- queries --- */
struct cpw_taskstats;

/* Opens a generic netlink socket and resolves the TASKSTATS family. -errno with why. */
int cpw_taskstats_new(struct cpw_taskstats **out, char *why, size_t whylen);
void cpw_taskstats_free(struct cpw_taskstats *ts);

/* One thread (tgid false: TASKSTATS_CMD_ATTR_PID) or a whole thread group (true: _TGID).
 * Returns 0, or -errno with why (-EPERM: not root, -ESRCH: no such task). */
int cpw_taskstats_query(struct cpw_taskstats *ts, pid_t id, bool tgid,
			struct cpw_taskstats_rec *rec, char *why, size_t whylen);

/* --- exit listener --- */
struct cpw_taskstats_listener;

/* Registers for the exit records of every task on all possible CPUs. -errno with why. */
int cpw_taskstats_listen(struct cpw_taskstats_listener **out, char *why, size_t whylen);

/* Non-blocking: stores up to max (at least 2) pending exit records and returns how many,
 * 0 when none is pending, or -errno. Records cover every task of the system: the caller
 * keeps those of its tree (pid, ppid, tgid). */
int cpw_taskstats_poll(struct cpw_taskstats_listener *l, struct cpw_taskstats_rec *recs,
		       size_t max);

/* How often the kernel dropped records because the socket buffer overflowed (ENOBUFS):
 * each time at least one, it does not say how many. */
uint64_t cpw_taskstats_lost(const struct cpw_taskstats_listener *l);

/* Deregisters and closes. NULL is allowed. */
void cpw_taskstats_unlisten(struct cpw_taskstats_listener *l);

#endif
