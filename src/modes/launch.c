/*
 * launch.c: fork, hold at a gate, exec (launch.h).
 */
#include "config.h"
#include "modes/launch.h"
#include "util/signals.h"
#include "source/kernel/fdlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_LINUX_SCHED_H
#include <linux/sched.h> /* struct clone_args, CLONE_INTO_CGROUP */
#endif

static ssize_t write_all(int fd, const void *buf, size_t len)
{
	ssize_t n;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The file execvp would run for a name without '/', found while the child waits at the
 * gate: a long PATH costs one failed execve per directory before the right one, time that
 * would otherwise come after the release. NULL leaves the search to execvp. */
static const char *resolve_in_path(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	size_t nlen = strlen(name);
	if (!path || !*name || strchr(name, '/'))
		return NULL;
	for (const char *dir = path;;) {
		const char *end = strchr(dir, ':');
		size_t dlen = end ? (size_t)(end - dir) : strlen(dir);
		if (dlen + nlen + 3 <= size) {
			/* An empty entry is the current directory, as for execvp. */
			size_t used = dlen ? dlen : 1;
			memcpy(buf, dlen ? dir : ".", used);
			buf[used++] = '/';
			memcpy(buf + used, name, nlen + 1);
			struct stat st;
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return buf;
		}
		if (!end)
			return NULL;
		dir = end + 1;
	}
}

/* What the child tells the parent before exec, on the error pipe. */
struct child_report {
	int joined;                /* a bit per v1 slot: the groups it is in */
	struct timespec released;  /* not gated: when it went on to exec (after the release);
				    * else zero */
};

/* In the child: joins the v1 groups of the placement (making those left to it) by moving
 * only itself. Returns a bit per slot it is in. */
static int child_join(const struct cpw_cgroup_placement *pl)
{
	int joined = 0;
	for (int i = 0; i < CPW_CGROUP_V1_JOINS; i++)
		if (pl->v1_group[i] && cpw_cgroup_join_v1(pl, i) == 0)
			joined |= 1 << i;
	return joined;
}

/* In the child, between fork and exec: no call that relies on glibc's idea of the thread id
 * (raise, abort, pthread_*): after a raw clone3 it is the parent's. cperfwatch is
 * single-threaded, so no other thread can have held a lock at the fork: the formatting and
 * file calls of the cgroup join are safe here. No allocation. Gated, the report goes before
 * the wait at the gate (the parent arms counters meanwhile); not gated, after it, with the
 * time of the release. */
static void child_wait_and_exec(char *const argv[], const struct cpw_cgroup_placement *pl,
				bool gated, int gate_read, int error_write)
{
	sigset_t none;
	char found[PATH_MAX];
	struct child_report rep;

	memset(&rep, 0, sizeof(rep));
	if (pl)
		rep.joined = child_join(pl);
	if (gated && pl)
		write_all(error_write, &rep, sizeof(rep)); /* the parent arms the counters meanwhile */
	const char *file = resolve_in_path(argv[0], found, sizeof(found));

	/* The command gets the open-files limit it was given, not the one cperfwatch raised. */
	cpw_fdlimit_restore();
	/* The command gets the dispositions cperfwatch was started with, whatever ours are
	 * now: the default, or ignored where they were ignored (nohup's SIGHUP, a background
	 * job's SIGINT and SIGQUIT; an exec keeps what is ignored and resets what is caught).
	 * SIGCHLD is the default: a command that ignored it would find no children to wait
	 * for. And an empty mask. */
	static const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], cpw_signals_inherited_ignored(reset[i]) ? SIG_IGN : SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The command dies with cperfwatch (a fault, SIGKILL), never runs on unwatched. Set
	 * before the gate: a cperfwatch dead before the release closed the gate (EOF). */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);

	char go;
	ssize_t n;
	do
		n = read(gate_read, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(125); /* cperfwatch gave up before the release: never run the command */
	close(gate_read);
	if (!gated) {
		clock_gettime(CLOCK_MONOTONIC, &rep.released);
		write_all(error_write, &rep, sizeof(rep));
	}
	if (file)
		execv(file, argv); /* on failure (a script without #!, a race) execvp decides */
	execvp(argv[0], argv);
	int err = errno;
	write_all(error_write, &err, sizeof(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* fork(), or a clone straight into the v2 group of cgroup_fd when the kernel has clone3
 * with CLONE_INTO_CGROUP (5.7+); *placed says which happened. */
static pid_t fork_into(int cgroup_fd, bool *placed)
{
	*placed = false;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	if (cgroup_fd >= 0) {
		struct clone_args args;
		memset(&args, 0, sizeof(args));
		args.flags = CLONE_INTO_CGROUP;
		args.exit_signal = SIGCHLD;
		args.cgroup = (uint64_t)cgroup_fd;
		long pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid >= 0) {
			*placed = true;
			return (pid_t)pid;
		}
		/* ENOSYS (older kernels, seccomp filters of container runtimes), E2BIG (5.3-5.6)
		 * or a group that refuses: fork, and the parent migrates the child. */
	}
#else
	(void)cgroup_fd;
#endif
	return fork();
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int cpw_launch_prepare(char *const argv[], struct cpw_cgroup_placement *placement, bool gated,
		       struct cpw_launch *l)
{
	int gate[2] = { -1, -1 }, errpipe[2];

	/* Orphans of the command are re-parented to us, so they stay ours to wait for. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	if (pipe2(gate, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		int err = errno;
		close_pair(gate);
		return -err;
	}
	bool in_v2 = false;
	pid_t pid = fork_into(placement ? placement->v2_dir_fd : -1, &in_v2);
	if (pid < 0) {
		int err = errno;
		close_pair(gate);
		close_pair(errpipe);
		return -err;
	}
	/* Not cloned into its v2 group (clone3 refused): the parent must move it there before
	 * the command runs, so it is gated whatever was asked. (Both sides know in_v2.) */
	if (placement && placement->v2_wanted && !in_v2)
		gated = true;
	if (pid == 0) {
		close(gate[1]);
		close(errpipe[0]);
		child_wait_and_exec(argv, placement, gated, gate[0], errpipe[1]);
	}
	close(gate[0]);
	close(errpipe[1]);
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->gated = gated;
	l->gate_fd = gate[1];
	l->error_fd = errpipe[0];
	l->placement = placement;
	l->report_pending = placement != NULL || !gated;
	if (placement)
		placement->v2_done = in_v2;
	return 0;
}

int cpw_launch_placed(struct cpw_launch *l)
{
	struct child_report rep;
	ssize_t n;

	if (!l->report_pending)
		return 0;
	if (!l->gated)
		cpw_launch_go(l); /* its report comes after the release */
	l->report_pending = false;
	do
		n = read(l->error_fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(rep))
		return n < 0 ? -errno : -EPIPE;
	for (int i = 0; l->placement && i < CPW_CGROUP_V1_JOINS; i++)
		l->placement->v1_done[i] = (rep.joined >> i) & 1;
	if (!l->gated) {
		l->released = rep.released;
		l->released_known = true;
	}
	return 0;
}

void cpw_launch_go(struct cpw_launch *l)
{
	if (l->gated)
		cpw_launch_placed(l); /* the report comes first on the error pipe */
	if (l->gate_fd < 0)
		return; /* released already */
	write_all(l->gate_fd, "g", 1);
	close(l->gate_fd);
	l->gate_fd = -1;
}

int cpw_launch_release(struct cpw_launch *l)
{
	cpw_launch_go(l);
	return cpw_launch_exec_result(l);
}

int cpw_launch_exec_result(struct cpw_launch *l)
{
	int err = 0;
	ssize_t n;

	if (l->error_fd < 0)
		return 0;
	cpw_launch_placed(l); /* the report comes first */
	/* EOF: the close-on-exec end closed, so exec succeeded. */
	do
		n = read(l->error_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(l->error_fd);
	l->error_fd = -1;
	return n == (ssize_t)sizeof(err) ? err : 0;
}

void cpw_launch_abort(struct cpw_launch *l)
{
	if (l->gate_fd < 0)
		kill(l->pid, SIGKILL); /* released: it may be running the command already */
	if (l->gate_fd >= 0)
		close(l->gate_fd); /* the child reads EOF and exits 125 without exec */
	if (l->error_fd >= 0)
		close(l->error_fd);
	l->gate_fd = l->error_fd = -1;
	waitpid(l->pid, NULL, 0);
}
