/*
 * outname.c: expanding %r, %h, %p, %q{VAR} and %% in the -o file name, so that each
 * process of an MPI or Slurm job writes a file of its own (see outname.h).
 */
#include "config.h"
#include "util/outname.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const cpw_rank_variables[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL,
};

long cpw_outname_rank(const struct cpw_outname_env *env, const char **var)
{
	for (const char *const *name = cpw_rank_variables; *name; name++) {
		const char *value = env->getvar(*name, env->ctx);
		if (!value)
			continue;
		*var = *name;
		char *end;
		errno = 0;
		long rank = strtol(value, &end, 10);
		if (!*value || *end || errno || rank < 0 || value[0] < '0' || value[0] > '9')
			return -2;
		return rank;
	}
	*var = NULL;
	return -1;
}

/* Appends text to out at *used; false when it does not fit. */
static bool append(char *out, size_t len, size_t *used, const char *text, size_t n)
{
	if (*used + n >= len)
		return false;
	memcpy(out + *used, text, n);
	*used += n;
	out[*used] = '\0';
	return true;
}

#define FAIL(...)                                       \
	do {                                            \
		snprintf(err, errlen, __VA_ARGS__);     \
		return -1;                              \
	} while (0)

int cpw_outname_expand(const char *pattern, const struct cpw_outname_env *env, char *out,
		       size_t len, char *err, size_t errlen)
{
	size_t used = 0;
	char number[32];

	if (len)
		out[0] = '\0';
	for (const char *p = pattern; *p; p++) {
		const char *text = p;
		size_t n = 1;
		if (*p == '%') {
			switch (p[1]) {
			case '%':
				p++;
				break;
			case 'p':
				snprintf(number, sizeof(number), "%ld", env->pid);
				text = number;
				n = strlen(number);
				p++;
				break;
			case 'h':
				if (!env->host || !env->host[0])
					FAIL("'%s': %%h, but this machine's host name is unknown", pattern);
				text = env->host;
				n = strlen(text);
				p++;
				break;
			case 'r': {
				const char *var;
				long rank = cpw_outname_rank(env, &var);
				if (rank == -1)
					FAIL("'%s': %%r, but no rank variable is set (OMPI_COMM_WORLD_RANK, "
					     "PMIX_RANK, PMI_RANK or SLURM_PROCID: run under mpirun or srun)",
					     pattern);
				if (rank < 0)
					FAIL("'%s': %%r, but %s is not a rank (a whole number)", pattern, var);
				snprintf(number, sizeof(number), "%ld", rank);
				text = number;
				n = strlen(number);
				p++;
				break;
			}
			case 'q': {
				const char *close = p[2] == '{' ? strchr(p + 3, '}') : NULL;
				char name[256];
				if (!close || close == p + 3 || (size_t)(close - p - 3) >= sizeof(name))
					FAIL("'%s': %%q needs a variable name in braces, as in %%q{JOB_ID}", pattern);
				memcpy(name, p + 3, (size_t)(close - p - 3));
				name[close - p - 3] = '\0';
				text = env->getvar(name, env->ctx);
				if (!text)
					FAIL("'%s': %%q{%s}, but %s is not set", pattern, name, name);
				n = strlen(text);
				p = close;
				break;
			}
			case '\0':
				FAIL("'%s' ends in a lone %% (write %%%% for a per cent sign)", pattern);
			default:
				FAIL("'%s': unknown %%%c (known: %%r %%h %%p %%q{VAR} %%%%)", pattern, p[1]);
			}
		}
		if (!append(out, len, &used, text, n))
			FAIL("'%s' expands to a name too long", pattern);
	}
	return 0;
}

void cpw_short_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0) {
		buf[0] = '\0';
		return;
	}
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}
