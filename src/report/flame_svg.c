/*
 * flame_svg.c: the sampled stacks as a flame graph (--flame FILE), one self-contained SVG
 * written by cperfwatch itself (report/flame_svg.h): no script, no font or style fetched.
 *
 * The distinct stacks of the hotspots (model/hotspots.h, the lines of --folded) are merged
 * into one tree: "all" at the root, then the process's name, then the frames from the
 * outermost caller to the leaf, frames of one caller merged by name. Each frame is drawn as
 * wide as its samples' share of the width, its callees on top of it (the root at the
 * bottom), the callees of one frame in alphabetical order, as flamegraph.pl draws them.
 * Frames under 0.1% of the samples are left out, and the picture says how many. Colours
 * tell the kind of code (Python, interpreter, native, libc, kernel, JIT), each frame's shade
 * from a hash of its name, so that the output is the same for the same stacks.
 *
 * Memory: one node per frame of each distinct stack at most (the model's stack table is
 * bounded: some 4,000 stacks of at most 32 frames), allocated for this drawing only.
 */
#include "config.h"
#include "report/flame_svg.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "report/svg_text.h"

#define WIDTH 1200
#define PAD 10
#define GRAPH_W (WIDTH - 2 * PAD)
#define FRAME_H 16
#define TOP 78          /* the title's lines */
#define BOTTOM 48       /* the legend's line */
#define CHAR_W 6.4      /* a character's mean width at 11px sans-serif, about */
#define MIN_PER_MILLE 1 /* frames under 1 per mille of the samples are left out */

/* The kinds of frame: the kinds of code, then the two frames that are no code. */
enum { KIND_PROCESS = CPW_CODE_KINDS, KIND_ROOT, KIND_COUNT };

struct node {
	const char *name;   /* the hotspots' strings, which outlive the drawing */
	uint64_t count;     /* samples with this frame on the stack, down this path */
	uint32_t parent;    /* node 0 is the root, its own parent */
	uint32_t first;     /* first callee; 0: none (the root is nobody's callee) */
	uint32_t next;      /* the next callee of the same caller; 0: none */
	uint8_t kind;
};

struct flame {
	struct node *nodes;
	size_t n, cap;
	uint32_t *slots;    /* node indices by (caller, name); 0: empty */
	size_t nslots;      /* a power of two, at least twice cap */
	uint64_t total;
};

