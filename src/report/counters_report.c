/*
 * counters_report.c: the counters section of the text report, in the manner of perf stat,
 * and the counters' JSON objects.
 *
 * One line per event: value (with thousands separators), unit, name, then either a derived
 * ratio after '#' (insn per cycle, % of all cache refs, misses per kilo-instruction, % of
 * slots) or, for an event without a number, <not supported> / <not permitted> /
 * <not counted> and the reason. Multiplexed events end with their running fraction.
 */
#include "config.h"
#include "report/counters_report.h"
#include "util/round.h"
#include "report/json_value.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Formats a non-negative value with thousands separators and `decimals` decimals. */
static void group_digits(double v, int decimals, char *buf, size_t len)
{
	char raw[64];
	snprintf(raw, sizeof(raw), "%.*f", decimals, v);
	const char *dot = strchr(raw, '.');
	size_t intlen = dot ? (size_t)(dot - raw) : strlen(raw);
	size_t start = raw[0] == '-' ? 1 : 0;
	size_t o = 0;
	for (size_t i = 0; i < intlen && o + 2 < len; i++) {
		buf[o++] = raw[i];
		size_t left = intlen - i - 1;
		if (i >= start && left > 0 && left % 3 == 0)
			buf[o++] = ',';
	}
	for (const char *p = dot; p && *p && o + 1 < len; p++)
		buf[o++] = *p;
	buf[o] = '\0';
}

static bool has_number(const struct cpw_counter_reading *v)
{
	return v->status == CPW_COUNTER_COUNTED || v->status == CPW_COUNTER_MULTIPLEXED;
}

/* The "# ..." comment of a counted event, or "" when it has none. */
static void derived_comment(const struct cpw_counters_derived *d, enum cpw_counter_role role,
			    char *buf, size_t len)
{
	buf[0] = '\0';
	switch (role) {
	case CPW_ROLE_INSTRUCTIONS:
		if (!isnan(d->ipc))
			snprintf(buf, len, "#  %7.2f  insn per cycle", d->ipc);
		break;
	case CPW_ROLE_CACHE_MISSES:
		if (!isnan(d->cache_miss_ratio))
			snprintf(buf, len, "#  %7.2f%% of all cache refs", 100 * d->cache_miss_ratio);
		break;
	case CPW_ROLE_LLC_LOAD_MISSES:
		if (!isnan(d->llc_mpki))
			snprintf(buf, len, "#  %7.2f  LLC misses per 1k insn", d->llc_mpki);
		break;
	case CPW_ROLE_BRANCH_MISSES:
		if (!isnan(d->branch_miss_ratio))
			snprintf(buf, len, "#  %7.2f%% of all branches", 100 * d->branch_miss_ratio);
		else if (!isnan(d->branch_mpki))
			snprintf(buf, len, "#  %7.2f  branch misses per 1k insn", d->branch_mpki);
		break;
	case CPW_ROLE_STALLED_FRONTEND:
		if (!isnan(d->stalled_frontend_share))
			snprintf(buf, len, "#  %7.2f%% frontend cycles idle", 100 * d->stalled_frontend_share);
		break;
	case CPW_ROLE_STALLED_BACKEND:
		if (!isnan(d->stalled_backend_share))
			snprintf(buf, len, "#  %7.2f%% backend cycles idle", 100 * d->stalled_backend_share);
		break;
	case CPW_ROLE_TD_RETIRING:
		if (!isnan(d->topdown_retiring))
			snprintf(buf, len, "#  %7.2f%% retiring", 100 * d->topdown_retiring);
		break;
	case CPW_ROLE_TD_BAD_SPEC:
		if (!isnan(d->topdown_bad_spec))
			snprintf(buf, len, "#  %7.2f%% bad speculation", 100 * d->topdown_bad_spec);
		break;
	case CPW_ROLE_TD_FE_BOUND:
		if (!isnan(d->topdown_frontend_bound))
			snprintf(buf, len, "#  %7.2f%% frontend bound", 100 * d->topdown_frontend_bound);
		break;
	case CPW_ROLE_TD_BE_BOUND:
		if (!isnan(d->topdown_backend_bound))
			snprintf(buf, len, "#  %7.2f%% backend bound", 100 * d->topdown_backend_bound);
		break;
	case CPW_ROLE_TD_MEM_BOUND:
	case CPW_ROLE_TD_STALLS_MEM:
		if (!isnan(d->topdown_memory_bound))
			snprintf(buf, len, "#  %7.2f%% memory bound", 100 * d->topdown_memory_bound);
		break;
	default:
		break;
	}
}

