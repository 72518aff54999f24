/*
 * fuzz_escape.c: fuzz target for cpw_escape_for_terminal and cpw_escape_utf8 (report.h).
 *
 * Whatever a command names itself, the terminal form holds no control byte and is valid
 * UTF-8 without C1 controls, the JSON form is valid UTF-8, both fit their buffer, and with
 * room enough nothing is cut: every input byte is either copied or written as \xNN.
 * The first byte picks the output size (0..255), heap-allocated to exactly that.
 */
#include "config.h"
#include "fuzz.h"

#include "util/escape.h"

/* The length an escaped form must have when nothing was cut: each byte kept or 4 bytes. */
static int plausible_full(const char *src, const char *dst)
{
	size_t n = strlen(src), m = strlen(dst);
	return m >= n && m <= 4 * n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t dstlen = data[0];
	data++, size--;
	char *src = fuzz_copy(data, size, 1);
	char *dst = malloc(dstlen ? dstlen : 1);
	FUZZ_ASSERT(dst != NULL);

	cpw_escape_for_terminal(src, dst, dstlen);
	if (dstlen) {
		FUZZ_ASSERT(memchr(dst, '\0', dstlen) != NULL);
		FUZZ_ASSERT(fuzz_valid_utf8(dst, 1));
	}
	cpw_escape_utf8(src, dst, dstlen);
	if (dstlen) {
		FUZZ_ASSERT(memchr(dst, '\0', dstlen) != NULL);
		FUZZ_ASSERT(fuzz_valid_utf8(dst, 0));
	}
	free(dst);

	size_t biglen = 4 * strlen(src) + 1;
	char *big = malloc(biglen);
	FUZZ_ASSERT(big != NULL);
	cpw_escape_for_terminal(src, big, biglen);
	FUZZ_ASSERT(fuzz_valid_utf8(big, 1) && plausible_full(src, big));
	if (fuzz_valid_utf8(src, 1))
		FUZZ_ASSERT(strcmp(src, big) == 0); /* clean text is left alone */
	cpw_escape_utf8(src, big, biglen);
	FUZZ_ASSERT(fuzz_valid_utf8(big, 0) && plausible_full(src, big));
	free(big);
	free(src);
	return 0;
}
