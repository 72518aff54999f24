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

#include "util/escape.h"

const char *const cpw_outname_rank_variables[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL,
};

long cpw_outname_rank(const struct cpw_outname_env *env, const char **var)
{
	for (const char *const *name = cpw_outname_rank_variables; *name; name++) {
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

/* Where snprintf() cut s short, it may have cut a UTF-8 sequence in two: what is left of
 * it goes too, so that s stays valid UTF-8. */
static void cut_whole(char *s)
{
	size_t n = strlen(s), lead = n;
	while (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead == 0 || (unsigned char)s[lead - 1] < 0xc0)
		return;
	unsigned char c = (unsigned char)s[lead - 1];
	size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (n - (lead - 1) < want)
		s[lead - 1] = '\0';
}

/* The messages name the pattern (shown) and bytes of it, escaped as the reports escape a
 * name, since they end up on a terminal. */
#define FAIL(...)                                                       \
	do {                                                            \
		cpw_escape_for_terminal(pattern, shown, sizeof(shown)); \
		if (errlen) {                                           \
			snprintf(err, errlen, __VA_ARGS__);             \
			cut_whole(err);                                 \
		}                                                       \
		return -1;                                              \
	} while (0)

int cpw_outname_expand(const char *pattern, const struct cpw_outname_env *env, char *out,
		       size_t len, char *err, size_t errlen)
{
	size_t used = 0;
	char number[32], shown[1024], part[1024];

	if (len == 0)
		FAIL("'%s' expands to a name too long", shown); /* not even room for the NUL */
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
					FAIL("'%s': %%h, but this machine's host name is unknown", shown);
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
					     shown);
				if (rank < 0)
					FAIL("'%s': %%r, but %s is not a rank (a whole number)", shown, var);
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
					FAIL("'%s': %%q needs a variable name in braces, as in %%q{JOB_ID}", shown);
				memcpy(name, p + 3, (size_t)(close - p - 3));
				name[close - p - 3] = '\0';
				text = env->getvar(name, env->ctx);
				if (!text) {
					cpw_escape_for_terminal(name, part, sizeof(part));
					FAIL("'%s': %%q{%s}, but %s is not set", shown, part, part);
				}
				n = strlen(text);
				p = close;
				break;
			}
			case '\0':
				FAIL("'%s' ends in a lone %% (write %%%% for a per cent sign)", shown);
			default: {
				char c[2] = { p[1], '\0' };
				cpw_escape_for_terminal(c, part, sizeof(part));
				FAIL("'%s': unknown %%%s (known: %%r %%h %%p %%q{VAR} %%%%)", shown, part);
			}
			}
		}
		if (!append(out, len, &used, text, n))
			FAIL("'%s' expands to a name too long", shown);
	}
	return 0;
}

void cpw_outname_short_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0) {
		buf[0] = '\0';
		return;
	}
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}
