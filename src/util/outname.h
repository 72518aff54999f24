/*
 * outname.h: the -o file name of one process of a job (outname.c): %r the rank, %h the
 * short host name, %p cperfwatch's pid, %q{VAR} an environment variable (as valgrind's
 * --log-file does), %% a per cent sign. Pure: the environment is handed in.
 */
#ifndef CPW_UTIL_OUTNAME_H
#define CPW_UTIL_OUTNAME_H

#include <stddef.h>

struct cpw_outname_env {
	const char *(*getvar)(const char *name, const void *ctx); /* NULL when unset */
	const void *ctx;
	const char *host; /* short host name; NULL when unknown */
	long pid;
};

/* The environment variables that carry a process's rank, in the order they are asked:
 * OpenMPI, PMIx, MPICH/Intel MPI (PMI), Slurm. NULL-terminated. */
extern const char *const cpw_outname_rank_variables[];

/* The rank of this process: the first of cpw_outname_rank_variables that is set. Returns it (>= 0),
 * -1 when none is set, -2 when the first set one is not a whole number (*var names it). */
long cpw_outname_rank(const struct cpw_outname_env *env, const char **var);

/* Expands pattern into out. Returns 0, or -1 with one sentence in err (an unset variable,
 * no rank variable for %r, an unknown %x, a name longer than len), in which the pattern
 * and its bytes are escaped as util/escape.h escapes a name for a terminal. */
int cpw_outname_expand(const char *pattern, const struct cpw_outname_env *env, char *out,
		       size_t len, char *err, size_t errlen);

/* This machine's host name up to its first dot, into buf (empty when unknown). */
void cpw_outname_short_hostname(char *buf, size_t len);

#endif
