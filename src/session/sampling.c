/*
 * sampling.c: the session's hotspots (sampling.h): arms the sampler, drains it into the
 * model, and notes what the samples could not show.
 */
#include "config.h"
#include "session/sampling.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "source/python/python_stacks.h"
#include "source/sample/sampler.h"
#include "util/arith.h"
#include "util/tick_grid.h"
#include "view/tui.h"

#define ARM_TIDS_MAX 1024
/* Processes whose mappings are read at the arming (those that ran in the last sample). */
#define PRIME_MAX 64
/* Fewer samples than this: the shares are noted as rough. */
#define FEW_SAMPLES 100

struct cpw_sampling {
	const struct cpw_config *cfg;
	struct cpw_hotspots *hotspots;
	struct cpw_sampler *sampler;
	double armed_at;          /* run seconds; NAN before */
	bool given_up;
	unsigned beyond_listing;  /* threads live at arming past the ARM_TIDS_MAX listed: never armed */
	struct cpw_python_stacks *python; /* Python stacks (issue 26, part 3); NULL: none read */
	struct timespec origin;   /* the session's start: the grid the samples are paced on */
};

struct cpw_sampling *cpw_sampling_new(const struct cpw_config *cfg)
{
	if (cfg->no_hotspots)
		return NULL;
	struct cpw_sampling *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->cfg = cfg;
	sp->armed_at = NAN;
	sp->hotspots = cpw_hotspots_new();
	if (!sp->hotspots) {
		free(sp);
		return NULL;
	}
	return sp;
}

const struct cpw_hotspots *cpw_sampling_hotspots(const struct cpw_sampling *sp)
{
	return sp ? sp->hotspots : NULL;
}

struct cpw_python_stacks *cpw_sampling_python(const struct cpw_sampling *sp)
{
	return sp ? sp->python : NULL;
}

void cpw_sampling_start(struct cpw_sampling *sp, const struct timespec *start)
{
	if (!sp)
		return;
	cpw_hotspots_set_epoch(sp->hotspots, (double)start->tv_sec + (double)start->tv_nsec / 1e9);
	sp->origin = *start;
}

/* A native function's file becomes its source file:line where debug information says it
 * (libdw): asked at the end, once per function of the tables, so that sampling never pays
 * for DWARF, and a file's debug information is read only when a function of it is there. */
static bool source_line(void *ctx, const char *func, const char *file, enum cpw_code_kind kind, char *out,
			size_t len)
{
	if (kind != CPW_CODE_NATIVE && kind != CPW_CODE_LIBC && kind != CPW_CODE_INTERPRETER)
		return false;
	return cpw_sampler_source_line(ctx, func, file, out, len);
}

static void give_up(struct cpw_sampling *sp, const char *why, struct cpw_report *r)
{
	sp->given_up = true;
	cpw_hotspots_set_unavailable(sp->hotspots, why);
	cpw_report_note(r, "hotspots not sampled: %s", why);
	cpw_sampler_free(sp->sampler);
	sp->sampler = NULL;
}

static void arm(struct cpw_sampling *sp, const struct cpw_tree *tree, double now, struct cpw_report *r)
{
	char why[320] = "";
	pid_t tids[ARM_TIDS_MAX];
	size_t n = cpw_tree_live_tids(tree, tids, ARM_TIDS_MAX);
	if (n == 0)
		return; /* nothing alive yet (or any more): the next sample tries */
	/* Python stacks: a failure to start costs only them (native frames stay). Made first:
	 * they also name the functions Python threads wait in, where sampling is refused. */
	if (!sp->python) {
		int hz = sp->cfg->sampling_hz > 0 ? sp->cfg->sampling_hz : CPW_SAMPLING_HZ;
		/* On the samples' grid: the reader wakes with the session (tick_grid.h). */
		uint64_t period = cpw_tick_grid_period_ns((double)hz / CPW_PYTHON_READ_DIVISOR,
							  (uint64_t)sp->cfg->interval_ms * 1000000u);
		sp->python = cpw_python_stacks_new(sp->cfg->proc_root, period, sp->origin, why, sizeof(why));
		if (!sp->python)
			cpw_report_note(r, "Python stacks not read: %s", why);
	}
	sp->sampler = cpw_sampler_new(sp->cfg->proc_root, sp->cfg->sampling_hz > 0 ? sp->cfg->sampling_hz : CPW_SAMPLING_HZ,
				      why, sizeof(why));
	if (!sp->sampler) {
		give_up(sp, why, r);
		return;
	}
	if (cpw_sampler_arm(sp->sampler, tids, n, why, sizeof(why)) == 0) {
		give_up(sp, why, r);
		return;
	}
	size_t live = cpw_tree_live_thread_count(tree);
	sp->beyond_listing = live > n ? (unsigned)(live - n) : 0;
	sp->armed_at = now;
	/* The mappings of those that ran in the last sample, read now: one may end before the
	 * next drain. The idle ones are read at their first sample (a tree of 500 sleepers
	 * would pay 500 reads at once for nothing). */
	pid_t busy[PRIME_MAX];
	size_t nbusy = 0;
	for (size_t i = 0; i < cpw_tree_size(tree) && nbusy < PRIME_MAX; i++) {
		const struct cpw_proc *p = cpw_tree_proc(tree, i);
		if (!p->alive || !(p->cpu_pct > 0))
			continue;
		busy[nbusy++] = p->pid;
		if (p->python_exe == 1) /* and its Python stacks, read from now */
			cpw_python_stacks_prime(sp->python, p->pid, p->comm);
	}
	cpw_sampler_prime(sp->sampler, busy, nbusy);
}

