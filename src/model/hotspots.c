/*
 * hotspots.c: the samples folded into bounded tables (hotspots.h). No I/O.
 *
 * One struct of fixed arrays, allocated whole (calloc: pages never written cost nothing).
 * Function 0 is "[other]": where a table is full, what does not fit is counted there, so
 * that the shares still add up to the samples taken.
 */
#include "config.h"
#include "model/hotspots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN_MAX 2048
#define FN_HASH 4096
#define NAMES_POOL (96 * 1024)
#define PROC_MAX 256
#define COMM_MAX 256
#define PF_MAX 4096          /* (process, function) pairs */
#define PF_HASH 8192
#define STACKS_MAX 4096
#define STACK_HASH 8192
#define STACK_DEPTH 32
#define SLICES 64
#define SLICE_TOP 8
#define SLICE_FIRST_S 0.25
#define RENAME_TOP 32        /* functions given their source line: the JSON report's list */
/* ... among those that hold at least this share of the samples. A library's lines cost
 * the first lookup its whole DWARF: libc6-dbg's compressed sections are inflated at
 * open, ~20 ms, 1% of a 2 s program, for a function at 0.7% (clock_gettime). */
#define RENAME_MIN_PERCENT 1

struct fn {
	uint32_t name, file;    /* offsets in the pool */
	uint8_t kind;
	uint64_t self, total;
	uint64_t seen;          /* the last sample that counted it in total */
};

struct proc {
	pid_t pid;
	uint16_t comm;
	uint64_t samples;
};

struct pf {
	uint16_t proc, fn;
	uint32_t self;
};

struct stack {
	uint16_t comm;
	uint8_t depth;
	uint16_t fr[STACK_DEPTH]; /* leaf first */
	uint64_t count;
};

struct slice {
	uint16_t fn[SLICE_TOP];
	uint32_t n[SLICE_TOP];
	uint32_t other, total;
};

struct cpw_hotspots {
	double epoch;
	char why[256];
	bool unavailable;
	struct cpw_sampler_stats stats;
	double armed_at;
	uint64_t samples, kinds[CPW_CODE_KINDS], stacks_dropped;
	struct fn fns[FN_MAX];
	size_t nfns;
	uint16_t fn_hash[FN_HASH];
	char pool[NAMES_POOL];
	size_t pool_len;
	char comms[COMM_MAX][16];
	size_t ncomms;
	struct proc procs[PROC_MAX];
	size_t nprocs;
	struct pf pfs[PF_MAX];
	size_t npfs;
	uint16_t pf_hash[PF_HASH];
	struct stack stacks[STACKS_MAX];
	size_t nstacks;
	uint16_t stack_hash[STACK_HASH];
	struct slice slices[SLICES];
	double slice_s;
};

size_t cpw_hotspots_memory(void)
{
	return sizeof(struct cpw_hotspots);
}

