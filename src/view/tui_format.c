/*
 * tui_format.c: short figures for the live view (tui.h): sizes, rates, percentages and
 * durations in at most 6 cells, the refresh-interval ladder, and cutting an escaped string
 * to a number of terminal cells.
 *
 * Pure: no terminal, no allocation, so the table can be drawn every refresh cheaply.
 */
#include "config.h"
#include "view/tui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "options.h"

/* value in base units, scaled by 1024 (sizes) or 1000 (counts) with one decimal below 10. */
static void fmt_scaled(double v, double step, const char *units, char *buf, size_t len)
{
	size_t u = 0;
	size_t nunits = strlen(units);

	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "N/A");
		return;
	}
	/* 9999 fits in 6 cells with its unit, but 99999 would not: scale past 999.5. */
	while (v >= 999.5 && u + 1 < nunits) {
		v /= step;
		u++;
	}
	char unit = units[u];
	if (unit == ' ')
		snprintf(buf, len, "%.0f", v);
	else if (v < 9.95)
		snprintf(buf, len, "%.1f%c", v, unit);
	else
		snprintf(buf, len, "%.0f%c", v, unit);
}

void cpw_tui_fmt_kib(double kib, char *buf, size_t len)
{
	if (kib == 0) {
		snprintf(buf, len, "0");
		return;
	}
	fmt_scaled(kib, 1024, "KMGTP", buf, len);
}

void cpw_tui_fmt_bytes_rate(double bps, char *buf, size_t len)
{
	if (isfinite(bps) && bps >= 0 && bps < 0.5) {
		snprintf(buf, len, "0");
		return;
	}
	fmt_scaled(bps, 1024, " KMGTP", buf, len);
}

void cpw_tui_fmt_count_rate(double per_s, char *buf, size_t len)
{
	if (isfinite(per_s) && per_s >= 0 && per_s < 0.5) {
		snprintf(buf, len, "0");
		return;
	}
	fmt_scaled(per_s, 1000, " kMGT", buf, len);
}

void cpw_tui_fmt_pct(double pct, char *buf, size_t len)
{
	if (!isfinite(pct) || pct < 0)
		snprintf(buf, len, "N/A");
	else if (pct < 999.95)
		snprintf(buf, len, "%.1f", pct);
	else if (pct < 999999.5)
		snprintf(buf, len, "%.0f", pct);
	else
		fmt_scaled(pct, 1000, " kMGT", buf, len); /* 10,000 cores and more: "1.0M" */
}

void cpw_tui_fmt_count(double n, char *buf, size_t len)
{
	fmt_scaled(n, 1000, " kMGT", buf, len);
}

/* WAIT: "kind" or "kind:count"; where it does not fit in width cells, the count in units,
 * then the kind cut short, never the count. */
static void fmt_wait(const char *wait, int width, char *buf, size_t len)
{
	const char *colon = strchr(wait, ':');
	if (!wait[0]) {
		snprintf(buf, len, "-"); /* a blank cell would shift the columns of a screen scrape */
		return;
	}
	if ((int)strlen(wait) <= width || !colon) {
		snprintf(buf, len, "%.*s", width, wait);
		return;
	}
	char count[16];
	cpw_tui_fmt_count(strtod(colon + 1, NULL), count, sizeof(count));
	int kind = width - 1 - (int)strlen(count);
	int name = (int)(colon - wait);
	snprintf(buf, len, "%.*s:%s", kind < name ? (kind > 0 ? kind : 0) : name, wait, count);
}

