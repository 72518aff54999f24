/*
 * perf.h: perf_event counters named and encoded with libpfm4 (source/perf/perf.c).
 *
 * Each event ends with a status: counted, multiplexed (scaled by enabled/running time), or
 * not counted with the reason why. A value the kernel cannot give truly is never a number.
 */
#ifndef CPW_SOURCE_PERF_PERF_H
#define CPW_SOURCE_PERF_PERF_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "counter_values.h"

struct cpw_counter_value {
	const char *name;      /* the name the user gave or the default set's name */
	const char *unit;      /* "msec", "" ... as perf stat prints */
	double value;          /* NAN unless counted or multiplexed */
	enum cpw_counter_status status;
	double running_fraction; /* time_running / time_enabled, 1 when not multiplexed */
	char reason[160];      /* why not counted; empty when counted */
};

struct cpw_counters;

/* Names and encodes the events (NULL list = the default set). An unknown name fails with
 * -EINVAL and one line in err. */
int cpw_perf_new(struct cpw_counters **out, const char *event_list, char *err, size_t errlen);
/* Whether cpw_perf_new(event_list) may give counters to open: false only for the
 * default set where the kernel certainly has no CPU PMU (then every default event is
 * refused without a system call). Run mode holds the command at its gate only when true:
 * counters opened after its exec would never be enabled. Cheap (one directory listing,
 * cached). */
bool cpw_perf_may_open(const char *event_list);
/* The same, with libpfm4 run in a forked helper (perf_transfer.c says why): start it
 * early, do other set-up, then finish, which gives cpw_perf_new's result and errors
 * and reaps the helper. Where libpfm4 is not needed (cpw_perf_may_open() false) no
 * helper is forked, and where it cannot run, finish encodes in this process. */
struct cpw_counters_helper {
	pid_t pid;
	int fd;
	const char *event_list;
};
int cpw_perf_encode_start(struct cpw_counters_helper *h, const char *event_list);
int cpw_perf_encode_finish(struct cpw_counters_helper *h, struct cpw_counters **out,
			       char *err, size_t errlen);
/* Run mode: opens disabled counters on child (which has not exec'd yet) with inherit and
 * enable_on_exec, so every descendant counts from exec on. Events that cannot open get
 * their status and reason; this fails only on a programming error. */
int cpw_perf_open_child(struct cpw_counters *c, pid_t child);
/* Attach mode: adds counters on one existing thread (call for every thread of the tree,
 * and again for threads that appear). Idempotent per tid. */
int cpw_perf_attach_thread(struct cpw_counters *c, pid_t tid);
/* Attach mode: cpw_perf_attach_thread() for each of tids. The first listing's threads all
 * existed before any counter did: they are armed without their start times read (one
 * fopen of their stat each: 9.5 % of the main thread's CPU over a 5 s watch of a process of
 * 4,000 threads, nearly all of it in the first sample). */
void cpw_perf_attach_threads(struct cpw_counters *c, const pid_t *tids, size_t n);
/* Reads every counter (sums over attached threads, scaled where multiplexed). */
void cpw_perf_read(struct cpw_counters *c);
size_t cpw_perf_count(const struct cpw_counters *c);
const struct cpw_counter_value *cpw_perf_get(const struct cpw_counters *c, size_t i);
/* The figures the classifier reads, NAN where not counted. */
struct cpw_counter_figures {
	double cycles, instructions, cache_references, cache_misses, llc_load_misses;
	double branch_misses, stalled_cycles_backend;
	double topdown_memory_bound; /* share of slots, where the PMU has top-down events */
};
/* The values of every event, the derived figures and the paranoid level, for the report. */
void cpw_perf_values(const struct cpw_counters *c, struct cpw_counter_values *out);
/* Fills f from the counters (c may be NULL: all NAN). */
void cpw_perf_figures(const struct cpw_counters *c, struct cpw_counter_figures *f);
void cpw_perf_free(struct cpw_counters *c);
/* --list-events: what this machine's PMUs offer. Returns 0, or -errno. */
int cpw_perf_list(FILE *out);

#endif
