/*
 * plot_svg.c: the run as a picture (--plot FILE), one self-contained SVG written by
 * cperfwatch itself (report/plot_svg.h): no script, no font or style fetched.
 *
 * Panels share one time axis: thread states stacked (mean threads per state), what the
 * waiting threads waited on (stacked by wait kind, where the wait analysis counted any), cores used
 * against cores usable, the tree's memory, the disk rate (read and written), and the main
 * processes' lifetimes. The phases are labelled bands across all of them; the title holds
 * the command and the verdict. Interval data is drawn as steps: each point holds its value
 * over its whole interval.
 */
#include "config.h"
#include "report/plot_svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "report/svg_text.h"
#include "util/arith.h"
#include "model/proc_label.h" /* proc_label */

#define WIDTH 1000
#define LEFT 78
#define RIGHT 190 /* room for the legend */
#define PLOT_W (WIDTH - LEFT - RIGHT)
#define PROCS_MAX 8

struct frame {
	FILE *out;
	double t0, t1;
	int y; /* top of the next panel */
};

static double xof(const struct frame *f, double t)
{
	return LEFT + (t - f->t0) / (f->t1 - f->t0) * PLOT_W;
}

/* Text for XML: valid UTF-8 (escape.h), no control characters, markup escaped; at most
 * max bytes of it (cut at a character's start), "..." marking the cut. Returns the bytes
 * written of the source text. */
static size_t put_text_max(FILE *out, const char *s, size_t max)
{
	char clean[1024];
	cpw_escape_utf8(s, clean, sizeof clean);
	size_t len = strlen(clean); /* < sizeof clean */
	if (len > max) {
		/* Cut at a character's start: max < len < sizeof clean, so clean[max] is inside. */
		// cppcheck-suppress arrayIndexOutOfBoundsCond
		while (max > 0 && ((unsigned char)clean[max] & 0xC0) == 0x80)
			max--;
		clean[max] = '\0';
	}
	cpw_svg_text_put(out, clean, sizeof clean);
	if (len > max)
		fputs("...", out);
	return len > max ? max : len;
}

static void put_text(FILE *out, const char *s)
{
	put_text_max(out, s, 1023);
}

/* A round step for about five ticks up to top. */
static double tick_step(double top)
{
	double raw = top / 5, mag = cpw_decade_below(raw);
	double norm = raw / mag;
	return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

static double nice_top(double top)
{
	if (!(top > 0))
		return 1;
	double step = tick_step(top);
	return ceil(top / step - 1e-9) * step;
}

/* A panel's frame, y ticks and title; returns the y of its bottom. */
static int panel(struct frame *f, int height, const char *title, const char *unit, double top)
{
	FILE *out = f->out;
	int y0 = f->y, y1 = f->y + height;
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ptitle\">%s</text>\n", LEFT, y0 - 6, title);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", LEFT, y0,
		PLOT_W, height);
	double step = tick_step(top);
	for (double v = 0; v <= top * 1.0001; v += step) {
		double y = y1 - v / top * height;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n", LEFT, y,
			LEFT + PLOT_W, y);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"ytick\">%g</text>\n", LEFT - 5, y + 4, v);
	}
	fprintf(out, "<text transform=\"translate(%d,%d) rotate(-90)\" class=\"yunit\">%s</text>\n",
		LEFT - 52, y0 + height / 2, unit);
	return y1;
}

typedef double (*value_of)(const struct cpw_tl_point *p);

/* One step line of v over the points, scaled to top. */
static void step_line(const struct frame *f, const struct cpw_timeline *tl, value_of v, double top,
		      int y1, int height, const char *cls)
{
	size_t n = cpw_timeline_count(tl);
	fprintf(f->out, "<polyline class=\"%s\" points=\"", cls);
	for (size_t i = 0; i < n; i++) {
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		double val = v(p);
		double y = y1 - (isnan(val) ? 0 : val) / top * height;
		if (y < y1 - height)
			y = y1 - height;
		fprintf(f->out, "%.1f,%.1f %.1f,%.1f ", xof(f, p->start_s), y, xof(f, p->start_s + p->dt_s), y);
	}
	fputs("\"/>\n", f->out);
}

