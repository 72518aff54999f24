/*
 * wait_probe.c: the wait probe: what one thread off the CPU waits on (see wait_probe.h).
 *
 * Per thread: the syscall file (one read); the wchan only where the call leaves the kind
 * open; then, where the call has an fd argument, the fd's link and what it names. Every
 * read past the first two is paid from the sample's budget. The socket tables are read
 * lazily, once per sample, as many as a lookup needs (tcp first, unix last), from
 * /proc/PID/net of the process that waits: its own network namespace's (a process in a
 * container, watched from the host), read again only for a process in another one. Targets are
 * cached by (pid, fd, inode): a thread blocked on the same socket sample after sample
 * costs one readlink for it. A pipe whose other end is in no process of the tree is
 * cached too, until the tree changes: searching every process's fds again each sample
 * would spend the budget on an answer that cannot differ.
 *
 * A pipe the waiting process holds both ends of is a queue (multiprocessing's Queue,
 * SimpleQueue, Pipe: workers feed it, and so may the waiter): named "pipe queue", with no
 * feeder, since its writers work for the waiter rather than ahead of it in a pipeline.
 *
 * A poll or select names what it waits on where that is a few descriptors (at most
 * CPW_WAIT_POLL_FEW_FDS): its pollfd array or fd_set bitmaps are copied from the process's
 * memory (process_vm_readv: one call, one read of the budget; refused without ptrace
 * rights, then it stays an event loop and the stats count it), each descriptor's link read,
 * and the most telling one (a socket, then a pipe, a terminal, a file, a timer) is resolved
 * as a read on it would be. On more descriptors it is an event loop: "poll on 20 fds".
 */
#include "config.h"
#include "source/waits/wait_probe.h"
#include "source/waits/wait_parse.h"
#include "source/kernel/kfile.h"
#include "source/proc/proc_parse.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CACHE_SLOTS 256

struct cached_target {
	pid_t pid;
	int fd;
	unsigned long inode; /* 0: free slot */
	pid_t peer_pid;      /* 0 for a pipe: no process of the tree holds its other end */
	bool queue;          /* a pipe the process holds both ends of */
	bool named;          /* ... and another process of the tree holds it too */
	uint64_t tree_gen;   /* the tree that was searched, for a pipe without a peer */
	char target[CPW_WAIT_TARGET_LEN];
};

struct cpw_wait_probe {
	char proc_root[256];
	unsigned budget_left;
	bool over_budget_this_sample;
	char *net_text[CPW_NET_PROTO_COUNT]; /* this sample's tables; NULL until needed */
	ssize_t net_len[CPW_NET_PROTO_COUNT];
	pid_t net_pid;                       /* whose /proc/PID/net they come from; 0: none yet */
	unsigned long net_ns;                /* its network namespace (ns/net's inode); 0: unknown */
	pid_t *tree;
	size_t ntree, tree_alloc;
	uint64_t tree_gen;                   /* bumped whenever the tree's pids change */
	struct cached_target cache[CACHE_SLOTS];
	struct cpw_wait_probe_stats stats;
	uint64_t seq;                        /* probes made */
	bool pipe_open;                      /* this probe's pipe has no known other end yet */
	cpw_wait_mem_reader read_mem;
	void *read_mem_ctx;
	cpw_wait_file_reader read_syscall; /* NULL: by path */
	void *read_syscall_ctx;
	unsigned char poll_mem[3][CPW_FDSET_MAX_BYTES]; /* a poll's array, a select's sets */
};

/* The default reader: the process's memory, only under the system's own /proc. */
static long vm_read(void *ctx, pid_t pid, const struct iovec *local, const struct iovec *remote, unsigned long n)
{
	const struct cpw_wait_probe *wp = ctx;
	if (strcmp(wp->proc_root, "/proc") != 0)
		return -ENOSYS;
	ssize_t got = process_vm_readv(pid, local, n, remote, n, 0);
	return got < 0 ? -errno : got;
}

void cpw_wait_probe_set_mem_reader(struct cpw_wait_probe *wp, cpw_wait_mem_reader read, void *ctx)
{
	wp->read_mem = read ? read : vm_read;
	wp->read_mem_ctx = read ? ctx : wp;
}

