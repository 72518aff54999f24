/*
 * tick_grid.c: times on one grid (see tick_grid.h).
 */
#include "config.h"

#include "util/tick_grid.h"

#include <stdbool.h>

#define NS_PER_S 1000000000LL

static long long to_ns(struct timespec t)
{
	return (long long)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static struct timespec from_ns(long long ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };
	return t;
}

struct timespec cpw_tick_grid_next(struct timespec origin, uint64_t period_ns, struct timespec now)
{
	long long o = to_ns(origin), n = to_ns(now);
	if (period_ns == 0)
		return now;
	if (n < o)
		return origin;
	long long k = (n - o) / (long long)period_ns + 1;
	return from_ns(o + k * (long long)period_ns);
}

uint64_t cpw_tick_grid_period_ns(double per_s, uint64_t interval_ns)
{
	if (!(per_s > 0))
		return interval_ns;
	double want = 1e9 / per_s;
	if (interval_ns == 0 || want < 1)
		return want < 1 ? 1 : (uint64_t)want;
	if (want <= (double)interval_ns) { /* parts of an interval: the nearest whole count */
		double ideal = (double)interval_ns / want;
		uint64_t parts = (uint64_t)(ideal + 0.5);
		if (parts > interval_ns)
			parts = interval_ns;
		/* A count that divides the interval to the ns, where one is near: the grids then
		 * meet at every interval for good, where a period rounded down would drift a ns an
		 * interval (an hour of 100 ms in thirds: 36 us, near the timers' slack). */
		for (uint64_t d = 0; d <= parts / 2 + 1; d++) {
			bool below = parts > d && interval_ns % (parts - d) == 0;
			bool above = interval_ns % (parts + d) == 0;
			if (below && above) /* the count nearer the wanted one */
				return interval_ns / (ideal - (double)(parts - d) < (double)(parts + d) - ideal ? parts - d : parts + d);
			if (below || above)
				return interval_ns / (below ? parts - d : parts + d);
		}
		return interval_ns / parts;
	}
	uint64_t times = (uint64_t)(want / (double)interval_ns + 0.5); /* >= 1: want > interval */
	return times * interval_ns;
}
