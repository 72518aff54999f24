/*
 * sampling.h: the session's hotspots (sampling.c): the cpu-clock sampler (source/sample/)
 * armed on the tree once it has run for CPW_SAMPLING_ARM_S (and on threads it missed, as
 * later samples list them), drained at every sample into
 * the model's hotspot tables (model/hotspots.c), and what it could not do said in the
 * report's notes. session.c calls it at five places, each marked "hotspots"; the Python stack
 * reader made on arming also names the functions Python threads wait in (for model/waits.c).
 */
#ifndef CPW_SESSION_SAMPLING_H
#define CPW_SESSION_SAMPLING_H

#include <time.h>

#include "options.h"
#include "model/hotspots.h"
#include "model/tree.h"
#include "report/report.h"

/* Run mode arms the sampler this long after the command's exec: opening the first
 * per-task perf event costs 12-40 ms (an RCU grace period), which a short command would
 * pay in its wall time; one shorter than this pays nothing. */
#define CPW_SAMPLING_ARM_S 0.5
/* Samples per second per running thread: prime to the kernel's tick, so it does not beat
 * with periodic work; perf record -F 99's and py-spy's rate. Each sample costs the sampled
 * program the interrupt that takes it, charged to its CPU: ~30 us on our hypervisor
 * (contrib/bench/sampcost.c), 0.3 % of a thread's CPU at 99, 0.6 % at 199 (the default
 * until issue 26 counted it). 99 gives ~150 samples in a 2 s run, native shares +-4 points
 * (binomial); --freq raises it. */
#define CPW_SAMPLING_HZ 99
/* Python stacks are read at about a quarter of that rate, on the samples' grid: the
 * period nearest 4/rate that divides the --interval (util/tick_grid.h), 50 ms at 99 beside
 * 100 ms, so that every other reading wakes with a sample of the session (two threads
 * woken by one timer cost about one). Each reading serves the cpu-clock samples nearest
 * it. A reading costs ~100 us of CPU here, ~45 of it the wake-up itself (a hypervisor's):
 * at py-spy's 100 a second the reader alone cost a 2 s pure-Python loop 1 % of its CPU,
 * the whole target of issue 26; at 49 0.45 %, at 24 0.22 %. The
 * price is precision: a 70 % share of a 4 s run is off by ~5-6 points (binomial over its
 * ~70 readings), not ~2 as the native functions' at the same count (--freq raises both;
 * under 100 readings the Notes name the Python share they leave roughest, 3 points off or
 * more). */
#define CPW_PYTHON_READ_DIVISOR 4

struct cpw_sampling;

/* NULL with --no-hotspots (or out of memory: the report then has no Hotspots section). */
struct cpw_sampling *cpw_sampling_new(const struct cpw_config *cfg);
const struct cpw_hotspots *cpw_sampling_hotspots(const struct cpw_sampling *sp);
/* The Python stack reader, once armed (it names the functions Python threads wait in, for
 * the tree's reader: source/proc/proc_reader.h); NULL before, or with none. */
struct cpw_python_stacks *cpw_sampling_python(const struct cpw_sampling *sp);
/* The run's start on CLOCK_MONOTONIC. */
void cpw_sampling_start(struct cpw_sampling *sp, const struct timespec *start);
/* After each sample of the tree (now: run seconds): arms when due, drains, then arms the
 * threads the sample lists that no event follows yet. */
void cpw_sampling_step(struct cpw_sampling *sp, const struct cpw_tree *tree, double now, struct cpw_report *r);
/* At the end: the last drain; notes on what the samples could not show. */
void cpw_sampling_finish(struct cpw_sampling *sp, struct cpw_report *r);
void cpw_sampling_free(struct cpw_sampling *sp);

/* The live view's copy of the top functions so far (view/tui.h, its key f): whether they
 * are sampled (sp NULL: --no-hotspots, or no memory for them), else why not, or when the
 * sampler arms; the samples by kind of code and the top CPW_VIEW_HOT_MAX functions, every
 * figure and name copied. */
struct cpw_view_hotspots;
void cpw_sampling_view(const struct cpw_sampling *sp, const struct cpw_config *cfg, struct cpw_view_hotspots *out);

#endif
