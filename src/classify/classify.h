/*
 * classify.h: the classifier (classify.c), a pure function from a run's metrics to a
 * verdict (verdict.h).
 */
#ifndef CPW_CLASSIFY_CLASSIFY_H
#define CPW_CLASSIFY_CLASSIFY_H

#include <stdbool.h>

#include "classify/verdict.h"
#include "model/metrics.h"

/* Pure: no I/O, no globals written. */
void cpw_classify(const struct cpw_metrics *m, struct cpw_verdict *v);
/* Fills v->advice again for v's class from m, with what the rules conclude from m (a lock
 * the threads take turns on, the GIL, saturated CPUs): the phases re-judge parallelism on
 * the cpu-bound phases alone and advise from that. Pure. */
void cpw_classify_advise(const struct cpw_metrics *m, struct cpw_verdict *v);

/* The off-CPU states sampled in some threads' lifetime: thread samples in D on storage, in
 * D on something else, asleep (S, the waits for a child aside) and in any other state.
 * io_clock_idle: an exact clock of the threads' IO waits (their cgroup's io.pressure) says
 * they hardly waited for IO. */
struct cpw_classify_off_samples {
	double disk, d_other, asleep, other;
	bool io_clock_idle;
};
/* What off-CPU time was: the disk's, blocked on something else, or any other wait. */
struct cpw_classify_off_split {
	double disk, d_other, wait;
};
/* Splits off_s thread-seconds off the CPU (a lifetime less its exact on-CPU, run-queue and
 * child-wait time) by the states sampled in it, each sample standing for per_sample_s
 * seconds. Each state sampled keeps its sampled time. A short wait that blocks and wakes
 * between two samples is rarely caught (a 4 KiB O_DIRECT read: ~50 us in D), so off-CPU
 * time past the samples goes to the disk where the threads moved at least io_min_bytes
 * of storage (io_bytes; NAN unknown) and were seen in D on storage at least as often as
 * off the CPU any other way (or not at all); else it is shared in proportion to the
 * states sampled, and without any it stays in none. Where n->io_clock_idle, that time is
 * never the disk's: it is shared by the other states sampled (a fork storm's two samples
 * in D had made it io-bound). Where the samples stand for more than off_s, off_s is
 * shared in proportion to them. Pure (doc/classification.md, section 2). */
void cpw_classify_split_off_cpu(double off_s, double per_sample_s, const struct cpw_classify_off_samples *n,
				double io_bytes, struct cpw_classify_off_split *out);

#endif
