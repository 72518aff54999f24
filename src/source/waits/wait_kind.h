/*
 * wait_kind.h: what a thread off the CPU waits on, as a kind (network, pipe, lock, timer,
 * child, event loop, terminal input, disk, page-in, other, gpu), and the pure classifier that
 * names it from the thread's state, wait channel, system call and the type of the file
 * the call is on (wait_kind.c). Also the system call table of the architecture cperfwatch
 * is built for: x86-64 and aarch64; elsewhere the table is empty and kinds come from the
 * wait channel alone.
 */
#ifndef CPW_SOURCE_WAITS_WAIT_KIND_H
#define CPW_SOURCE_WAITS_WAIT_KIND_H

#include <stdbool.h>

enum cpw_wait_kind {
	CPW_WAIT_NETWORK,
	CPW_WAIT_PIPE,
	CPW_WAIT_LOCK,
	CPW_WAIT_TIMER,
	CPW_WAIT_CHILD,
	CPW_WAIT_EVENT_LOOP,
	CPW_WAIT_TERMINAL,
	CPW_WAIT_DISK,
	CPW_WAIT_PAGE_IN,
	CPW_WAIT_OTHER,
	CPW_WAIT_GPU,      /* gpu: an ioctl on /dev/nvidia*, /dev/dri/ *, /dev/kfd, or a futex
			    * slept on from inside the CUDA driver (the proc reader tells it;
			    * after OTHER: the kinds' numbers before it stay) */
	CPW_WAIT_KIND_COUNT
};

/* What a system call does, as far as telling a wait's kind goes. */
enum cpw_sys_group {
	CPW_SYS_UNLISTED,   /* not in the table: the wait channel decides */
	CPW_SYS_READ,       /* read, readv, pread64, preadv: the fd's type decides */
	CPW_SYS_WRITE,      /* write, writev, pwrite64, pwritev, sendfile, splice */
	CPW_SYS_RECV,       /* recvfrom, recvmsg, recvmmsg */
	CPW_SYS_SEND,       /* sendto, sendmsg, sendmmsg */
	CPW_SYS_CONNECT,
	CPW_SYS_ACCEPT,
	CPW_SYS_LOCK,       /* futex, futex_waitv, flock, semop, semtimedop */
	CPW_SYS_SLEEP,      /* nanosleep, clock_nanosleep */
	CPW_SYS_CHILD,      /* wait4, waitid */
	CPW_SYS_POLL,       /* poll, ppoll, select, pselect6 */
	CPW_SYS_EPOLL,      /* epoll_wait, epoll_pwait, epoll_pwait2: the fd is the epoll instance */
	CPW_SYS_SYNC,       /* fsync, fdatasync, sync_file_range */
	CPW_SYS_AIO,        /* io_getevents */
	CPW_SYS_IOCTL       /* ioctl: the fd's type decides (a GPU driver's: gpu) */
};

/* A poll or select on at most this many descriptors waits on them (its kind is theirs: a
 * socket read with a timeout is a network wait); on more, it is an event loop. The
 * classifier's thresholds table lists it (poll_few_fds) with why. */
#define CPW_WAIT_POLL_FEW_FDS 8

/* The type of the file a call's fd argument names (from /proc/PID/fd/N). */
enum cpw_fd_type {
	CPW_FD_UNKNOWN,  /* not read: no fd argument, unreadable, over budget */
	CPW_FD_SOCKET,
	CPW_FD_PIPE,
	CPW_FD_FILE,     /* a path that is not a terminal */
	CPW_FD_TTY,      /* /dev/tty*, /dev/pts/N, /dev/console */
	CPW_FD_TIMER,    /* anon_inode:[timerfd] */
	CPW_FD_ANON,     /* anon_inode:[eventfd] and the like */
	CPW_FD_GPU       /* /dev/nvidia*, /dev/dri/ *, /dev/kfd: a GPU driver's device */
};

struct cpw_syscall_info {
	long nr;
	const char *name;
	enum cpw_sys_group group;
	bool fd_arg; /* the first argument is a file descriptor */
};

/* CPW_SYSCALL_NONE: the thread is not in a system call ("-1 sp pc": a page fault, or
 * preempted in user space); CPW_SYSCALL_UNREAD: the syscall file could not be read. */
#define CPW_SYSCALL_NONE (-1L)
#define CPW_SYSCALL_UNREAD (-2L)

/* The table entry of nr on this architecture, NULL when it is not listed. */
const struct cpw_syscall_info *cpw_wait_kind_syscall_lookup(long nr);
/* The entry called name (tests write fixtures with the numbers of the architecture they
 * run on), NULL when not listed. */
const struct cpw_syscall_info *cpw_wait_kind_syscall_by_name(const char *name);

/* The kind of one thread's wait. state is the stat letter (S or D; anything else is
 * "other"), wchan the wait channel ("" or "0" when unknown), nr the system call number or
 * CPW_SYSCALL_NONE / CPW_SYSCALL_UNREAD, fd the type of its fd argument; for a poll or
 * select, the type of the descriptor it waits on (the most telling of a few), unknown for
 * one on many or unread: an event loop. Pure. */
enum cpw_wait_kind cpw_wait_kind_classify(char state, const char *wchan, long nr, enum cpw_fd_type fd);

/* The kind's name in reports and JSON: "network", "pipe", "lock", "timer", "child",
 * "event-loop", "terminal", "disk", "page-in", "other", "gpu". */
const char *cpw_wait_kind_name(enum cpw_wait_kind kind);
/* The kind called name, or -1. */
int cpw_wait_kind_from_name(const char *name);

/* The type of a /proc/PID/fd/N link's text ("socket:[12]", "pipe:[7]", "/dev/pts/1",
 * "anon_inode:[eventfd]", "/home/a/file"); *inode gets the number of socket and pipe
 * links (0 otherwise). */
enum cpw_fd_type cpw_wait_kind_fd_link_type(const char *link, unsigned long *inode);

/* Whether a thread of this name (its stat's comm) is a GPU driver's own helper thread,
 * which waits for the device's events all its life: CUDA's "cuda-EvtHandlr" and its
 * "cuda" + hex-digit threads (seen with driver 580 on an H100; they poll the driver's
 * descriptors and its @cuda-uvmfd socket, busy GPU or idle). */
bool cpw_wait_kind_driver_thread(const char *thread_comm);

#endif
