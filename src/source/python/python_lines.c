/*
 * python_lines.c: a frame's line from its code's location table (python_lines.h).
 */
#include "config.h"
#include "source/python/python_lines.h"

#include <stdbool.h>

/* The kinds of entry, bits 3-6 of its first byte (Include/cpython/code.h,
 * _PyCodeLocationInfoKind): 0-9 the short form (same line), 10-12 one line, delta 0-2,
 * 13 no columns and 14 the long form (a signed varint delta), 15 no location. */
#define LOC_ONE_LINE0 10
#define LOC_ONE_LINE2 12
#define LOC_NO_COLUMNS 13
#define LOC_LONG 14
#define LOC_NONE 15
#define LINE_MAX_PLAUSIBLE 10000000

/* A varint of 6-bit chunks, bit 6 set on each but the last, at table[*i]. */
static bool varint(const uint8_t *table, size_t len, size_t *i, uint32_t *out)
{
	if (*i >= len)
		return false;
	uint32_t b = table[(*i)++], v = b & 63;
	for (unsigned shift = 6; b & 64; shift += 6) {
		if (*i >= len || shift > 24)
			return false;
		b = table[(*i)++];
		v |= (b & 63) << shift;
	}
	*out = v;
	return true;
}

int cpw_python_lines_at(const uint8_t *table, size_t len, int first_line, uint64_t addr)
{
	if (!table || addr % 2)
		return -1;
	int64_t line = first_line;
	uint64_t start = 0;
	for (size_t i = 0; i < len;) {
		uint8_t b = table[i];
		if (!(b & 0x80))
			return -1; /* an entry starts with its top bit set */
		unsigned kind = (b >> 3) & 15;
		uint64_t end = start + 2 * (uint64_t)((b & 7) + 1);
		size_t j = i + 1;
		if (kind == LOC_NO_COLUMNS || kind == LOC_LONG) {
			uint32_t u;
			if (!varint(table, len, &j, &u))
				return -1;
			line += (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
		} else if (kind >= LOC_ONE_LINE0 && kind <= LOC_ONE_LINE2) {
			line += kind - LOC_ONE_LINE0;
		}
		if (line < 0 || line > LINE_MAX_PLAUSIBLE)
			return -1;
		if (addr < end)
			return kind == LOC_NONE ? -1 : (int)line;
		/* the next entry: past this one's bytes, none of which has its top bit set */
		for (i++; i < len && !(table[i] & 0x80); i++)
			;
		start = end;
	}
	return -1;
}
