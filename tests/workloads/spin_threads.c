/*
 * spin_threads: N threads that each spin, pure user CPU. Ground truth for "cpu-bound"
 * with N = usable cores, "cpu-starved" when an outside hog shares the cores, and
 * "cpu-bound, oversubscribed" when N exceeds the cores it is pinned to.
 *
 *   spin_threads [N=2] [SECONDS=1.5]
 */
#include <pthread.h>
#include <string.h>

#include "workload.h"

static double deadline;

static void *spinner(void *arg)
{
	(void)arg;
	wl_spin_until(deadline);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char usage[] = "spin_threads [N] [SECONDS]";
	long n = wl_arg_long(argc, argv, 1, 2, usage);
	double secs = wl_arg_double(argc, argv, 2, 1.5, usage);
	pthread_t *tids;

	tids = calloc((size_t)n, sizeof(*tids));
	if (!tids) {
		perror("spin_threads: calloc");
		return 1;
	}
	deadline = wl_now() + secs;
	/* The main thread spins too, so N threads in all are on CPU. */
	for (long i = 1; i < n; i++) {
		int err = pthread_create(&tids[i], NULL, spinner, NULL);
		if (err) {
			fprintf(stderr, "spin_threads: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	spinner(NULL);
	for (long i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}
