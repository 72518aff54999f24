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

#endif
