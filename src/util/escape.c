/*
 * escape.c: making strings from the kernel safe to print.
 *
 * A command name is whatever the program chose: spaces, parentheses, newlines, escape
 * sequences, invalid UTF-8. Text and the live view get control bytes and invalid UTF-8 as
 * \xNN, so nothing reaches the terminal as a control sequence; JSON gets the same
 * treatment for invalid UTF-8 (json-c escapes control characters itself).
 */
#include "config.h"
#include "util/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	/* C1 controls (U+0080..U+009F) act as escape sequences on some terminals. */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return len;
}

static void escape(const char *src, char *dst, size_t dstlen, int escape_controls)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = strlen(src), out = 0;

	if (dstlen == 0)
		return;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence(s + i, n - i);
		bool control = len == 1 && (s[i] < 0x20 || s[i] == 0x7f);
		if (len == 0 || (control && escape_controls)) {
			if (out + 4 >= dstlen)
				break;
			snprintf(dst + out, dstlen - out, "\\x%02x", s[i]);
			out += 4;
			i++;
			continue;
		}
		if (out + len >= dstlen)
			break;
		memcpy(dst + out, s + i, len);
		out += len;
		i += len;
	}
	dst[out] = '\0';
}

void cpw_escape_for_terminal(const char *src, char *dst, size_t dstlen)
{
	escape(src, dst, dstlen, 1);
}

void cpw_escape_utf8(const char *src, char *dst, size_t dstlen)
{
	escape(src, dst, dstlen, 0);
}
