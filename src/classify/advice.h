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

/* Fills v->advice for v->cls (and v->secondary where the run is mixed), adding what the
 * metrics make concrete: idle cores, oversubscription, the memory limit. Pure. */
void cpw_advice_fill(const struct cpw_metrics *m, struct cpw_verdict *v);

#endif