void cpw_wait_probe_set_syscall_reader(struct cpw_wait_probe *wp, cpw_wait_file_reader read, void *ctx)
{
	wp->read_syscall = read;
	wp->read_syscall_ctx = ctx;
}

static long read_syscall_file(const struct cpw_wait_probe *wp, pid_t pid, pid_t tid, const char *path, char *buf,
			      size_t size)
{
	return wp->read_syscall ? wp->read_syscall(wp->read_syscall_ctx, pid, tid, path, buf, size)
				: cpw_proc_parse_read_file(path, buf, size);
}

struct cpw_wait_probe *cpw_wait_probe_new(const char *proc_root, unsigned budget)
{
	struct cpw_wait_probe *wp = calloc(1, sizeof(*wp));
	if (!wp)
		return NULL;
	snprintf(wp->proc_root, sizeof(wp->proc_root), "%s", proc_root);
	wp->stats.budget = budget ? budget : CPW_WAIT_BUDGET_DEFAULT;
	wp->budget_left = wp->stats.budget;
	cpw_wait_probe_set_mem_reader(wp, NULL, NULL);
	return wp;
}

static void drop_tables(struct cpw_wait_probe *wp)
{
	for (int i = 0; i < CPW_NET_PROTO_COUNT; i++) {
		free(wp->net_text[i]);
		wp->net_text[i] = NULL;
		wp->net_len[i] = 0;
	}
	wp->net_pid = 0;
	wp->net_ns = 0;
}

void cpw_wait_probe_free(struct cpw_wait_probe *wp)
{
	if (!wp)
		return;
	drop_tables(wp);
	free(wp->tree);
	free(wp);
}

void cpw_wait_probe_begin_sample(struct cpw_wait_probe *wp, const pid_t *tree_pids, size_t npids)
{
	drop_tables(wp);
	wp->budget_left = wp->stats.budget;
	wp->over_budget_this_sample = false;
	if (npids == wp->ntree && (npids == 0 || memcmp(wp->tree, tree_pids, npids * sizeof(*tree_pids)) == 0))
		return; /* the same tree: its pipe searches still hold */
	wp->tree_gen++;
	if (npids > wp->tree_alloc) {
		pid_t *t = realloc(wp->tree, npids * sizeof(*t));
		if (!t) {
			wp->ntree = 0;
			return;
		}
		wp->tree = t;
		wp->tree_alloc = npids;
	}
	if (npids)
		memcpy(wp->tree, tree_pids, npids * sizeof(*tree_pids));
	wp->ntree = npids;
}

void cpw_wait_probe_add_process(struct cpw_wait_probe *wp, pid_t pid)
{
	for (size_t i = 0; i < wp->ntree; i++)
		if (wp->tree[i] == pid)
			return;
	if (wp->ntree == wp->tree_alloc) {
		size_t n = wp->tree_alloc ? 2 * wp->tree_alloc : 16;
		pid_t *t = realloc(wp->tree, n * sizeof(*t));
		if (!t)
			return;
		wp->tree = t;
		wp->tree_alloc = n;
	}
	wp->tree[wp->ntree++] = pid;
	wp->tree_gen++; /* a pipe without a known other end may have one now */
}

const struct cpw_wait_probe_stats *cpw_wait_probe_stats(const struct cpw_wait_probe *wp)
{
	return &wp->stats;
}

/* Takes one read from the budget; false (and counted) when it is spent. */
static bool spend(struct cpw_wait_probe *wp)
{
	if (wp->budget_left == 0) {
		if (!wp->over_budget_this_sample)
			wp->stats.samples_over_budget++;
		wp->over_budget_this_sample = true;
		return false;
	}
	wp->budget_left--;
	wp->stats.reads++;
	return true;
}

static struct cached_target *cache_slot(struct cpw_wait_probe *wp, pid_t pid, int fd, unsigned long inode)
{
	size_t h = ((size_t)pid * 31u + (size_t)fd * 7u + inode) % CACHE_SLOTS;
	return &wp->cache[h];
}

