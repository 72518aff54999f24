/*
 * svg_text.c: text inside an SVG picture's markup (report/svg_text.h).
 */
#include "config.h"
#include "report/svg_text.h"

void cpw_svg_text_put(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* XML 1.0 allows no control character but tab and newlines: none is meant
			 * in a name (DEL is allowed, but shows as nothing). */
			fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], out);
		}
	}
}