static double mean_state(const struct cpw_tl_point *p, int s)
{
	return p->samples ? (double)p->states[s] / (double)p->samples : 0;
}

/* Layer s of a stacked area: between the sums of layers 0..s-1 and 0..s of value(point,
 * layer), as a polygon of class PREFIX<s>. */
static void stacked_band(const struct frame *f, const struct cpw_timeline *tl, int y1, int h, double top,
			 double (*value)(const struct cpw_tl_point *, int), int s, const char *prefix)
{
	size_t n = cpw_timeline_count(tl);
	fprintf(f->out, "<polygon class=\"%s%d\" points=\"", prefix, s);
	for (size_t i = 0; i < n; i++) { /* the top edge, left to right */
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		double cum = 0;
		for (int k = 0; k <= s; k++)
			cum += value(p, k);
		double y = y1 - cum / top * h;
		fprintf(f->out, "%.1f,%.1f %.1f,%.1f ", xof(f, p->start_s), y, xof(f, p->start_s + p->dt_s), y);
	}
	for (size_t i = n; i-- > 0;) { /* the bottom edge, back */
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		double cum = 0;
		for (int k = 0; k < s; k++)
			cum += value(p, k);
		double y = y1 - cum / top * h;
		fprintf(f->out, "%.1f,%.1f %.1f,%.1f ", xof(f, p->start_s + p->dt_s), y, xof(f, p->start_s), y);
	}
	fputs("\"/>\n", f->out);
}

static const char *const state_names[CPW_TL_STATE_COUNT] = {
	"running, runnable (R)", "storage wait (D)", "other D (locks...)",
	"asleep (S)", "other (T, Z...)",
};

static void threads_panel(struct frame *f, const struct cpw_timeline *tl)
{
	size_t n = cpw_timeline_count(tl);
	double top = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		double sum = 0;
		for (int s = 0; s < CPW_TL_STATE_COUNT; s++)
			sum += mean_state(p, s);
		top = sum > top ? sum : top;
	}
	top = nice_top(top);
	int h = 150, y1 = panel(f, h, "Thread states (stacked)", "threads", top);
	for (int s = 0; s < CPW_TL_STATE_COUNT; s++) {
		stacked_band(f, tl, y1, h, top, mean_state, s, "st");
		/* Legend beside the panel, top state first. */
		int ly = f->y + 12 + 18 * (CPW_TL_STATE_COUNT - 1 - s);
		fprintf(f->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" class=\"st%d\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n", LEFT + PLOT_W + 10, ly - 10, s,
			LEFT + PLOT_W + 27, ly, state_names[s]);
	}
	f->y = y1 + 40;
}

/* Mean threads waiting on kind k over the point (the wait analysis's thread-seconds). */
static double mean_waiting(const struct cpw_tl_point *p, int k)
{
	return p->dt_s > 0 ? p->wait_s[k] / p->dt_s : 0;
}

/* Whether the wait analysis counted anything: the waits panel is drawn only then. */
static bool any_waits(const struct cpw_timeline *tl)
{
	for (size_t i = 0; tl && i < cpw_timeline_count(tl); i++)
		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
			if (cpw_timeline_point(tl, i)->wait_s[k] > 0)
				return true;
	return false;
}

/* What the threads off the CPU waited on, stacked by kind (those that occur, in the
 * Waits section's order), with a legend of them. */
