/*
 * wait_parse.h: pure parsers for what the wait probe reads (wait_parse.c):
 * /proc/PID/task/TID/syscall, and the socket tables /proc/net/{tcp,tcp6,udp,udp6,unix}
 * searched by inode. They take text, never a path, so fixtures and fuzz targets feed them.
 */
#ifndef CPW_SOURCE_WAITS_WAIT_PARSE_H
#define CPW_SOURCE_WAITS_WAIT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One syscall file: "nr a1 a2 a3 a4 a5 a6 sp pc" in a call, "-1 sp pc" blocked outside
 * one (nr = -1, no arguments), "running" on a CPU. */
struct cpw_syscall_fields {
	bool running;
	long nr;          /* -1 outside a call; meaningless when running */
	uint64_t args[6]; /* 0 where absent */
	int nargs;        /* 6 in a call, 0 otherwise */
	uint64_t sp, pc;  /* the user stack pointer and instruction pointer; 0 when running */
};
int cpw_wait_parse_syscall(const char *buf, size_t len, struct cpw_syscall_fields *out);

/* Whether the len bytes of a thread's stack read from its stack pointer hold, in an aligned
 * 64-bit word, an address inside [lo, hi): a return into that code (a library's text) from
 * a frame still live above the call the thread sleeps in. Pure. */
bool cpw_wait_parse_stack_has_return(const void *stack, size_t len, uint64_t lo, uint64_t hi);

/* The descriptors a poll, ppoll, select or pselect6 waits on, from the call's arguments
 * (the syscall file) and the memory they point to (read by the probe). */
enum cpw_poll_style { CPW_POLL_POLLFD, CPW_POLL_FDSET };

#define CPW_FDSET_MAX_BYTES 1024 /* 8192 fds: a larger select is an event loop, unread */

struct cpw_poll_call {
	enum cpw_poll_style style;
	uint64_t addr[3]; /* poll: the pollfd array; select: read, write, except sets (0: none) */
	size_t len;       /* bytes to read at each nonzero addr */
	uint64_t nfds;    /* poll: entries; select: the highest fd + 1 */
};

/* The memory to read for a call named name ("poll", "ppoll", "select", "pselect6") with
 * arguments f. Returns 0, -ENOENT for another call, -E2BIG when the call waits on more
 * than max_fds descriptors for sure (poll's count; select's highest fd past
 * CPW_FDSET_MAX_BYTES) and len is left 0, -EINVAL when the arguments are not a call's. */
int cpw_wait_parse_poll_call_from_args(const char *name, const struct cpw_syscall_fields *f, unsigned max_fds,
			    struct cpw_poll_call *out);

struct cpw_polled_fd {
	int fd;
	bool write; /* waits to write (POLLOUT, a write set) rather than read */
};

/* The descriptors of a struct pollfd array of len bytes (native layout: int fd, short
 * events, short revents), negative fds skipped as poll skips them, each fd once. Up to max
 * are written to fds; returns how many there are in all (more than max when cut). */
size_t cpw_wait_parse_pollfds(const void *buf, size_t len, struct cpw_polled_fd *fds, size_t max);

/* The descriptors set in select's bitmaps (each len bytes of native unsigned longs, NULL
 * when the call passed none) below nfds, each fd once; as cpw_wait_parse_pollfds. */
size_t cpw_wait_parse_fdsets(const void *readfds, const void *writefds, const void *exceptfds, size_t len,
			uint64_t nfds, struct cpw_polled_fd *fds, size_t max);

/* The "flags:" line of /proc/PID/fdinfo/N (octal open flags) into *flags: 0, or -EINVAL. */
int cpw_wait_parse_fdinfo_flags(const char *buf, size_t len, unsigned *flags);

enum cpw_net_proto { CPW_NET_TCP, CPW_NET_TCP6, CPW_NET_UDP, CPW_NET_UDP6, CPW_NET_UNIX, CPW_NET_PROTO_COUNT };

/* The file name under /proc/net of each table: "tcp", "tcp6", "udp", "udp6", "unix". */
const char *cpw_wait_parse_net_table_name(enum cpw_net_proto proto);

struct cpw_net_entry {
	enum cpw_net_proto proto;
	unsigned long inode;
	int state;          /* TCP state (1 established, 10 listen); unix: the St column */
	char local[64];     /* "127.0.0.1:8080", "[::1]:8080"; unix: "" */
	char peer[64];      /* "" when not connected (0.0.0.0:0) */
	char path[108];     /* unix: the bound path, raw (may hold anything); "" if none */
};

/* Finds the line of inode in the text of one table (header line included). Returns 0
 * and fills *out, -ENOENT when no line has it, -EINVAL when a line holding it is broken. */
int cpw_wait_parse_net_find_inode(const char *text, size_t len, enum cpw_net_proto proto, unsigned long inode,
		       struct cpw_net_entry *out);

/* The entry as a wait target: "TCP 127.0.0.1:8080" (the peer of a connected socket),
 * "TCP listening on 0.0.0.0:8080", "UDP 0.0.0.0:53 (local)", "unix /run/x.sock",
 * "unix socket (unnamed)". Raw: unix paths may hold anything; escape to print. */
void cpw_wait_parse_net_target(const struct cpw_net_entry *e, char *out, size_t outlen);

#endif
