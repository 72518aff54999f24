/*
 * sampcost.c: what a program pays for each cpu-clock sample taken of it (contrib/bench/
 * hotspots.sh). The interrupt that takes a sample runs on the sampled thread's CPU and its
 * time is charged to that thread: on a hypervisor it is tens of microseconds, a cost the
 * program's own CPU shows, beside cperfwatch's.
 *
 * A whole run under a sampler against a bare run cannot show it here: two bare runs of the
 * same work differ by up to 10 % on our VMs. So this program samples itself, with the
 * event cperfwatch opens (cpu-clock, the same sample fields, a mapped ring), and alternates
 * chunks of the same work (~20 ms each) with the event enabled and disabled, the order
 * swapped every pair: the two halves see the same machine within milliseconds. The excess
 * is the median of the pairs' differences (a burst of the host's in one chunk moves a sum
 * by more than the samples cost), times the pairs.
 *
 *   sampcost HZ [PAIRS]
 *
 * Prints one line: HZ, samples taken, the excess over the disabled chunks' CPU (in %), and
 * that excess per sample (in microseconds).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static __attribute__((noinline)) unsigned long work(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i % 7;
	return s;
}

/* The loop count of ~20 ms of CPU. */
static unsigned long calibrate(void)
{
	unsigned long n = 100000;
	for (;;) {
		double t0 = thread_cpu();
		work(n);
		double dt = thread_cpu() - t0;
		if (dt > 0.005)
			return (unsigned long)((double)n * 0.020 / dt);
		n *= 4;
	}
}

/* The samples the kernel wrote since the last call (PERF_RECORD_SAMPLE records); the ring
 * is then emptied. */
static unsigned long count_samples(struct perf_event_mmap_page *meta, size_t page, size_t size)
{
	const unsigned char *data = (const unsigned char *)meta + page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
	unsigned long n = 0;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t at = (size_t)(tail % size);
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(at + i) % size];
		if (h.size == 0)
			break;
		n += h.type == PERF_RECORD_SAMPLE;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sampcost HZ [PAIRS]\n");
		return 2;
	}
	int hz = atoi(argv[1]), pairs = argc > 2 ? atoi(argv[2]) : 150;
	if (hz < 1 || pairs < 1) {
		fprintf(stderr, "sampcost: HZ and PAIRS are positive whole numbers\n");
		return 2;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = (uint64_t)hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 64;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0 && (a.exclude_kernel = 1))
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("sampcost: perf_event_open");
		return 1;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page * 64;
	void *ring = mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (ring == MAP_FAILED) {
		perror("sampcost: mmap");
		return 1;
	}
	unsigned long n = calibrate(), samples = 0;
	double off = 0, *diff = calloc((size_t)pairs, sizeof(*diff));
	if (!diff) {
		perror("sampcost");
		return 1;
	}
	for (int i = 0; i < pairs; i++)
		for (int k = 0; k < 2; k++) {
			int enabled = k ^ (i & 1);
			if (enabled)
				ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0);
			double t0 = thread_cpu();
			work(n);
			double dt = thread_cpu() - t0;
			if (enabled) {
				ioctl((int)fd, PERF_EVENT_IOC_DISABLE, 0);
				diff[i] += dt;
				samples += count_samples(ring, page, size);
			} else {
				diff[i] -= dt;
				off += dt;
			}
		}
	qsort(diff, (size_t)pairs, sizeof(*diff), by_value);
	double median = pairs % 2 ? diff[pairs / 2] : (diff[pairs / 2 - 1] + diff[pairs / 2]) / 2;
	double excess = median * pairs;
	printf("%d %lu %.4f %.2f\n", hz, samples, 100 * excess / off, samples ? excess * 1e6 / (double)samples : 0.0);
	free(diff);
	return 0;
}
