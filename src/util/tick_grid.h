/*
 * tick_grid.h: times on one grid (tick_grid.c), so that cperfwatch's two sleepers wake
 * together. The session's samples come at origin + k * interval and the Python stack
 * reader's readings on a grid that shares those points: a hypervisor charges each wake-up
 * of a thread ~40-50 us of CPU, but two threads woken by one timer cost about one (10 and
 * 20 wakes a second on one grid: 1.0 ms/s; the same apart: 1.35). Pure.
 */
#ifndef CPW_UTIL_TICK_GRID_H
#define CPW_UTIL_TICK_GRID_H

#include <stdint.h>
#include <time.h>

/* The first point origin + k * period_ns (k >= 1) strictly after now; origin itself when
 * now is before it. period_ns 0 gives now. */
struct timespec cpw_tick_grid_next(struct timespec origin, uint64_t period_ns, struct timespec now);

/* The period nearest 1/per_s among those that divide interval_ns into a whole number of
 * parts or that are whole multiples of it: a reader wanted 24.75 times a second beside a
 * sample every 100 ms reads every 50 ms, one at 4 a second every 200 ms. per_s <= 0 or
 * interval_ns 0 gives 1/per_s (or interval_ns) as is. */
uint64_t cpw_tick_grid_period_ns(double per_s, uint64_t interval_ns);

#endif
