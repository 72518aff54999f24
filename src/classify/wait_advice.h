/*
 * wait_advice.h: advice for what the tree waits on (wait_advice.c): one text per kind of
 * wait (network, lock, timer, child, pipe...) naming its target, and the files an io-bound
 * run waits on. Used by advice.c; pure.
 */
#ifndef CPW_CLASSIFY_WAIT_ADVICE_H
#define CPW_CLASSIFY_WAIT_ADVICE_H

#include <stddef.h>
#include "model/metrics.h"

/* The advice of a waiting verdict whose dominant kind is known (m->wait_kind), into out.
 * Returns false (out untouched) when m names no kind. */
bool cpw_wait_advice(const struct cpw_metrics *m, char *out, size_t outlen);

/* " Most of the disk waits are on FILE (and N other files)." for an io-bound verdict;
 * false (out untouched) when no file is known. */
bool cpw_wait_advice_files(const struct cpw_metrics *m, char *out, size_t outlen);

#endif