/* Python stacks: each sample passes through the reader, which gives a CPython process's
 * samples in the interpreter its Python frames, then to the model. */
static void take(void *ctx, const struct cpw_stack *st)
{
	struct cpw_sampling *sp = ctx;
	struct cpw_stack copy = *st;
	cpw_python_stacks_resolve(sp->python, &copy);
	cpw_hotspots_take(sp->hotspots, &copy);
}

static void note_line(void *ctx, const char *line)
{
	cpw_report_note(ctx, "%s", line);
}

void cpw_sampling_step(struct cpw_sampling *sp, const struct cpw_tree *tree, double now, struct cpw_report *r)
{
	if (!sp || sp->given_up)
		return;
	if (!sp->sampler) {
		if (sp->cfg->mode == CPW_MODE_RUN && now < CPW_SAMPLING_ARM_S)
			return;
		arm(sp, tree, now, r);
		if (!sp->sampler)
			return;
	}
	cpw_sampler_drain(sp->sampler, take, sp);
	/* Threads the arming's listing did not have yet (begun since the sample before it) and
	 * no followed thread started: the tree's listing is older than the drain, so each
	 * thread it names that a followed one started has its FORK record drained by now. */
	pid_t tids[ARM_TIDS_MAX];
	size_t n = cpw_tree_live_tids(tree, tids, ARM_TIDS_MAX);
	cpw_sampler_arm_new(sp->sampler, tids, n);
}

/* What the Python stack reader could not read (versions, refusals, torn readings). */
static void python_notes(struct cpw_sampling *sp, struct cpw_report *r)
{
	struct cpw_python_stacks_stats ps;
	cpw_python_stacks_get_stats(sp->python, &ps);
	cpw_python_stacks_notes(sp->python, note_line, r);
	if (ps.torn)
		cpw_report_note(r, "hotspots: %llu Python stack reading(s) dropped: the frames changed while "
				"they were read", (unsigned long long)ps.torn);
	if (ps.unmatched && ps.unmatched * 10 > ps.matched + ps.unmatched) /* a tenth: it changes what the shares say */
		cpw_report_note(r, "hotspots: %llu sample(s) of Python processes in the interpreter had no "
				"Python stack read near their time: the interpreter's own functions stand "
				"for them", (unsigned long long)ps.unmatched);
}

/* The Python function whose share the stack readings leave roughest: a function on the
 * stack in a part p of the samples that took Python frames (a part q of all) has a share
 * q p, off by about q sqrt(p(1-p)/n) over n readings. Its error in points; 0 where none. */
static double roughest_python(const struct cpw_sampling *sp, uint64_t samples, uint64_t matched, uint64_t readings,
			      struct cpw_hot_fn *fn)
{
	struct cpw_hot_fn top[16];
	size_t n = cpw_hotspots_top(sp->hotspots, top, 16);
	double worst = 0, q = (double)matched / (double)samples;
	for (size_t i = 0; i < n; i++) {
		if (top[i].kind != CPW_CODE_PYTHON)
			continue;
		double p = top[i].total < matched ? (double)top[i].total / (double)matched : 1.0;
		double err = 100.0 * q * cpw_sqrt(p * (1.0 - p) / (double)readings);
		if (err > worst) {
			worst = err;
			*fn = top[i];
		}
	}
	return worst;
}

