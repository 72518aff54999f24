/*
 * proctree.c: a benchmark helper that builds a tree of N sleeping processes and prints the
 * root's pid on stdout once every process exists.
 *
 *   proctree N [FANOUT=8]
 *
 * The root (counted in N) gives each process up to FANOUT children, breadth first, so the
 * tree has depth log_FANOUT(N) like a real make -j or a worker pool. Every process sleeps
 * in pause(). The root leads a new process group and every descendant dies with its
 * parent (PR_SET_PDEATHSIG), so `kill -TERM ROOT` (or the group) ends the whole tree.
 * The command returns once the tree is ready: the root has detached from the shell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Children of node i (0-based, breadth first) are fanout*i+1 .. fanout*i+fanout. A forked
 * child takes over its node number and goes round again for its own children. */
static void grow(long node, long total, long fanout, int ready_fd)
{
	for (long k = 1; k <= fanout; k++) {
		long child = fanout * node + k;
		if (child >= total)
			break;
		pid_t pid = fork();
		if (pid < 0)
			_exit(1); /* the launcher sees the missing byte */
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(0); /* the parent died before the prctl */
			node = child;
			k = 0;
		}
	}
	/* One byte per process on the ready pipe, then sleep until killed. */
	char one = 1;
	if (write(ready_fd, &one, 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: proctree N [FANOUT]\n");
		return 2;
	}
	long total = strtol(argv[1], NULL, 10);
	long fanout = argc > 2 ? strtol(argv[2], NULL, 10) : 8;
	if (total < 1 || total > 30000 || fanout < 1) {
		fprintf(stderr, "proctree: N must be 1..30000 and FANOUT at least 1\n");
		return 2;
	}
	int ready[2];
	if (pipe(ready) < 0) {
		perror("proctree: pipe");
		return 1;
	}
	pid_t root = fork();
	if (root < 0) {
		perror("proctree: fork");
		return 1;
	}
	if (root == 0) {
		close(ready[0]);
		setpgid(0, 0);
		/* Detach from the caller's terminal signals; the caller kills us by pid. */
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		/* No tie to the caller's pipes: $(proctree N) must return at once. */
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
			close(devnull);
		}
		grow(0, total, fanout, ready[1]);
		return 0;
	}
	close(ready[1]);
	long got = 0;
	char buf[256];
	for (;;) {
		ssize_t n = read(ready[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		if (got >= total)
			break;
	}
	if (got < total) {
		fprintf(stderr, "proctree: only %ld of %ld processes started\n", got, total);
		kill(-root, SIGKILL);
		kill(root, SIGKILL);
		return 1;
	}
	printf("%d\n", (int)root);
	return 0;
}
