/*
 * wait_kind.c: naming the kind of a thread's wait from its state, wait channel, system call
 * and the type of the file the call is on. Pure: no I/O.
 *
 * The system call decides where it is known and telling (futex is a lock whatever the wait
 * channel); read and write are told apart by their fd (socket, pipe, terminal, file); the
 * wait channel decides the rest, and all of it when the syscall file could not be read
 * (another user's process, hidepid). The numbers are the architecture's own, chosen at
 * compile time: a table for the wrong architecture would name every wait wrongly.
 */
#include "config.h"
#include "source/waits/wait_kind.h"
#include "source/proc/proc_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY(nr, name, group, fd) { nr, name, CPW_SYS_##group, fd }

static const struct cpw_syscall_info syscalls[] = {
#if defined(__x86_64__)
	ENTRY(0, "read", READ, true),
	ENTRY(1, "write", WRITE, true),
	ENTRY(7, "poll", POLL, false),
	ENTRY(16, "ioctl", IOCTL, true),
	ENTRY(17, "pread64", READ, true),
	ENTRY(18, "pwrite64", WRITE, true),
	ENTRY(19, "readv", READ, true),
	ENTRY(20, "writev", WRITE, true),
	ENTRY(23, "select", POLL, false),
	ENTRY(35, "nanosleep", SLEEP, false),
	ENTRY(40, "sendfile", WRITE, true),
	ENTRY(42, "connect", CONNECT, true),
	ENTRY(43, "accept", ACCEPT, true),
	ENTRY(44, "sendto", SEND, true),
	ENTRY(45, "recvfrom", RECV, true),
	ENTRY(46, "sendmsg", SEND, true),
	ENTRY(47, "recvmsg", RECV, true),
	ENTRY(61, "wait4", CHILD, false),
	ENTRY(65, "semop", LOCK, false),
	ENTRY(73, "flock", LOCK, true),
	ENTRY(74, "fsync", SYNC, true),
	ENTRY(75, "fdatasync", SYNC, true),
	ENTRY(202, "futex", LOCK, false),
	ENTRY(208, "io_getevents", AIO, false),
	ENTRY(220, "semtimedop", LOCK, false),
	ENTRY(230, "clock_nanosleep", SLEEP, false),
	ENTRY(232, "epoll_wait", EPOLL, true),
	ENTRY(247, "waitid", CHILD, false),
	ENTRY(270, "pselect6", POLL, false),
	ENTRY(271, "ppoll", POLL, false),
	ENTRY(275, "splice", READ, true),
	ENTRY(277, "sync_file_range", SYNC, true),
	ENTRY(281, "epoll_pwait", EPOLL, true),
	ENTRY(288, "accept4", ACCEPT, true),
	ENTRY(295, "preadv", READ, true),
	ENTRY(296, "pwritev", WRITE, true),
	ENTRY(299, "recvmmsg", RECV, true),
	ENTRY(307, "sendmmsg", SEND, true),
	ENTRY(327, "preadv2", READ, true),
	ENTRY(328, "pwritev2", WRITE, true),
	ENTRY(441, "epoll_pwait2", EPOLL, true),
	ENTRY(449, "futex_waitv", LOCK, false),
#elif defined(__aarch64__)
	/* The generic table (include/uapi/asm-generic/unistd.h): no poll, select or
	 * epoll_wait, only their p-variants. */
	ENTRY(4, "io_getevents", AIO, false),
	ENTRY(22, "epoll_pwait", EPOLL, true),
	ENTRY(29, "ioctl", IOCTL, true),
	ENTRY(32, "flock", LOCK, true),
	ENTRY(63, "read", READ, true),
	ENTRY(64, "write", WRITE, true),
	ENTRY(65, "readv", READ, true),
	ENTRY(66, "writev", WRITE, true),
	ENTRY(67, "pread64", READ, true),
	ENTRY(68, "pwrite64", WRITE, true),
	ENTRY(69, "preadv", READ, true),
	ENTRY(70, "pwritev", WRITE, true),
	ENTRY(71, "sendfile", WRITE, true),
	ENTRY(72, "pselect6", POLL, false),
	ENTRY(73, "ppoll", POLL, false),
	ENTRY(76, "splice", READ, true),
	ENTRY(82, "fsync", SYNC, true),
	ENTRY(83, "fdatasync", SYNC, true),
	ENTRY(84, "sync_file_range", SYNC, true),
	ENTRY(95, "waitid", CHILD, false),
	ENTRY(98, "futex", LOCK, false),
	ENTRY(101, "nanosleep", SLEEP, false),
	ENTRY(115, "clock_nanosleep", SLEEP, false),
	ENTRY(192, "semtimedop", LOCK, false),
	ENTRY(193, "semop", LOCK, false),
	ENTRY(202, "accept", ACCEPT, true),
	ENTRY(203, "connect", CONNECT, true),
	ENTRY(206, "sendto", SEND, true),
	ENTRY(207, "recvfrom", RECV, true),
	ENTRY(211, "sendmsg", SEND, true),
	ENTRY(212, "recvmsg", RECV, true),
	ENTRY(242, "accept4", ACCEPT, true),
	ENTRY(243, "recvmmsg", RECV, true),
	ENTRY(260, "wait4", CHILD, false),
	ENTRY(269, "sendmmsg", SEND, true),
	ENTRY(286, "preadv2", READ, true),
	ENTRY(287, "pwritev2", WRITE, true),
	ENTRY(441, "epoll_pwait2", EPOLL, true),
	ENTRY(449, "futex_waitv", LOCK, false),
#endif
	{ -1, NULL, CPW_SYS_UNLISTED, false }
};

