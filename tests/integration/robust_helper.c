/*
 * robust_helper.c: the programs the robustness tests run under cperfwatch.
 *
 *   robust_helper comm HEXNAME SECONDS   forks one child that names itself with the bytes
 *                                        HEXNAME decodes to (prctl PR_SET_NAME: spaces,
 *                                        parentheses, newlines, ESC, invalid UTF-8), burns
 *                                        SECONDS of CPU and exits; the parent waits
 *   robust_helper storm N CPU_US [ORPHAN_EVERY]
 *                                        forks N short-lived children (at most 64 alive at
 *                                        once), each burning CPU_US µs of CPU; every
 *                                        ORPHAN_EVERY-th one double-forks an orphan that
 *                                        burns the same and is not waited for by us
 *   robust_helper tree N SECONDS         builds a tree of N processes (fan-out 10) that all
 *                                        sleep SECONDS, then exit; prints "ready" on stdout
 *                                        when every one exists
 *   robust_helper signals FILE SECONDS   appends the name of each SIGINT/SIGTERM/SIGHUP it
 *                                        gets to FILE; exits 10+N on SIGTERM/SIGHUP, carries
 *                                        on after SIGINT, exits 0 after SECONDS
 *
 * Plain C with no dependency on libcperfwatch, like tests/workloads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Burns seconds of this process's own CPU time. */
static void burn(double seconds)
{
	volatile unsigned long x = 0;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
	(void)x; /* a use, for clang's -Wunused-but-set-variable */
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int cmd_comm(const char *hex, double seconds)
{
	char name[16] = "";
	size_t n = 0;
	for (; hex[0] && hex[1] && n < sizeof name - 1; hex += 2) {
		int hi = hexval(hex[0]), lo = hexval(hex[1]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			fprintf(stderr, "robust_helper: bad hex name\n");
			return 2;
		}
		name[n++] = (char)(hi * 16 + lo);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("robust_helper: fork");
		return 1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_NAME, name, 0, 0, 0) < 0)
			_exit(3);
		burn(seconds);
		_exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	printf("child %d\n", (int)pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void reap_one(unsigned *alive)
{
	int status;
	if (wait(&status) > 0)
		(*alive)--;
}

static int cmd_storm(long n, double cpu_us, long orphan_every)
{
	unsigned alive = 0;
	for (long i = 0; i < n; i++) {
		while (alive >= 64)
			reap_one(&alive);
		pid_t pid = fork();
		if (pid < 0) {
			if (errno == EAGAIN) { /* process limit: wait for some, then retry */
				if (alive)
					reap_one(&alive);
				i--;
				continue;
			}
			perror("robust_helper: fork");
			return 1;
		}
		if (pid == 0) {
			if (orphan_every > 0 && i % orphan_every == 0 && fork() == 0) {
				burn(cpu_us / 1e6); /* the orphan, reparented to the subreaper */
				_exit(0);
			}
			burn(cpu_us / 1e6);
			_exit(0);
		}
		alive++;
	}
	while (alive)
		reap_one(&alive);
	return 0;
}

/* Makes the subtree of this process hold n processes (fan-out 10). Returns in every
 * process of it once its children are forked; each child writes one byte to ready_fd. */
static void grow(long n, int ready_fd)
{
	long rest = n - 1;
	long k = rest < 10 ? rest : 10;
	for (long c = 0; c < k; c++) {
		long size = rest / k + (c < rest % k ? 1 : 0);
		pid_t pid = fork();
		if (pid < 0) {
			perror("robust_helper: fork");
			continue;
		}
		if (pid == 0) {
			if (write(ready_fd, "x", 1) < 0)
				_exit(1);
			grow(size, ready_fd);
			return; /* the child's own subtree is made: back to cmd_tree to sleep */
		}
	}
}

static int cmd_tree(long n, double seconds)
{
	int fds[2];
	if (pipe(fds) < 0) {
		perror("robust_helper: pipe");
		return 1;
	}
	pid_t root = getpid();
	double deadline = mono_now() + seconds;
	grow(n, fds[1]);
	if (getpid() != root) {
		/* A non-root process: sleep, then wait for its own children. */
		close(fds[0]);
		close(fds[1]);
		double left = deadline - mono_now();
		if (left > 0)
			usleep((useconds_t)(left * 1e6));
		while (wait(NULL) > 0 || errno == EINTR)
			;
		_exit(0);
	}
	close(fds[1]);
	long made = 0;
	char buf[256];
	ssize_t got;
	while (made < n - 1 && (got = read(fds[0], buf, sizeof buf)) > 0)
		made += got;
	close(fds[0]);
	printf("ready %ld\n", made + 1);
	fflush(stdout);
	double left = deadline - mono_now();
	if (left > 0)
		usleep((useconds_t)(left * 1e6));
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return made + 1 == n ? 0 : 1;
}

static int sig_fd = -1;

static void on_signal(int sig)
{
	const char *name = sig == SIGINT ? "INT\n" : sig == SIGTERM ? "TERM\n" : "HUP\n";
	if (write(sig_fd, name, strlen(name)) < 0)
		_exit(1);
	if (sig != SIGINT)
		_exit(10 + sig);
}

static int cmd_signals(const char *file, double seconds)
{
	sig_fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (sig_fd < 0) {
		perror(file);
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	double end = mono_now() + seconds;
	if (write(sig_fd, "", 0) < 0) /* the file exists from here on: the test waits for it */
		return 1;
	while (mono_now() < end)
		usleep(10000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "comm") == 0)
		return cmd_comm(argv[2], atof(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "storm") == 0)
		return cmd_storm(atol(argv[2]), atof(argv[3]), argc > 4 ? atol(argv[4]) : 0);
	if (argc >= 4 && strcmp(argv[1], "tree") == 0)
		return cmd_tree(atol(argv[2]), atof(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "signals") == 0)
		return cmd_signals(argv[2], atof(argv[3]));
	fprintf(stderr, "usage: robust_helper comm HEXNAME SECONDS | storm N CPU_US [ORPHAN_EVERY] |"
			" tree N SECONDS | signals FILE SECONDS\n");
	return 2;
}
