/*
 * hotspots_report.c: the Hotspots section (hotspots_report.h) in text and JSON, and the
 * collapsed stacks of --folded.
 *
 * Function names come from the watched program's files: escaped for the terminal in text;
 * in the folded file, the two characters the format gives a meaning (';' between frames,
 * and the line end) are replaced, and a space keeps its place (flamegraph.pl reads the
 * count after the last space).
 */
#include "config.h"
#include "report/hotspots_report.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "util/escape.h"
#include "util/round.h"

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void write_kinds(const struct cpw_hotspots *h, FILE *out)
{
	uint64_t n = cpw_hotspots_samples(h);
	fputs("\tBy kind of code:", out);
	const char *sep = " ";
	for (int k = 0; k < CPW_CODE_KINDS; k++) {
		uint64_t v = cpw_hotspots_kind_samples(h, (enum cpw_code_kind)k);
		if (!v)
			continue;
		fprintf(out, "%s%s %.1f%%", sep, cpw_sampler_code_kind_name((enum cpw_code_kind)k), share(v, n));
		sep = ", ";
	}
	fputc('\n', out);
}

static void write_phase_tops(const struct cpw_hotspots *h, const struct cpw_phases *ph, FILE *out)
{
	if (!ph || ph->n < 2)
		return;
	for (int i = 0; i < ph->n; i++) {
		struct cpw_hot_fn f;
		uint64_t in_range;
		if (!cpw_hotspots_top_between(h, ph->phase[i].start_s, ph->phase[i].end_s, &f, &in_range))
			continue;
		char name[1024];
		cpw_escape_for_terminal(f.name, name, sizeof(name));
		fprintf(out, "\tPhase %d (%.1f-%.1f s): %s %.0f%% of its samples\n", i + 1, ph->phase[i].start_s,
			ph->phase[i].end_s, name, share(f.self, in_range));
	}
}

int cpw_hotspots_report_write_text(const struct cpw_hotspots *h, const struct cpw_phases *phases, FILE *out)
{
	if (!h)
		return 0;
	const char *why = cpw_hotspots_unavailable(h);
	const struct cpw_sampler_stats *st = cpw_hotspots_source(h);
	uint64_t n = cpw_hotspots_samples(h);
	if (why) {
		char esc[1024];
		cpw_escape_for_terminal(why, esc, sizeof(esc));
		fprintf(out, "Hotspots: not sampled: %s\n", esc);
		return ferror(out) ? -EIO : 0;
	}
	double armed = cpw_hotspots_armed_at(h);
	if (isnan(armed)) {
		fputs("Hotspots: not sampled (the run ended before sampling was armed, at 0.5 s)\n", out);
		return ferror(out) ? -EIO : 0;
	}
	if (n == 0) {
		/* A header over nothing says less than why there is nothing: cpu-clock takes a
		 * sample each 1/hz s of a thread's CPU time, so none means the tree hardly ran
		 * after the arming (a dd in disk waits), or the kernel dropped them. */
		if (st->lost)
			fprintf(out, "Hotspots: no sample: from %.1f s, when sampling was armed, the kernel dropped "
				"%llu record(s)\n", armed, (unsigned long long)st->lost);
		else
			fprintf(out, "Hotspots: no sample: from %.1f s, when sampling was armed, no thread of the tree "
				"used the %.1f ms of CPU that a sample takes at %d Hz\n", armed,
				st->hz > 0 ? 1000.0 / st->hz : 0.0, st->hz);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "Hotspots (%llu cpu-clock samples at %d Hz, from %.1f s):\n", (unsigned long long)n, st->hz,
		armed);
	write_kinds(h, out);
	struct cpw_hot_fn top[CPW_HOTSPOTS_REPORT_TOP];
	size_t nt = cpw_hotspots_top(h, top, CPW_HOTSPOTS_REPORT_TOP), shown = nt;
	/* Past the first few, a row under 1% of the samples is left to the JSON, which lists
	 * 32: ten rows of an interpreter's internals at 0.4% each say nothing at a glance. */
	for (size_t i = CPW_HOTSPOTS_REPORT_MIN; i < nt; i++)
		if (share(top[i].self, n) < 1.0 && share(top[i].total, n) < 1.0) {
			shown = i;
			break;
		}
	fprintf(out, "\t%6s %6s  %-36s %-24s %s\n", "self%", "total%", "function", "file", "process");
	for (size_t i = 0; i < shown; i++) {
		char name[1024], file[512], comm[64];
		cpw_escape_for_terminal(top[i].name, name, sizeof(name));
		cpw_escape_for_terminal(top[i].file, file, sizeof(file));
		cpw_escape_for_terminal(top[i].comm, comm, sizeof(comm));
		fprintf(out, "\t%6.1f %6.1f  %-36s %-24s %s (%d)", share(top[i].self, n), share(top[i].total, n), name,
			file, comm, (int)top[i].pid);
		if (top[i].nprocs > 1)
			fprintf(out, " and %u more", top[i].nprocs - 1);
		fputc('\n', out);
	}
	if (shown < nt)
		fprintf(out, "\t(functions under 1%% of the samples each: in --json)\n");
	write_phase_tops(h, phases, out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

/* Out of memory anywhere in the document: it is dropped whole (the JSON writer then says
 * so in one line), never written with holes nor handed to json-c as NULL. */
static bool json_failed;

static struct json_object *need(struct json_object *v)
{
	if (!v)
		json_failed = true;
	return v;
}

/* v may be NULL on purpose (a JSON null); o is NULL only when it could not be made. */
static void add(struct json_object *o, const char *k, struct json_object *v)
{
	if (!o || json_object_object_add(o, k, v) < 0) {
		json_failed = true;
		json_object_put(v);
	}
}

static void append(struct json_object *a, struct json_object *v)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		json_failed = true;
		json_object_put(v);
	}
}

