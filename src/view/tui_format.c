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
#include "util/escape.h"

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
	/* An exited process has no rates, RSS nor threads now, only its final TIME+ (a
	 * collapsed one shows what its subtree still has). */
	if (r->exited && !r->collapsed && c != CPW_TUI_COL_PID && c != CPW_TUI_COL_STATE &&
	    c != CPW_TUI_COL_TIME && c != CPW_TUI_COL_VERDICT) {
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
	case CPW_TUI_COL_TIME: cpw_tui_fmt_time(r->cpu_s, buf, len); break;
	case CPW_TUI_COL_VERDICT: snprintf(buf, len, "%s", r->verdict[0] ? r->verdict : "-"); break;
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

void cpw_tui_fmt_time(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s < 0) {
		snprintf(buf, len, "N/A");
		return;
	}
	/* htop's: hundredths cut, not rounded, so that 59.999 s is not shown as 1:00.00. */
	unsigned long long hs = (unsigned long long)(s * 100.0 + 1e-6);
	unsigned long long secs = hs / 100, hours = secs / 3600;
	if (hours >= 100)
		snprintf(buf, len, "%lluh", hours > 9999999ULL ? 9999999ULL : hours);
	else if (hours)
		snprintf(buf, len, "%lluh%02llu:%02llu", hours, (secs / 60) % 60, secs % 60);
	else
		snprintf(buf, len, "%llu:%02llu.%02llu", secs / 60, secs % 60, hs % 100);
}

/* The cells of an escaped string (printable ASCII or valid UTF-8): its characters. */
static int cells_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

int cpw_tui_cmd_short(const char *cmdline, const char *comm, int width, bool utf8, char *out, size_t outlen)
{
	char esc[CPW_CMDLINE_MAX * 4 + 1];
	if (outlen == 0)
		return 0;
	cpw_escape_for_terminal(cmdline && cmdline[0] ? cmdline : comm ? comm : "?", esc, sizeof(esc));
	const char *p = esc;
	/* The program's base name, then its arguments: a long directory would push the name
	 * itself off a narrow screen. */
	if (cmdline && cmdline[0]) {
		const char *end = strchr(esc, ' ');
		for (const char *ch = esc; *ch && (!end || ch < end); ch++)
			if (*ch == '/' && ch[1] && ch[1] != ' ')
				p = ch + 1;
	}
	snprintf(out, outlen, "%s", p);
	if (cells_of(out) <= width || !cmdline || !cmdline[0])
		return cells_of(out);
	/* Too wide: each path argument by its last part. */
	const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
	size_t at = 0;
	const char *w = p;
	bool first = true;
	while (*w && at + 1 < outlen) {
		const char *end = strchr(w, ' ');
		size_t wl = end ? (size_t)(end - w) : strlen(w);
		/* An option's name stays: --out=/a/b/c is --out=.../c. */
		const char *path = w, *slash = NULL;
		for (const char *ch = w; ch < w + wl && *ch != '/'; ch++)
			if (*ch == '=')
				path = ch + 1;
		for (const char *ch = path; ch < w + wl; ch++)
			if (*ch == '/')
				slash = ch;
		int n;
		/* A path with something before its last slash (not just ./) and a name after it. */
		if (!first && slash && slash > path && slash + 1 < w + wl && !(slash == path + 1 && *path == '.'))
			n = snprintf(out + at, outlen - at, "%.*s%s%.*s", (int)(path - w), w, ell,
				     (int)(w + wl - slash), slash);
		else
			n = snprintf(out + at, outlen - at, "%.*s", (int)wl, w);
		if (n < 0 || (size_t)n >= outlen - at) {
			at = outlen - 1;
			break;
		}
		at += (size_t)n;
		w += wl;
		while (*w == ' ' && at + 1 < outlen) {
			out[at++] = ' ';
			w++;
		}
		first = false;
	}
	out[at] = '\0';
	return cells_of(out);
}

void cpw_tui_proc_status(const struct cpw_proc *p, pid_t tid, double now_s, char *out, size_t outlen)
{
	char a[16], d[16], esc[CPW_CMDLINE_MAX * 4 + 1], name[sizeof(p->comm) * 4 + 1];
	size_t at = 0;
	int n;

	if (outlen == 0)
		return;
	out[0] = '\0';
#define ADD(...)                                                          \
	do {                                                              \
		if (at < outlen) {                                        \
			n = snprintf(out + at, outlen - at, __VA_ARGS__); \
			at = n < 0 ? outlen : at + (size_t)n;              \
		}                                                         \
	} while (0)
	if (tid && tid != p->pid)
		ADD("thread %d of ", (int)tid);
	ADD("pid %d", (int)p->pid);
	double end = p->alive || !isfinite(p->exited_s) ? now_s : p->exited_s;
	double ran = end - p->first_seen_s;
	cpw_tui_fmt_elapsed(ran, d, sizeof(d));
	cpw_tui_fmt_elapsed(p->first_seen_s, a, sizeof(a));
	if (p->preexisting)
		ADD("  start before the watch");
	else
		ADD("  start %s", a);
	if (p->alive || !isfinite(p->exited_s)) {
		ADD("  running %s", d);
	} else {
		char b[16];
		cpw_tui_fmt_elapsed(p->exited_s, b, sizeof(b));
		ADD("  end %s  ran %s", b, d);
	}
	double cpu = p->user_s + p->sys_s;
	if (ran > 0 && isfinite(cpu))
		ADD("  avg CPU %.1f%%", 100.0 * cpu / ran);
	if (p->max_rss_kib > 0) {
		char rss[16];
		cpw_tui_fmt_kib((double)p->max_rss_kib, rss, sizeof(rss));
		ADD("  peak RSS %s", rss);
	}
	cpw_escape_for_terminal(p->comm, name, sizeof(name));
	cpw_escape_for_terminal(p->cmdline[0] ? p->cmdline : "", esc, sizeof(esc));
	if (esc[0])
		ADD("  cmd: %s", esc);
	else
		ADD("  cmd: [%s]", name);
#undef ADD
	if (at >= outlen)
		out[outlen - 1] = '\0';
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