void cpw_tui_fmt_cell(const struct cpw_tui_row *r, enum cpw_tui_col c, char *buf, size_t len)
{
	/* A thread row has figures of its own only in these; "-" elsewhere keeps the columns
	 * of a screen scrape. */
	if (r->tid && c != CPW_TUI_COL_PID && c != CPW_TUI_COL_STATE && c != CPW_TUI_COL_WAIT &&
	    c != CPW_TUI_COL_CPU) {
		snprintf(buf, len, "-");
		return;
	}
	switch (c) {
	case CPW_TUI_COL_PID: snprintf(buf, len, "%d", (int)(r->tid ? r->tid : r->pid)); break;
	/* X (dead) for the exited: their last state letter is stale. */
	case CPW_TUI_COL_STATE: snprintf(buf, len, "%c", r->exited ? 'X' : r->state ? r->state : '?'); break;
	case CPW_TUI_COL_WAIT: fmt_wait(r->wait, cpw_tui_col_width(c), buf, len); break;
	case CPW_TUI_COL_CPU: cpw_tui_fmt_pct(r->cpu_pct, buf, len); break;
	case CPW_TUI_COL_RSS: cpw_tui_fmt_kib(r->rss_kib, buf, len); break;
	case CPW_TUI_COL_MAJFLT: cpw_tui_fmt_count_rate(r->majflt_rate, buf, len); break;
	case CPW_TUI_COL_MINFLT: cpw_tui_fmt_count_rate(r->minflt_rate, buf, len); break;
	case CPW_TUI_COL_READ: cpw_tui_fmt_bytes_rate(r->read_rate, buf, len); break;
	case CPW_TUI_COL_WRITE: cpw_tui_fmt_bytes_rate(r->write_rate, buf, len); break;
	case CPW_TUI_COL_CTXSW: cpw_tui_fmt_count_rate(r->ctxsw_rate, buf, len); break;
	case CPW_TUI_COL_THREADS: cpw_tui_fmt_count(r->threads, buf, len); break;
	default: snprintf(buf, len, "%s", ""); break;
	}
}

void cpw_tui_fmt_elapsed(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s < 0)
		s = 0;
	if (s < 60) {
		snprintf(buf, len, "%.1fs", s);
		return;
	}
	unsigned long t = (unsigned long)s;
	if (t < 3600)
		snprintf(buf, len, "%lum%02lus", t / 60, t % 60);
	else
		snprintf(buf, len, "%luh%02lum", t / 3600, (t / 60) % 60);
}

unsigned cpw_tui_interval_step(unsigned ms, int dir)
{
	static const unsigned ladder[] = { 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000 };
	const size_t n = sizeof(ladder) / sizeof(ladder[0]);

	if (dir > 0) {
		for (size_t i = 0; i < n; i++)
			if (ladder[i] > ms && ladder[i] <= CPW_TUI_INTERVAL_MAX_MS)
				return ladder[i];
		return ms > CPW_TUI_INTERVAL_MAX_MS ? ms : CPW_TUI_INTERVAL_MAX_MS;
	}
	for (size_t i = n; i-- > 0;)
		if (ladder[i] < ms && ladder[i] >= CPW_INTERVAL_MIN_MS)
			return ladder[i];
	return CPW_INTERVAL_MIN_MS;
}

size_t cpw_tui_wrap(const char *text, int width)
{
	size_t i = 0, last_space = 0;
	int cells = 0;

	for (; text[i]; i++) {
		unsigned char c = (unsigned char)text[i];
		if ((c & 0xC0) != 0x80) { /* a character starts here (UTF-8 continuations do not) */
			if (cells == width)
				break;
			cells++;
		}
		if (c == ' ')
			last_space = i;
	}
	if (!text[i] || text[i] == ' ')
		return i;
	return last_space > 0 ? last_space : i;
}

int cpw_tui_fit(const char *src, int width, char *dst, size_t dstlen)
{
	mbstate_t st;
	size_t out = 0;
	int cells = 0;

	memset(&st, 0, sizeof(st));
	if (dstlen == 0)
		return 0;
	while (*src && cells < width) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, src, strlen(src), &st);
		int w;
		const char *piece = src;
		size_t plen = n;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			/* The locale cannot decode it (a C locale meets UTF-8): one '?' per byte. */
			memset(&st, 0, sizeof(st));
			piece = "?";
			plen = 1;
			n = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
			if (w < 0) {
				piece = "?";
				plen = 1;
				w = 1;
			}
		}
		if (cells + w > width || out + plen >= dstlen)
			break;
		memcpy(dst + out, piece, plen);
		out += plen;
		cells += w;
		src += n;
	}
	dst[out] = '\0';
	return cells;
}

const char *cpw_tui_verdict_headline(const struct cpw_verdict *v)
{
	static const char *const telling[] = { "wait_target", "wait_kind", "io_files", "serialised_threads" };

	for (size_t k = 0; k < sizeof(telling) / sizeof(telling[0]); k++)
		for (int i = 0; i < v->nevidence; i++)
			if (strcmp(v->evidence[i].metric, telling[k]) == 0)
				return v->evidence[i].text;
	return v->nevidence > 0 ? v->evidence[0].text : "";
}