static uint32_t hash_str(const char *s, uint32_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t intern(struct cpw_hotspots *h, const char *s, bool *ok)
{
	size_t n = strlen(s) + 1;
	if (h->pool_len + n > NAMES_POOL) {
		*ok = false;
		return 0;
	}
	memcpy(h->pool + h->pool_len, s, n);
	uint32_t off = (uint32_t)h->pool_len;
	h->pool_len += n;
	return off;
}

struct cpw_hotspots *cpw_hotspots_new(void)
{
	struct cpw_hotspots *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	bool ok = true;
	h->fns[0].name = intern(h, "[other]", &ok);
	h->fns[0].file = intern(h, "", &ok);
	h->fns[0].kind = CPW_CODE_UNKNOWN;
	h->nfns = 1;
	snprintf(h->comms[0], sizeof(h->comms[0]), "[other]");
	h->ncomms = 1;
	h->armed_at = NAN;
	h->slice_s = SLICE_FIRST_S;
	return h;
}

void cpw_hotspots_free(struct cpw_hotspots *h)
{
	free(h);
}

void cpw_hotspots_set_epoch(struct cpw_hotspots *h, double mono_s)
{
	h->epoch = mono_s;
}

void cpw_hotspots_set_source(struct cpw_hotspots *h, const struct cpw_sampler_stats *stats, double armed_at_s)
{
	h->stats = *stats;
	h->armed_at = armed_at_s;
}

void cpw_hotspots_set_unavailable(struct cpw_hotspots *h, const char *why)
{
	h->unavailable = true;
	snprintf(h->why, sizeof(h->why), "%s", why);
}

static uint16_t fn_index(struct cpw_hotspots *h, const struct cpw_frame *f)
{
	uint32_t k = hash_str(f->file, hash_str(f->func, 2166136261u));
	for (size_t i = 0; i < FN_HASH; i++) {
		uint16_t *slot = &h->fn_hash[(k + i) % FN_HASH];
		if (*slot == 0) {
			if (h->nfns == FN_MAX)
				return 0;
			bool ok = true;
			size_t pool_before = h->pool_len;
			uint32_t name = intern(h, f->func, &ok), file = intern(h, f->file, &ok);
			if (!ok) {
				h->pool_len = pool_before;
				return 0;
			}
			struct fn *x = &h->fns[h->nfns];
			x->name = name;
			x->file = file;
			x->kind = (uint8_t)f->kind;
			*slot = (uint16_t)h->nfns;
			return (uint16_t)h->nfns++;
		}
		const struct fn *x = &h->fns[*slot];
		if (strcmp(h->pool + x->name, f->func) == 0 && strcmp(h->pool + x->file, f->file) == 0)
			return *slot;
	}
	return 0;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The functions a report can show that are worth their source line: the top RENAME_TOP by
 * self samples (the JSON's list) and each time slice's top ones (the phases' top function),
 * of those with RENAME_MIN_PERCENT of the samples. */
static void shown_functions(const struct cpw_hotspots *h, bool *shown)
{
	uint64_t self[FN_MAX] = { 0 };
	size_t n = 0;
	for (size_t i = 1; i < h->nfns; i++)
		self[n++] = h->fns[i].self;
	qsort(self, n, sizeof(self[0]), cmp_u64_desc);
	uint64_t least = n == 0 ? 0 : self[n < RENAME_TOP ? n - 1 : RENAME_TOP - 1];
	uint64_t floor = (h->samples * RENAME_MIN_PERCENT + 99) / 100;
	if (least < floor)
		least = floor;
	for (size_t i = 1; i < h->nfns; i++)
		shown[i] = h->fns[i].self > 0 && h->fns[i].self >= least;
	for (size_t i = 0; i < SLICES; i++)
		for (int k = 0; k < SLICE_TOP; k++)
			if (h->slices[i].n[k] && h->fns[h->slices[i].fn[k]].self >= floor)
				shown[h->slices[i].fn[k]] = true;
	shown[0] = false;
}

size_t cpw_hotspots_rename_files(struct cpw_hotspots *h, cpw_hot_file_fn fn, void *ctx)
{
	bool shown[FN_MAX] = { false }, asked[FN_MAX] = { false };
	shown_functions(h, shown);
	size_t renamed = 0;
	for (size_t i = 1; i < h->nfns; i++) {
		uint32_t file = h->fns[i].file; /* the pool only grows: the old name stays */
		for (size_t j = i; j < h->nfns && shown[i]; j++) {
			struct fn *x = &h->fns[j];
			if (!shown[j] || asked[j] || strcmp(h->pool + x->file, h->pool + file) != 0)
				continue;
			asked[j] = true;
			char where[256];
			bool ok = true;
			if (!fn(ctx, h->pool + x->name, h->pool + file, (enum cpw_code_kind)x->kind, where, sizeof(where)))
				continue;
			uint32_t off = intern(h, where, &ok);
			if (ok) {
				x->file = off;
				renamed++;
			}
		}
	}
	/* The functions are found by name and file: their slots move with the new names. */
	memset(h->fn_hash, 0, sizeof(h->fn_hash));
	for (size_t i = 1; i < h->nfns; i++) {
		uint32_t k = hash_str(h->pool + h->fns[i].file, hash_str(h->pool + h->fns[i].name, 2166136261u));
		size_t at = k % FN_HASH;
		while (h->fn_hash[at] != 0)
			at = (at + 1) % FN_HASH;
		h->fn_hash[at] = (uint16_t)i;
	}
	return renamed;
}

static uint16_t comm_index(struct cpw_hotspots *h, const char *comm)
{
	for (size_t i = 1; i < h->ncomms; i++)
		if (strncmp(h->comms[i], comm, 15) == 0)
			return (uint16_t)i;
	if (h->ncomms == COMM_MAX)
		return 0;
	snprintf(h->comms[h->ncomms], sizeof(h->comms[0]), "%s", comm);
	return (uint16_t)h->ncomms++;
}

/* The process's slot; a process beyond the table counts under the first of its name. */
static uint16_t proc_index(struct cpw_hotspots *h, pid_t pid, uint16_t comm)
{
	for (size_t i = 0; i < h->nprocs; i++)
		if (h->procs[i].pid == pid && h->procs[i].comm == comm)
			return (uint16_t)i;
	if (h->nprocs < PROC_MAX) {
		h->procs[h->nprocs] = (struct proc){ pid, comm, 0 };
		return (uint16_t)h->nprocs++;
	}
	for (size_t i = 0; i < h->nprocs; i++)
		if (h->procs[i].comm == comm)
			return (uint16_t)i;
	return 0;
}

static void count_pf(struct cpw_hotspots *h, uint16_t proc, uint16_t fn)
{
	uint32_t k = ((uint32_t)proc * 40503u) ^ ((uint32_t)fn * 2654435761u);
	for (size_t i = 0; i < PF_HASH; i++) {
		uint16_t *slot = &h->pf_hash[(k + i) % PF_HASH];
		if (*slot == 0) {
			if (h->npfs + 1 >= PF_MAX)
				return;
			h->npfs++; /* slots are index + 1 */
			h->pfs[h->npfs] = (struct pf){ proc, fn, 1 };
			*slot = (uint16_t)h->npfs;
			return;
		}
		struct pf *p = &h->pfs[*slot];
		if (p->proc == proc && p->fn == fn) {
			p->self++;
			return;
		}
	}
}

static void count_stack(struct cpw_hotspots *h, uint16_t comm, const uint16_t *fr, int depth)
{
	uint32_t k = comm * 2654435761u;
	for (int i = 0; i < depth; i++)
		k = (k ^ fr[i]) * 16777619u;
	for (size_t i = 0; i < STACK_HASH; i++) {
		uint16_t *slot = &h->stack_hash[(k + i) % STACK_HASH];
		if (*slot == 0) {
			if (h->nstacks + 1 >= STACKS_MAX) {
				h->stacks_dropped++;
				return;
			}
			h->nstacks++;
			struct stack *s = &h->stacks[h->nstacks];
			s->comm = comm;
			s->depth = (uint8_t)depth;
			memcpy(s->fr, fr, (size_t)depth * sizeof(*fr));
			s->count = 1;
			*slot = (uint16_t)h->nstacks;
			return;
		}
		struct stack *s = &h->stacks[*slot];
		if (s->comm == comm && s->depth == depth && memcmp(s->fr, fr, (size_t)depth * sizeof(*fr)) == 0) {
			s->count++;
			return;
		}
	}
	h->stacks_dropped++;
}

static void slice_add(struct slice *s, uint16_t fn, uint32_t n)
{
	s->total += n;
	int low = 0;
	for (int i = 0; i < SLICE_TOP; i++) {
		if (s->n[i] && s->fn[i] == fn) {
			s->n[i] += n;
			return;
		}
		if (s->n[i] < s->n[low])
			low = i;
	}
	if (s->n[low] == 0 || s->n[low] < n) {
		s->other += s->n[low];
		s->fn[low] = fn;
		s->n[low] = n;
	} else {
		s->other += n;
	}
}

/* The run outgrew the slices: each two become one, twice as wide. */
static void widen_slices(struct cpw_hotspots *h)
{
	for (int i = 0; i < SLICES / 2; i++) {
		struct slice a = h->slices[2 * i], b = h->slices[2 * i + 1], m = { { 0 }, { 0 }, 0, 0 };
		for (int k = 0; k < SLICE_TOP; k++) {
			if (a.n[k])
				slice_add(&m, a.fn[k], a.n[k]);
			if (b.n[k])
				slice_add(&m, b.fn[k], b.n[k]);
		}
		m.other += a.other + b.other;
		m.total = a.total + b.total;
		h->slices[i] = m;
	}
	memset(&h->slices[SLICES / 2], 0, sizeof(h->slices) / 2);
	h->slice_s *= 2;
}

void cpw_hotspots_take(void *ctx, const struct cpw_stack *st)
{
	struct cpw_hotspots *h = ctx;
	if (st->nframes <= 0)
		return;
	uint64_t serial = ++h->samples;
	uint16_t fr[STACK_DEPTH];
	int depth = 0;
	for (int i = 0; i < st->nframes; i++) {
		uint16_t f = fn_index(h, &st->frames[i]);
		if (i == 0) {
			h->fns[f].self++;
			h->kinds[st->frames[0].kind < CPW_CODE_KINDS ? st->frames[0].kind : CPW_CODE_UNKNOWN]++;
		}
		if (h->fns[f].seen != serial) { /* recursion counts once */
			h->fns[f].seen = serial;
			h->fns[f].total++;
		}
		if (depth < STACK_DEPTH)
			fr[depth++] = f;
	}
	if (st->nframes > STACK_DEPTH) { /* the root end is cut: marked so, not left out */
		struct cpw_frame deeper = { "[deeper]", "", CPW_CODE_UNKNOWN };
		fr[STACK_DEPTH - 1] = fn_index(h, &deeper);
	}
	uint16_t comm = comm_index(h, st->comm ? st->comm : "?");
	uint16_t proc = proc_index(h, st->pid, comm);
	h->procs[proc].samples++;
	count_pf(h, proc, fr[0]);
	count_stack(h, comm, fr, depth);
	double t = st->mono_s - h->epoch;
	if (t < 0)
		t = 0;
	while (t >= h->slice_s * SLICES && h->slice_s < 1e9)
		widen_slices(h);
	slice_add(&h->slices[(int)(t / h->slice_s) < SLICES ? (int)(t / h->slice_s) : SLICES - 1], fr[0], 1);
}

const char *cpw_hotspots_unavailable(const struct cpw_hotspots *h)
{
	return h->unavailable ? h->why : NULL;
}

const struct cpw_sampler_stats *cpw_hotspots_source(const struct cpw_hotspots *h)
{
	return &h->stats;
}

double cpw_hotspots_armed_at(const struct cpw_hotspots *h)
{
	return h->armed_at;
}

uint64_t cpw_hotspots_samples(const struct cpw_hotspots *h)
{
	return h->samples;
}

uint64_t cpw_hotspots_kind_samples(const struct cpw_hotspots *h, enum cpw_code_kind k)
{
	return (unsigned)k < CPW_CODE_KINDS ? h->kinds[k] : 0;
}

uint64_t cpw_hotspots_stacks_dropped(const struct cpw_hotspots *h)
{
	return h->stacks_dropped;
}

static void fill_fn(const struct cpw_hotspots *h, uint16_t i, struct cpw_hot_fn *o)
{
	const struct fn *f = &h->fns[i];
	o->name = h->pool + f->name;
	o->file = h->pool + f->file;
	o->kind = (enum cpw_code_kind)f->kind;
	o->self = f->self;
	o->total = f->total;
	o->pid = 0;
	o->comm = "";
	o->nprocs = 0;
	uint32_t best = 0;
	for (size_t k = 1; k <= h->npfs; k++) {
		const struct pf *p = &h->pfs[k];
		if (p->fn != i)
			continue;
		o->nprocs++;
		if (p->self > best) {
			best = p->self;
			o->pid = h->procs[p->proc].pid;
			o->comm = h->comms[h->procs[p->proc].comm];
		}
	}
}

size_t cpw_hotspots_top(const struct cpw_hotspots *h, struct cpw_hot_fn *out, size_t max)
{
	/* Selection of the max largest: max is small (the report's 10, the verdict's 3). */
	size_t n = 0;
	uint16_t idx[64];
	if (max > 64)
		max = 64;
	for (size_t i = 0; i < h->nfns; i++) {
		if (h->fns[i].self == 0)
			continue;
		size_t at = n < max ? n++ : max;
		if (at == max) {
			if (h->fns[i].self <= h->fns[idx[max - 1]].self)
				continue;
			at = max - 1;
		}
		while (at > 0 && h->fns[idx[at - 1]].self < h->fns[i].self) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = (uint16_t)i;
	}
	for (size_t i = 0; i < n; i++)
		fill_fn(h, idx[i], &out[i]);
	return n;
}

bool cpw_hotspots_top_between(const struct cpw_hotspots *h, double t0, double t1, struct cpw_hot_fn *out,
			      uint64_t *in_range)
{
	uint32_t counts[SLICES * SLICE_TOP];
	uint16_t fns[SLICES * SLICE_TOP];
	size_t n = 0;
	uint64_t total = 0;
	for (int i = 0; i < SLICES; i++) {
		double mid = (i + 0.5) * h->slice_s;
		if (mid < t0 || mid >= t1)
			continue;
		const struct slice *s = &h->slices[i];
		total += s->total;
		for (int k = 0; k < SLICE_TOP; k++) {
			if (!s->n[k])
				continue;
			size_t j = 0;
			while (j < n && fns[j] != s->fn[k])
				j++;
			if (j == n) {
				fns[n] = s->fn[k];
				counts[n++] = 0;
			}
			counts[j] += s->n[k];
		}
	}
	*in_range = total;
	size_t best = n;
	for (size_t j = 0; j < n; j++)
		if (fns[j] != 0 && (best == n || counts[j] > counts[best]))
			best = j;
	if (best == n)
		return false;
	fill_fn(h, fns[best], out);
	out->self = counts[best];
	return true;
}

int cpw_hotspots_each_stack_kinds(const struct cpw_hotspots *h, cpw_hot_stack_kinds_fn fn, void *ctx)
{
	const char *names[STACK_DEPTH];
	enum cpw_code_kind kinds[STACK_DEPTH];
	for (size_t i = 1; i <= h->nstacks; i++) {
		const struct stack *s = &h->stacks[i];
		for (int k = 0; k < s->depth; k++) {
			const struct fn *f = &h->fns[s->fr[s->depth - 1 - k]];
			names[k] = h->pool + f->name;
			kinds[k] = (enum cpw_code_kind)f->kind;
		}
		int rc = fn(ctx, h->comms[s->comm], names, kinds, s->depth, s->count);
		if (rc)
			return rc;
	}
	if (h->stacks_dropped) {
		const char *other = "[other]";
		const enum cpw_code_kind unknown = CPW_CODE_UNKNOWN;
		return fn(ctx, "[other]", &other, &unknown, 1, h->stacks_dropped);
	}
	return 0;
}

/* each_stack's callback called from each_stack_kinds', the kinds left out. */
struct names_only {
	cpw_hot_stack_fn fn;
	void *ctx;
};

static int without_kinds(void *ctx, const char *comm, const char *const *frames, const enum cpw_code_kind *kinds,
			 int n, uint64_t count)
{
	const struct names_only *no = ctx;
	(void)kinds;
	return no->fn(no->ctx, comm, frames, n, count);
}

int cpw_hotspots_each_stack(const struct cpw_hotspots *h, cpw_hot_stack_fn fn, void *ctx)
{
	struct names_only no = { fn, ctx };
	return cpw_hotspots_each_stack_kinds(h, without_kinds, &no);
}
