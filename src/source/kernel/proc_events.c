/*
 * proc_events.c: the process events connector: subscribe, read each exec's arguments in a
 * thread of its own, keep them in a bounded ring for the session's lookups. Parsing the
 * datagrams is proc_events_parse.c's job. See proc_events.h.
 */
#include "config.h"
#include "source/kernel/proc_events.h"
#include "source/proc/proc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUCKETS (2 * CPW_PROC_EVENTS_RING) /* a power of two */
#define BATCH 16                           /* events parsed from one datagram */
#define ARENA (128u << 10)                 /* bytes of arguments kept: a power of two */

struct exec_entry {
	uint64_t seq;      /* its place in the order of execs, from 1; 0: empty */
	uint64_t prev_seq; /* the one before it in its bucket (stale once overwritten) */
	uint64_t exec_ns;
	uint64_t args_at;  /* where its arguments begin in the arena's stream of bytes */
	pid_t pid;
	uint16_t args_len; /* without a NUL */
};

struct cpw_proc_events {
	int fd;
	int stop_pipe[2];
	pthread_t thread;
	bool started;
	char proc_root[4096];
	pthread_mutex_t lock; /* guards what follows */
	struct exec_entry *ring; /* NULL until the first exec */
	/* The arguments, one after another as they come (most are far shorter than the
	 * bound): room for the bound in each of the ring's entries would be 512 KiB, touched in
	 * full by a busy machine's execs. */
	char *arena;
	uint64_t arena_end;      /* bytes written since the open; arena_end % ARENA is next */
	uint64_t heads[BUCKETS]; /* the newest entry's seq per bucket of pids */
	uint64_t next_seq;
	atomic_uint_fast64_t lost; /* the thread adds, the session reads */
};

/* Kernels since 6.6 take a filter with the subscription: only execs wake the thread. */
struct listen_filtered {
	uint32_t mcast_op;   /* enum proc_cn_mcast_op */
	uint32_t event_type; /* the events wanted, PROC_EVENT_* bits */
};

static unsigned bucket_of(pid_t pid)
{
	return (unsigned)pid & (BUCKETS - 1);
}

static void insert(struct cpw_proc_events *pe, pid_t pid, uint64_t exec_ns, const char *args)
{
	size_t len = strnlen(args, CPW_PROC_EVENTS_ARGS_MAX - 1);
	pthread_mutex_lock(&pe->lock);
	/* Made at the first exec, by this thread: none of it on the watch's start. */
	if (!pe->ring) {
		pe->ring = calloc(CPW_PROC_EVENTS_RING, sizeof *pe->ring);
		pe->arena = pe->ring ? malloc(ARENA) : NULL;
		if (!pe->arena) {
			free(pe->ring);
			pe->ring = NULL;
			pthread_mutex_unlock(&pe->lock);
			return; /* out of memory: this exec's arguments are not kept */
		}
	}
	uint64_t seq = pe->next_seq++;
	struct exec_entry *e = &pe->ring[seq % CPW_PROC_EVENTS_RING];
	unsigned b = bucket_of(pid);
	e->seq = seq;
	e->prev_seq = pe->heads[b];
	e->exec_ns = exec_ns;
	e->pid = pid;
	e->args_at = pe->arena_end;
	e->args_len = (uint16_t)len;
	size_t at = (size_t)(pe->arena_end % ARENA), first = len < ARENA - at ? len : ARENA - at;
	memcpy(pe->arena + at, args, first);
	memcpy(pe->arena, args + first, len - first); /* wrapped */
	pe->arena_end += len;
	pe->heads[b] = seq;
	pthread_mutex_unlock(&pe->lock);
}

/* Copies e's arguments into buf; false where the arena has written over them since. */
static bool copy_args(const struct cpw_proc_events *pe, const struct exec_entry *e, char *buf,
		      size_t len)
{
	if (pe->arena_end - e->args_at > ARENA)
		return false;
	size_t n = e->args_len < len - 1 ? e->args_len : len - 1;
	size_t at = (size_t)(e->args_at % ARENA), first = n < ARENA - at ? n : ARENA - at;
	memcpy(buf, pe->arena + at, first);
	memcpy(buf + first, pe->arena, n - first);
	buf[n] = '\0';
	return true;
}