/* A share of n samples is off by up to sqrt(p(1-p)/n); twice that at p = 1/2 is 1/sqrt(n):
 * 10 points at 100 samples. Under that many, the table is a sketch, and says so. A Python
 * function's share comes from the stack readings the samples took (fewer: they are read at
 * a quarter of the rate); under 100 of them, the one left roughest is named where it is off
 * by 3 points or more (one function that holds all the time is not, however few). */
#define PYTHON_ROUGH_POINTS 3.0
static void few_samples_note(struct cpw_sampling *sp, const struct cpw_sampler_stats *st, struct cpw_report *r)
{
	struct cpw_python_stacks_stats ps = { 0 };
	if (sp->python)
		cpw_python_stacks_get_stats(sp->python, &ps);
	/* The readings that served a sample: at most one each. */
	uint64_t readings = ps.readings < ps.matched ? ps.readings : ps.matched;
	bool few = st->samples > 0 && st->samples < FEW_SAMPLES;
	if (few) {
		double err = 100.0 / cpw_sqrt((double)st->samples);
		if (readings)
			cpw_report_note(r, "hotspots: %llu samples only: a share is known to about +-%.0f points, a "
					"Python function's to +-%.0f (%llu stack readings) (a longer run, or a higher -F, "
					"takes more)", (unsigned long long)st->samples, err,
					100.0 / cpw_sqrt((double)readings), (unsigned long long)readings);
		else
			cpw_report_note(r, "hotspots: %llu samples only: a share is known to about +-%.0f points (a "
					"longer run, or a higher -F, takes more)", (unsigned long long)st->samples, err);
		return;
	}
	if (readings == 0 || readings >= FEW_SAMPLES || st->samples == 0)
		return;
	struct cpw_hot_fn fn = { 0 };
	double err = roughest_python(sp, st->samples, ps.matched < st->samples ? ps.matched : st->samples, readings,
				     &fn);
	if (err >= PYTHON_ROUGH_POINTS)
		cpw_report_note(r, "hotspots: %llu Python stack readings only: the share of %s (%s), %.0f%%, is known to "
				"about +-%.0f points (a longer run, or a higher -F, takes more)",
				(unsigned long long)readings, fn.name, fn.file,
				100.0 * (double)fn.total / (double)st->samples, err);
}

/* Samples in the kernel that its functions do not name: why, where they are a part worth
 * telling (5 % of the samples; a Python loop's few wake-ups are not). */
static void kernel_unnamed_note(const struct cpw_sampler_stats *st, struct cpw_report *r)
{
	if (st->samples < 20 || (double)st->kernel_unnamed < 0.05 * (double)st->samples)
		return;
	unsigned long long n = (unsigned long long)st->kernel_unnamed;
	if (st->kernel_hidden)
		cpw_report_note(r, "hotspots: the kernel hides its functions' addresses (/proc/kallsyms reads 0: "
				"kptr_restrict, or not root): its %llu sample(s) are named [kernel]", n);
	else
		cpw_report_note(r, "hotspots: %llu sample(s) in the kernel are named [kernel], not by function: "
				"the kernel's function names (/proc/kallsyms, ~70 ms and 2.5 MB to read) are read "
				"only once %u of its samples are taken%s", n, st->kernel_names_after,
				st->kernel_read ? " (those before were not named)" : "");
}

