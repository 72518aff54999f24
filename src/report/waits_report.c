/*
 * waits_report.c: the Waits section, in text and JSON.
 *
 * Kinds are listed by thread-seconds, largest first, each with its top targets; then the
 * processes that waited most, with their kinds. Targets and names come from the kernel
 * and may hold anything (a path with a newline): text escapes them for the terminal,
 * JSON for UTF-8 (json-c escapes the controls). What the probe could not resolve (no
 * permission, no syscall file, the budget spent, a poll's descriptors unread) becomes
 * notes at the end. Threads idle by design (model/waits.h) are one line apart, after the
 * kinds, in no share. Under each kind, the Python functions that waited on it longest
 * ("fetch (netwait.py:14) waited 2.90 s on TCP 127.0.0.1:41234"), where the stack reader
 * named them.
 */
#include "config.h"
#include "report/waits_report.h"
#include "report/report.h"
#include "report/json_value.h"
#include "util/escape.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kinds with time, largest first. Returns how many. */
static int kinds_by_time(const double *seconds, int *order)
{
	int n = 0;
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++) {
		if (!(seconds[k] > 0))
			continue;
		int i = n++;
		while (i > 0 && seconds[order[i - 1]] < seconds[k]) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = k;
	}
	return n;
}

/* The notes of what could not be resolved; returns how many were written to notes. */
#define NOTES_MAX 4

static int probe_notes(const struct cpw_waits *w, char notes[NOTES_MAX][200])
{
	const struct cpw_wait_probe_stats *s = &w->probe;
	int n = 0;

	if (!w->probed)
		return 0;
	if (s->denied)
		snprintf(notes[n++], 200, "the system calls of %llu probed thread%s were not readable (another "
			 "user's processes): their kinds come from the wait channel alone",
			 (unsigned long long)s->denied, s->denied == 1 ? "" : "s");
	if (s->no_syscall)
		snprintf(notes[n++], 200, "%llu probed thread%s had no readable syscall file (hidepid, or a "
			 "kernel without it): kinds from the wait channel alone",
			 (unsigned long long)s->no_syscall, s->no_syscall == 1 ? "" : "s");
	if (s->samples_over_budget)
		snprintf(notes[n++], 200, "in %llu sample%s the %u reads allowed for wait targets ran out: "
			 "%llu wait%s left without a target",
			 (unsigned long long)s->samples_over_budget, s->samples_over_budget == 1 ? "" : "s",
			 s->budget, (unsigned long long)s->over_budget, s->over_budget == 1 ? "" : "s");
	if (s->poll_denied)
		snprintf(notes[n++], 200, "the descriptors of %llu poll or select wait%s were not readable (no "
			 "ptrace rights over the process): counted as event loops",
			 (unsigned long long)s->poll_denied, s->poll_denied == 1 ? "" : "s");
	return n;
}

/* The Python functions that waited on kind k, longest first (w sorted). */
static void functions_text(const struct cpw_waits *w, int k, FILE *out)
{
	char fn[CPW_WAIT_FN_LEN * 4], caller[CPW_WAIT_FN_LEN * 4], target[CPW_WAIT_TARGET_LEN * 4];
	int shown = 0;
	for (size_t i = 0; i < w->nfns && shown < CPW_WAITS_REPORT_FUNCTIONS; i++) {
		const struct cpw_wait_fn_time *f = &w->fns[i];
		if ((int)f->kind != k || !(f->seconds > 0))
			continue;
		cpw_escape_for_terminal(f->fn, fn, sizeof(fn));
		cpw_escape_for_terminal(f->target, target, sizeof(target));
		cpw_escape_for_terminal(f->caller, caller, sizeof(caller));
		fprintf(out, "\t    %s waited %.2f s%s%s", fn, f->seconds, target[0] ? " on " : "", target);
		if (caller[0])
			fprintf(out, " (called from %s)", caller);
		else if (f->several_callers)
			fputs(" (from several callers)", out);
		fprintf(out, ", pid %d\n", (int)f->pid);
		shown++;
	}
}