/* Reads pid's command line now, joined by spaces; "" when gone or empty. */
static void read_args(const struct cpw_proc_events *pe, pid_t pid, char *out, size_t outlen)
{
	char path[4200], buf[CPW_PROC_EVENTS_ARGS_MAX];
	out[0] = '\0';
	snprintf(path, sizeof path, "%s/%d/cmdline", pe->proc_root, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* What is past the bytes kept is never read. */
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	if (n > 0)
		cpw_proc_parse_cmdline(buf, (size_t)n, out, outlen);
}

static void take_datagram(struct cpw_proc_events *pe, const void *buf, size_t len)
{
	struct cpw_proc_event ev[BATCH];
	int n = cpw_proc_events_parse(buf, len, ev, BATCH);
	for (int i = 0; i < n; i++) {
		if (ev[i].kind != CPW_PROC_EVENT_EXEC || ev[i].tgid <= 0)
			continue;
		char args[CPW_PROC_EVENTS_ARGS_MAX];
		read_args(pe, ev[i].tgid, args, sizeof args);
		if (args[0])
			insert(pe, ev[i].tgid, ev[i].timestamp_ns, args);
	}
}

static void *reader(void *arg)
{
	struct cpw_proc_events *pe = arg;
	/* A datagram is one event (~60 bytes); room for a few. */
	char buf[4096] __attribute__((aligned(8)));
	struct pollfd fds[2] = { { .fd = pe->fd, .events = POLLIN },
				 { .fd = pe->stop_pipe[0], .events = POLLIN } };
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents)
			break;
		for (;;) {
			ssize_t n = recv(pe->fd, buf, sizeof buf, MSG_DONTWAIT);
			if (n > 0) {
				take_datagram(pe, buf, (size_t)n);
				continue;
			}
			if (n < 0 && errno == ENOBUFS) {
				atomic_fetch_add(&pe->lost, 1);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			break; /* EAGAIN, or an error poll reports again */
		}
	}
	return NULL;
}

/* Sends a (un)subscribe message of dlen bytes with the given ack number. */
static int send_op(int fd, const void *data, size_t dlen, uint32_t ack)
{
	char msg[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(struct listen_filtered))]
		__attribute__((aligned(8)));
	memset(msg, 0, sizeof msg);
	struct nlmsghdr *nh = (struct nlmsghdr *)msg;
	nh->nlmsg_len = (uint32_t)NLMSG_LENGTH(sizeof(struct cn_msg) + dlen);
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = 0;
	struct cn_msg *cn = NLMSG_DATA(nh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = ack;
	cn->ack = ack;
	cn->len = (uint16_t)dlen;
	memcpy(cn->data, data, dlen);
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	if (sendto(fd, msg, nh->nlmsg_len, 0, (struct sockaddr *)&to, sizeof to) < 0)
		return -errno;
	return 0;
}

/* The kernel answers a subscription at once (the connector runs it in our send): looks
 * among what is queued for the ACK of ack. Returns its error (0 accepted), or 1 when none
 * came (a kernel that ignores us: outside the initial namespaces). */
static int ack_of(int fd, uint32_t ack)
{
	char buf[4096] __attribute__((aligned(8)));
	struct cpw_proc_event ev[BATCH];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)
			continue;
		if (n <= 0)
			return 1;
		int got = cpw_proc_events_parse(buf, (size_t)n, ev, BATCH);
		for (int i = 0; i < got; i++)
			if (ev[i].kind == CPW_PROC_EVENT_ACK && ev[i].ack == ack + 1)
				return -(int)ev[i].code;
	}
}

static int subscribe(int fd, char *why, size_t whylen)
{
	uint32_t op = PROC_CN_MCAST_LISTEN;
	int err = send_op(fd, &op, sizeof op, 1);
	if (err == 0)
		err = ack_of(fd, 1);
	if (err == 1) {
		snprintf(why, whylen, "the process events connector does not answer (outside the "
			 "initial pid namespace?)");
		return -ENOTSUP;
	}
	if (err < 0) {
		snprintf(why, whylen, "cannot listen to process events: %s%s", strerror(-err),
			 err == -EPERM ? " (needs root: CAP_NET_ADMIN)" : "");
		return err;
	}
	/* Since 6.6 the kernel takes a filter: only execs wake the thread. Its answer would be
	 * filtered out (an ACK is no exec), and older kernels ignore the longer form. */
	struct listen_filtered f = { PROC_CN_MCAST_LISTEN, PROC_EVENT_EXEC };
	send_op(fd, &f, sizeof f, 3);
	return 0;
}

