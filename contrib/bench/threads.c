/*
 * threads.c: a benchmark helper, one process with N idle threads (a thread pool that
 * waits for work). Prints its pid once every thread exists, then waits until killed.
 *
 *   threads N
 *
 * Each thread blocks in pause() on a small stack, as idle pool workers block on a futex.
 * The process detaches from the shell (the command returns once the threads are up).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	if (n < 1) {
		fprintf(stderr, "usage: threads N\n");
		return 2;
	}
	int ready[2];
	if (pipe(ready) < 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		char c;
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			return 1;
		printf("%d\n", (int)pid);
		return 0;
	}
	close(ready[0]);
	setsid();
	/* The shell reads the pid through a pipe: it must not wait for this end of it. */
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, idle, NULL) != 0) {
			fprintf(stderr, "threads: only %ld threads\n", i);
			break;
		}
	}
	if (write(ready[1], "r", 1) != 1)
		return 1;
	close(ready[1]);
	for (;;)
		pause();
}
