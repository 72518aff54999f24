/*
 * leak_finding.c: memory that grows and is not given back, named. See leak_finding.h.
 */
#include "classify/leak_finding.h"

#include <stdio.h>
#include <string.h>

#include "classify/thresholds.h"
#include "model/proc_label.h"

void cpw_leak_finding_limits(struct cpw_leak_limits *lim)
{
	lim->min_growth_kib = cpw_threshold(CPW_T_LEAK_MIN_GROWTH);
	lim->min_span_s = cpw_threshold(CPW_T_LEAK_MIN_SPAN_S);
	lim->steady_share = cpw_threshold(CPW_T_LEAK_STEADY_SHARE);
	lim->kept_share = cpw_threshold(CPW_T_LEAK_KEPT_SHARE);
}

/* Keeps the fastest CPW_LEAKS_MAX - 1 processes (one slot stays for the tree). */
static void keep(struct cpw_leaks *l, const struct cpw_proc *p, const struct cpw_leak *k)
{
	int room = CPW_LEAKS_MAX - 1;
	int at = l->n;
	while (at > 0 && l->item[at - 1].leak.rate_kib_s < k->rate_kib_s)
		at--;
	if (at >= room) {
		l->more++;
		return;
	}
	if (l->n == room)
		l->more++; /* the slowest falls off */
	else
		l->n++;
	memmove(&l->item[at + 1], &l->item[at], (size_t)(l->n - 1 - at) * sizeof(l->item[0]));
	l->item[at].proc = p;
	l->item[at].leak = *k;
}

static void add(struct cpw_verdict *v, const char *text)
{
	int i = v->nfindings < CPW_FINDINGS_MAX ? v->nfindings++ : CPW_FINDINGS_MAX - 1;
	snprintf(v->findings[i], sizeof v->findings[0], "%s", text);
}

void cpw_leak_finding_add(const struct cpw_tree *t, struct cpw_leaks *l, struct cpw_verdict *v)
{
	struct cpw_leak_limits lim;
	struct cpw_leak k;

	memset(l, 0, sizeof(*l));
	if (!t)
		return;
	cpw_leak_finding_limits(&lim);
	for (size_t i = 0; i < cpw_tree_size(t); i++) {
		const struct cpw_proc *p = cpw_tree_proc(t, i);
		bool growing = p->alive ? cpw_leak_detect_series(&p->rss_series, &lim, &k) == CPW_LEAK_GROWING
					: cpw_leak_detect_ended(&p->rss_series, &lim, &k) == CPW_LEAK_GROWING;
		if (growing)
			keep(l, p, &k);
	}
	int nprocs = l->n;
	if (cpw_leak_detect_ended(cpw_tree_rss_series(t), &lim, &k) == CPW_LEAK_GROWING) {
		l->item[l->n].proc = NULL;
		l->item[l->n++].leak = k;
	}
	if (l->n == 0)
		return;

	/* One finding: the fastest process (with how many more), else the tree. */
	const struct cpw_leak_item *it = &l->item[0];
	char rate[24], from[24], to[24], text[sizeof v->findings[0]];
	cpw_proc_label_size(it->leak.rate_kib_s, rate, sizeof rate);
	cpw_proc_label_size(it->leak.start_kib, from, sizeof from);
	cpw_proc_label_size(it->leak.end_kib, to, sizeof to);
	if (it->proc) {
		char name[64], who[96], more[48] = "";
		snprintf(who, sizeof who, "%s (pid %d)", cpw_proc_label_args(it->proc, 56, name, sizeof name),
			 (int)it->proc->pid);
		unsigned others = (unsigned)nprocs - 1 + l->more;
		if (others)
			snprintf(more, sizeof more, "; %u more process%s grow%s too", others,
				 others > 1 ? "es" : "", others > 1 ? "" : "s");
		snprintf(text, sizeof text, "memory grows and is not given back: %s +%s/s from %.1f s, "
			 "%s to %s%s", who, rate, it->leak.start_s, from, to, more);
	} else {
		snprintf(text, sizeof text, "the tree's memory grows and is not given back, no one process "
			 "alone: +%s/s from %.1f s, %s to %s", rate, it->leak.start_s, from, to);
	}
	add(v, text);
}