static int open_socket(char *why, size_t whylen)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0) {
		int err = errno;
		snprintf(why, whylen, "cannot open a connector netlink socket: %s%s", strerror(err),
			 err == EPROTONOSUPPORT ? " (a kernel without CONFIG_CONNECTOR)" : "");
		return -err;
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int err = errno;
		snprintf(why, whylen, "cannot join the process events group: %s%s", strerror(err),
			 err == EPERM ? " (needs root: CAP_NET_ADMIN)" : "");
		close(fd);
		return -err;
	}
	/* A burst of execs (make -j) while the thread waits for a CPU: 1 MiB, and root may
	 * exceed rmem_max. */
	int size = 1 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	return fd;
}

int cpw_proc_events_open(struct cpw_proc_events **out, const char *proc_root, char *why,
			 size_t whylen)
{
	*out = NULL;
	struct cpw_proc_events *pe = calloc(1, sizeof *pe);
	if (!pe) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	pe->next_seq = 1;
	atomic_init(&pe->lost, 0);
	pe->stop_pipe[0] = pe->stop_pipe[1] = -1;
	snprintf(pe->proc_root, sizeof pe->proc_root, "%s", proc_root);
	pthread_mutex_init(&pe->lock, NULL);
	pe->fd = open_socket(why, whylen);
	int err = pe->fd < 0 ? pe->fd : subscribe(pe->fd, why, whylen);
	if (err == 0 && pipe2(pe->stop_pipe, O_CLOEXEC) < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot make a pipe: %s", strerror(-err));
	}
	if (err < 0) {
		cpw_proc_events_close(pe);
		return err;
	}
	*out = pe;
	return 0;
}

void cpw_proc_events_start(struct cpw_proc_events *pe)
{
	if (!pe || pe->started)
		return;
	/* The thread takes no signal: the main thread's handling stays as it is. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pe->started = pthread_create(&pe->thread, NULL, reader, pe) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Where it could not start, execs are not read: lookups find nothing. */
}

bool cpw_proc_events_args(struct cpw_proc_events *pe, pid_t pid, uint64_t after_ns,
			  uint64_t before_ns, char *buf, size_t len, uint64_t *exec_ns)
{
	bool found = false;
	if (!pe || len == 0)
		return false;
	pthread_mutex_lock(&pe->lock);
	uint64_t seq = pe->ring ? pe->heads[bucket_of(pid)] : 0;
	/* Newest first; an overwritten slot ends the chain (all before it are older). */
	while (seq && pe->ring[seq % CPW_PROC_EVENTS_RING].seq == seq) {
		const struct exec_entry *e = &pe->ring[seq % CPW_PROC_EVENTS_RING];
		seq = e->prev_seq;
		if (e->pid != pid || e->exec_ns > before_ns)
			continue;
		if (e->exec_ns >= after_ns && copy_args(pe, e, buf, len)) {
			if (exec_ns)
				*exec_ns = e->exec_ns;
			found = true;
		}
		break; /* its last exec before the window's end: in it, or the pid's earlier holder */
	}
	pthread_mutex_unlock(&pe->lock);
	return found;
}

uint64_t cpw_proc_events_lost(const struct cpw_proc_events *pe)
{
	return pe ? (uint64_t)atomic_load(&pe->lost) : 0;
}

void cpw_proc_events_close(struct cpw_proc_events *pe)
{
	if (!pe)
		return;
	if (pe->started) {
		char c = 0;
		ssize_t w;
		do
			w = write(pe->stop_pipe[1], &c, 1);
		while (w < 0 && errno == EINTR);
		pthread_join(pe->thread, NULL);
	}
	if (pe->fd >= 0) {
		uint32_t op = PROC_CN_MCAST_IGNORE;
		send_op(pe->fd, &op, sizeof op, 5);
		close(pe->fd);
	}
	if (pe->stop_pipe[0] >= 0)
		close(pe->stop_pipe[0]);
	if (pe->stop_pipe[1] >= 0)
		close(pe->stop_pipe[1]);
	pthread_mutex_destroy(&pe->lock);
	free(pe->ring);
	free(pe->arena);
	free(pe);
}
