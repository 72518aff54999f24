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
#include <unistd.h>

#define CACHE_SLOTS 256

struct cached_target {
	pid_t pid;
	int fd;
	unsigned long inode; /* 0: free slot */
	pid_t peer_pid;      /* 0 for a pipe: no process of the tree holds its other end */
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
};

struct cpw_wait_probe *cpw_wait_probe_new(const char *proc_root, unsigned budget)
{
	struct cpw_wait_probe *wp = calloc(1, sizeof(*wp));
	if (!wp)
		return NULL;
	snprintf(wp->proc_root, sizeof(wp->proc_root), "%s", proc_root);
	wp->stats.budget = budget ? budget : CPW_WAIT_BUDGET_DEFAULT;
	wp->budget_left = wp->stats.budget;
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
	if (cpw_kf_pathf(path, sizeof(path), "%s/%d/fd/%d", wp->proc_root, (int)pid, fd) < 0)
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
	snprintf(path, sizeof(path), "%s/%d/net/%s", wp->proc_root, (int)wp->net_pid, cpw_net_table_name(proto));
	ssize_t len = cpw_kf_read_alloc(path, text);
	if (len != -ENOENT)
		return len;
	snprintf(path, sizeof(path), "%s/net/%s", wp->proc_root, cpw_net_table_name(proto));
	return cpw_kf_read_alloc(path, text);
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
		if (cpw_net_find_inode(wp->net_text[proto], (size_t)wp->net_len[proto], proto, inode, &e) == 0) {
			cpw_net_target(&e, out->target, sizeof(out->target));
			return;
		}
	}
	/* Closed between the fd link and the tables, or a kind of socket the tables do not
	 * hold (netlink, packet, vsock). */
	snprintf(out->target, sizeof(out->target), "socket:[%lu] (not in /proc/net)", inode);
}

/* Searches the tree's other processes for one holding pipe:[inode]. */
static void resolve_pipe(struct cpw_wait_probe *wp, pid_t pid, unsigned long inode, bool reading,
			 struct cpw_wait *out)
{
	char want[48], link[128], path[320];
	snprintf(want, sizeof(want), "pipe:[%lu]", inode);
	snprintf(out->target, sizeof(out->target), "pipe:[%lu]", inode);

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
			if (spend(wp) && cpw_read_file(path, comm, sizeof(comm)) > 0)
				comm[strcspn(comm, "\n")] = '\0';
			out->peer_pid = other;
			snprintf(out->target, sizeof(out->target), "pipe %s %s (pid %d)", reading ? "from" : "to",
				 comm, (int)other);
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
	long len = cpw_read_file(path, buf, sizeof(buf));
	if (len <= 0)
		return;
	unsigned n = 0;
	for (const char *p = buf; (p = strstr(p, "tfd:")); p += 4)
		n++;
	/* A full buffer may hold only some of the lines. */
	snprintf(out->target, sizeof(out->target), "epoll on %s%u fd%s", (size_t)len + 1 >= sizeof(buf) ? ">= " : "",
		 n, n == 1 ? "" : "s");
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
	*fdtype = cpw_fd_link_type(link, &inode);
	if (sc->group == CPW_SYS_EPOLL) {
		resolve_epoll(wp, pid, fd, out);
		return;
	}
	if (*fdtype != CPW_FD_SOCKET && *fdtype != CPW_FD_PIPE) {
		snprintf(out->target, sizeof(out->target), "%s", link);
		return;
	}
	struct cached_target *c = cache_slot(wp, pid, fd, inode);
	if (c->inode == inode && c->pid == pid && c->fd == fd &&
	    (*fdtype == CPW_FD_SOCKET || c->peer_pid || c->tree_gen == wp->tree_gen)) {
		snprintf(out->target, sizeof(out->target), "%s", c->target);
		out->peer_pid = c->peer_pid;
		return;
	}
	if (*fdtype == CPW_FD_SOCKET)
		resolve_socket(wp, pid, inode, out);
	else
		resolve_pipe(wp, pid, inode, sc->group == CPW_SYS_READ, out);
	if (out->detail == CPW_WAIT_DETAIL_OK && !strstr(out->target, "(not in /proc/net)")) {
		c->pid = pid;
		c->fd = fd;
		c->inode = inode;
		c->peer_pid = out->peer_pid;
		c->tree_gen = wp->tree_gen;
		snprintf(c->target, sizeof(c->target), "%s", out->target);
	}
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
	if (cpw_kf_pathf(base, sizeof(base), "%s/%d/task/%d", wp->proc_root, (int)pid, (int)tid) < 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/syscall", base);
	long len = cpw_read_file(path, buf, sizeof(buf));
	bool parsed = len > 0 && cpw_parse_syscall(buf, (size_t)len, &f) == 0;
	/* Woken between its state and now: a thread that blocks often (short reads) is
	 * likely blocked again a moment later, so one more look. */
	if (parsed && f.running) {
		len = cpw_read_file(path, buf, sizeof(buf));
		parsed = len > 0 && cpw_parse_syscall(buf, (size_t)len, &f) == 0;
	}
	bool woken = false;
	if (parsed && f.running) {
		/* "running" also comes for a thread that blocks and wakes faster than the kernel
		 * can catch it off the CPU (short O_DIRECT reads in D): its wait channel, read
		 * below, tells whether it is blocked; only the call is unknown. */
		woken = true;
	} else if (parsed) {
		out->syscall_nr = f.nr;
		sc = f.nr >= 0 ? cpw_syscall_lookup(f.nr) : NULL;
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

	/* The wait channel only where the call leaves the kind open. */
	bool decisive = sc && sc->group != CPW_SYS_UNLISTED &&
			((sc->group != CPW_SYS_READ && sc->group != CPW_SYS_WRITE) ||
			 (fdtype != CPW_FD_UNKNOWN && fdtype != CPW_FD_ANON &&
			  !(fdtype == CPW_FD_FILE && state != 'D')));
	if (wchan) {
		snprintf(out->wchan, sizeof(out->wchan), "%s", wchan);
		out->wchan[strcspn(out->wchan, "\n")] = '\0';
	} else if (!decisive || state == 'D') {
		snprintf(path, sizeof(path), "%s/wchan", base);
		len = cpw_read_file(path, out->wchan, sizeof(out->wchan));
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
	out->kind = cpw_wait_classify(state, out->wchan, out->syscall_nr, fdtype);
	out->retry = woken || out->detail == CPW_WAIT_DETAIL_OVER_BUDGET ||
		     (fdtype == CPW_FD_PIPE && !out->peer_pid);

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