/* readlink of /proc/PID/fd/N into link (NUL-terminated); length or -errno. */
static ssize_t read_fd_link(const struct cpw_wait_probe *wp, pid_t pid, int fd, char *link, size_t size)
{
	char path[320];
	if (cpw_kfile_pathf(path, sizeof(path), "%s/%d/fd/%d", wp->proc_root, (int)pid, fd) < 0)
		return -ENAMETOOLONG;
	ssize_t n = readlink(path, link, size - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	return n;
}

/* The tables to use for pid's sockets: those read this sample where they are of its
 * network namespace (or it cannot be told), else none yet (read for it). */
static bool tables_for(struct cpw_wait_probe *wp, pid_t pid)
{
	char path[320];
	struct stat st;

	if (wp->net_pid == pid)
		return true;
	if (!spend(wp))
		return false;
	snprintf(path, sizeof(path), "%s/%d/ns/net", wp->proc_root, (int)pid);
	unsigned long ns = stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
	if (wp->net_pid && (!ns || !wp->net_ns || ns == wp->net_ns))
		return true; /* the same namespace, or no telling: the tables hold */
	if (wp->net_pid)
		drop_tables(wp);
	wp->net_pid = pid;
	wp->net_ns = ns;
	return true;
}

/* Reads one table of the process's namespace: /proc/PID/net/NAME, else /proc/net/NAME
 * (a kernel or a tree without the first). */
static ssize_t read_table(const struct cpw_wait_probe *wp, int proto, char **text)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/%d/net/%s", wp->proc_root, (int)wp->net_pid, cpw_wait_parse_net_table_name(proto));
	ssize_t len = cpw_kfile_read_alloc(path, text);
	if (len != -ENOENT)
		return len;
	snprintf(path, sizeof(path), "%s/net/%s", wp->proc_root, cpw_wait_parse_net_table_name(proto));
	return cpw_kfile_read_alloc(path, text);
}

/* Finds a socket inode in the tables of pid's network namespace, reading each (once per
 * sample and namespace) only when needed. */
static void resolve_socket(struct cpw_wait_probe *wp, pid_t pid, unsigned long inode, struct cpw_wait *out)
{
	if (!tables_for(wp, pid)) {
		out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
		snprintf(out->target, sizeof(out->target), "socket:[%lu]", inode);
		return;
	}
	for (int proto = 0; proto < CPW_NET_PROTO_COUNT; proto++) {
		if (!wp->net_text[proto] && wp->net_len[proto] == 0) {
			if (!spend(wp)) {
				out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
				snprintf(out->target, sizeof(out->target), "socket:[%lu]", inode);
				return;
			}
			wp->net_len[proto] = read_table(wp, proto, &wp->net_text[proto]);
			if (wp->net_len[proto] == 0)
				wp->net_len[proto] = -ENOENT; /* empty: read, nothing in it */
		}
		if (wp->net_len[proto] <= 0)
			continue;
		struct cpw_net_entry e;
		if (cpw_wait_parse_net_find_inode(wp->net_text[proto], (size_t)wp->net_len[proto], proto, inode, &e) == 0) {
			cpw_wait_parse_net_target(&e, out->target, sizeof(out->target));
			return;
		}
	}
	/* Closed between the fd link and the tables, or a kind of socket the tables do not
	 * hold (netlink, packet, vsock). */
	snprintf(out->target, sizeof(out->target), "socket:[%lu] (not in /proc/net)", inode);
}

/* Whether pid holds the other end of pipe:[inode] (which it has as fd, reading or
 * writing) on another descriptor: a write end where it reads, a read end where it writes. */
static bool holds_other_end(struct cpw_wait_probe *wp, pid_t pid, int fd, unsigned long inode, bool reading)
{
	char want[48], link[128], path[320], info[512];
	bool found = false;

	snprintf(want, sizeof(want), "pipe:[%lu]", inode);
	if (!spend(wp))
		return false;
	snprintf(path, sizeof(path), "%s/%d/fd", wp->proc_root, (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return false;
	for (struct dirent *de; !found && (de = readdir(dir));) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || atoi(de->d_name) == fd)
			continue;
		int other = atoi(de->d_name);
		if (!spend(wp))
			break;
		if (read_fd_link(wp, pid, other, link, sizeof(link)) <= 0 || strcmp(link, want) != 0)
			continue;
		unsigned flags;
		snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", wp->proc_root, (int)pid, other);
		long len = spend(wp) ? cpw_proc_parse_read_file(path, info, sizeof(info)) : -1;
		if (len <= 0 || cpw_wait_parse_fdinfo_flags(info, (size_t)len, &flags) < 0)
			continue;
		unsigned mode = flags & 3u; /* O_ACCMODE: 0 read, 1 write, 2 both */
		found = reading ? mode != 0 : mode != 1;
	}
	closedir(dir);
	return found;
}

