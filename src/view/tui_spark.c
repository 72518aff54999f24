/*
 * tui_spark.c: history sparklines for the live view (tui.h).
 *
 * One cell per sample, newest on the right, eight levels: the Unicode lower blocks where
 * the terminal speaks UTF-8, an ASCII ramp elsewhere. Pure; writes into the caller's
 * buffer so drawing allocates nothing.
 */
#include "config.h"
#include "view/tui.h"
#include "util/round.h"

#include <math.h>
#include <string.h>

static const char *const blocks[8] = {
	"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
};
static const char ramp[8] = { '_', '.', ',', '-', '=', '+', '*', '#' };

int cpw_tui_sparkline(const struct cpw_history *h, const double *series, int width, double max,
		      bool utf8, char *out, size_t outlen)
{
	size_t used = 0;
	int cells = 0;

	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (width <= 0)
		return 0;
	size_t shown = h->count < (size_t)width ? h->count : (size_t)width;
	size_t first = h->count - shown;

	if (max <= 0 || !isfinite(max)) {
		max = 0;
		for (size_t i = first; i < h->count; i++) {
			double v = cpw_tree_history_at(h, series, i);
			if (isfinite(v) && v > max)
				max = v;
		}
	}
	for (int pad = width - (int)shown; pad > 0 && used + 1 < outlen; pad--, cells++)
		out[used++] = ' ';
	for (size_t i = first; i < h->count; i++) {
		double v = cpw_tree_history_at(h, series, i);
		const char *cell;
		char ascii[2] = { ' ', '\0' };
		if (!isfinite(v) || v < 0) {
			cell = " ";
		} else {
			/* Level 0 is a visible floor: an idle stretch still reads as a line. */
			int level = max > 0 ? (int)cpw_round(v / max * 7.0) : 0;
			if (level > 7)
				level = 7;
			if (level < 0)
				level = 0;
			if (utf8) {
				cell = blocks[level];
			} else {
				ascii[0] = ramp[level];
				cell = ascii;
			}
		}
		size_t n = strlen(cell);
		if (used + n >= outlen)
			break;
		memcpy(out + used, cell, n);
		used += n;
		cells++;
	}
	out[used] = '\0';
	return cells;
}
