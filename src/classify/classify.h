/*
 * classify.h: the classifier (classify.c), a pure function from a run's metrics to a
 * verdict (verdict.h).
 */
#ifndef CPW_CLASSIFY_CLASSIFY_H
#define CPW_CLASSIFY_CLASSIFY_H

#include "classify/verdict.h"
#include "model/metrics.h"

/* Pure: no I/O, no globals written. */
void cpw_classify(const struct cpw_metrics *m, struct cpw_verdict *v);
/* Fills v->advice again for v's class from m, with what the rules conclude from m (a lock
 * the threads take turns on, the GIL, saturated CPUs): the phases re-judge parallelism on
 * the cpu-bound phases alone and advise from that. Pure. */
void cpw_classify_advise(const struct cpw_metrics *m, struct cpw_verdict *v);

#endif