static void waits_panel(struct frame *f, const struct cpw_timeline *tl)
{
	size_t n = cpw_timeline_count(tl);
	bool seen[CPW_WAIT_KIND_COUNT] = { false };
	int nseen = 0;
	double top = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cpw_tl_point *p = cpw_timeline_point(tl, i);
		double sum = 0;
		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++) {
			sum += mean_waiting(p, k);
			if (p->wait_s[k] > 0 && !seen[k]) {
				seen[k] = true;
				nseen++;
			}
		}
		top = sum > top ? sum : top;
	}
	top = nice_top(top);
	int h = 150, y1 = panel(f, h, "Waiting threads by what they wait on (stacked)", "threads", top);
	int row = 0;
	for (int s = 0; s < CPW_WAIT_KIND_COUNT; s++) {
		if (!seen[s])
			continue;
		stacked_band(f, tl, y1, h, top, mean_waiting, s, "wk");
		int ly = f->y + 12 + 15 * (nseen - 1 - row++); /* the top kind first */
		fprintf(f->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" class=\"wk%d\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n", LEFT + PLOT_W + 10, ly - 10, s,
			LEFT + PLOT_W + 27, ly, cpw_wait_kind_name((enum cpw_wait_kind)s));
	}
	f->y = y1 + 40;
}

static double cores_of(const struct cpw_tl_point *p) { return p->dt_s > 0 ? (p->user_s + p->sys_s) / p->dt_s : 0; }
static double mem_mib(const struct cpw_tl_point *p) { return isnan(p->rss_kib_max) ? NAN : p->rss_kib_max / 1024; }
static double read_rate(const struct cpw_tl_point *p) { return p->dt_s > 0 ? p->read_bytes / p->dt_s / 1048576 : NAN; }
static double write_rate(const struct cpw_tl_point *p) { return p->dt_s > 0 ? p->write_bytes / p->dt_s / 1048576 : NAN; }

static double series_max(const struct cpw_timeline *tl, value_of v)
{
	double m = 0;
	for (size_t i = 0; i < cpw_timeline_count(tl); i++) {
		double x = v(cpw_timeline_point(tl, i));
		if (x > m)
			m = x;
	}
	return m;
}

static void legend_line(const struct frame *f, int row, const char *cls, const char *label)
{
	int ly = f->y + 12 + 18 * row;
	fprintf(f->out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"%s\"/>"
		"<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n", LEFT + PLOT_W + 10, ly - 4,
		LEFT + PLOT_W + 22, ly - 4, cls, LEFT + PLOT_W + 27, ly, label);
}

static void cores_panel(struct frame *f, const struct cpw_timeline *tl, double usable)
{
	double seen = series_max(tl, cores_of);
	double top = nice_top(cpw_known(usable) && usable > seen ? usable : seen);
	int h = 100, y1 = panel(f, h, "Cores used (user + system CPU seconds per second)", "cores", top);
	if (cpw_known(usable)) {
		double y = y1 - usable / top * h;
		fprintf(f->out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"usable\"/>\n",
			LEFT, y, LEFT + PLOT_W, y);
		legend_line(f, 1, "usable", "usable cores");
	}
	step_line(f, tl, cores_of, top, y1, h, "cores");
	legend_line(f, 0, "cores", "cores used");
	f->y = y1 + 40;
}

static void memory_panel(struct frame *f, const struct cpw_timeline *tl)
{
	double top = nice_top(series_max(tl, mem_mib));
	int h = 80, y1 = panel(f, h, "Memory (the tree's resident set, summed)", "MiB", top);
	step_line(f, tl, mem_mib, top, y1, h, "mem");
	legend_line(f, 0, "mem", "resident set");
	f->y = y1 + 40;
}

static double gpu_busy_pct(const struct cpw_tl_point *p) { return p->gpu_s > 0 ? 100 * p->gpu_busy_s / p->gpu_s : NAN; }

/* Whether the tree held a GPU in some point: the GPU panel is drawn only then. */
static bool any_gpu(const struct cpw_timeline *tl)
{
	for (size_t i = 0; tl && i < cpw_timeline_count(tl); i++)
		if (cpw_timeline_point(tl, i)->gpu_s > 0)
			return true;
	return false;
}

static void gpu_panel(struct frame *f, const struct cpw_timeline *tl)
{
	int h = 80, y1 = panel(f, h, "GPU (busy share of the GPUs the tree holds, read once a second)", "%", 100);
	step_line(f, tl, gpu_busy_pct, 100, y1, h, "gpu");
	legend_line(f, 0, "gpu", "GPU busy");
	f->y = y1 + 40;
}

