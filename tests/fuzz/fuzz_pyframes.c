/*
 * fuzz_pyframes.c: fuzz target for the Python frame-chain parser (cpw_python_frames_walk),
 * the window a partial read leaves (cpw_python_frames_plan, cpw_python_frames_window) and
 * a frame's line from a location table (cpw_python_lines_at: the window's bytes as a table).
 *
 * The window is the watched process's memory, read while it runs: any bytes at all. The
 * first byte picks the layout (3.11 or 3.12), the next 8 the frame to start from (an offset
 * into the window), the next 2 how much of a planned read came back; the rest is the window.
 * Invariants: the walk ends, takes at most max records, each whole inside the window, and
 * the next frame it leaves is none or one it did not take; a window never outgrows its read;
 * a line is -1 or one the table's deltas can reach, read inside the table.
 */
#include "config.h"
#include "fuzz.h"

#include "source/python/python_frames.h"
#include "source/python/python_layout.h"
#include "source/python/python_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 11)
		return 0;
	struct cpw_py_layout l;
	char why[200];
	if (!cpw_python_layout_for(3, 11 + (data[0] & 1), &l, why, sizeof(why)))
		abort();
	uint64_t off;
	memcpy(&off, data + 1, sizeof(off));
	size_t got = (size_t)data[9] << 8 | data[10];
	data += 11;
	size -= 11;
	const uint64_t base = 0x7f0000000000ull;
	uint8_t *buf = (uint8_t *)fuzz_copy(data, size, 0);
	struct cpw_py_window w = { base, buf, size };
	uint64_t frame = base + (size ? (off % (size + 64)) & ~7ull : 0);
	struct cpw_py_frame_rec out[16];
	int n = cpw_python_frames_walk(&l, &w, &frame, out, 16, 1 + (int)(off >> 60));
	FUZZ_ASSERT(n >= -1 && n <= 16);
	for (int i = 0; i < n; i++) {
		FUZZ_ASSERT(cpw_python_frames_in_window(&w, out[i].addr, l.frame_size));
		FUZZ_ASSERT(out[i].owner <= CPW_PY_FRAME_OWNED_BY_CSTACK && out[i].previous != out[i].addr);
	}
	if (n > 0)
		FUZZ_ASSERT(frame == out[n - 1].previous);
	/* The same bytes as a location table (a copy of exactly its length: ASan sees a read
	 * past it), at an offset from the input. */
	int line = cpw_python_lines_at(buf, size, (int)(off & 0xffff), (off >> 16) % 4096);
	FUZZ_ASSERT(line >= -1 && line <= 10000000);
	free(buf);

	/* A planned read around an address from the input, got bytes of it back. */
	struct cpw_py_piece p[CPW_PY_WINDOW_PIECES];
	uint64_t at = 4096 + (off % (1ull << 46)), pbase, total = 0;
	size_t np = cpw_python_frames_plan(at & ~7ull, l.frame_size, off >> 20, &pbase, p);
	FUZZ_ASSERT(np >= 1 && np <= CPW_PY_WINDOW_PIECES);
	for (size_t i = 0; i < np; i++) {
		FUZZ_ASSERT(p[i].addr >= pbase && p[i].addr >= 4096 && p[i].len > 0);
		total += p[i].len;
	}
	FUZZ_ASSERT(total <= CPW_PY_WINDOW_MAX);
	uint8_t win[CPW_PY_WINDOW_MAX];
	struct cpw_py_window pw = { 0, win, 0 };
	if (cpw_python_frames_window(p, np, pbase, got, &pw)) {
		FUZZ_ASSERT(pw.len <= got && pw.len <= total);
		FUZZ_ASSERT(pw.buf >= win && pw.buf + pw.len <= win + sizeof(win));
		FUZZ_ASSERT(cpw_python_frames_in_window(&pw, at & ~7ull, l.frame_size));
	}
	return 0;
}
