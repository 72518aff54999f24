/*
 * test_sampler_live.c: the cpu-clock sampler (source/sample/sampler.c) against the real
 * kernel, on threads of this program: a thread that began before arming but was not in the
 * listing given to it takes no samples until cpw_sampler_arm_new() arms it, then takes them;
 * a thread a followed one starts is followed by inherit and not armed a second time (its
 * samples would count twice); a thread that ended is passed over, not counted refused.
 * Plain TAP (not CUnit), to SKIP with the reason where perf events cannot be opened.
 */
#include "config.h"
#include "source/sample/sampler.h"
#include "live_tap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TESTS 5

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A thread that spins until told to stop, its tid published. */
struct spinner {
	pthread_t th;
	atomic_int tid;
	atomic_int stop;
};

static void *spin(void *arg)
{
	struct spinner *sp = arg;
	atomic_store(&sp->tid, (int)syscall(SYS_gettid));
	volatile unsigned long x = 0;
	while (!atomic_load(&sp->stop))
		x++;
	return NULL;
}

static int start_spinner(struct spinner *sp)
{
	atomic_store(&sp->tid, 0);
	atomic_store(&sp->stop, 0);
	if (pthread_create(&sp->th, NULL, spin, sp) != 0)
		return -1;
	while (atomic_load(&sp->tid) == 0)
		usleep(1000);
	return 0;
}

/* Stops it and waits until the kernel has released it: the join returns at the clear of its
 * tid, before its perf events have gone (at most 2 s). */
static void stop_spinner(struct spinner *sp)
{
	atomic_store(&sp->stop, 1);
	pthread_join(sp->th, NULL);
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d", atomic_load(&sp->tid));
	for (int i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(10000);
}

/* Samples counted per thread of interest. */
struct counts {
	pid_t tid[2];
	unsigned n[2];
};

static void count(void *ctx, const struct cpw_stack *st)
{
	struct counts *c = ctx;
	for (int i = 0; i < 2; i++)
		if (st->tid == c->tid[i])
			c->n[i]++;
}

/* Drains s every 20 ms for seconds. */
static void drain_for(struct cpw_sampler *s, double seconds, struct counts *c)
{
	double end = mono_s() + seconds;
	while (mono_s() < end) {
		usleep(20000);
		cpw_sampler_drain(s, count, c);
	}
	cpw_sampler_drain(s, count, c);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", TESTS);
	char why[320] = "";
	struct cpw_sampler *s = cpw_sampler_new("/proc", 999, why, sizeof(why));
	struct spinner early;
	if (!s || start_spinner(&early) < 0) {
		skip(TESTS, s ? "no thread" : why);
		cpw_sampler_free(s);
		return 0;
	}
	/* The listing given to arming has the main thread only: the spinner began before it
	 * and is in no listing yet, as a thread begun between the tree's sample and arming. */
	pid_t self = (pid_t)syscall(SYS_gettid);
	if (cpw_sampler_arm(s, &self, 1, why, sizeof(why)) != 1) {
		diag("perf events refused", why);
		skip(TESTS, "perf events refused (above)");
		stop_spinner(&early);
		cpw_sampler_free(s);
		return 0;
	}
	struct counts c = { { (pid_t)atomic_load(&early.tid), 0 }, { 0, 0 } };
	drain_for(s, 0.3, &c);
	ok(c.n[0] == 0, "a thread begun before arming and not in its listing: no samples (%u)", c.n[0]);

	pid_t listing[3] = { self, c.tid[0], 0 };
	int armed = cpw_sampler_arm_new(s, listing, 2);
	c.n[0] = 0;
	drain_for(s, 0.3, &c);
	/* 999 a second for 0.3 s of spinning: 300 on a machine to itself, 30 beside load. */
	ok(armed == 1 && c.n[0] >= 30, "armed by the next listing (%d), it is sampled: %u samples in 0.3 s",
	   armed, c.n[0]);

	/* A thread the followed main thread starts inherits its events: its FORK record,
	 * drained, says so, and arming it again would count its samples twice. */
	struct spinner late;
	if (start_spinner(&late) < 0) {
		ok(0, "a second thread started");
		ok(0, "a second thread started");
	} else {
		c.tid[1] = (pid_t)atomic_load(&late.tid);
		drain_for(s, 0.2, &c);
		listing[2] = c.tid[1];
		struct cpw_sampler_stats st;
		cpw_sampler_get_stats(s, &st);
		armed = cpw_sampler_arm_new(s, listing, 3);
		ok(c.n[1] > 0, "a thread started by a followed one is sampled by inherit (%u samples)", c.n[1]);
		struct cpw_sampler_stats after;
		cpw_sampler_get_stats(s, &after);
		ok(armed == 0 && after.threads_armed == st.threads_armed && after.threads_late == 1,
		   "and not armed again (%d armed now; %u threads armed, %u late)", armed, after.threads_armed,
		   after.threads_late);
		stop_spinner(&late);
	}
	/* Ended: both spinners are joined, and listed again as a stale listing would. */
	stop_spinner(&early);
	cpw_sampler_drain(s, count, &c);
	struct cpw_sampler_stats before, after;
	cpw_sampler_get_stats(s, &before);
	pid_t ended[2] = { c.tid[0], c.tid[1] };
	armed = cpw_sampler_arm_new(s, ended, c.tid[1] ? 2 : 1);
	cpw_sampler_get_stats(s, &after);
	ok(armed == 0 && after.threads_refused == before.threads_refused,
	   "threads that ended: passed over, none counted refused (%d armed, %u refused)", armed,
	   after.threads_refused);
	cpw_sampler_free(s);
	return tap_failures ? 1 : 0;
}