const struct cpw_syscall_info *cpw_wait_kind_syscall_lookup(long nr)
{
	for (const struct cpw_syscall_info *s = syscalls; s->name; s++)
		if (s->nr == nr)
			return s;
	return NULL;
}

const struct cpw_syscall_info *cpw_wait_kind_syscall_by_name(const char *name)
{
	for (const struct cpw_syscall_info *s = syscalls; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static const char *const kind_names[CPW_WAIT_KIND_COUNT] = {
	"network", "pipe", "lock", "timer", "child", "event-loop", "terminal", "disk", "page-in", "other", "gpu",
};

const char *cpw_wait_kind_name(enum cpw_wait_kind kind)
{
	return (unsigned)kind < CPW_WAIT_KIND_COUNT ? kind_names[kind] : "other";
}

int cpw_wait_kind_from_name(const char *name)
{
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

enum cpw_fd_type cpw_wait_kind_fd_link_type(const char *link, unsigned long *inode)
{
	*inode = 0;
	if (strncmp(link, "socket:[", 8) == 0 || strncmp(link, "pipe:[", 6) == 0) {
		const char *num = strchr(link, '[') + 1;
		char *end;
		if (*num < '0' || *num > '9') /* strtoul would take a sign or blanks */
			return CPW_FD_UNKNOWN;
		errno = 0;
		unsigned long ino = strtoul(num, &end, 10);
		if (*end != ']' || errno)
			return CPW_FD_UNKNOWN;
		*inode = ino;
		return link[0] == 's' ? CPW_FD_SOCKET : CPW_FD_PIPE;
	}
	if (strncmp(link, "/dev/nvidia", 11) == 0 || strncmp(link, "/dev/dri/", 9) == 0 ||
	    strcmp(link, "/dev/kfd") == 0)
		return CPW_FD_GPU;
	if (strcmp(link, "anon_inode:[timerfd]") == 0)
		return CPW_FD_TIMER;
	if (strncmp(link, "anon_inode:", 11) == 0)
		return CPW_FD_ANON;
	if (strncmp(link, "/dev/pts/", 9) == 0 || strncmp(link, "/dev/tty", 8) == 0 ||
	    strcmp(link, "/dev/console") == 0)
		return CPW_FD_TTY;
	if (link[0] == '/')
		return CPW_FD_FILE;
	return CPW_FD_UNKNOWN;
}

bool cpw_wait_kind_driver_thread(const char *thread_comm)
{
	size_t hex = 0;

	if (strncmp(thread_comm, "cuda", 4) != 0)
		return false;
	if (strncmp(thread_comm + 4, "-EvtHandlr", 10) == 0)
		return true;
	while (isxdigit((unsigned char)thread_comm[4 + hex]))
		hex++;
	return hex >= 8 && thread_comm[4 + hex] == '\0';
}

struct wchan_rule {
	const char *part;
	enum cpw_wait_kind kind;
};

/* Wait channels, matched as substrings in this order (the first match names the kind). */
static const struct wchan_rule wchan_rules[] = {
	{ "fault", CPW_WAIT_PAGE_IN },
	{ "swap_readpage", CPW_WAIT_PAGE_IN },
	{ "pipe_", CPW_WAIT_PIPE },
	{ "sk_wait", CPW_WAIT_NETWORK },
	{ "inet_csk_accept", CPW_WAIT_NETWORK },
	{ "inet_wait_for_connect", CPW_WAIT_NETWORK },
	{ "tcp_", CPW_WAIT_NETWORK },
	{ "udp_", CPW_WAIT_NETWORK },
	{ "unix_stream", CPW_WAIT_NETWORK },
	{ "unix_dgram", CPW_WAIT_NETWORK },
	{ "unix_wait", CPW_WAIT_NETWORK },
	{ "sock_", CPW_WAIT_NETWORK },
	{ "futex", CPW_WAIT_LOCK },
	{ "mutex", CPW_WAIT_LOCK },
	{ "rwsem", CPW_WAIT_LOCK },
	{ "locks_", CPW_WAIT_LOCK },
	{ "flock", CPW_WAIT_LOCK },
	{ "semtimedop", CPW_WAIT_LOCK },
	{ "nanosleep", CPW_WAIT_TIMER },
	{ "do_wait", CPW_WAIT_CHILD },
	{ "ep_poll", CPW_WAIT_EVENT_LOOP },
	{ "epoll_wait", CPW_WAIT_EVENT_LOOP },
	{ "do_select", CPW_WAIT_EVENT_LOOP },
	{ "sys_poll", CPW_WAIT_EVENT_LOOP },
	{ "poll_schedule", CPW_WAIT_EVENT_LOOP },
	{ "n_tty", CPW_WAIT_TERMINAL },
	{ "tty_", CPW_WAIT_TERMINAL },
	{ NULL, CPW_WAIT_OTHER }
};

static enum cpw_wait_kind by_wchan(char state, const char *wchan)
{
	bool known = wchan && wchan[0] && strcmp(wchan, "0") != 0;

	for (const struct wchan_rule *r = wchan_rules; known && r->part; r++)
		if (strstr(wchan, r->part))
			return r->kind;
	if (state == 'D' && cpw_proc_parse_wchan_is_storage(wchan))
		return CPW_WAIT_DISK;
	return CPW_WAIT_OTHER;
}

/* read and write: the fd says what is waited on. */
static enum cpw_wait_kind by_fd(char state, const char *wchan, enum cpw_fd_type fd)
{
	switch (fd) {
	case CPW_FD_SOCKET:
		return CPW_WAIT_NETWORK;
	case CPW_FD_PIPE:
		return CPW_WAIT_PIPE;
	case CPW_FD_TTY:
		return CPW_WAIT_TERMINAL;
	case CPW_FD_FILE:
		/* A regular file's IO blocks in D; a path slept on in S is a FIFO, a device or
		 * FUSE: the wait channel tells (pipe_read, ...). */
		if (state == 'D')
			return CPW_WAIT_DISK;
		break;
	case CPW_FD_TIMER:
		return CPW_WAIT_TIMER;
	case CPW_FD_ANON: /* eventfd, signalfd and the like: an event loop's */
		return CPW_WAIT_EVENT_LOOP;
	case CPW_FD_GPU: /* a read or poll on a GPU driver's device: its events */
		return CPW_WAIT_GPU;
	case CPW_FD_UNKNOWN:
		break;
	}
	return by_wchan(state, wchan);
}

enum cpw_wait_kind cpw_wait_kind_classify(char state, const char *wchan, long nr, enum cpw_fd_type fd)
{
	if (state != 'S' && state != 'D')
		return CPW_WAIT_OTHER;
	/* Blocked in D outside any system call: a page fault waiting for its page. */
	if (state == 'D' && nr == CPW_SYSCALL_NONE)
		return CPW_WAIT_PAGE_IN;
	const struct cpw_syscall_info *s = nr >= 0 ? cpw_wait_kind_syscall_lookup(nr) : NULL;
	switch (s ? s->group : CPW_SYS_UNLISTED) {
	case CPW_SYS_READ:
	case CPW_SYS_WRITE:
		return by_fd(state, wchan, fd);
	case CPW_SYS_RECV:
	case CPW_SYS_SEND:
	case CPW_SYS_CONNECT:
	case CPW_SYS_ACCEPT:
		return CPW_WAIT_NETWORK;
	case CPW_SYS_LOCK:
		return CPW_WAIT_LOCK;
	case CPW_SYS_SLEEP:
		return CPW_WAIT_TIMER;
	case CPW_SYS_CHILD:
		return CPW_WAIT_CHILD;
	case CPW_SYS_POLL:
		/* On a few descriptors, read by the probe: a wait on them (a socket read
		 * with a timeout); on many, or unread, an event loop. */
		return fd == CPW_FD_UNKNOWN ? CPW_WAIT_EVENT_LOOP : by_fd(state, wchan, fd);
	case CPW_SYS_EPOLL:
		return CPW_WAIT_EVENT_LOOP;
	case CPW_SYS_SYNC:
	case CPW_SYS_AIO:
		return CPW_WAIT_DISK;
	case CPW_SYS_IOCTL: /* a GPU driver's ioctl blocks on the device (a synchronize) */
		return fd == CPW_FD_GPU ? CPW_WAIT_GPU : by_wchan(state, wchan);
	case CPW_SYS_UNLISTED:
		break;
	}
	return by_wchan(state, wchan);
}
