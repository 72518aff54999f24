/*
 * leak_finding.h: memory that grows and is not given back, named (classify/leak_finding.c).
 *
 * Reads the tree's resident-set series (model/leak.h: one per process and one for the
 * tree's sum) with the leak_* thresholds, lists each leak (the JSON's `leaks`) and adds
 * one finding to the verdict: the process, its rate and when it began. A warm-up that
 * levels off is no leak and is not listed. Pure.
 */
#ifndef CPW_CLASSIFY_LEAK_FINDING_H
#define CPW_CLASSIFY_LEAK_FINDING_H

#include <stdbool.h>

#include "classify/verdict.h"
#include "model/leak.h"
#include "model/tree.h"

#define CPW_LEAKS_MAX 8

struct cpw_leak_item {
	const struct cpw_proc *proc; /* the tree's process; NULL: the tree's sum */
	struct cpw_leak leak;
};

struct cpw_leaks {
	struct cpw_leak_item item[CPW_LEAKS_MAX]; /* processes by rate, fastest first, then the tree */
	int n;
	unsigned more; /* leaking processes left out past CPW_LEAKS_MAX */
};

/* The detector's limits, from the thresholds table. */
void cpw_leak_finding_limits(struct cpw_leak_limits *lim);

/* Fills leaks from the tree and adds the finding to v (in the last slot where the findings
 * are full: a leak outranks a figure). t may be NULL (no leaks). */
void cpw_leak_finding_add(const struct cpw_tree *t, struct cpw_leaks *leaks, struct cpw_verdict *v);

#endif
