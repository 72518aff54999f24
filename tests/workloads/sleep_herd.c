/*
 * sleep_herd: starts many threads with small stacks that each sleep, then joins them: a
 * tree of thousands of threads asleep on a timer. Ground truth for "waiting" at scale
 * (issue 30 item 13: 10,000 sleeping threads were called cpu-starved or memory-bound).
 *
 *   sleep_herd [THREADS=10000] [SECONDS=5]
 */
#include <pthread.h>
#include <string.h>

#include "workload.h"

static double nap_s;

static void *sleeper(void *arg)
{
	struct timespec nap = { .tv_sec = (time_t)nap_s,
				.tv_nsec = (long)((nap_s - (double)(time_t)nap_s) * 1e9) };

	(void)arg;
	while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	static const char usage[] = "sleep_herd [THREADS] [SECONDS]";
	long n = wl_arg_long(argc, argv, 1, 10000, usage);
	pthread_t *tids = calloc((size_t)n, sizeof *tids);
	pthread_attr_t attr;
	long started = 0;

	nap_s = wl_arg_double(argc, argv, 2, 5.0, usage);
	if (tids == NULL) {
		fprintf(stderr, "sleep_herd: out of memory\n");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		int rc = pthread_create(&tids[i], &attr, sleeper, NULL);

		if (rc != 0) {
			fprintf(stderr, "sleep_herd: thread %ld: %s\n", i, strerror(rc));
			break;
		}
		started++;
	}
	for (long i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_attr_destroy(&attr);
	free(tids);
	return started == n ? 0 : 1;
}