static struct json_object *json_share(uint64_t part, uint64_t whole)
{
	return need(json_object_new_double((double)cpw_round(share(part, whole) * 100) / 10000));
}

static struct json_object *fn_json(const struct cpw_hot_fn *f, uint64_t n)
{
	struct json_object *o = need(json_object_new_object());
	add(o, "name", need(json_object_new_string(f->name)));
	add(o, "file", need(json_object_new_string(f->file)));
	add(o, "kind", need(json_object_new_string(cpw_sampler_code_kind_name(f->kind))));
	add(o, "self_samples", need(json_object_new_int64((int64_t)f->self)));
	add(o, "total_samples", need(json_object_new_int64((int64_t)f->total)));
	add(o, "self_share", json_share(f->self, n));
	add(o, "total_share", json_share(f->total, n));
	add(o, "pid", need(json_object_new_int(f->pid)));
	add(o, "comm", need(json_object_new_string(f->comm)));
	add(o, "processes", need(json_object_new_int((int)f->nprocs)));
	return o;
}

struct json_object *cpw_hotspots_report_to_json(const struct cpw_hotspots *h, const struct cpw_phases *phases)
{
	if (!h)
		return NULL;
	json_failed = false;
	struct json_object *o = need(json_object_new_object());
	const char *why = cpw_hotspots_unavailable(h);
	const struct cpw_sampler_stats *st = cpw_hotspots_source(h);
	double armed = cpw_hotspots_armed_at(h);
	uint64_t n = cpw_hotspots_samples(h);
	add(o, "available", need(json_object_new_boolean(!why && !isnan(armed))));
	add(o, "reason", why ? need(json_object_new_string(why))
			     : isnan(armed) ? need(json_object_new_string("the run ended before sampling was armed"))
					    : NULL);
	add(o, "sample_hz", need(json_object_new_int(st->hz)));
	add(o, "samples", need(json_object_new_int64((int64_t)n)));
	add(o, "lost", need(json_object_new_int64((int64_t)st->lost)));
	add(o, "armed_at_s", isnan(armed) ? NULL : need(json_object_new_double((double)cpw_round(armed * 1000) / 1000)));
	struct json_object *kinds = need(json_object_new_object());
	for (int k = 0; k < CPW_CODE_KINDS; k++)
		add(kinds, cpw_sampler_code_kind_name((enum cpw_code_kind)k),
		    json_share(cpw_hotspots_kind_samples(h, (enum cpw_code_kind)k), n));
	add(o, "kinds", kinds);
	struct cpw_hot_fn top[32];
	size_t nt = cpw_hotspots_top(h, top, 32);
	struct json_object *fns = need(json_object_new_array());
	for (size_t i = 0; i < nt; i++)
		append(fns, fn_json(&top[i], n));
	add(o, "functions", fns);
	struct json_object *ph = need(json_object_new_array());
	for (int i = 0; phases && i < phases->n; i++) {
		struct cpw_hot_fn f;
		uint64_t in_range;
		if (!cpw_hotspots_top_between(h, phases->phase[i].start_s, phases->phase[i].end_s, &f, &in_range))
			continue;
		struct json_object *p = need(json_object_new_object());
		add(p, "phase", need(json_object_new_int(i + 1)));
		add(p, "function", need(json_object_new_string(f.name)));
		add(p, "file", need(json_object_new_string(f.file)));
		add(p, "share", json_share(f.self, in_range));
		append(ph, p);
	}
	add(o, "phases", ph);
	struct json_object *chains = need(json_object_new_object());
	add(chains, "cut_short", need(json_object_new_int64((int64_t)st->cut_short)));
	add(chains, "leaf_only", need(json_object_new_int64((int64_t)st->leaf_only)));
	add(chains, "unresolved", need(json_object_new_int64((int64_t)st->unresolved)));
	add(o, "chains", chains);
	if (json_failed) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A frame's name as the folded format allows it: ';' separates frames, a line ends at a
 * newline; other control characters are replaced too. */
static void put_frame(const char *s, FILE *out)
{
	for (; *s; s++)
		fputc(*s == ';' || (unsigned char)*s < 0x20 || *s == 0x7f ? '_' : *s, out);
}

static int folded_line(void *ctx, const char *comm, const char *const *frames, int n, uint64_t count)
{
	FILE *out = ctx;
	put_frame(comm, out);
	for (int i = 0; i < n; i++) {
		fputc(';', out);
		put_frame(frames[i], out);
	}
	fprintf(out, " %llu\n", (unsigned long long)count);
	return ferror(out) ? -EIO : 0;
}

int cpw_hotspots_report_write_folded(const struct cpw_hotspots *h, FILE *out)
{
	if (!h)
		return 0;
	int rc = cpw_hotspots_each_stack(h, folded_line, out);
	return rc ? rc : ferror(out) ? -EIO : 0;
}