int cpw_waits_report_write_text(const struct cpw_waits *w, FILE *out)
{
	char esc[CPW_WAIT_TARGET_LEN * 4];
	int order[CPW_WAIT_KIND_COUNT];

	if (!w || !(w->total_s > 0 || w->idle_s > 0))
		return 0;
	struct cpw_waits *sorted = cpw_waits_sorted_copy(w);
	if (!sorted)
		return -ENOMEM;

	fputs("Waits (thread-seconds off the CPU, by what was waited on):\n", out);
	int nkinds = kinds_by_time(sorted->seconds, order);
	for (int i = 0; i < nkinds; i++) {
		int k = order[i];
		fprintf(out, "\t%-12s %10.2f s %5.1f%%\n", cpw_wait_kind_name((enum cpw_wait_kind)k),
			sorted->seconds[k], 100 * sorted->seconds[k] / sorted->total_s);
		int shown = 0;
		for (size_t t = 0; t < sorted->ntargets && shown < CPW_WAITS_REPORT_TARGETS; t++) {
			const struct cpw_wait_target_time *x = &sorted->targets[t];
			if ((int)x->kind != k || !(x->seconds > 0))
				continue;
			cpw_escape_for_terminal(x->target, esc, sizeof(esc));
			fprintf(out, "\t    %-44s %8.2f s\n", esc, x->seconds);
			shown++;
		}
		functions_text(sorted, k, out);
	}
	if (sorted->untracked_target_s > 0)
		fprintf(out, "\t(%.2f s on targets past the %d listed)\n", sorted->untracked_target_s,
			CPW_WAIT_TARGETS_MAX);
	if (sorted->untracked_fn_s > 0)
		fprintf(out, "\t(%.2f s in Python functions past the %d listed)\n", sorted->untracked_fn_s,
			CPW_WAIT_FNS_MAX);
	if (sorted->idle_s > 0)
		fprintf(out, "\tidle by design %8.2f s in %u helper thread%s that waited on a lock, a queue or a "
			"poll without running (not in the shares above)\n", sorted->idle_s,
			sorted->idle_threads, sorted->idle_threads == 1 ? "" : "s");
	fputs("    By process:\n", out);
	for (size_t i = 0; i < sorted->nprocs && i < CPW_WAITS_REPORT_PROCS; i++) {
		const struct cpw_wait_proc_time *p = &sorted->procs[i];
		int pk[CPW_WAIT_KIND_COUNT];
		int npk = kinds_by_time(p->seconds, pk);
		cpw_escape_for_terminal(p->comm, esc, sizeof(esc));
		fprintf(out, "\tpid %d (%s): %.2f s", (int)p->pid, esc, p->total_s);
		for (int j = 0; j < npk && j < 3; j++)
			fprintf(out, "%s %s %.2f s", j ? "," : ":", cpw_wait_kind_name((enum cpw_wait_kind)pk[j]),
				p->seconds[pk[j]]);
		if (p->idle_s > 0)
			fprintf(out, " (and %.2f s idle by design)", p->idle_s);
		fputc('\n', out);
	}
	if (sorted->nprocs > CPW_WAITS_REPORT_PROCS)
		fprintf(out, "\t(%zu more processes)\n", sorted->nprocs - CPW_WAITS_REPORT_PROCS);
	char notes[NOTES_MAX][200];
	int nnotes = probe_notes(sorted, notes);
	for (int i = 0; i < nnotes; i++)
		fprintf(out, "\t(%s)\n", notes[i]);
	free(sorted);
	return ferror(out) ? -EIO : 0;
}

static struct json_object *probe_json(struct cpw_json_doc *d, const struct cpw_waits *w)
{
	const struct cpw_wait_probe_stats *s = &w->probe;
	if (!w->probed)
		return NULL;
	struct json_object *o = cpw_json_value_doc_object(d);
	cpw_json_value_put(d, o, "threads_probed", cpw_json_value_doc_int(d, (int64_t)s->probed));
	cpw_json_value_put(d, o, "denied", cpw_json_value_doc_int(d, (int64_t)s->denied));
	cpw_json_value_put(d, o, "no_syscall_file", cpw_json_value_doc_int(d, (int64_t)s->no_syscall));
	cpw_json_value_put(d, o, "over_budget", cpw_json_value_doc_int(d, (int64_t)s->over_budget));
	cpw_json_value_put(d, o, "samples_over_budget", cpw_json_value_doc_int(d, (int64_t)s->samples_over_budget));
	cpw_json_value_put(d, o, "budget_reads_per_sample", cpw_json_value_doc_int(d, (int64_t)s->budget));
	cpw_json_value_put(d, o, "poll_denied", cpw_json_value_doc_int(d, (int64_t)s->poll_denied));
	return o;
}

/* The Python functions that waited on kind k: [{function, caller, target, pid, thread_s}]. */
static struct json_object *functions_json(struct cpw_json_doc *d, const struct cpw_waits *sorted, int k)
{
	struct json_object *fns = cpw_json_value_doc_array(d);
	for (size_t i = 0; !d->failed && i < sorted->nfns; i++) {
		const struct cpw_wait_fn_time *f = &sorted->fns[i];
		if ((int)f->kind != k || !(f->seconds > 0))
			continue;
		struct json_object *e = cpw_json_value_doc_object(d);
		cpw_json_value_put(d, e, "function", cpw_json_value_doc_string(d, f->fn));
		cpw_json_value_put(d, e, "caller", f->caller[0] ? cpw_json_value_doc_string(d, f->caller) : NULL);
		cpw_json_value_put(d, e, "several_callers", cpw_json_value_need(d, json_object_new_boolean(f->several_callers)));
		cpw_json_value_put(d, e, "target", f->target[0] ? cpw_json_value_doc_string(d, f->target) : NULL);
		cpw_json_value_put(d, e, "pid", cpw_json_value_doc_int(d, f->pid));
		cpw_json_value_put(d, e, "thread_s", cpw_json_value_doc_number(d, f->seconds));
		cpw_json_value_append(d, fns, e);
	}
	return fns;
}

