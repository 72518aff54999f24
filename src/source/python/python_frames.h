/*
 * python_frames.h: a thread's _PyInterpreterFrame chain parsed from a window of the target's
 * memory (python_frames.c), pure. From 3.11 a thread's frames live in its data stack chunks,
 * contiguous, each caller below its callee: one read of the pages under the innermost frame
 * holds most of a stack, where one read per frame cost a system call each (a pool worker's
 * 15 frames were 30 reads a tick). The window is read in pieces, the innermost frame's pages
 * first and then each page below: process_vm_readv stops at the first piece not mapped and
 * keeps those before, so an end of the chunk below costs nothing but the pages past it.
 */
#ifndef CPW_SOURCE_PYTHON_PYTHON_FRAMES_H
#define CPW_SOURCE_PYTHON_PYTHON_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/python/python_layout.h"

#define CPW_PY_PAGE 4096u
/* Pages read below the innermost frame's own page. */
#define CPW_PY_WINDOW_PAGES 2u
/* The most pieces a window is read in, and its most bytes (a frame of at most 512 bytes
 * lies on two pages at most). */
#define CPW_PY_WINDOW_PIECES (CPW_PY_WINDOW_PAGES + 1u)
#define CPW_PY_WINDOW_MAX ((CPW_PY_WINDOW_PAGES + 2u) * CPW_PY_PAGE)

/* A piece of the target's memory to read: [addr, addr + len), into the window's buffer at
 * addr - base. */
struct cpw_py_piece {
	uint64_t addr, len;
};

/* The bytes of the target copied from base on: buf[0, len) is [base, base + len). */
struct cpw_py_window {
	uint64_t base;
	const uint8_t *buf;
	size_t len;
};

/* One frame of the chain as read: its address, its code object, its caller, its owner. */
struct cpw_py_frame_rec {
	uint64_t addr, code, previous;
	uint64_t instr; /* the instruction it is at (python_layout.h's frame_instr) */
	uint8_t owner;
};

/* Whether p may be an object's or a frame's address: in user space, not the first page,
 * 8-aligned. */
bool cpw_python_frames_plausible(uint64_t p);

/* The pieces to read for the window under a frame at frame (frame_size bytes, at most 512):
 * first the whole pages that hold it, then each page below down to lo's (0: as many as
 * CPW_PY_WINDOW_PAGES, none under 4096). Whole pages: a page is pinned whole by the kernel
 * whatever part of it is read, and a page is mapped whole or not at all. Fills base (the
 * lowest address) and out; returns how many pieces. */
size_t cpw_python_frames_plan(uint64_t frame, uint64_t frame_size, uint64_t lo, uint64_t *base,
			      struct cpw_py_piece out[CPW_PY_WINDOW_PIECES]);

/* The window the pieces gave when process_vm_readv copied got bytes of them (in order, a
 * piece whole or not at all) into the buffer w->buf holds (base's byte at its start): w's
 * base, length and buf moved to the lowest piece copied. False when the first piece was not
 * copied whole (the frame itself was not read). */
bool cpw_python_frames_window(const struct cpw_py_piece *pieces, size_t n, uint64_t base, size_t got,
			      struct cpw_py_window *w);

/* Whether the frame at f (size bytes) lies whole in w. */
bool cpw_python_frames_in_window(const struct cpw_py_window *w, uint64_t f, uint64_t size);

/* Walks the chain from *frame while each frame lies whole inside w: at most max records
 * into out, and none past the want-th frame of a Python function (one not owned by the C
 * stack). Returns how many were taken, *frame then the next frame to read (0: the chain
 * ended); -1 when the chain is torn: a frame's owner out of range, a frame its own caller,
 * or a caller's address implausible. */
int cpw_python_frames_walk(const struct cpw_py_layout *l, const struct cpw_py_window *w, uint64_t *frame,
			   struct cpw_py_frame_rec *out, int max, int want);

#endif
