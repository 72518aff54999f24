/*
 * pipe_reader: the reading end of a slow pipeline. A forked child writes a line every
 * INTERVAL_MS; the parent blocks in read() until the child is done. Both spend their
 * lives asleep on the pipe or a timer. Ground truth for "waiting".
 *
 *   pipe_reader [SECONDS=1.5] [INTERVAL_MS=50]
 */
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static void writer(int fd, double deadline, long interval_ms)
{
	struct timespec nap = { .tv_sec = interval_ms / 1000,
				.tv_nsec = (interval_ms % 1000) * 1000000L };
	char line[64];

	for (unsigned long n = 0; wl_now() < deadline; n++) {
		int len = snprintf(line, sizeof(line), "tick %lu\n", n);
		if (write(fd, line, (size_t)len) != len)
			_exit(1);
		nanosleep(&nap, NULL);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	static const char usage[] = "pipe_reader [SECONDS] [INTERVAL_MS]";
	double secs = wl_arg_double(argc, argv, 1, 1.5, usage);
	long interval_ms = wl_arg_long(argc, argv, 2, 50, usage);
	double deadline = wl_now() + secs;
	unsigned long total = 0;
	char buf[4096];
	ssize_t got;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) < 0) {
		perror("pipe_reader: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pipe_reader: fork");
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		writer(fds[1], deadline, interval_ms);
	}
	close(fds[1]);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0)
		total += (unsigned long)got;
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pipe_reader: writer failed\n");
		return 1;
	}
	return total > 0 ? 0 : 1;
}
