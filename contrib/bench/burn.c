/*
 * burn.c: a benchmark helper that does a fixed amount of CPU work, so that any slowdown
 * shows in its wall time (tests/workloads/spin runs for a fixed wall time instead, which
 * would hide an overhead).
 *
 *   burn ITERATIONS [CPU_FILE]
 *
 * Runs ITERATIONS million rounds of integer arithmetic, then appends its own user+system
 * CPU seconds to CPU_FILE when given (its parent may be cperfwatch, whose own CPU is the
 * difference).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: burn MILLIONS [CPU_FILE]\n");
		return 2;
	}
	long millions = strtol(argv[1], NULL, 10);
	if (millions < 1) {
		fprintf(stderr, "burn: MILLIONS must be positive\n");
		return 2;
	}
	/* A dependency chain the compiler cannot fold: xorshift. */
	volatile unsigned long sink;
	unsigned long x = 88172645463325252ul;
	for (long m = 0; m < millions; m++)
		for (long i = 0; i < 1000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
	sink = x;
	(void)sink;
	if (argc == 3) {
		struct rusage ru;
		FILE *f = fopen(argv[2], "a");
		if (!f || getrusage(RUSAGE_SELF, &ru) < 0) {
			perror(argv[2]);
			return 1;
		}
		fprintf(f, "%.6f\n", (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
					  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
		fclose(f);
	}
	return 0;
}
