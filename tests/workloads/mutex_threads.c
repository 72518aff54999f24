/*
 * mutex_threads: N threads that each compute only while holding one shared mutex, so they
 * take turns: about one core at a time however many are free, the others asleep on the
 * mutex's futex. Ground truth for the serialisation finding ("they take turns on a lock").
 * The turns go round in order, each waiter asleep on a condition of its own (glibc's
 * mutex alone lets the unlocking thread take it again at once, and one condition for all
 * would wake every waiter at each turn).
 *
 *   mutex_threads [N=4] [SECONDS=1.5]
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t *your_turn; /* one per thread */
static long nthreads, turn;
static double deadline;

/* About 1 ms of arithmetic, the critical section. */
static void compute_a_while(void)
{
	double until = wl_now() + 0.001;

	wl_spin_until(until);
}

static void *worker(void *arg)
{
	long me = (long)(intptr_t)arg;
	bool done = false;

	pthread_mutex_lock(&lock);
	while (!done) {
		while (turn != me)
			pthread_cond_wait(&your_turn[me], &lock);
		/* Our turn: compute while holding the lock, as code under a big lock does. */
		compute_a_while();
		done = wl_now() >= deadline;
		turn = (me + 1) % nthreads;
		pthread_cond_signal(&your_turn[turn]);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char usage[] = "mutex_threads [N] [SECONDS]";
	long n = wl_arg_long(argc, argv, 1, 4, usage);
	double secs = wl_arg_double(argc, argv, 2, 1.5, usage);
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));

	nthreads = n;
	your_turn = calloc((size_t)n, sizeof(*your_turn));
	if (!tids || !your_turn) {
		perror("mutex_threads: calloc");
		return 1;
	}
	for (long i = 0; i < n; i++)
		pthread_cond_init(&your_turn[i], NULL);
	deadline = wl_now() + secs;
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&tids[i], NULL, worker, (void *)(intptr_t)i);
		if (err) {
			fprintf(stderr, "mutex_threads: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	free(your_turn);
	return 0;
}
