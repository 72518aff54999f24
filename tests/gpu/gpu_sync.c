/*
 * gpu_sync.c: a host that launches "kernels" and waits for each under blocking sync, through
 * the fake CUDA driver (tests/gpu/fake_cuda.c, loaded as libcuda.so.1 from the library search
 * path): 1 ms of host work, then a synchronize that sleeps 20 ms. gpu_sync SECONDS [own]:
 * with "own", the host sleeps as long on a semaphore of its own instead (a futex slept on in
 * the program's code, beside the same driver threads).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <semaphore.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static sem_t never; /* never posted: a futex slept on from the program's own code */

static int own_wait(unsigned ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	long ns = until.tv_nsec + (long)ms * 1000000L;
	until.tv_sec += ns / 1000000000L;
	until.tv_nsec = ns % 1000000000L;
	while (sem_timedwait(&never, &until) != 0 && errno != ETIMEDOUT)
		;
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
	if (!cuda) {
		fprintf(stderr, "gpu_sync: %s\n", dlerror());
		return 1;
	}
	int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
	int (*sync)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuCtxSynchronize");
	if (!init || !sync || init(0) != 0) {
		fprintf(stderr, "gpu_sync: not the fake driver\n");
		return 1;
	}
	if (argc > 2 && strcmp(argv[2], "own") == 0 && sem_init(&never, 0, 0) == 0)
		sync = own_wait;
	volatile double x = 0;
	for (double end = now() + seconds; now() < end;) {
		for (double until = now() + 0.001; now() < until;)
			x += 1.0;
		sync(20);
	}
	return 0;
}
