/*
 * launch.c: fork, hold at a gate, exec (launch.h).
 */
#include "config.h"
#include "cperfwatch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static ssize_t write_all(int fd, const void *buf, size_t len)
{
	ssize_t n;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_wait_and_exec(char *const argv[], int gate_read, int error_write)
{
	char go;
	ssize_t n;
	sigset_t none;

	/* The command gets default dispositions and an empty mask, whatever ours are. */
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	do
		n = read(gate_read, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(125); /* cperfwatch gave up before the release: never run the command */
	close(gate_read);
	execvp(argv[0], argv);
	int err = errno;
	write_all(error_write, &err, sizeof(err));
	_exit(err == ENOENT ? 127 : 126);
}

int cpw_launch_prepare(char *const argv[], struct cpw_launch *l)
{
	int gate[2], errpipe[2];

	/* Orphans of the command are re-parented to us, so they stay ours to wait for. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	if (pipe2(gate, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		int err = errno;
		close(gate[0]);
		close(gate[1]);
		return -err;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(gate[0]);
		close(gate[1]);
		close(errpipe[0]);
		close(errpipe[1]);
		return -err;
	}
	if (pid == 0) {
		close(gate[1]);
		close(errpipe[0]);
		child_wait_and_exec(argv, gate[0], errpipe[1]);
	}
	close(gate[0]);
	close(errpipe[1]);
	l->pid = pid;
	l->gate_fd = gate[1];
	l->error_fd = errpipe[0];
	return 0;
}

int cpw_launch_release(struct cpw_launch *l)
{
	int err = 0;
	ssize_t n;

	write_all(l->gate_fd, "g", 1);
	close(l->gate_fd);
	l->gate_fd = -1;
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
	if (l->gate_fd >= 0)
		close(l->gate_fd); /* the child reads EOF and exits 125 without exec */
	if (l->error_fd >= 0)
		close(l->error_fd);
	l->gate_fd = l->error_fd = -1;
	waitpid(l->pid, NULL, 0);
}