static void disk_panel(struct frame *f, const struct cpw_timeline *tl)
{
	double r = series_max(tl, read_rate), w = series_max(tl, write_rate);
	double top = nice_top(r > w ? r : w);
	int h = 80, y1 = panel(f, h, "Disk (storage bytes read and written per second)", "MiB/s", top);
	step_line(f, tl, read_rate, top, y1, h, "rd");
	step_line(f, tl, write_rate, top, y1, h, "wr");
	legend_line(f, 0, "rd", "read");
	legend_line(f, 1, "wr", "written");
	f->y = y1 + 40;
}

/* The phases' main processes, then the most CPU of the tree, each once. */
static size_t pick_procs(const struct cpw_report *r, const struct cpw_proc *out[PROCS_MAX])
{
	size_t n = 0;
	for (int i = 0; i < r->phases.n && n < PROCS_MAX; i++) {
		const struct cpw_proc *p = r->tree ? cpw_tree_find(r->tree, r->phases.phase[i].procs[0].pid) : NULL;
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup = dup || out[k] == p;
		if (p && !dup)
			out[n++] = p;
	}
	/* proc_label: a wrapper's short-lived helpers get no lane (pyenv's shims add 40). */
	bool *folded = r->tree ? calloc(cpw_tree_size(r->tree) + 1, sizeof(*folded)) : NULL;
	if (folded)
		cpw_proc_label_fold(r->tree, folded);
	while (r->tree && n < PROCS_MAX) {
		const struct cpw_proc *best = NULL;
		for (size_t i = 0; i < cpw_tree_size(r->tree); i++) {
			const struct cpw_proc *p = cpw_tree_proc(r->tree, i);
			if (folded && folded[i])
				continue;
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup = dup || out[k] == p;
			if (!dup && (!best || p->user_s + p->sys_s > best->user_s + best->sys_s))
				best = p;
		}
		if (!best)
			break;
		out[n++] = best;
	}
	free(folded);
	return n;
}

static void procs_panel(struct frame *f, const struct cpw_report *r)
{
	const struct cpw_proc *procs[PROCS_MAX];
	size_t n = pick_procs(r, procs);
	if (n == 0)
		return;
	int row = 18, h = (int)n * row;
	fprintf(f->out, "<text x=\"%d\" y=\"%d\" class=\"ptitle\">Main processes (from first seen to exit)</text>\n",
		LEFT, f->y - 6);
	fprintf(f->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", LEFT, f->y,
		PLOT_W, h);
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *p = procs[i];
		double a = p->first_seen_s < f->t0 ? f->t0 : p->first_seen_s;
		double b = cpw_known(p->exited_s) ? p->exited_s : f->t1;
		if (b > f->t1)
			b = f->t1;
		if (b < a)
			b = a;
		int y = f->y + (int)i * row;
		fprintf(f->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"life\"/>",
			xof(f, a), y + 3, xof(f, b) - xof(f, a) + 1, row - 6);
		fprintf(f->out, "<text x=\"%d\" y=\"%d\" class=\"ytick\">", LEFT - 5, y + row - 5);
		put_text(f->out, p->comm);
		fprintf(f->out, "</text><text x=\"%d\" y=\"%d\" class=\"legend\">pid %d, %.2f s CPU</text>",
			LEFT + PLOT_W + 10, y + row - 5, (int)p->pid, p->user_s + p->sys_s);
		/* proc_label: its arguments, in its lane, tell the lanes apart */
		char args[64];
		fprintf(f->out, "<text x=\"%d\" y=\"%d\" class=\"legend\">", LEFT + 4, y + row - 5);
		put_text(f->out, cpw_proc_label_args(p, 60, args, sizeof args));
		fputs("</text>\n", f->out);
	}
	f->y += h + 30;
}