void cpw_sampling_finish(struct cpw_sampling *sp, struct cpw_report *r)
{
	if (!sp)
		return;
	if (!sp->sampler) { /* refused: the stack reader may still have named waits */
		if (sp->python)
			python_notes(sp, r);
		return;
	}
	cpw_sampler_drain(sp->sampler, take, sp);
	cpw_hotspots_rename_files(sp->hotspots, source_line, sp->sampler);
	cpw_sampler_source_lines_done(sp->sampler);
	struct cpw_sampler_stats st;
	cpw_sampler_get_stats(sp->sampler, &st);
	cpw_hotspots_set_source(sp->hotspots, &st, sp->armed_at);
	if (st.threads_refused + sp->beyond_listing)
		cpw_report_note(r, "hotspots: %u thread(s) could not be sampled (ended, or beyond %d)",
				st.threads_refused + sp->beyond_listing, ARM_TIDS_MAX);
	few_samples_note(sp, &st, r);
	if (st.lost)
		cpw_report_note(r, "hotspots: the kernel dropped %llu sample record(s): its buffers filled "
				"between two reads (a long --interval)", (unsigned long long)st.lost);
	uint64_t user = st.samples, shallow = st.cut_short + st.leaf_only;
	/* A sample in the interpreter that got its Python stack has the stack that matters,
	 * whatever depth libpython's own frames had (Debian's 3.11 has no frame pointers):
	 * the note is about the rest, as a share of all the samples. */
	if (sp->python) {
		struct cpw_python_stacks_stats ps;
		cpw_python_stacks_get_stats(sp->python, &ps);
		uint64_t stacked = ps.matched < user ? ps.matched : user;
		shallow = shallow > stacked ? shallow - stacked : 0;
	}
	if (user >= 20 && (double)shallow > 0.2 * (double)user)
		cpw_report_note(r, "hotspots: %.0f%% of the sampled stacks end after their first frame or at an "
				"address no file holds: code built without frame pointers (-fomit-frame-pointer, "
				"the default at -O2); total%% counts only the callers seen (build with "
				"-fno-omit-frame-pointer for whole stacks)",
				100.0 * (double)shallow / (double)user);
	if (sp->python) /* Python stacks */
		python_notes(sp, r);
	kernel_unnamed_note(&st, r);
	if (st.unreadable)
		cpw_report_note(r, "hotspots: %llu mapped file(s) could not be read or were replaced since they "
				"were mapped: their frames are named [FILE]", (unsigned long long)st.unreadable);
	if (st.lines_why)
		cpw_report_note(r, "hotspots: source lines not read: %s (install libdw1); the functions of files "
				"with debug information are shown with their file's name", st.lines_why);
}

void cpw_sampling_free(struct cpw_sampling *sp)
{
	if (!sp)
		return;
	cpw_sampler_free(sp->sampler);
	cpw_python_stacks_free(sp->python);
	cpw_hotspots_free(sp->hotspots);
	free(sp);
}

/* src into dst (of len bytes), cut where too long at the start of a UTF-8 character. */
static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src ? src : "");
	if (n >= len) {
		n = len - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

void cpw_sampling_view(const struct cpw_sampling *sp, const struct cpw_config *cfg, struct cpw_view_hotspots *out)
{
	memset(out, 0, sizeof(*out));
	out->hz = cfg->sampling_hz > 0 ? cfg->sampling_hz : CPW_SAMPLING_HZ;
	if (!sp) {
		out->state = cfg->no_hotspots ? CPW_VIEW_HOT_OFF : CPW_VIEW_HOT_UNAVAILABLE;
		copy_name(out->why, sizeof(out->why), cfg->no_hotspots ? "--no-hotspots" : "out of memory");
		return;
	}
	const char *why = cpw_hotspots_unavailable(sp->hotspots);
	if (sp->given_up || why) {
		out->state = CPW_VIEW_HOT_UNAVAILABLE;
		copy_name(out->why, sizeof(out->why), why ? why : "the sampler could not be armed");
		return;
	}
	if (!sp->sampler) {
		out->state = CPW_VIEW_HOT_NOT_ARMED;
		out->arms_at_s = cfg->mode == CPW_MODE_RUN ? CPW_SAMPLING_ARM_S : 0;
		return;
	}
	out->state = CPW_VIEW_HOT_SAMPLED;
	out->armed_at_s = sp->armed_at;
	out->samples = cpw_hotspots_samples(sp->hotspots);
	for (int k = 0; k < CPW_CODE_KINDS; k++)
		out->kind[k] = cpw_hotspots_kind_samples(sp->hotspots, (enum cpw_code_kind)k);
	struct cpw_hot_fn top[CPW_VIEW_HOT_MAX];
	out->n = cpw_hotspots_top(sp->hotspots, top, CPW_VIEW_HOT_MAX);
	for (size_t i = 0; i < out->n; i++) {
		struct cpw_view_hot_fn *f = &out->fn[i];
		copy_name(f->name, sizeof(f->name), top[i].name);
		copy_name(f->file, sizeof(f->file), top[i].file);
		copy_name(f->comm, sizeof(f->comm), top[i].comm);
		f->pid = top[i].pid;
		f->nprocs = top[i].nprocs;
		f->self = top[i].self;
		f->total = top[i].total;
	}
}