/* Searches the tree's other processes for one holding pipe:[inode]. */
static void resolve_pipe(struct cpw_wait_probe *wp, pid_t pid, int fd, unsigned long inode, bool reading,
			 struct cpw_wait *out)
{
	char want[48], link[128], path[320];
	snprintf(want, sizeof(want), "pipe:[%lu]", inode);
	snprintf(out->target, sizeof(out->target), "pipe:[%lu]", inode);
	out->queue = holds_other_end(wp, pid, fd, inode, reading);
	if (out->queue)
		snprintf(out->target, sizeof(out->target), "pipe queue:[%lu]", inode);
	wp->pipe_open = !out->queue;

	for (size_t i = 0; i < wp->ntree; i++) {
		pid_t other = wp->tree[i];
		if (other == pid)
			continue;
		if (!spend(wp)) {
			out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
			return;
		}
		snprintf(path, sizeof(path), "%s/%d/fd", wp->proc_root, (int)other);
		DIR *dir = opendir(path);
		if (!dir)
			continue;
		bool found = false;
		for (struct dirent *de; !found && (de = readdir(dir));) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			if (!spend(wp)) {
				out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
				break;
			}
			found = read_fd_link(wp, other, atoi(de->d_name), link, sizeof(link)) > 0 &&
				strcmp(link, want) == 0;
		}
		closedir(dir);
		if (out->detail == CPW_WAIT_DETAIL_OVER_BUDGET)
			return;
		if (found) {
			char comm[64] = "?";
			snprintf(path, sizeof(path), "%s/%d/comm", wp->proc_root, (int)other);
			if (spend(wp) && cpw_proc_parse_read_file(path, comm, sizeof(comm)) > 0)
				comm[strcspn(comm, "\n")] = '\0';
			/* A queue's writers work for the waiter: no feeder of a pipeline. */
			out->peer_pid = out->queue ? 0 : other;
			wp->pipe_open = false;
			snprintf(out->target, sizeof(out->target), "pipe %s%s %s (pid %d)", out->queue ? "queue " : "",
				 reading ? "from" : "to", comm, (int)other);
			return;
		}
	}
}

/* epoll: how many fds the instance watches (its fdinfo has a "tfd:" line each). */
static void resolve_epoll(struct cpw_wait_probe *wp, pid_t pid, int fd, struct cpw_wait *out)
{
	char path[320], buf[4096];
	if (!spend(wp)) {
		out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
		return;
	}
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", wp->proc_root, (int)pid, fd);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	if (len <= 0)
		return;
	unsigned n = 0;
	for (const char *p = buf; (p = strstr(p, "tfd:")); p += 4)
		n++;
	/* A full buffer may hold only some of the lines. */
	snprintf(out->target, sizeof(out->target), "epoll on %s%u fd%s", (size_t)len + 1 >= sizeof(buf) ? ">= " : "",
		 n, n == 1 ? "" : "s");
}

/* The target of pid's fd, whose link (of type fdtype, inode for a socket or pipe) was read:
 * a socket's peer, a pipe's other end, else the link itself. */
static void resolve_fd(struct cpw_wait_probe *wp, pid_t pid, int fd, const char *link, enum cpw_fd_type fdtype,
		       unsigned long inode, bool reading, struct cpw_wait *out)
{
	if (fdtype != CPW_FD_SOCKET && fdtype != CPW_FD_PIPE) {
		snprintf(out->target, sizeof(out->target), "%s", link);
		return;
	}
	struct cached_target *c = cache_slot(wp, pid, fd, inode);
	if (c->inode == inode && c->pid == pid && c->fd == fd &&
	    (fdtype == CPW_FD_SOCKET || c->peer_pid || c->named || c->tree_gen == wp->tree_gen)) {
		snprintf(out->target, sizeof(out->target), "%s", c->target);
		out->peer_pid = c->peer_pid;
		out->queue = c->queue;
		wp->pipe_open = fdtype == CPW_FD_PIPE && !c->peer_pid && !c->queue;
		return;
	}
	if (fdtype == CPW_FD_SOCKET)
		resolve_socket(wp, pid, inode, out);
	else
		resolve_pipe(wp, pid, fd, inode, reading, out);
	if (out->detail == CPW_WAIT_DETAIL_OK && !strstr(out->target, "(not in /proc/net)")) {
		c->pid = pid;
		c->fd = fd;
		c->inode = inode;
		c->peer_pid = out->peer_pid;
		c->queue = out->queue;
		c->named = out->queue && strncmp(out->target, "pipe queue:[", 12) != 0;
		c->tree_gen = wp->tree_gen;
		snprintf(c->target, sizeof(c->target), "%s", out->target);
	}
}