static const char *const class_colour[CPW_CLASS_COUNT] = {
	[CPW_CLASS_CPU_BOUND] = "#43a047", [CPW_CLASS_MEMORY_BOUND] = "#00897b",
	[CPW_CLASS_IO_BOUND] = "#e53935", [CPW_CLASS_THRASHING] = "#8e24aa",
	[CPW_CLASS_WAITING] = "#78909c", [CPW_CLASS_CPU_STARVED] = "#fb8c00",
	[CPW_CLASS_MIXED] = "#fdd835", [CPW_CLASS_UNKNOWN] = "#bdbdbd",
	[CPW_CLASS_GPU_BOUND] = "#76b900",
};

/* The phases as bands from top to bottom, labelled above the first panel. */
static void phase_bands(const struct frame *f, const struct cpw_phases *ph, int top, int bottom)
{
	for (int i = 0; i < ph->n; i++) {
		const struct cpw_phase *p = &ph->phase[i];
		double a = xof(f, p->start_s), b = xof(f, p->end_s);
		const char *colour = p->cls >= 0 && p->cls < CPW_CLASS_COUNT ? class_colour[p->cls] : "#bdbdbd";
		fprintf(f->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			"fill-opacity=\"0.13\"/>\n", a, top, b - a, bottom - top, colour);
		if (i > 0)
			fprintf(f->out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"cut\"/>\n",
				a, top, a, bottom);
		fprintf(f->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\" "
			"fill-opacity=\"0.55\"/>\n", a, top, b - a, colour);
		fprintf(f->out, "<text x=\"%.1f\" y=\"%d\" class=\"phase\">[%d] %s</text>\n", (a + b) / 2,
			top + 12, i + 1, cpw_verdict_class_name(p->cls));
	}
}

static void x_axis(const struct frame *f, int top, int y)
{
	double step = tick_step(f->t1 - f->t0);
	for (double t = ceil(f->t0 / step) * step; t <= f->t1 + 1e-9; t += step) {
		double x = xof(f, t);
		fprintf(f->out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"xtick\">%g</text>\n", x, top, x, y, x, y + 16, t);
	}
	fprintf(f->out, "<text x=\"%d\" y=\"%d\" class=\"xtick\">time since the start (s)</text>\n",
		LEFT + PLOT_W / 2, y + 36);
}

/* Two lines: the command, then the verdict; a third with the phases when they differ. */
static void title(FILE *out, const struct cpw_report *r)
{
	fputs("<text x=\"16\" y=\"24\" class=\"title\">cperfwatch: ", out);
	if (r->cfg->command_argc > 0) {
		size_t room = 95; /* characters that fit the width at the title's size */
		for (int i = 0; i < r->cfg->command_argc && room > 4; i++) {
			if (i) {
				fputc(' ', out);
				room--;
			}
			room -= put_text_max(out, r->cfg->command[i], room - 3);
		}
	} else {
		fprintf(out, "pid %d", (int)r->pid);
	}
	fputs("</text>\n<text x=\"16\" y=\"44\" class=\"subtitle\">", out);
	fprintf(out, "Verdict: %s (confidence %.0f%%)", cpw_verdict_class_name(r->verdict.cls), 100 * r->verdict.confidence);
	if (cpw_known(r->metrics.wall_s))
		fprintf(out, "; %.2f s wall, %.2f s CPU", r->metrics.wall_s,
			(cpw_known(r->metrics.user_s) ? r->metrics.user_s : 0) +
			(cpw_known(r->metrics.sys_s) ? r->metrics.sys_s : 0));
	fputs("</text>\n", out);
	/* The phases' finding ("... overall; ..."): the GPU's findings may stand before it. */
	for (int i = 0; r->phases.n > 1 && i < r->verdict.nfindings; i++)
		if (strstr(r->verdict.findings[i], " overall")) {
			fputs("<text x=\"16\" y=\"62\" class=\"subtitle\">Phases: ", out);
			put_text_max(out, r->verdict.findings[i], 150);
			fputs("</text>\n", out);
			break;
		}
}

