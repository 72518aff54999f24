/*
 * proc_events.h: the arguments of processes shorter than the sampling interval, read at
 * their exec (source/kernel/proc_events.c), from the kernel's process events connector
 * (netlink NETLINK_CONNECTOR, CN_IDX_PROC; needs CAP_NET_ADMIN and the initial pid
 * namespace).
 *
 * A thread of its own waits on the socket and, at each exec, reads /proc/PID/cmdline at
 * once (the process may be gone within milliseconds), keeping the pid, the exec's time
 * (CLOCK_MONOTONIC, ns) and the arguments joined by spaces (at most
 * CPW_PROC_EVENTS_ARGS_MAX - 1 bytes) in a ring of CPW_PROC_EVENTS_RING entries, their
 * arguments one after another in a ring of 128 KiB. Its memory is bounded: 240 KiB, made
 * by the thread at the first exec and touched only as execs fill it (the entries' 80 KiB,
 * the arguments' 128 KiB, 32 KiB of index). The connector tells of every exec of the
 * system: when execs come faster than the session looks them up (2,048 between two
 * samples, with other programs'), the oldest are overwritten. The
 * session looks a pid up when it takes the process's exit record, within the window of
 * the process's life, so a pid reused since gives nothing.
 */
#ifndef CPW_SOURCE_KERNEL_PROC_EVENTS_H
#define CPW_SOURCE_KERNEL_PROC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CPW_PROC_EVENTS_ARGS_MAX 256
#define CPW_PROC_EVENTS_RING 2048

enum cpw_proc_event_kind {
	CPW_PROC_EVENT_FORK = 1,
	CPW_PROC_EVENT_EXEC,
	CPW_PROC_EVENT_EXIT,
	CPW_PROC_EVENT_ACK,   /* the kernel's answer to a (un)subscribe: err in code */
	CPW_PROC_EVENT_OTHER, /* uid, gid, sid, ptrace, comm, coredump: not used */
};

struct cpw_proc_event {
	enum cpw_proc_event_kind kind;
	uint64_t timestamp_ns; /* CLOCK_MONOTONIC */
	pid_t pid, tgid;       /* the task (fork: the child) */
	pid_t parent_tgid;     /* fork: the parent process; 0 otherwise */
	uint32_t code;         /* exit: the wait status; ack: the error; 0 otherwise */
	uint32_t ack;          /* the cn_msg's ack field (an ACK answers ours + 1) */
};

/* Pure parser of one datagram from the connector: each netlink message's cn_msg of
 * CN_IDX_PROC/CN_VAL_PROC whose data holds a whole struct proc_event gives one event (other
 * messages are skipped). Stores up to max and returns how many it stored, or -EBADMSG for a
 * malformed buffer (a message's length past the datagram, a cn_msg's len past its
 * message). Safe on any input (fuzzed). */
int cpw_proc_events_parse(const void *buf, size_t len, struct cpw_proc_event *ev, size_t max);

struct cpw_proc_events;

/* Subscribes to the connector (a few system calls: from then on execs queue in the
 * socket); cmdline files are read under proc_root. Returns 0, or -errno with why (-EPERM:
 * not root; -EPROTONOSUPPORT: a kernel without CONFIG_PROC_EVENTS; -ENOTSUP: no answer). */
int cpw_proc_events_open(struct cpw_proc_events **out, const char *proc_root, char *why,
			 size_t whylen);

/* Starts the reading thread (once; later calls do nothing): after the command is released,
 * so that its cost overlaps the command's own start, before its first exec is gone. */
void cpw_proc_events_start(struct cpw_proc_events *pe);

/* The arguments of pid's last exec between after_ns and before_ns (CLOCK_MONOTONIC) into
 * buf (raw: escape to print), and when it was into *exec_ns (may be NULL). False when none
 * is known (none in the ring, its cmdline unreadable or empty, the pid's only exec outside
 * the window: another process that had the pid). */
bool cpw_proc_events_args(struct cpw_proc_events *pe, pid_t pid, uint64_t after_ns,
			  uint64_t before_ns, char *buf, size_t len, uint64_t *exec_ns);

/* How often the socket's buffer overflowed (ENOBUFS): each time at least one event was
 * lost, the kernel does not say how many. */
uint64_t cpw_proc_events_lost(const struct cpw_proc_events *pe);

/* Stops the thread, unsubscribes and frees. NULL is allowed. */
void cpw_proc_events_close(struct cpw_proc_events *pe);

#endif