/* The "kinds" object: per kind by time, its thread-seconds, share and targets. */
static struct json_object *kinds_json(struct cpw_json_doc *d, const struct cpw_waits *sorted)
{
	int order[CPW_WAIT_KIND_COUNT];
	struct json_object *kinds = cpw_json_value_doc_object(d);
	int nkinds = kinds_by_time(sorted->seconds, order);
	for (int i = 0; !d->failed && i < nkinds; i++) {
		int k = order[i];
		struct json_object *kind = cpw_json_value_doc_object(d);
		cpw_json_value_put(d, kind, "thread_s", cpw_json_value_doc_number(d, sorted->seconds[k]));
		cpw_json_value_put(d, kind, "share", cpw_json_value_doc_number(d, sorted->total_s > 0 ? sorted->seconds[k] / sorted->total_s : 0));
		struct json_object *targets = cpw_json_value_doc_array(d);
		for (size_t t = 0; !d->failed && t < sorted->ntargets; t++) {
			const struct cpw_wait_target_time *x = &sorted->targets[t];
			if ((int)x->kind != k || !(x->seconds > 0))
				continue;
			struct json_object *e = cpw_json_value_doc_object(d);
			cpw_json_value_put(d, e, "target", cpw_json_value_doc_string(d, x->target));
			cpw_json_value_put(d, e, "thread_s", cpw_json_value_doc_number(d, x->seconds));
			cpw_json_value_put(d, e, "pid", cpw_json_value_doc_int(d, x->pid));
			cpw_json_value_put(d, e, "peer_pid", x->peer_pid ? cpw_json_value_doc_int(d, x->peer_pid) : NULL);
			cpw_json_value_append(d, targets, e);
		}
		cpw_json_value_put(d, kind, "targets", targets);
		cpw_json_value_put(d, kind, "functions", functions_json(d, sorted, k));
		cpw_json_value_put(d, kinds, cpw_wait_kind_name((enum cpw_wait_kind)k), kind);
	}
	return kinds;
}

struct json_object *cpw_waits_report_to_json(const struct cpw_waits *w)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;

	if (!w)
		return NULL;
	struct cpw_waits *sorted = cpw_waits_sorted_copy(w);
	if (!sorted)
		return NULL;
	struct json_object *o = cpw_json_value_doc_object(d);
	cpw_json_value_put(d, o, "total_thread_s", cpw_json_value_doc_number(d, sorted->total_s));
	cpw_json_value_put(d, o, "kinds", kinds_json(d, sorted));
	struct json_object *procs = cpw_json_value_doc_array(d);
	for (size_t i = 0; !d->failed && i < sorted->nprocs; i++) {
		const struct cpw_wait_proc_time *p = &sorted->procs[i];
		struct json_object *e = cpw_json_value_doc_object(d), *pk = cpw_json_value_doc_object(d);
		cpw_json_value_put(d, e, "pid", cpw_json_value_doc_int(d, p->pid));
		cpw_json_value_put(d, e, "comm", cpw_json_value_doc_string(d, p->comm));
		cpw_json_value_put(d, e, "thread_s", cpw_json_value_doc_number(d, p->total_s));
		for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
			if (p->seconds[k] > 0)
				cpw_json_value_put(d, pk, cpw_wait_kind_name((enum cpw_wait_kind)k),
					     cpw_json_value_doc_number(d, p->seconds[k]));
		cpw_json_value_put(d, e, "kinds", pk);
		cpw_json_value_put(d, e, "idle_by_design_s", cpw_json_value_doc_number(d, p->idle_s));
		cpw_json_value_append(d, procs, e);
	}
	cpw_json_value_put(d, o, "processes", procs);
	cpw_json_value_put(d, o, "untracked_target_s", cpw_json_value_doc_number(d, sorted->untracked_target_s));
	cpw_json_value_put(d, o, "untracked_process_s", cpw_json_value_doc_number(d, sorted->untracked_proc_s));
	cpw_json_value_put(d, o, "untracked_function_s", cpw_json_value_doc_number(d, sorted->untracked_fn_s));
	struct json_object *idle = cpw_json_value_doc_object(d);
	cpw_json_value_put(d, idle, "thread_s", cpw_json_value_doc_number(d, sorted->idle_s));
	cpw_json_value_put(d, idle, "threads", cpw_json_value_doc_int(d, sorted->idle_threads));
	cpw_json_value_put(d, o, "idle_by_design", idle);
	cpw_json_value_put(d, o, "probe", probe_json(d, sorted));
	char notes[NOTES_MAX][200];
	int nnotes = probe_notes(sorted, notes);
	struct json_object *jn = cpw_json_value_doc_array(d);
	for (int i = 0; i < nnotes; i++)
		cpw_json_value_append(d, jn, cpw_json_value_doc_text(d, notes[i]));
	cpw_json_value_put(d, o, "notes", jn);
	free(sorted);
	return cpw_json_value_doc_end(d, o);
}