static uint32_t hash_name(const char *s, uint32_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The callee of parent named name, made with no samples where it is new; cap (counted
 * beforehand) is never passed. */
static uint32_t callee(struct flame *f, uint32_t parent, const char *name, int kind)
{
	size_t mask = f->nslots - 1;
	for (size_t i = hash_name(name, 2166136261u ^ (parent * 2654435761u)) & mask;; i = (i + 1) & mask) {
		uint32_t at = f->slots[i];
		if (at == 0) {
			uint32_t n = (uint32_t)f->n++;
			f->nodes[n] = (struct node){ name, 0, parent, 0, f->nodes[parent].first, (uint8_t)kind };
			f->nodes[parent].first = n;
			f->slots[i] = n;
			return n;
		}
		if (f->nodes[at].parent == parent && strcmp(f->nodes[at].name, name) == 0)
			return at;
	}
}

static int add_stack(void *ctx, const char *comm, const char *const *frames, const enum cpw_code_kind *kinds,
		     int n, uint64_t count)
{
	struct flame *f = ctx;
	uint32_t at = callee(f, 0, comm, KIND_PROCESS);
	f->nodes[0].count += count;
	f->nodes[at].count += count;
	for (int i = 0; i < n; i++) {
		at = callee(f, at, frames[i], kinds[i]);
		f->nodes[at].count += count;
	}
	return 0;
}

static int count_frames(void *ctx, const char *comm, const char *const *frames, const enum cpw_code_kind *kinds,
			int n, uint64_t count)
{
	(void)comm, (void)frames, (void)kinds, (void)count;
	*(size_t *)ctx += (size_t)n + 1;
	return 0;
}

static int by_name(const void *a, const void *b, void *nodes)
{
	const struct node *v = nodes;
	return strcmp(v[*(const uint32_t *)a].name, v[*(const uint32_t *)b].name);
}

/* Each frame's callees in alphabetical order (names are unique among them). */
static void sort_callees(struct flame *f, uint32_t *scratch)
{
	for (size_t p = 0; p < f->n; p++) {
		size_t k = 0;
		for (uint32_t c = f->nodes[p].first; c; c = f->nodes[c].next)
			scratch[k++] = c;
		if (k < 2)
			continue;
		qsort_r(scratch, k, sizeof(*scratch), by_name, f->nodes);
		f->nodes[p].first = scratch[0];
		for (size_t i = 0; i < k; i++)
			f->nodes[scratch[i]].next = i + 1 < k ? scratch[i + 1] : 0;
	}
}

/* The merged tree of the hotspots' stacks; false when it cannot be allocated. */
static bool flame_build(struct flame *f, const struct cpw_hotspots *h)
{
	size_t frames = 0;
	cpw_hotspots_each_stack_kinds(h, count_frames, &frames);
	f->cap = frames + 1;
	for (f->nslots = 16; f->nslots < 2 * f->cap; f->nslots *= 2)
		;
	f->nodes = calloc(f->cap, sizeof(*f->nodes));
	f->slots = calloc(f->nslots, sizeof(*f->slots));
	uint32_t *scratch = calloc(f->cap, sizeof(*scratch));
	if (!f->nodes || !f->slots || !scratch) {
		free(scratch);
		return false;
	}
	f->nodes[0] = (struct node){ "all", 0, 0, 0, 0, KIND_ROOT };
	f->n = 1;
	cpw_hotspots_each_stack_kinds(h, add_stack, f);
	f->total = f->nodes[0].count;
	sort_callees(f, scratch);
	free(scratch);
	return true;
}

static void flame_free(struct flame *f)
{
	free(f->nodes);
	free(f->slots);
}

static bool drawn(const struct flame *f, uint32_t at)
{
	return f->nodes[at].count * 1000 >= f->total * MIN_PER_MILLE;
}

/* The levels drawn above the root, and the frames left out (a frame too narrow hides its
 * callees too: they are counted with it). */
static int measure(const struct flame *f, uint32_t at, size_t *left_out)
{
	int top = 0;
	for (uint32_t c = f->nodes[at].first; c; c = f->nodes[c].next) {
		if (!drawn(f, c)) {
			size_t hidden = 0;
			measure(f, c, &hidden);
			*left_out += hidden + 1;
			continue;
		}
		int up = 1 + measure(f, c, left_out);
		top = up > top ? up : top;
	}
	return top;
}

/* Text for XML: valid UTF-8 (escape.h), no control characters, markup escaped; at most max
 * characters of it, the last two of those ".." where it is cut. Returns the characters
 * written. */
static size_t put_xml(FILE *out, const char *s, size_t max)
{
	char clean[1024];
	cpw_escape_utf8(s, clean, sizeof clean);
	size_t chars = 0;
	for (const char *c = clean; *c; c++)
		chars += ((unsigned char)*c & 0xC0) != 0x80;
	size_t keep = chars <= max ? chars : max >= 2 ? max - 2 : 0, written = 0;
	const char *end = clean;
	for (; *end; end++) { /* to the start of character keep + 1 */
		bool starts = ((unsigned char)*end & 0xC0) != 0x80;
		if (starts && written == keep)
			break;
		written += starts;
	}
	cpw_svg_text_put(out, clean, (size_t)(end - clean));
	if (keep < chars) {
		fputs(max >= 2 ? ".." : "", out);
		written += max >= 2 ? 2 : 0;
	}
	return written;
}

/* A frame's fill: the kind's hue, its shade from a hash of the name. */
static void put_fill(FILE *out, const char *name, int kind)
{
	/* Per kind: red, green and blue at the hash's 0, and how far each goes at its 1. */
	static const unsigned char base[KIND_COUNT][6] = {
		[CPW_CODE_NATIVE] = { 200, 50, 40, 55, 40, 30 },
		[CPW_CODE_LIBC] = { 200, 115, 170, 45, 50, 45 },
		[CPW_CODE_INTERPRETER] = { 210, 190, 55, 40, 45, 45 },
		[CPW_CODE_KERNEL] = { 235, 145, 20, 20, 45, 35 },
		[CPW_CODE_JIT] = { 60, 185, 195, 50, 40, 40 },
		[CPW_CODE_UNKNOWN] = { 170, 170, 170, 30, 30, 30 },
		[CPW_CODE_PYTHON] = { 80, 180, 70, 50, 50, 50 },
		[KIND_PROCESS] = { 140, 165, 205, 30, 30, 30 },
		[KIND_ROOT] = { 200, 200, 200, 0, 0, 0 },
	};
	const unsigned char *b = base[kind >= 0 && kind < KIND_COUNT ? kind : CPW_CODE_UNKNOWN];
	uint32_t h = hash_name(name, 2166136261u);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;
	/* One hash for red and blue, another for green, as flamegraph.pl's palettes. */
	fprintf(out, "rgb(%d,%d,%d)", (int)(b[0] + b[3] * v1), (int)(b[1] + b[4] * v2), (int)(b[2] + b[5] * v1));
}

struct canvas {
	FILE *out;
	const struct flame *f;
	double scale;       /* pixels per sample */
	int base_y;         /* the top of the root's row */
	bool kinds[KIND_COUNT]; /* the kinds drawn, for the legend */
};

static void draw(struct canvas *cv, uint32_t at, uint64_t x, int depth)
{
	const struct node *nd = &cv->f->nodes[at];
	FILE *out = cv->out;
	double px = PAD + (double)x * cv->scale, w = (double)nd->count * cv->scale;
	int y = cv->base_y - depth * FRAME_H;
	cv->kinds[nd->kind] = true;
	fputs("<g><title>", out);
	put_xml(out, nd->name, 1000);
	fprintf(out, " (%llu sample%s, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"",
		(unsigned long long)nd->count, nd->count == 1 ? "" : "s", 100.0 * (double)nd->count / (double)cv->f->total,
		px, y, w, FRAME_H - 1);
	put_fill(out, nd->name, nd->kind);
	fputs("\"/>", out);
	int fit = (int)((w - 6) / CHAR_W);
	if (fit >= 4) { /* two characters and ".." at the least */
		fprintf(out, "<text x=\"%.1f\" y=\"%d\">", px + 3, y + FRAME_H - 4);
		put_xml(out, nd->name, (size_t)fit);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	for (uint32_t c = nd->first; c; c = cv->f->nodes[c].next) {
		if (drawn(cv->f, c))
			draw(cv, c, x, depth + 1);
		x += cv->f->nodes[c].count;
	}
}

static const char *kind_label(int kind)
{
	return kind == KIND_PROCESS ? "process" : kind == KIND_ROOT ? "all" : cpw_sampler_code_kind_name((enum cpw_code_kind)kind);
}

/* The kinds drawn, each with its colour, in one line under the graph. */
static void legend(const struct canvas *cv, int y)
{
	static const int order[] = { CPW_CODE_PYTHON, CPW_CODE_INTERPRETER, CPW_CODE_NATIVE, CPW_CODE_LIBC,
				     CPW_CODE_KERNEL, CPW_CODE_JIT, CPW_CODE_UNKNOWN, KIND_PROCESS };
	int x = PAD;
	fprintf(cv->out, "<text x=\"%d\" y=\"%d\">Kind of code:</text>\n", x, y + 11);
	x += 84;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (!cv->kinds[order[i]])
			continue;
		const char *label = kind_label(order[i]);
		fprintf(cv->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"", x, y);
		put_fill(cv->out, label, order[i]);
		fprintf(cv->out, "\"/><text x=\"%d\" y=\"%d\">%s</text>\n", x + 16, y + 11, label);
		x += 16 + (int)(CHAR_W * (double)strlen(label)) + 18;
	}
}

/* The command, as wide as the title allows. */
static void title(FILE *out, const struct cpw_report *r)
{
	fputs("<text x=\"10\" y=\"24\" class=\"title\">cperfwatch: ", out);
	if (r->cfg && r->cfg->command_argc > 0) {
		size_t room = 120; /* characters that fit the width at the title's size */
		for (int i = 0; i < r->cfg->command_argc && room > 4; i++) {
			if (i) {
				fputc(' ', out);
				room--;
			}
			room -= put_xml(out, r->cfg->command[i], room);
		}
	} else {
		fprintf(out, "pid %d", (int)r->pid);
	}
	fputs("</text>\n", out);
}

static const char style[] =
	"<style>\n"
	"text { font-family: sans-serif; font-size: 11px; fill: #000; }\n"
	".title { font-size: 16px; font-weight: bold; }\n"
	".subtitle { font-size: 12px; }\n"
	"rect { stroke: white; stroke-width: 0.5; }\n"
	"g:hover rect { stroke: black; stroke-width: 1; }\n"
	"</style>\n";

static void head(FILE *out, int height)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<title>cperfwatch: flame graph of the sampled stacks</title>\n%s"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\" style=\"stroke: none\"/>\n",
		WIDTH, height, WIDTH, height, style);
}

