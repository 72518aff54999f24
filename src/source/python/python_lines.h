/*
 * python_lines.h: the line a CPython frame is at, from its code object's location table
 * (co_linetable: the format of CPython 3.11 to 3.13, Objects/locations.md), pure.
 *
 * The table is a run of entries, each covering a few code units (2 bytes each) and saying
 * how the line moves from the one before, from the function's first line on. Used for the
 * waits (the line a thread waits on: "fetch (netwait.py:23)"); the hotspots keep one name
 * per function, its first line.
 */
#ifndef CPW_SOURCE_PYTHON_PYTHON_LINES_H
#define CPW_SOURCE_PYTHON_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at byte offset addr of the code, whose table is
 * table[0, len) and whose first line is first_line; -1 where the table gives none (an
 * instruction without a location, an offset past the table, a malformed table). Safe on
 * any input (fuzzed). */
int cpw_python_lines_at(const uint8_t *table, size_t len, int first_line, uint64_t addr);

#endif