static void resolve_target(struct cpw_wait_probe *wp, pid_t pid, const struct cpw_syscall_info *sc,
			   const struct cpw_syscall_fields *f, struct cpw_wait *out, enum cpw_fd_type *fdtype)
{
	char link[PATH_MAX];
	unsigned long inode = 0;

	if (f->args[0] > INT_MAX)
		return;
	int fd = (int)f->args[0];
	if (!spend(wp)) {
		out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
		return;
	}
	if (read_fd_link(wp, pid, fd, link, sizeof(link)) <= 0) {
		out->detail = CPW_WAIT_DETAIL_FD_UNREADABLE;
		return;
	}
	*fdtype = cpw_wait_kind_fd_link_type(link, &inode);
	if (sc->group == CPW_SYS_EPOLL) {
		resolve_epoll(wp, pid, fd, out);
		return;
	}
	resolve_fd(wp, pid, fd, link, *fdtype, inode, sc->group == CPW_SYS_READ, out);
}

/* How telling a descriptor's type is of what a poll waits for: a socket most. */
static int fd_rank(enum cpw_fd_type t)
{
	switch (t) {
	case CPW_FD_SOCKET:
		return 6;
	case CPW_FD_PIPE:
		return 5;
	case CPW_FD_TTY:
		return 4;
	case CPW_FD_FILE:
		return 3;
	case CPW_FD_TIMER:
		return 2;
	case CPW_FD_ANON:
		return 1;
	case CPW_FD_GPU: /* a GPU driver's events: its device among them names the wait */
		return 7;
	case CPW_FD_UNKNOWN:
		break;
	}
	return 0;
}

/* A poll or select: the descriptors it waits on, read from its memory; where they are few,
 * *fdtype is the most telling one's and the target is its (see the top of the file). */
