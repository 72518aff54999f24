/*
 * hotspots.h: where the tree's CPU time went, by function (hotspots.c): the samples of the
 * sampler (source/sample/sampler.h) folded into bounded tables, no I/O.
 *
 * Per function (its name and file, summed over every process that runs it): samples where
 * it ran itself (self) and samples where it was on the stack (total); per process; per kind
 * of code; the distinct stacks, rooted at the process's name (for --folded and --flame); and
 * per slice of the run's time, its top functions (for the phases). Every table has a fixed
 * size, about 0.5 MiB in all whatever the run's length: what does not fit goes to "[other]".
 */
#ifndef CPW_MODEL_HOTSPOTS_H
#define CPW_MODEL_HOTSPOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/sample/sampler.h"

struct cpw_hotspots;

struct cpw_hotspots *cpw_hotspots_new(void);
void cpw_hotspots_free(struct cpw_hotspots *h);
/* Where the run's time starts on CLOCK_MONOTONIC (the samples' clock). */
void cpw_hotspots_set_epoch(struct cpw_hotspots *h, double mono_s);
/* Takes one sample (a cpw_stack_fn: ctx is the struct cpw_hotspots). */
void cpw_hotspots_take(void *h, const struct cpw_stack *st);
/* What the sampler says of itself, and when (run seconds) it was armed; why: where it was
 * not (it is then reported instead of functions). */
void cpw_hotspots_set_source(struct cpw_hotspots *h, const struct cpw_sampler_stats *stats, double armed_at_s);
void cpw_hotspots_set_unavailable(struct cpw_hotspots *h, const char *why);
/* Names a function's file anew (its source file:line into out): false keeps it. */
typedef bool (*cpw_hot_file_fn)(void *ctx, const char *func, const char *file, enum cpw_code_kind kind, char *out,
				size_t len);
/* Asks fn once for each function a report can show (the top 32 by self samples, each time
 * slice's top ones), those of one file in a row, and renames the file of each it names anew
 * (where the names pool has room). Returns how many were renamed. */
size_t cpw_hotspots_rename_files(struct cpw_hotspots *h, cpw_hot_file_fn fn, void *ctx);
/* The bytes the tables take (the bound the tests check). */
size_t cpw_hotspots_memory(void);

/* ---- reading, for the report and the verdict ---- */

struct cpw_hot_fn {
	const char *name;
	const char *file;
	enum cpw_code_kind kind;
	uint64_t self, total;  /* samples */
	pid_t pid;             /* the process that ran it most */
	const char *comm;
	unsigned nprocs;       /* processes that ran it (as far as the table kept them) */
};

const char *cpw_hotspots_unavailable(const struct cpw_hotspots *h); /* NULL when sampled */
const struct cpw_sampler_stats *cpw_hotspots_source(const struct cpw_hotspots *h);
double cpw_hotspots_armed_at(const struct cpw_hotspots *h); /* NAN: never armed */
uint64_t cpw_hotspots_samples(const struct cpw_hotspots *h);
uint64_t cpw_hotspots_kind_samples(const struct cpw_hotspots *h, enum cpw_code_kind k);
/* The functions by self samples, most first; at most max. Returns how many. */
size_t cpw_hotspots_top(const struct cpw_hotspots *h, struct cpw_hot_fn *out, size_t max);
/* The function with the most self samples between t0 and t1 (run seconds; the slices it
 * is kept in are at least as wide as the run / 32); its samples and the slices' total. */
bool cpw_hotspots_top_between(const struct cpw_hotspots *h, double t0, double t1, struct cpw_hot_fn *out,
			      uint64_t *in_range);
/* Distinct stacks: calls fn with the process's name and the frames' names, root first. */
typedef int (*cpw_hot_stack_fn)(void *ctx, const char *comm, const char *const *frames, int n, uint64_t count);
int cpw_hotspots_each_stack(const struct cpw_hotspots *h, cpw_hot_stack_fn fn, void *ctx);
/* The same stacks with each frame's kind of code (kinds[k] is frames[k]'s), for --flame. */
typedef int (*cpw_hot_stack_kinds_fn)(void *ctx, const char *comm, const char *const *frames,
				      const enum cpw_code_kind *kinds, int n, uint64_t count);
int cpw_hotspots_each_stack_kinds(const struct cpw_hotspots *h, cpw_hot_stack_kinds_fn fn, void *ctx);
/* Samples whose stack did not fit the stack table (counted under "[other]"). */
uint64_t cpw_hotspots_stacks_dropped(const struct cpw_hotspots *h);

#endif
