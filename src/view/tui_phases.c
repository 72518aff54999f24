/*
 * tui_phases.c: the phases so far in the live view (tui.h): the row of phase marks under
 * the sparklines and the one-line list of the phases.
 *
 * Pure; the session hands the phases (found over the timeline when it made the snapshot)
 * and the timeline's points, which give each sparkline column its time: the history ring
 * the sparklines draw holds one point per sample with no time of its own, the newest at
 * the right, and the timeline's points say when each sample was taken, even where the
 * interval changed in the view. The marks are the text report's (1-9, then a, b, c).
 */
#include "config.h"
#include "view/tui.h"
#include "classify/phases.h"
#include "model/timeline.h"

#include <stdio.h>
#include <string.h>


/* The time in the middle of the interval of the sample `age` samples before the newest,
 * walking back from the point *at (with *skipped samples of the points after it passed);
 * false once past the oldest point. Ages must come in increasing order. */
static bool sample_time(const struct cpw_tl_point *points, size_t *at, uint64_t *skipped,
			uint64_t age, double *t)
{
	while (*at > 0) {
		const struct cpw_tl_point *p = &points[*at - 1];
		uint64_t n = p->samples ? p->samples : 1;
		if (age < *skipped + n) {
			/* The samples of a merged point are spread evenly over its interval. */
			double from_end = (double)(age - *skipped) + 0.5;
			*t = p->start_s + p->dt_s * (1.0 - from_end / (double)n);
			return true;
		}
		*skipped += n;
		(*at)--;
	}
	return false;
}

int cpw_tui_phase_row(const struct cpw_phases *ph, const struct cpw_tl_point *points, size_t npoints,
		      size_t count, int width, char *out, size_t outlen)
{
	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (width <= 0)
		return 0;
	if ((size_t)width >= outlen)
		width = (int)outlen - 1;
	size_t shown = count < (size_t)width ? count : (size_t)width;
	size_t at = points ? npoints : 0;
	uint64_t skipped = 0;

	memset(out, ' ', (size_t)width);
	out[width] = '\0';
	if (ph->n < 2)
		return width;
	/* Right to left: the newest history point is the newest sample. */
	for (size_t age = 0; age < shown; age++) {
		double t;
		if (!sample_time(points, &at, &skipped, age, &t))
			break; /* older than the timeline: no phase known */
		out[(size_t)width - 1 - age] = cpw_phases_mark(cpw_phases_at(ph, t));
	}
	return width;
}

/* One phase of the list: "[2] 1.3-2.0 s cpu-bound", or "[2] 1.3 s- cpu-bound" while it
 * goes on. Returns the length written. */
static int list_entry(const struct cpw_phases *ph, int i, bool ongoing, char *buf, size_t len)
{
	const struct cpw_phase *p = &ph->phase[i];
	int n;
	if (ongoing && i == ph->n - 1)
		n = snprintf(buf, len, "[%c] %.1f s- %s", cpw_phases_mark(i), p->start_s, cpw_verdict_class_name(p->cls));
	else
		n = snprintf(buf, len, "[%c] %.1f-%.1f s %s", cpw_phases_mark(i), p->start_s, p->end_s,
			     cpw_verdict_class_name(p->cls));
	return n < 0 ? 0 : n < (int)len ? n : (int)len - 1;
}

int cpw_tui_phase_list(const struct cpw_phases *ph, bool ongoing, int width, char *out, size_t outlen)
{
	static const char lead[] = "phases: ", more[] = "... ";
	char entry[CPW_PHASES_MAX][64];
	int elen[CPW_PHASES_MAX];

	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (ph->n < 1 || width <= 0)
		return 0;
	for (int i = 0; i < ph->n; i++)
		elen[i] = list_entry(ph, i, ongoing, entry[i], sizeof(entry[i]));
	/* The newest phases first: where all do not fit, the oldest give way to "...". */
	int first = ph->n - 1;
	int used = (int)strlen(lead) + elen[first];
	while (first > 0) {
		int need = used + 2 + elen[first - 1];
		int dots = first - 1 > 0 ? (int)strlen(more) : 0;
		if (need + dots > width)
			break;
		used = need;
		first--;
	}
	size_t at = 0;
	at += (size_t)snprintf(out + at, outlen - at, "%s%s", lead, first > 0 ? more : "");
	for (int i = first; i < ph->n && at < outlen; i++)
		at += (size_t)snprintf(out + at, outlen - at, "%s%s", i > first ? "  " : "", entry[i]);
	if (at >= outlen)
		at = outlen - 1;
	/* Cells are bytes: marks, figures and class names are ASCII. A last phase that does
	 * not fit alone is cut at the edge. */
	if ((int)at > width) {
		out[width] = '\0';
		at = (size_t)width;
	}
	return (int)at;
}