static void resolve_poll(struct cpw_wait_probe *wp, pid_t pid, const struct cpw_syscall_info *sc,
			 const struct cpw_syscall_fields *f, struct cpw_wait *out, enum cpw_fd_type *fdtype)
{
	unsigned char (*sets)[CPW_FDSET_MAX_BYTES] = wp->poll_mem;
	struct cpw_poll_call call;
	struct cpw_polled_fd fds[CPW_WAIT_POLL_FEW_FDS + 1];
	struct iovec local[3], remote[3];
	unsigned long n = 0;
	const bool is_poll = sc->name[strlen(sc->name) - 1] == 'l'; /* poll, ppoll */

	int rc = cpw_wait_parse_poll_call_from_args(sc->name, f, CPW_WAIT_POLL_FEW_FDS, &call);
	if (rc == -E2BIG) {
		out->polled = call.nfds > UINT_MAX ? UINT_MAX : (unsigned)call.nfds;
		snprintf(out->target, sizeof(out->target), "%s on %s%llu fds", is_poll ? "poll" : "select",
			 is_poll ? "" : "fds up to ", (unsigned long long)call.nfds);
		return;
	}
	if (rc < 0)
		return;
	for (int i = 0; i < 3 && call.len; i++) {
		if (!call.addr[i])
			continue;
		local[n].iov_base = sets[i];
		local[n].iov_len = call.len;
		remote[n].iov_base = (void *)(uintptr_t)call.addr[i];
		remote[n].iov_len = call.len;
		n++;
	}
	if (n == 0) {
		/* No descriptor at all: select(0, NULL, NULL, NULL, &tv) is a sleep. */
		*fdtype = CPW_FD_TIMER;
		return;
	}
	if (!spend(wp)) {
		out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
		return;
	}
	long got = wp->read_mem(wp->read_mem_ctx, pid, local, remote, n);
	if (got < 0 || (unsigned long)got != n * call.len) {
		if (got == -EPERM || got == -EACCES)
			wp->stats.poll_denied++;
		return; /* unread (or changed meanwhile): an event loop, as before */
	}
	const void *set[3] = { NULL, NULL, NULL };
	for (int i = 0, j = 0; i < 3; i++)
		if (call.addr[i])
			set[i] = sets[j++];
	size_t nfds = call.style == CPW_POLL_POLLFD
			      ? cpw_wait_parse_pollfds(set[0], call.len, fds, CPW_WAIT_POLL_FEW_FDS + 1)
			      : cpw_wait_parse_fdsets(set[0], set[1], set[2], call.len, call.nfds, fds,
						 CPW_WAIT_POLL_FEW_FDS + 1);
	out->polled = nfds > UINT_MAX ? UINT_MAX : (unsigned)nfds;
	if (nfds == 0) {
		*fdtype = CPW_FD_TIMER; /* poll(NULL, 0, ms): a sleep */
		return;
	}
	if (nfds > CPW_WAIT_POLL_FEW_FDS) {
		snprintf(out->target, sizeof(out->target), "%s on %zu fds", is_poll ? "poll" : "select", nfds);
		return;
	}
	char link[PATH_MAX], best_link[PATH_MAX] = "";
	int best = -1, best_rank = -1;
	unsigned long inode = 0, best_inode = 0;
	enum cpw_fd_type best_type = CPW_FD_UNKNOWN;
	for (size_t i = 0; i < nfds; i++) {
		if (!spend(wp)) {
			out->detail = CPW_WAIT_DETAIL_OVER_BUDGET;
			return;
		}
		if (read_fd_link(wp, pid, fds[i].fd, link, sizeof(link)) <= 0)
			continue;
		enum cpw_fd_type t = cpw_wait_kind_fd_link_type(link, &inode);
		if (fd_rank(t) > best_rank) {
			best = (int)i;
			best_rank = fd_rank(t);
			best_type = t;
			best_inode = inode;
			snprintf(best_link, sizeof(best_link), "%s", link);
		}
	}
	if (best < 0) {
		out->detail = CPW_WAIT_DETAIL_FD_UNREADABLE;
		return;
	}
	*fdtype = best_type;
	resolve_fd(wp, pid, fds[best].fd, best_link, best_type, best_inode, !fds[best].write, out);
	if (nfds > 1) {
		/* Several: no one feeder (and no use searching again each sample). */
		size_t len = strlen(out->target);
		snprintf(out->target + len, sizeof(out->target) - len, " and %zu other fd%s", nfds - 1,
			 nfds == 2 ? "" : "s");
		out->peer_pid = 0;
		wp->pipe_open = false;
	}
}

#define STACK_SCAN 8192

bool cpw_wait_probe_stack_returns_into(struct cpw_wait_probe *wp, pid_t pid, uint64_t sp, uint64_t lo, uint64_t hi)
{
	if (!sp || lo >= hi || (sp & 7))
		return false;
	/* 8 KiB from sp: a stack is mapped above its pointer, and a read that meets the
	 * stack's top end returns what it got before it. */
	uint64_t words[STACK_SCAN / sizeof(uint64_t)];
	struct iovec local = { .iov_base = words, .iov_len = sizeof(words) };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)sp, .iov_len = sizeof(words) };
	long got = wp->read_mem(wp->read_mem_ctx, pid, &local, &remote, 1);
	return got > 0 && cpw_wait_parse_stack_has_return(words, (size_t)got, lo, hi);
}

