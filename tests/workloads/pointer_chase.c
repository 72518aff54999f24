/*
 * pointer_chase: a random pointer chase over a large array. Each load depends on the
 * previous one and lands on a random cache line far outside the caches, so the run is
 * bound by memory latency. With hardware counters that shows as low IPC and many LLC
 * misses ("memory-bound"); without them it is indistinguishable from user CPU
 * ("cpu-bound", with a note that memory stalls are not observable).
 *
 *   pointer_chase [SIZE_MB=128] [SECONDS=1.5]
 */
#include <stdint.h>
#include <sys/mman.h>

#include "workload.h"

/* xorshift64*: a fast generator; quality is irrelevant beyond "not sequential". */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

int main(int argc, char **argv)
{
	static const char usage[] = "pointer_chase [SIZE_MB] [SECONDS]";
	size_t bytes = (size_t)wl_arg_long(argc, argv, 1, 128, usage) << 20;
	double secs = wl_arg_double(argc, argv, 2, 1.5, usage);
	double deadline = wl_now() + secs;
	size_t n = bytes / sizeof(size_t);
	volatile size_t sink;
	size_t *next, cur = 0;

	next = mmap(NULL, n * sizeof(*next), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (next == MAP_FAILED) {
		perror("pointer_chase: mmap");
		return 1;
	}
	/* Huge pages would hide TLB misses, which are part of the latency we want. */
	madvise(next, n * sizeof(*next), MADV_NOHUGEPAGE);
	/* Sattolo's shuffle: one cycle through every slot, so the chase never short-circuits. */
	for (size_t i = 0; i < n; i++)
		next[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rng_next() % i), t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	do {
		for (int k = 0; k < 100000; k++)
			cur = next[cur];
	} while (wl_now() < deadline);
	sink = cur;
	(void)sink;
	munmap(next, n * sizeof(*next));
	return 0;
}
