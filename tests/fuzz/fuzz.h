/*
 * fuzz.h: what every fuzz target shares: the libFuzzer entry point's prototype and small
 * helpers to turn fuzz bytes into the exact-size buffers the parsers get (so a read one byte
 * past the end is caught by ASan, both under libFuzzer and in the plain replay driver).
 *
 * A target aborts on a broken invariant: that is how a wrong result, not only a crash,
 * becomes a finding.
 */
#ifndef CPW_FUZZ_H
#define CPW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message naming the broken invariant. */
#define FUZZ_ASSERT(cond)                                                              \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__,     \
				__LINE__, #cond);                                      \
			abort();                                                       \
		}                                                                      \
	} while (0)

/* A heap copy of data, exactly size bytes long (plus a NUL when nul is true). */
static inline char *fuzz_copy(const uint8_t *data, size_t size, int nul)
{
	char *p = malloc(size + (nul ? 1 : 0) + (size == 0 && !nul ? 1 : 0));
	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	else
		p[0] = '\0'; /* never read by a parser given size 0; keeps compilers quiet */
	if (nul)
		p[size] = '\0';
	return p;
}

/* True when s (a NUL-terminated string) is valid UTF-8 without C0/C1 controls or DEL when
 * no_controls, or just valid UTF-8 otherwise. */
static inline int fuzz_valid_utf8(const char *s, int no_controls)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp, n;
		if (*p < 0x80) {
			if (no_controls && (*p < 0x20 || *p == 0x7f))
				return 0;
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0)
			n = 2, cp = *p & 0x1fu;
		else if ((*p & 0xf0) == 0xe0)
			n = 3, cp = *p & 0x0fu;
		else if ((*p & 0xf8) == 0xf0)
			n = 4, cp = *p & 0x07u;
		else
			return 0;
		for (unsigned i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i] & 0x3fu);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		if (no_controls && cp >= 0x80 && cp <= 0x9f)
			return 0;
		p += n;
	}
	return 1;
}

#endif
