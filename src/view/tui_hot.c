/*
 * tui_hot.c: the lines of the live view's panel of the top functions so far (tui.h, f):
 * the snapshot's copy of the hotspots laid out for a width, with the figures of the
 * report's Hotspots section (report/hotspots_report.c). Pure: tui_draw.c puts the lines in
 * a box.
 */
#include "config.h"
#include "view/tui.h"

#include <stdio.h>
#include <string.h>

#include "report/hotspots_report.h"
#include "util/escape.h"

#define ESC_MAX (sizeof(((struct cpw_view_hot_fn *)0)->name) * 4) /* a name escaped */
#define CELL_MAX (ESC_MAX + 8)                                       /* one cell's text, cut */
#define PCT_CELLS 6                                                  /* "100.0", "self%" */

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The cells an escaped string takes on the terminal. */
static int cells_of(const char *s)
{
	char tmp[ESC_MAX + 1];
	return cpw_tui_fit(s, (int)sizeof(tmp), tmp, sizeof(tmp));
}

/* Appends text (raw) escaped and wrapped at width cells to rows, the lines after the first
 * indented by two cells. */
static void add_text(char rows[][CPW_TUI_HOT_ROW], int *n, int max, int width, const char *text)
{
	char esc[CPW_TUI_HOT_ROW * 2];
	cpw_escape_for_terminal(text, esc, sizeof(esc));
	const char *p = esc;
	for (bool first = true; *p && *n < max; first = false) {
		while (!first && *p == ' ')
			p++;
		if (!*p)
			break;
		size_t len = cpw_tui_wrap(p, first ? width : width - 2);
		char piece[CPW_TUI_HOT_ROW];
		snprintf(piece, sizeof(piece), "%s%.*s", first ? "" : "  ", (int)(len < 400 ? len : 400), p);
		cpw_tui_fit(piece, width, rows[(*n)++], CPW_TUI_HOT_ROW);
		p += len;
	}
}

/* The mark of a cut: an ellipsis, or "..." where the terminal may not show one. */
static const char *cut_mark(bool utf8, int *cells)
{
	*cells = utf8 ? 1 : 3;
	return utf8 ? "\xe2\x80\xa6" : "...";
}

/* s (escaped) in at most w cells into out (of CELL_MAX bytes): where wider, cut with the
 * mark at its end, or at its start where from_left (a file:line keeps its line). Returns the
 * cells. */
static int fit_cut(const char *s, int w, bool utf8, bool from_left, char *out)
{
	int mc;
	const char *mark = cut_mark(utf8, &mc);
	if (cells_of(s) <= w || w <= mc)
		return cpw_tui_fit(s, w, out, CELL_MAX);
	if (!from_left) {
		int cells = cpw_tui_fit(s, w - mc, out, CELL_MAX - 4);
		strcat(out, mark);
		return cells + mc;
	}
	/* Characters go from the start until the rest fits after the mark. */
	while (*s && cells_of(s) > w - mc) {
		s++;
		while (((unsigned char)*s & 0xC0) == 0x80)
			s++;
	}
	strcpy(out, mark);
	return mc + cpw_tui_fit(s, w - mc, out + strlen(mark), CELL_MAX - 4);
}

/* Appends s (escaped) to line at *at in a column of w cells (fit_cut), padded with blanks
 * to w where pad. */
static void add_col(char *line, size_t *at, const char *s, int w, bool pad, bool utf8, bool from_left)
{
	char buf[CELL_MAX];
	if (w <= 0 || *at >= CPW_TUI_HOT_ROW - 1)
		return;
	int cells = fit_cut(s, w, utf8, from_left, buf);
	int n = snprintf(line + *at, CPW_TUI_HOT_ROW - *at, "%s%*s", buf, pad && cells < w ? w - cells : 0, "");
	if (n > 0)
		*at = *at + (size_t)n < CPW_TUI_HOT_ROW ? *at + (size_t)n : CPW_TUI_HOT_ROW - 1;
}

/* A function's process in at most w cells (0: as wide as it takes) into out (of CELL_MAX
 * bytes): "python3 (123) +3 more" (the processes that ran it besides), else without them,
 * else its name cut: the pid stays wherever it fits. */
