/*
 * fake_cuda.c: a stand-in for the CUDA driver (libcuda.so.1) for tests/integration/test_gpu.sh:
 * what a program under CUDA's blocking sync (cudaDeviceScheduleBlockingSync) looks like to
 * the wait probe. cuInit starts the driver's event thread, named cuda-EvtHandlr as the
 * real one is, which polls all its life; cuCtxSynchronize sleeps on a futex (a condition
 * variable) from inside this library, as the real driver's synchronize does on driver 580
 * until the event thread wakes it. Here a timeout stands for the device's work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int completed;

static void *event_handler(void *arg)
{
	(void)arg;
	for (;;)
		poll(NULL, 0, 100);
	return NULL;
}

int cuInit(unsigned flags)
{
	(void)flags;
	pthread_t t;
	if (pthread_create(&t, NULL, event_handler, NULL) != 0)
		return 1;
	pthread_setname_np(t, "cuda-EvtHandlr");
	return 0;
}

/* Waits ms milliseconds of "device work" on the condition variable. */
int cuCtxSynchronize(unsigned ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)ms * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&lock);
	int rc = 0;
	while (rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&done, &lock, &until);
	completed++; /* after the wait: the call into libc is not a tail call */
	pthread_mutex_unlock(&lock);
	return 0;
}
