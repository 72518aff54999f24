/*
 * timeit.c: a benchmark helper that runs one command and prints what it cost.
 *
 *   timeit [-q|-p] [-o FILE] -- COMMAND [ARG]...
 *
 * Prints one line: wall_s user_s sys_s maxrss_kib exit_status self_cpu_s. The wall clock
 * spans fork to wait4 only (not the shell that starts timeit); CPU and max RSS come from
 * wait4, so they cover the command and every descendant it waited for. self_cpu_s is
 * timeit's own CPU until then (its exec included): run as the command of a watcher, timeit
 * tells the watched program's CPU from its own. -q sends the
 * command's stdout and stderr to /dev/null; -p sends them to a pipe that timeit reads
 * and drops, as a CI log or a pager would take them (each write then costs what it
 * costs there); -o FILE appends the line to FILE instead of stdout (the command may own
 * stdout).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int quiet = 0, piped = 0, opt;
	const char *out_path = NULL;

	while ((opt = getopt(argc, argv, "+qpo:")) != -1) {
		switch (opt) {
		case 'q': quiet = 1; break;
		case 'p': piped = 1; break;
		case 'o': out_path = optarg; break;
		default:
			fprintf(stderr, "usage: timeit [-q|-p] [-o FILE] -- COMMAND [ARG]...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: timeit [-q|-p] [-o FILE] -- COMMAND [ARG]...\n");
		return 2;
	}
	FILE *out = stdout;
	if (out_path && !(out = fopen(out_path, "a"))) {
		perror(out_path);
		return 2;
	}
	int pipefd[2] = { -1, -1 };
	if (piped && pipe(pipefd) < 0) {
		perror("timeit: pipe");
		return 2;
	}
	fflush(stdout);
	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 2;
	}
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
				close(fd);
			}
		}
		if (piped) {
			dup2(pipefd[1], 1);
			dup2(pipefd[1], 2);
			close(pipefd[0]);
			close(pipefd[1]);
		}
		execvp(argv[optind], &argv[optind]);
		perror(argv[optind]);
		_exit(127);
	}
	if (piped) {
		char drain[4096];
		close(pipefd[1]);
		while (read(pipefd[0], drain, sizeof(drain)) > 0)
			;
		close(pipefd[0]);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("timeit: wait4");
		return 2;
	}
	double wall = now_s() - t0;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	struct rusage self;
	getrusage(RUSAGE_SELF, &self);
	fprintf(out, "%.6f %.6f %.6f %ld %d %.6f\n", wall,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, code,
		(double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
			(double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6);
	if (out != stdout)
		fclose(out);
	return 0;
}