static void proc_cell(const struct cpw_view_hot_fn *f, int w, bool utf8, char *out)
{
	char comm[sizeof(f->comm) * 4], pid[24], full[sizeof(comm) + 64];
	cpw_escape_for_terminal(f->comm, comm, sizeof(comm));
	snprintf(pid, sizeof(pid), " (%d)", (int)f->pid);
	snprintf(full, sizeof(full), "%s%s", comm, pid);
	if (f->nprocs > 1) {
		size_t len = strlen(full);
		snprintf(full + len, sizeof(full) - len, " +%u more", f->nprocs - 1);
	}
	if (w <= 0 || cells_of(full) <= w) {
		snprintf(out, CELL_MAX, "%s", full);
		return;
	}
	snprintf(full, sizeof(full), "%s%s", comm, pid);
	int room = w - (int)strlen(pid), mc;
	cut_mark(utf8, &mc);
	if (cells_of(full) <= w || room <= mc) {
		fit_cut(full, w, utf8, false, out);
		return;
	}
	fit_cut(comm, room, utf8, false, out);
	strcat(out, pid);
}

/* The time by kind of code, most first, in whole percent ("<1%" for a trace), wrapped at
 * width cells between kinds, never inside one. */
static void add_kinds(const struct cpw_view_hotspots *hs, int width, char rows[][CPW_TUI_HOT_ROW], int *n, int max)
{
	bool done[CPW_CODE_KINDS] = { false };
	char line[CPW_TUI_HOT_ROW];
	int cells = snprintf(line, sizeof(line), "by kind of code:"), items = 0;
	for (;;) {
		int best = -1;
		for (int k = 0; k < CPW_CODE_KINDS; k++)
			if (!done[k] && hs->kind[k] && (best < 0 || hs->kind[k] > hs->kind[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = true;
		double p = pct(hs->kind[best], hs->samples);
		const char *kind = cpw_sampler_code_kind_name((enum cpw_code_kind)best);
		char item[64];
		int len = p < 0.5 ? snprintf(item, sizeof(item), "%s <1%%", kind)
				  : snprintf(item, sizeof(item), "%s %.0f%%", kind, p);
		size_t at = strlen(line);
		if (items && cells + 2 + len > width) { /* the comma stays on the line it ends */
			snprintf(line + at, sizeof(line) - at, ",");
			if (*n < max)
				cpw_tui_fit(line, width, rows[(*n)++], CPW_TUI_HOT_ROW);
			cells = snprintf(line, sizeof(line), "  %s", item);
		} else {
			int m = snprintf(line + at, sizeof(line) - at, "%s%s", items ? ", " : " ", item);
			cells += m > 0 ? m : 0;
		}
		items++;
	}
	if (*n < max)
		cpw_tui_fit(line, width, rows[(*n)++], CPW_TUI_HOT_ROW);
}

/* Widths of the function, file and process columns in room cells, gap blanks between
 * them: each its widest entry; where they do not fit, the process gives way first, then
 * the file, then the function, none below its least; the process goes where even that
 * does not fit, then the file. 0: the column is not shown. */
static void col_widths(int room, int gap, const int natural[3], int w[3])
{
	/* A process's name with its pid ("python3 (12345)") takes 16. */
	static const int least[3] = { 16, 12, 16 };
	int min[3];
	for (int c = 0; c < 3; c++) {
		w[c] = natural[c];
		min[c] = natural[c] < least[c] ? natural[c] : least[c];
	}
	if (min[0] + gap + min[1] + gap + min[2] > room)
		w[2] = 0;
	if (min[0] + gap + min[1] > room)
		w[1] = 0;
	int over = w[0] + (w[1] ? gap + w[1] : 0) + (w[2] ? gap + w[2] : 0) - room;
	for (int c = 2; c >= 0 && over > 0; c--) {
		int give = w[c] - min[c];
		if (give > over)
			give = over;
		if (w[c] && give > 0) {
			w[c] -= give;
			over -= give;
		}
	}
	if (over > 0)
		w[0] -= over; /* all at their least: the function takes the cut */
	if (w[0] < 1)
		w[0] = 1;
}

/* The rows of the table of functions, titles first. */
static void add_table(const struct cpw_view_hotspots *hs, int width, bool utf8, char rows[][CPW_TUI_HOT_ROW],
		      int *n, int max, int *head)
{
	char cols[CPW_VIEW_HOT_MAX][3][CELL_MAX];
	static const char *const titles[3] = { "function", "file", "process" };
	size_t nf = hs->n < CPW_VIEW_HOT_MAX ? hs->n : CPW_VIEW_HOT_MAX, all = nf;
	/* As in the report: past the first few, a function under 1% of the samples says
	 * nothing at a glance. */
	for (size_t i = CPW_HOTSPOTS_REPORT_MIN; i < nf; i++)
		if (pct(hs->fn[i].self, hs->samples) < 1.0 && pct(hs->fn[i].total, hs->samples) < 1.0) {
			nf = i;
			break;
		}
	int natural[3], w[3];
	for (int c = 0; c < 3; c++)
		natural[c] = (int)strlen(titles[c]);
	for (size_t i = 0; i < nf; i++) {
		const struct cpw_view_hot_fn *f = &hs->fn[i];
		cpw_escape_for_terminal(f->name[0] ? f->name : "?", cols[i][0], ESC_MAX);
		cpw_escape_for_terminal(f->file, cols[i][1], ESC_MAX);
		proc_cell(f, 0, utf8, cols[i][2]);
		for (int c = 0; c < 3; c++) {
			int cells = cells_of(cols[i][c]);
			if (cells > natural[c])
				natural[c] = cells;
		}
	}
	/* self% and total%, then two blanks; total% gives way below 30 cells. */
	bool total = width >= 30;
	int lead = total ? PCT_CELLS + 1 + PCT_CELLS + 2 : PCT_CELLS + 2;
	/* Two blanks between the columns where everything fits so, else one. */
	int gap = natural[0] + 2 + natural[1] + 2 + natural[2] <= width - lead ? 2 : 1;
	col_widths(width - lead, gap, natural, w);
	for (int r = -1; r < (int)nf && *n < max; r++) {
		char *line = rows[*n];
		int len = r < 0 ? snprintf(line, CPW_TUI_HOT_ROW, "%*s", PCT_CELLS, "self%")
				: snprintf(line, CPW_TUI_HOT_ROW, "%*.1f", PCT_CELLS, pct(hs->fn[r].self, hs->samples));
		size_t at = len > 0 ? (size_t)len : 0;
		if (total)
			at += (size_t)(r < 0 ? snprintf(line + at, CPW_TUI_HOT_ROW - at, " %*s", PCT_CELLS, "total%")
					     : snprintf(line + at, CPW_TUI_HOT_ROW - at, " %*.1f", PCT_CELLS,
							pct(hs->fn[r].total, hs->samples)));
		at += (size_t)snprintf(line + at, CPW_TUI_HOT_ROW - at, "  ");
		for (int c = 0; c < 3; c++) {
			if (!w[c])
				continue;
			for (int g = 0; c > 0 && g < gap && at + 1 < CPW_TUI_HOT_ROW; g++)
				line[at++] = ' ';
			/* The last column shown is not padded: no blanks at the line's end. */
			bool last = c == 2 || (c == 1 && !w[2]) || (c == 0 && !w[1] && !w[2]);
			if (c == 2 && r >= 0)
				proc_cell(&hs->fn[r], w[2], utf8, cols[r][2]);
			add_col(line, &at, r < 0 ? titles[c] : cols[r][c], w[c], !last, utf8, c == 1);
		}
		if (r < 0)
			*head = *n;
		(*n)++;
	}
	if (nf < all && *n < max)
		add_text(rows, n, max, width, "(functions under 1% of the samples each are left out)");
}

int cpw_tui_hot_lines(const struct cpw_view_hotspots *hs, int width, bool utf8, char rows[][CPW_TUI_HOT_ROW],
		      int max, int *head)
{
	char text[CPW_TUI_HOT_ROW];
	int n = 0;
	*head = -1;
	if (width < 20)
		width = 20;
	if (width > CPW_TUI_HOT_ROW / 4)
		width = CPW_TUI_HOT_ROW / 4; /* room for every cell taking 4 bytes */
	switch (hs->state) {
	case CPW_VIEW_HOT_OFF:
		add_text(rows, &n, max, width, "top functions: not sampled (--no-hotspots)");
		return n;
	case CPW_VIEW_HOT_UNAVAILABLE:
		snprintf(text, sizeof(text), "top functions: not sampled: %s", hs->why);
		add_text(rows, &n, max, width, text);
		return n;
	case CPW_VIEW_HOT_NOT_ARMED:
		if (hs->arms_at_s > 0)
			snprintf(text, sizeof(text), "top functions: sampling not armed yet (it starts %.1f s into the run)",
				 hs->arms_at_s);
		else
			snprintf(text, sizeof(text), "top functions: sampling not armed yet (it starts at the next sample)");
		add_text(rows, &n, max, width, text);
		return n;
	case CPW_VIEW_HOT_SAMPLED:
		break;
	}
	snprintf(text, sizeof(text), "top functions so far: %llu cpu-clock sample%s at %d Hz, from %.1f s",
		 (unsigned long long)hs->samples, hs->samples == 1 ? "" : "s", hs->hz, hs->armed_at_s);
	add_text(rows, &n, max, width, text);
	if (hs->samples == 0) {
		add_text(rows, &n, max, width, "no samples yet: the tree has not run on a CPU since sampling was armed");
		return n;
	}
	add_kinds(hs, width, rows, &n, max);
	add_table(hs, width, utf8, rows, &n, max, head);
	return n;
}