/* No graph: a picture that says why. */
static int write_empty(const struct cpw_report *r, FILE *out, const char *why)
{
	head(out, 80);
	title(out, r);
	fputs("<text x=\"10\" y=\"48\" class=\"subtitle\">", out);
	put_xml(out, why, 600);
	fputs("</text>\n</svg>\n", out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

int cpw_flame_svg_write(const struct cpw_report *r, FILE *out)
{
	const struct cpw_hotspots *h = r->hotspots;
	errno = 0;
	if (!h)
		return write_empty(r, out, "No stacks: the run was not sampled (--no-hotspots).");
	if (cpw_hotspots_unavailable(h)) {
		char why[400];
		snprintf(why, sizeof why, "No stacks: %s", cpw_hotspots_unavailable(h));
		return write_empty(r, out, why);
	}
	struct flame f = { 0 };
	if (!flame_build(&f, h)) {
		flame_free(&f);
		return -ENOMEM;
	}
	if (f.total == 0) {
		flame_free(&f);
		return write_empty(r, out, "No stacks: no sample was taken (sampling starts 0.5 s after the command, "
					   "and only while it runs on a CPU).");
	}
	size_t left_out = 0;
	int levels = 1 + measure(&f, 0, &left_out);
	int height = TOP + levels * FRAME_H + BOTTOM;
	struct canvas cv = { .out = out, .f = &f, .scale = (double)GRAPH_W / (double)f.total,
			     .base_y = TOP + (levels - 1) * FRAME_H };
	head(out, height);
	title(out, r);
	fprintf(out, "<text x=\"10\" y=\"44\" class=\"subtitle\">Flame graph: %llu on-CPU samples of the whole "
		"tree; each frame as wide as its share of them, its callees on top of it, in alphabetical order</text>\n",
		(unsigned long long)f.total);
	fprintf(out, "<text x=\"10\" y=\"62\" class=\"subtitle\">%zu frames drawn; %zu under 0.1%% of the "
		"samples left out", f.n - left_out, left_out);
	if (cpw_hotspots_stacks_dropped(h))
		fprintf(out, "; [other]: %llu samples whose stack did not fit the table",
			(unsigned long long)cpw_hotspots_stacks_dropped(h));
	fputs(". Hover over a frame for its samples.</text>\n", out);
	draw(&cv, 0, 0, 0);
	legend(&cv, TOP + levels * FRAME_H + 14);
	fputs("</svg>\n", out);
	flame_free(&f);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