static const char *missing_label(const struct cpw_counter_reading *v)
{
	if (v->status == CPW_COUNTER_NOT_PERMITTED)
		return "<not permitted>";
	/* Opened but never ran (running time 0): perf stat's <not counted>. */
	if (v->running_fraction == 0)
		return "<not counted>";
	return "<not supported>";
}

static const char *reason_of(const struct cpw_counter_reading *v)
{
	return v->reason[0] ? v->reason : "no reason given";
}

static bool same_missing(const struct cpw_counter_reading *a, const struct cpw_counter_reading *b)
{
	return !has_number(b) && strcmp(missing_label(a), missing_label(b)) == 0 &&
		strcmp(reason_of(a), reason_of(b)) == 0;
}

/* An event without a number: events that miss for the same reason are one line, at the
 * first of them ("<not supported> cycles, instructions, ... (no hardware PMU visible)"). */
static void write_missing(const struct cpw_counter_values *c, size_t i, FILE *out)
{
	const struct cpw_counter_reading *v = &c->ev[i];
	size_t same = 0;

	for (size_t j = 0; j < i; j++)
		if (same_missing(v, &c->ev[j]))
			return; /* said with the first */
	for (size_t j = i + 1; j < c->n; j++)
		same += same_missing(v, &c->ev[j]);
	if (same == 0) {
		fprintf(out, "\t%18s %-5s %-25s (%s)\n", missing_label(v), "", v->name, reason_of(v));
		return;
	}
	fprintf(out, "\t%18s %-5s %s", missing_label(v), "", v->name);
	for (size_t j = i + 1; j < c->n; j++)
		if (same_missing(v, &c->ev[j]))
			fprintf(out, ", %s", c->ev[j].name);
	fprintf(out, " (%s)\n", reason_of(v));
}

int cpw_counters_report_write_text(const struct cpw_counter_values *c, FILE *out)
{
	if (!c)
		return 0;
	/* Every event missing for one reason (a machine without a PMU: all of them, every
	 * run) is one line, the section's own. */
	bool one_reason = c->n > 0 && !has_number(&c->ev[0]);
	for (size_t i = 1; i < c->n && one_reason; i++)
		one_reason = same_missing(&c->ev[0], &c->ev[i]);
	if (one_reason) {
		fprintf(out, "Counters: %s %s", missing_label(&c->ev[0]), c->ev[0].name);
		for (size_t i = 1; i < c->n; i++)
			fprintf(out, ", %s", c->ev[i].name);
		fprintf(out, " (%s)\n", reason_of(&c->ev[0]));
		return ferror(out) ? -EIO : 0;
	}
	fputs("Counters:\n", out);
	bool user_only = false;
	for (size_t i = 0; i < c->n; i++)
		if (has_number(&c->ev[i]) && c->ev[i].user_only)
			user_only = true;
	if (user_only && c->paranoid != CPW_PARANOID_UNKNOWN)
		fprintf(out, "\t(user space only: perf_event_paranoid is %d)\n", c->paranoid);
	else if (user_only)
		fprintf(out, "\t(user space only)\n");

	for (size_t i = 0; i < c->n; i++) {
		const struct cpw_counter_reading *v = &c->ev[i];
		if (!has_number(v)) {
			write_missing(c, i, out);
			continue;
		}
		char num[64], comment[96];
		bool msec = strcmp(v->unit, "msec") == 0;
		group_digits(v->value, msec ? 2 : 0, num, sizeof(num));
		derived_comment(&c->derived, v->role, comment, sizeof(comment));
		char line[320];
		int n = snprintf(line, sizeof(line), "\t%18s %-5s %-25s %-36s", num, v->unit, v->name, comment);
		if (v->status == CPW_COUNTER_MULTIPLEXED && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n, " (%.2f%%)", 100 * v->running_fraction);
		/* No trailing blanks where the comment columns stay empty. */
		for (size_t e = strlen(line); e > 0 && line[e - 1] == ' '; e--)
			line[e - 1] = '\0';
		fprintf(out, "%s\n", line);
	}
	return ferror(out) ? -EIO : 0;
}

