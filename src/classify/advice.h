/*
 * advice.h: the advice text of a verdict (advice.c), used by classify.c. Internal to the
 * classifier: report writers read verdict.advice, already filled.
 */
#ifndef CPW_CLASSIFY_ADVICE_H
#define CPW_CLASSIFY_ADVICE_H

#include "classify/verdict.h"
#include "model/metrics.h"

/* The short, generic advice for one class ("" for CPW_CLASS_NONE or an invalid value). */
const char *cpw_advice_for(enum cpw_class cls);

/* What the classifier concluded beyond the class, so the advice never contradicts it. */
struct cpw_advice_facts {
	double cores;       /* the CPUs the tree may use, as its threads saw them; NAN: unknown */
	double cores_used;  /* (user + sys) / wall; NAN */
	double runnable;    /* the tree's mean runnable threads; NAN */
	bool oversub;       /* its own threads oversubscribe its CPUs */
	bool saturated;     /* it already keeps its CPUs busy: parallelising will not help */
	bool serialised;    /* the busiest process's threads take turns on a lock */
	int threads;        /* ... how many of them did the CPU work */
	bool python;        /* the busiest process is Python: its threads share the GIL */
	bool spawn;         /* the CPU work is creating processes (a fork storm) */
	unsigned nprocs;    /* ... how many were started */
	double spawn_ms;    /* ... CPU milliseconds each; NAN */
	bool first_touch;   /* memory-bound by page faults alone (no counters say so): the
			     * time goes to first touches of fresh memory, not cache misses */
};

/* Fills v->advice for v->cls (and v->secondary where the run is mixed), adding what the
 * facts make concrete: idle cores, oversubscription, a lock or the GIL, the memory limit.
 * f may be NULL (nothing known beyond the class). Pure. */
void cpw_advice_fill(const struct cpw_metrics *m, const struct cpw_advice_facts *f,
		     struct cpw_verdict *v);

/* Replaces the first from in v's advice with to; left as it is where the result would not
 * fit (to longer than from, in an advice near full). */
void cpw_advice_replace(struct cpw_verdict *v, const char *from, const char *to);
/* Appends sep and text to v's advice, cut where it would not fit, the cut ending in "..."
 * (so that it shows); nothing where not even that fits. */
void cpw_advice_append(struct cpw_verdict *v, const char *sep, const char *text);

#endif
