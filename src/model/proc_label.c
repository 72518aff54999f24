/*
 * proc_label.c: a process as people tell it apart: its arguments shortened, and the
 * short-lived helpers of wrappers folded. See proc_label.h.
 */
#include "model/proc_label.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends word w (wl bytes) to buf at *at, a path argument by its last part
 * ("/tmp/x/leak.py" is ".../leak.py", "--out=/a/b" is "--out=.../b") where short is set. */
static void put_word(char *buf, size_t len, size_t *at, const char *w, size_t wl, bool short_path)
{
	const char *path = w, *slash = NULL, *end = w + wl;
	for (const char *c = w; c < end && *c != '/'; c++)
		if (*c == '=')
			path = c + 1;
	for (const char *c = path; c < end; c++)
		if (*c == '/')
			slash = c;
	int n;
	if (short_path && slash && slash > path && slash + 1 < end)
		n = snprintf(buf + *at, len - *at, "%s%.*s.../%.*s", *at ? " " : "", (int)(path - w), w,
			     (int)(end - slash - 1), slash + 1);
	else
		n = snprintf(buf + *at, len - *at, "%s%.*s", *at ? " " : "", (int)wl, w);
	*at = n < 0 || (size_t)n >= len - *at ? len - 1 : *at + (size_t)n;
}

/* Whether p's name (comm, the kernel's 15 bytes) begins the last part of one of its
 * command line's words: python3 for "/usr/bin/python3 x.py", runner for "bash ./runner". */
static bool comm_named_by_args(const struct cpw_proc *p)
{
	size_t cl = strnlen(p->comm, 15);
	if (cl == 0)
		return true;
	const char *w = p->cmdline;
	while (*w) {
		const char *end = strchr(w, ' ');
		if (!end)
			end = w + strlen(w);
		const char *name = w;
		for (const char *c = w; c < end; c++)
			if (*c == '/' && c + 1 < end)
				name = c + 1;
		if ((size_t)(end - name) >= cl && memcmp(name, p->comm, cl) == 0)
			return true;
		w = *end ? end + 1 : end;
	}
	return false;
}

const char *cpw_proc_label_args(const struct cpw_proc *p, size_t max, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (max >= len)
		max = len - 1;
	buf[0] = '\0';
	if (!p->cmdline[0]) {
		snprintf(buf, len, "%.*s", (int)max, p->comm);
		return buf;
	}
	/* The program by its name, then its arguments; path arguments by their last part
	 * where the whole is longer than max; then cut, "..." showing the cut. A process that
	 * named itself (prctl, setproctitle: its name is no word's last part) is "[name] ...". */
	char tmp[CPW_CMDLINE_MAX + CPW_COMM_MAX + 8];
	bool named = comm_named_by_args(p);
	for (int pass = 0; pass < 2; pass++) {
		size_t at = 0;
		tmp[0] = '\0';
		if (!named)
			at = (size_t)snprintf(tmp, sizeof tmp, "[%s]", p->comm);
		const char *w = p->cmdline;
		bool first = true;
		while (*w && at + 1 < sizeof tmp) {
			while (*w == ' ')
				w++;
			if (!*w)
				break;
			const char *sp = strchr(w, ' ');
			size_t wl = sp ? (size_t)(sp - w) : strlen(w);
			if (first) {
				const char *name = w;
				for (const char *c = w; c < w + wl; c++)
					if (*c == '/' && c + 1 < w + wl)
						name = c + 1;
				put_word(tmp, sizeof tmp, &at, name, wl - (size_t)(name - w), false);
			} else {
				put_word(tmp, sizeof tmp, &at, w, wl, pass == 1);
			}
			first = false;
			w += wl;
		}
		if (strlen(tmp) <= max || pass == 1)
			break;
	}
	if (strlen(tmp) <= max)
		snprintf(buf, len, "%s", tmp);
	else
		snprintf(buf, len, "%.*s...", (int)(max > 3 ? max - 3 : 0), tmp);
	return buf;
}

const char *cpw_proc_label_size(double kib, char *buf, size_t len)
{
	if (!(kib >= 0))
		snprintf(buf, len, "N/A");
	else if (kib >= 1024.0 * 1024)
		snprintf(buf, len, "%.1f GiB", kib / (1024.0 * 1024));
	else if (kib >= 100 * 1024)
		snprintf(buf, len, "%.0f MiB", kib / 1024);
	else if (kib >= 1024)
		snprintf(buf, len, "%.1f MiB", kib / 1024);
	else
		snprintf(buf, len, "%.0f KiB", kib);
	return buf;
}

static size_t index_of(const struct cpw_tree *t, const struct cpw_proc *p)
{
	return (size_t)(p - cpw_tree_proc(t, 0));
}

/* The tree's process that is p's parent; NULL where it is not in the tree (or is p). */
static const struct cpw_proc *parent_of(const struct cpw_tree *t, const struct cpw_proc *p)
{
	const struct cpw_proc *q = p->ppid > 0 ? cpw_tree_find(t, p->ppid) : NULL;
	return q == p ? NULL : q;
}

static bool small(const struct cpw_proc *p)
{
	return !p->alive && !isnan(p->exited_s) && p->user_s + p->sys_s <= CPW_HELPER_MAX_CPU_S;
}

/* Whether p ran a wrapper's errand: small, and ended before its parent exec'd, or its
 * parent is such a one. depth bounds a (never seen) cycle of parents. */
static bool helper_like(const struct cpw_tree *t, const struct cpw_proc *p, size_t depth)
{
	const struct cpw_proc *q = parent_of(t, p);
	if (!small(p) || !q || depth == 0)
		return false;
	/* exec args: where the process events connector saw both execs, the parent's
	 * program that ran it was not its last: it ran before the parent's exec. A test
	 * runner's fast test was exec'd after the runner's own. */
	if (!isnan(p->exec_event_s) && !isnan(q->exec_event_s)) {
		if (p->exec_event_s < q->exec_event_s)
			return true;
		return helper_like(t, q, depth - 1);
	}
	/* Ended before its parent's exec; or never found alive by a sample: it began and
	 * ended within one interval (only its exit record tells of it). */
	if ((!isnan(q->exec_s) && p->exited_s <= q->exec_drained_s) || isnan(p->last_sample_s))
		return true;
	return helper_like(t, q, depth - 1);
}

size_t cpw_proc_label_fold(const struct cpw_tree *t, bool *folded)
{
	size_t n = cpw_tree_size(t);
	/* folded[] first says "may fold": a helper with no descendant that is not one. */
	for (size_t i = 0; i < n; i++)
		folded[i] = helper_like(t, cpw_tree_proc(t, i), 64);
	for (size_t i = 0; i < n; i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		if (folded[i])
			continue;
		/* Its ancestors have a descendant that is no helper. */
		size_t depth = 0;
		for (const struct cpw_proc *q = parent_of(t, p); q && depth < n; q = parent_of(t, q), depth++) {
			if (!folded[index_of(t, q)])
				break; /* already marked, and so are its ancestors */
			folded[index_of(t, q)] = false;
		}
	}
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		/* The root of the tree never folds: it is the command. */
		if (folded[i] && !parent_of(t, cpw_tree_proc(t, i)))
			folded[i] = false;
		count += folded[i];
	}
	return count;
}

const struct cpw_proc *cpw_proc_label_folded_into(const struct cpw_tree *t, const bool *folded,
						   const struct cpw_proc *p)
{
	size_t n = cpw_tree_size(t), depth = 0;
	const struct cpw_proc *q = parent_of(t, p);
	while (q && folded[index_of(t, q)] && depth++ < n)
		q = parent_of(t, q);
	return q;
}
