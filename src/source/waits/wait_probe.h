/*
 * wait_probe.h: the wait probe (wait_probe.c): for one thread off the CPU (S or D), what it waits
 * on: the kind (wait_kind.h), the system call, the wait channel and, where that is cheap
 * and bounded, the target: the peer of a socket (from /proc/net by inode), the process of
 * the tree at the other end of a pipe, a file's path, the number of fds an epoll waits on;
 * for a poll or select on a few descriptors, the most telling of them (read from the
 * waiting process's memory: the caller needs ptrace rights over it).
 *
 * Reads: the thread's syscall file, its wchan only where the call does not tell the kind,
 * then the fd link of the call's first argument and what the target needs. Targets are
 * cached by (pid, fd, inode) across samples; the socket tables are read at most once per
 * sample, and only when a socket needs them. Resolving targets spends at most `budget`
 * reads per sample; past it, kinds are still named and the stats count what was left.
 */
#ifndef CPW_SOURCE_WAITS_WAIT_PROBE_H
#define CPW_SOURCE_WAITS_WAIT_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "source/waits/wait_kind.h"

#define CPW_WAIT_TARGET_LEN 192
#define CPW_WAIT_BUDGET_DEFAULT 256 /* reads per sample for targets */

/* Why a wait's details (syscall, target) are missing. */
enum cpw_wait_detail {
	CPW_WAIT_DETAIL_OK,
	CPW_WAIT_DETAIL_DENIED,      /* syscall file not readable: another user's process, or ptrace rules */
	CPW_WAIT_DETAIL_NO_SYSCALL,  /* no syscall file: a kernel built without it, or hidepid */
	CPW_WAIT_DETAIL_OVER_BUDGET, /* the target was not resolved: this sample's reads were spent */
	CPW_WAIT_DETAIL_FD_UNREADABLE /* the fd link could not be read (closed meanwhile, or denied) */
};

struct cpw_wait {
	enum cpw_wait_kind kind;
	long syscall_nr;                  /* CPW_SYSCALL_NONE, CPW_SYSCALL_UNREAD, or the number */
	char syscall[24];                 /* its name; "" when none, unread or not in the table */
	char wchan[64];                   /* "" when not read (the call named the kind) */
	char target[CPW_WAIT_TARGET_LEN]; /* raw (escape to print); "" when none */
	pid_t peer_pid;                   /* a pipe's other end in the tree, a pipeline's feeder; 0
					   * when none, for a queue, or a poll on several fds */
	pid_t tid;                        /* the thread probed */
	uint64_t seq;                     /* this probe's number: the same in the next sample
					   * means the thread was not probed again (it did not run) */
	bool queue;                       /* a pipe the waiting process holds both ends of (a
					   * multiprocessing Queue, SimpleQueue or Pipe): no pipeline stage */
	unsigned polled;                  /* a poll or select: the descriptors it waits on (at
					   * least; 0 for other calls or when unread) */
	bool driver_helper;               /* the thread is a GPU driver's own helper (CUDA's
					   * cuda-EvtHandlr): it waits by design, busy GPU or
					   * idle; set by the reader from the thread's name */
	uint64_t user_sp;                 /* its user stack pointer in the call (0: unread) */
	/* The Python functions it waits in, for a thread of a CPython process: its innermost
	 * Python frame and that frame's caller, named "qualname" and "file:first line" by the
	 * stack reader (source/python/python_stacks.h), which holds the strings for the run;
	 * NULL where none. Set by the tree's reader (proc_reader.c), not the probe; py_asked:
	 * the stack reader was asked for this wait. */
	const char *py_fn, *py_fn_where, *py_caller, *py_caller_where;
	bool py_asked;
	enum cpw_wait_detail detail;
	bool retry; /* the target may resolve later (a pipe's other end not found yet, the
		     * budget spent, the call not caught): probe it again next sample even if it
		     * did not run */
};

struct cpw_wait_probe_stats {
	uint64_t probed;             /* threads probed */
	uint64_t denied;             /* ... whose syscall file was not readable */
	uint64_t no_syscall;         /* ... that had no syscall file */
	uint64_t over_budget;        /* ... whose target was left unresolved for the budget */
	uint64_t samples_over_budget;/* samples in which the budget ran out */
	uint64_t reads;              /* reads spent on targets, all samples */
	uint64_t poll_denied;        /* polls and selects whose descriptors could not be read
				      * (no ptrace rights over the process): left an event loop */
	unsigned budget;
};

struct cpw_wait_probe;

/* proc_root is normally "/proc"; budget the reads per sample for targets (0: the default).
 * NULL on allocation failure. */
struct cpw_wait_probe *cpw_wait_probe_new(const char *proc_root, unsigned budget);
void cpw_wait_probe_free(struct cpw_wait_probe *wp);

/* Starts a sample: a fresh budget, the socket tables to be read again when needed, and the
 * processes of the tree (searched for the other end of a pipe; copied). */
void cpw_wait_probe_begin_sample(struct cpw_wait_probe *wp, const pid_t *tree_pids, size_t npids);

/* A process of the tree that this sample found (a child just listed) where the last one's
 * processes did not have it: searched too from now on. A pool starts its workers and the
 * threads that wait on their pipes together, and the parent's threads are probed before
 * its children are read: without it, their first search found no other end, and was
 * made again at the next sample. */
void cpw_wait_probe_add_process(struct cpw_wait_probe *wp, pid_t pid);

/* Probes thread tid of process pid, last seen in state (S or D). wchan is the thread's wait
 * channel where the caller has just read it (a thread in D), NULL to read it here when the
 * call leaves the kind open. Returns 0 with *out filled, -EAGAIN when the thread was back
 * on a CPU (no wait channel), -ESRCH when it is gone. */
int cpw_wait_probe_thread(struct cpw_wait_probe *wp, pid_t pid, pid_t tid, char state,
			  const char *wchan, struct cpw_wait *out);

/* Reads n spans of process pid's memory (remote) into local, as process_vm_readv does:
 * the bytes read, or -errno. The default is process_vm_readv itself, refused (-ENOSYS) under
 * a proc root other than /proc, whose pids need not be this system's; tests set their own. */
typedef long (*cpw_wait_mem_reader)(void *ctx, pid_t pid, const struct iovec *local, const struct iovec *remote,
				    unsigned long n);
void cpw_wait_probe_set_mem_reader(struct cpw_wait_probe *wp, cpw_wait_mem_reader read, void *ctx);

/* Reads thread tid's syscall file (at path) into buf, NUL-terminated: its length, or -errno.
 * The default opens, reads and closes it; the proc reader keeps the thread's descriptor (one
 * pread a probe, where the path cost an open, two reads and a close). */
typedef long (*cpw_wait_file_reader)(void *ctx, pid_t pid, pid_t tid, const char *path, char *buf, size_t size);
void cpw_wait_probe_set_syscall_reader(struct cpw_wait_probe *wp, cpw_wait_file_reader read, void *ctx);

/* Whether the stack of a thread of pid, read from its user stack pointer sp up to 8 KiB
 * (the innermost frames), holds a return into the code at [lo, hi): a thread that sleeps on
 * a futex from within a GPU driver's synchronize (CUDA's blocking sync: the driver's event
 * thread wakes it) has the driver's addresses there. Reads the process's memory: the caller
 * needs ptrace rights over it; false where the read fails. */
bool cpw_wait_probe_stack_returns_into(struct cpw_wait_probe *wp, pid_t pid, uint64_t sp, uint64_t lo, uint64_t hi);

const struct cpw_wait_probe_stats *cpw_wait_probe_stats(const struct cpw_wait_probe *wp);

#endif
