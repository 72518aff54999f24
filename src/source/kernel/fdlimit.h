/*
 * fdlimit.h: the open-files limit (RLIMIT_NOFILE) cperfwatch works within (fdlimit.c).
 *
 * cperfwatch keeps descriptors open between samples (a read instead of open, read and
 * close), so it raises its own soft limit to the hard one; the command it runs gets back
 * the limit it was given, so that watching it changes nothing it can see.
 */
#ifndef CPW_SOURCE_KERNEL_FDLIMIT_H
#define CPW_SOURCE_KERNEL_FDLIMIT_H

#include <stddef.h>

/* The fewest descriptors a watch needs: standard streams, the held files (pressure,
 * memory, vmstat), the exit-record socket, the launch's pipes and one /proc file at a time,
 * with room to spare. */
#define CPW_FDLIMIT_MIN 32

/* Raises the soft limit to the hard one (at most 65536) and remembers the one given.
 * Returns the limit now in force, or -EMFILE with a line in err when even the hard limit
 * is below CPW_FDLIMIT_MIN (nothing could be watched reliably). */
long cpw_fdlimit_raise(char *err, size_t errlen);
/* In the command's child, before its exec: puts back the soft limit it was given.
 * Async-signal-safe (one system call). */
void cpw_fdlimit_restore(void);

#endif
