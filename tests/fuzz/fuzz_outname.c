/*
 * fuzz_outname.c: fuzz target for cpw_outname_expand (util/outname.h), the -o name of one
 * rank of a job (%r %h %p %q{VAR} %%).
 *
 * Input: byte 0 picks the output size (0..255, heap-allocated to exactly that), byte 1 the
 * environment (bit 0: a rank variable is set, bit 1: to a value that is not a rank, bit 2:
 * the host name is unknown), the rest is the pattern. Invariants: the result is 0 or -1;
 * 0 leaves a NUL-terminated name within the buffer, the same as with room to spare; -1
 * leaves one sentence, valid UTF-8 without a control byte (the pattern is echoed escaped);
 * what cannot expand with room to spare cannot with less; a pattern without % is itself.
 */
#include "config.h"
#include "fuzz.h"

#include "util/outname.h"

/* A small environment; JOB holds a % and a /, EMPTY is set and empty. */
static const char *const vars_rank[] = { "SLURM_PROCID=12", "JOB=a%r/b", "EMPTY=", NULL };
static const char *const vars_bad[] = { "PMI_RANK=1x", "JOB=a%r/b", "EMPTY=", NULL };
static const char *const vars_none[] = { "JOB=a%r/b", "EMPTY=", NULL };

static const char *getvar(const char *name, const void *ctx)
{
	for (const char *const *kv = ctx; *kv; kv++) {
		size_t n = strlen(name);
		if (strncmp(*kv, name, n) == 0 && (*kv)[n] == '=')
			return *kv + n + 1;
	}
	return NULL;
}

#define BIG 8192
#define ERRLEN 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t len = data[0];
	uint8_t flags = data[1];
	char *pattern = fuzz_copy(data + 2, size - 2, 1);
	struct cpw_outname_env env = {
		getvar, !(flags & 1) ? vars_none : (flags & 2) ? vars_bad : vars_rank,
		(flags & 4) ? NULL : "node7", 4242,
	};
	char *out = malloc(len ? len : 1), *err = malloc(ERRLEN);
	char *big = malloc(BIG), *big_err = malloc(ERRLEN);
	FUZZ_ASSERT(out && err && big && big_err);
	err[0] = big_err[0] = '\0';

	int rc = cpw_outname_expand(pattern, &env, out, len, err, ERRLEN);
	int big_rc = cpw_outname_expand(pattern, &env, big, BIG, big_err, ERRLEN);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	FUZZ_ASSERT(big_rc == 0 || big_rc == -1);
	if (rc == 0) {
		FUZZ_ASSERT(len > 0 && memchr(out, '\0', len) != NULL);
		FUZZ_ASSERT(big_rc == 0 && strcmp(out, big) == 0);
	} else {
		FUZZ_ASSERT(err[0] && memchr(err, '\0', ERRLEN) != NULL);
		FUZZ_ASSERT(fuzz_valid_utf8(err, 1));
	}
	if (big_rc != 0)
		FUZZ_ASSERT(rc != 0 && fuzz_valid_utf8(big_err, 1));
	if (!strchr(pattern, '%') && strlen(pattern) < BIG)
		FUZZ_ASSERT(big_rc == 0 && strcmp(big, pattern) == 0);
	free(out);
	free(err);
	free(big);
	free(big_err);
	free(pattern);
	return 0;
}
