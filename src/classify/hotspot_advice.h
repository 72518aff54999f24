/*
 * hotspot_advice.h: what the hotspots add to cpu-bound advice (hotspot_advice.c, pure):
 * the top functions, each with its share of the CPU and the kind of code it is.
 */
#ifndef CPW_CLASSIFY_HOTSPOT_ADVICE_H
#define CPW_CLASSIFY_HOTSPOT_ADVICE_H

#include <stddef.h>

#include "classify/verdict.h"
#include "model/hotspots.h"

/* One sentence naming the top functions ("71% in libz (deflate_slow): the time is in zlib
 * itself"), written to buf; "" where nothing was sampled. Returns its length. */
size_t cpw_hotspot_advice(const struct cpw_hotspots *h, char *buf, size_t len);
/* Appends that sentence to a cpu-bound verdict's advice, or to one whose secondary is
 * cpu-bound (cpu-starved beside other load); nothing for another class or h == NULL. */
void cpw_hotspot_advice_append(const struct cpw_hotspots *h, struct cpw_verdict *v);

/* Names what serialised threads run: the finding "N threads, about one core at a time:
 * they take turns on a lock" gets ", running spin (gil_threads.py:12), 90% of the CPU",
 * from the top function (any class of verdict; nothing where too little was sampled). */
void cpw_hotspot_advice_name_turns(const struct cpw_hotspots *h, struct cpw_verdict *v);

#endif