static const char style[] =
	"<style>\n"
	"text { font-family: sans-serif; font-size: 11px; fill: #222; }\n"
	".title { font-size: 16px; font-weight: bold; }\n"
	".subtitle { font-size: 12px; }\n"
	".ptitle { font-size: 12px; font-weight: bold; }\n"
	".ytick { text-anchor: end; }\n"
	".xtick { text-anchor: middle; }\n"
	".yunit { text-anchor: middle; font-size: 11px; }\n"
	".legend { font-size: 11px; }\n"
	".phase { text-anchor: middle; font-size: 11px; font-weight: bold; }\n"
	".frame { fill: none; stroke: #888; }\n"
	".grid { stroke: #ddd; stroke-width: 0.7; }\n"
	".cut { stroke: #555; stroke-dasharray: 4 3; }\n"
	".st0 { fill: #43a047; } .st1 { fill: #e53935; } .st2 { fill: #fb8c00; }\n"
	".st3 { fill: #b0bec5; } .st4 { fill: #8e24aa; }\n"
	/* The wait kinds, in cpw_wait_kind order: network pipe lock timer child event-loop
	 * terminal disk page-in other gpu. */
	".wk0 { fill: #1e88e5; } .wk1 { fill: #00acc1; } .wk2 { fill: #fb8c00; } .wk3 { fill: #b0bec5; }\n"
	".wk4 { fill: #ffe082; } .wk5 { fill: #7e57c2; } .wk6 { fill: #8d6e63; } .wk7 { fill: #e53935; }\n"
	".wk8 { fill: #d81b60; } .wk9 { fill: #757575; } .wk10 { fill: #76b900; }\n"
	".cores { fill: none; stroke: #1e88e5; stroke-width: 1.8; }\n"
	".usable { stroke: #1e88e5; stroke-dasharray: 6 4; stroke-width: 1.2; }\n"
	".mem { fill: none; stroke: #6d4c41; stroke-width: 1.8; }\n"
	".rd { fill: none; stroke: #e53935; stroke-width: 1.8; }\n"
	".wr { fill: none; stroke: #8e24aa; stroke-width: 1.8; stroke-dasharray: 5 2; }\n"
	".life { fill: #5c6bc0; }\n"
	".gpu { fill: none; stroke: #76b900; stroke-width: 1.8; }\n"
	"</style>\n";

int cpw_plot_svg_write(const struct cpw_report *r, FILE *out)
{
	const struct cpw_timeline *tl = r->timeline;
	size_t n = tl ? cpw_timeline_count(tl) : 0;
	struct frame f = { .out = out, .t0 = 0, .t1 = 1, .y = 90 };
	const struct cpw_proc *procs[PROCS_MAX];
	bool waits = any_waits(tl), gpu = any_gpu(tl);
	int height = 90 + 18 + 190 + (waits ? 190 : 0) + 140 + 120 + 120 + (gpu ? 120 : 0) +
		     (int)pick_procs(r, procs) * 18 + 30 + 50;

	errno = 0;
	if (n > 0) {
		const struct cpw_tl_point *last = cpw_timeline_point(tl, n - 1);
		f.t0 = cpw_timeline_point(tl, 0)->start_s;
		f.t1 = last->start_s + last->dt_s > f.t0 ? last->start_s + last->dt_s : f.t0 + 1;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<title>cperfwatch: the run over time</title>\n%s"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, height, WIDTH, height, style);
	title(out, r);
	if (n == 0) {
		fputs("<text x=\"16\" y=\"80\">No sample was taken: the run was shorter than the interval.</text>\n", out);
	} else {
		int top = f.y;
		f.y += 40; /* room for the phase labels and the first panel's title */
		threads_panel(&f, tl);
		if (waits)
			waits_panel(&f, tl);
		cores_panel(&f, tl, r->metrics.cores_usable);
		memory_panel(&f, tl);
		disk_panel(&f, tl);
		if (gpu)
			gpu_panel(&f, tl);
		procs_panel(&f, r);
		int bottom = f.y - 30;
		phase_bands(&f, &r->phases, top, bottom);
		x_axis(&f, top, bottom);
	}
	fputs("</svg>\n", out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