int cpw_wait_probe_thread(struct cpw_wait_probe *wp, pid_t pid, pid_t tid, char state,
			  const char *wchan, struct cpw_wait *out)
{
	char base[300], path[320], buf[512];
	struct cpw_syscall_fields f;
	const struct cpw_syscall_info *sc = NULL;
	enum cpw_fd_type fdtype = CPW_FD_UNKNOWN;

	memset(out, 0, sizeof(*out));
	out->syscall_nr = CPW_SYSCALL_UNREAD;
	out->tid = tid;
	wp->pipe_open = false;
	if (cpw_kfile_pathf(base, sizeof(base), "%s/%d/task/%d", wp->proc_root, (int)pid, (int)tid) < 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/syscall", base);
	long len = read_syscall_file(wp, pid, tid, path, buf, sizeof(buf));
	bool parsed = len > 0 && cpw_wait_parse_syscall(buf, (size_t)len, &f) == 0;
	/* Woken between its state and now: a thread that blocks often (short reads) is
	 * likely blocked again a moment later, so one more look. */
	if (parsed && f.running) {
		len = read_syscall_file(wp, pid, tid, path, buf, sizeof(buf));
		parsed = len > 0 && cpw_wait_parse_syscall(buf, (size_t)len, &f) == 0;
	}
	bool woken = false;
	if (parsed && f.running) {
		/* "running" also comes for a thread that blocks and wakes faster than the kernel
		 * can catch it off the CPU (short O_DIRECT reads in D): its wait channel, read
		 * below, tells whether it is blocked; only the call is unknown. */
		woken = true;
	} else if (parsed) {
		out->syscall_nr = f.nr;
		out->user_sp = f.nr >= 0 ? f.sp : 0;
		sc = f.nr >= 0 ? cpw_wait_kind_syscall_lookup(f.nr) : NULL;
		if (sc)
			snprintf(out->syscall, sizeof(out->syscall), "%s", sc->name);
	} else if (len == -EACCES || len == -EPERM) {
		out->detail = CPW_WAIT_DETAIL_DENIED;
	} else {
		if ((len == -ENOENT || len == -ESRCH) && access(base, F_OK) != 0)
			return -ESRCH;
		out->detail = CPW_WAIT_DETAIL_NO_SYSCALL; /* absent, empty or not what the kernel writes */
	}
	if (!woken)
		wp->stats.probed++;

	if (sc && sc->fd_arg && f.nargs > 0)
		resolve_target(wp, pid, sc, &f, out, &fdtype);
	else if (sc && sc->group == CPW_SYS_POLL && f.nargs > 0)
		resolve_poll(wp, pid, sc, &f, out, &fdtype);

	/* The wait channel only where the call leaves the kind open: a read or write on an fd
	 * not resolved, an eventfd, or a path slept on in S; a poll on such a path. */
	bool decisive = sc && sc->group != CPW_SYS_UNLISTED &&
			(sc->group != CPW_SYS_IOCTL || fdtype == CPW_FD_GPU) && /* gpu: else the wchan */
			((sc->group != CPW_SYS_READ && sc->group != CPW_SYS_WRITE && sc->group != CPW_SYS_POLL) ||
			 (sc->group == CPW_SYS_POLL && !(fdtype == CPW_FD_FILE && state != 'D')) ||
			 (fdtype != CPW_FD_UNKNOWN && fdtype != CPW_FD_ANON &&
			  !(fdtype == CPW_FD_FILE && state != 'D')));
	if (wchan) {
		snprintf(out->wchan, sizeof(out->wchan), "%s", wchan);
		out->wchan[strcspn(out->wchan, "\n")] = '\0';
	} else if (!decisive || state == 'D') {
		snprintf(path, sizeof(path), "%s/wchan", base);
		len = cpw_proc_parse_read_file(path, out->wchan, sizeof(out->wchan));
		if (len < 0)
			out->wchan[0] = '\0';
		else
			out->wchan[strcspn(out->wchan, "\n")] = '\0';
	}
	if (strcmp(out->wchan, "0") == 0)
		out->wchan[0] = '\0';
	if (woken && !out->wchan[0])
		return -EAGAIN; /* on a CPU: no wait channel */
	if (woken)
		wp->stats.probed++;
	out->kind = cpw_wait_kind_classify(state, out->wchan, out->syscall_nr, fdtype);
	out->retry = woken || out->detail == CPW_WAIT_DETAIL_OVER_BUDGET || wp->pipe_open;
	out->seq = ++wp->seq;

	switch (out->detail) {
	case CPW_WAIT_DETAIL_DENIED:
		wp->stats.denied++;
		break;
	case CPW_WAIT_DETAIL_NO_SYSCALL:
		wp->stats.no_syscall++;
		break;
	case CPW_WAIT_DETAIL_OVER_BUDGET:
		wp->stats.over_budget++;
		break;
	default:
		break;
	}
	return 0;
}
