/*
 * collect.h: turns the model (tree totals, per-process figures) into the classifier's
 * metrics (model/metrics.c). Sources that are not per-process (rusage, PSI, cgroup,
 * counters) are added by their callers.
 */
#ifndef CPERFWATCH_COLLECT_H
#define CPERFWATCH_COLLECT_H

#include "cperfwatch/metrics.h"
#include "cperfwatch/tree.h"

/* Fills the thread-state, schedstat, fault, IO, RSS, context-switch and concentration
 * fields of m from the tree. Time fields are left to the caller. */
void cpw_metrics_from_tree(struct cpw_metrics *m, const struct cpw_tree *t);

#endif
