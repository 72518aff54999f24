/*
 * python_frames.c: a frame chain parsed from a window of the target's memory
 * (python_frames.h). Pure.
 */
#include "config.h"
#include "source/python/python_frames.h"

#include <string.h>

bool cpw_python_frames_plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

size_t cpw_python_frames_plan(uint64_t frame, uint64_t frame_size, uint64_t lo, uint64_t *base,
			      struct cpw_py_piece out[CPW_PY_WINDOW_PIECES])
{
	const uint64_t mask = ~(uint64_t)(CPW_PY_PAGE - 1);
	uint64_t page = frame & mask, end = (frame + frame_size + CPW_PY_PAGE - 1) & mask;
	uint64_t floor = lo && lo <= frame ? lo & mask : 0;
	size_t n = 0;
	out[n++] = (struct cpw_py_piece){ page, end - page };
	*base = page;
	for (unsigned i = 0; i < CPW_PY_WINDOW_PAGES && page >= 2 * (uint64_t)CPW_PY_PAGE && page > floor; i++) {
		page -= CPW_PY_PAGE;
		out[n++] = (struct cpw_py_piece){ page, CPW_PY_PAGE };
		*base = page;
	}
	return n;
}

bool cpw_python_frames_window(const struct cpw_py_piece *pieces, size_t n, uint64_t base, size_t got,
			      struct cpw_py_window *w)
{
	if (n == 0 || got < pieces[0].len)
		return false;
	/* The pieces run down from the frame's page: the window is the whole pieces copied,
	 * from the lowest of them to the first's end. */
	uint64_t lo = pieces[0].addr, end = pieces[0].addr + pieces[0].len;
	size_t left = got - pieces[0].len;
	for (size_t i = 1; i < n && left >= pieces[i].len; i++) {
		lo = pieces[i].addr;
		left -= pieces[i].len;
	}
	w->len = end - lo;
	w->buf += lo - base;
	w->base = lo;
	return true;
}

bool cpw_python_frames_in_window(const struct cpw_py_window *w, uint64_t f, uint64_t size)
{
	return f >= w->base && f - w->base <= w->len && w->len - (f - w->base) >= size;
}

static uint64_t u64_at(const uint8_t *b, uint64_t off)
{
	uint64_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

int cpw_python_frames_walk(const struct cpw_py_layout *l, const struct cpw_py_window *w, uint64_t *frame,
			   struct cpw_py_frame_rec *out, int max, int want)
{
	int n = 0;
	while (*frame && n < max && want > 0) {
		uint64_t f = *frame;
		if (!cpw_python_frames_in_window(w, f, l->frame_size))
			break; /* not whole in the window: the caller reads it */
		const uint8_t *b = w->buf + (f - w->base);
		struct cpw_py_frame_rec r = { f, u64_at(b, l->frame_code), u64_at(b, l->frame_previous),
					      u64_at(b, l->frame_instr), b[l->frame_owner] };
		if (r.owner > CPW_PY_FRAME_OWNED_BY_CSTACK || r.previous == f ||
		    (r.previous && !cpw_python_frames_plausible(r.previous)))
			return -1;
		out[n++] = r;
		want -= r.owner != CPW_PY_FRAME_OWNED_BY_CSTACK;
		*frame = r.previous;
	}
	return n;
}
