/*
 * workload.h: helpers shared by the test workloads (argument parsing, a monotonic clock,
 * a spinning loop). Header-only so that every workload stays one self-contained program
 * with no dependency on libcperfwatch.
 */
#ifndef CPW_WORKLOAD_H
#define CPW_WORKLOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock (vDSO: costs user time only, no syscall). */
static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses argv[i] as a non-negative number, or returns dflt when it is absent; exits 2 on junk. */
static inline double wl_arg_double(int argc, char **argv, int i, double dflt, const char *usage)
{
	char *end;
	double v;

	if (i >= argc)
		return dflt;
	errno = 0;
	v = strtod(argv[i], &end);
	if (errno != 0 || end == argv[i] || *end != '\0' || v < 0) {
		fprintf(stderr, "%s: bad argument '%s'\nusage: %s\n", argv[0], argv[i], usage);
		exit(2);
	}
	return v;
}

/* Parses argv[i] as a positive integer, or returns dflt when it is absent; exits 2 on junk. */
static inline long wl_arg_long(int argc, char **argv, int i, long dflt, const char *usage)
{
	char *end;
	long v;

	if (i >= argc)
		return dflt;
	errno = 0;
	v = strtol(argv[i], &end, 10);
	if (errno != 0 || end == argv[i] || *end != '\0' || v <= 0) {
		fprintf(stderr, "%s: bad argument '%s'\nusage: %s\n", argv[0], argv[i], usage);
		exit(2);
	}
	return v;
}

/*
 * Burns user CPU until the monotonic clock passes deadline. The clock is read once per
 * block of arithmetic so that the loop is almost all plain user work.
 */
static inline unsigned long wl_spin_until(double deadline)
{
	volatile unsigned long acc = 0;

	while (wl_now() < deadline) {
		for (unsigned long i = 0; i < 100000; i++)
			acc += i * i;
	}
	return acc;
}

#endif /* CPW_WORKLOAD_H */