const char *cpw_counters_report_status_name(enum cpw_counter_status s)
{
	switch (s) {
	case CPW_COUNTER_COUNTED: return "counted";
	case CPW_COUNTER_NOT_SUPPORTED: return "not-supported";
	case CPW_COUNTER_NOT_PERMITTED: return "not-permitted";
	case CPW_COUNTER_MULTIPLEXED: return "multiplexed";
	}
	return "unknown";
}

static struct json_object *json_number(double v, bool integral)
{
	if (isnan(v))
		return NULL;
	if (integral && v < 9.2e18)
		return json_object_new_int64((int64_t)cpw_round(v));
	/* Microsecond precision for msec values and ratios, without binary noise digits. */
	char text[48];
	snprintf(text, sizeof(text), "%.9g", v);
	return json_object_new_double_s(v, text);
}

/* json_number(), a failure told from null (NAN). */
static struct json_object *doc_number(struct cpw_json_doc *d, double v, bool integral)
{
	struct json_object *o = json_number(v, integral);
	return isnan(v) ? o : cpw_json_value_need(d, o);
}

struct json_object *cpw_counters_report_to_json(const struct cpw_counter_values *c)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	struct json_object *obj = cpw_json_value_doc_object(d);
	for (size_t i = 0; !d->failed && i < c->n; i++) {
		const struct cpw_counter_reading *v = &c->ev[i];
		struct json_object *e = cpw_json_value_doc_object(d);
		bool msec = strcmp(v->unit, "msec") == 0;
		cpw_json_value_put(d, e, "value", has_number(v) ? doc_number(d, v->value, !msec) : NULL);
		cpw_json_value_put(d, e, "status", cpw_json_value_doc_text(d, cpw_counters_report_status_name(v->status)));
		cpw_json_value_put(d, e, "reason", v->reason[0] ? cpw_json_value_doc_text(d, v->reason) : NULL);
		cpw_json_value_put(d, e, "unit", cpw_json_value_doc_text(d, v->unit));
		cpw_json_value_put(d, e, "running_fraction", doc_number(d, v->running_fraction, false));
		cpw_json_value_put(d, obj, v->name, e);
	}
	return cpw_json_value_doc_end(d, obj);
}

struct json_object *cpw_counters_report_derived_json(const struct cpw_counter_values *c)
{
	const struct cpw_counters_derived d = c->derived;
	struct cpw_json_doc doc = { .failed = false }, *dj = &doc;
	struct json_object *obj = cpw_json_value_doc_object(dj);
	const struct { const char *key; double v; } fields[] = {
		{ "ipc", d.ipc },
		{ "cache_miss_ratio", d.cache_miss_ratio },
		{ "llc_mpki", d.llc_mpki },
		{ "branch_mpki", d.branch_mpki },
		{ "branch_miss_ratio", d.branch_miss_ratio },
		{ "stalled_frontend_share", d.stalled_frontend_share },
		{ "stalled_backend_share", d.stalled_backend_share },
		{ "topdown_retiring", d.topdown_retiring },
		{ "topdown_bad_spec", d.topdown_bad_spec },
		{ "topdown_frontend_bound", d.topdown_frontend_bound },
		{ "topdown_backend_bound", d.topdown_backend_bound },
		{ "topdown_memory_bound", d.topdown_memory_bound },
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		cpw_json_value_put(dj, obj, fields[i].key, doc_number(dj, fields[i].v, false));
	return cpw_json_value_doc_end(dj, obj);
}
