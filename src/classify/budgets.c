/*
 * budgets.c: the CI budgets (--max-wall, --max-cpu, --max-rss, --fail-on) judged on a
 * finished run's figures and verdict (budgets.h).
 */
#include "config.h"
#include "classify/budgets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* unit "s": seconds with 3 decimals for the value; "K": whole KiB. */
static void add_budget(struct cpw_budget_result *out, int *n, const char *name, bool broken,
		       const char *unit, double limit, double value)
{
	if (*n >= CPW_BUDGETS_MAX)
		return;
	struct cpw_budget_result *b = &out[(*n)++];
	bool secs = strcmp(unit, "s") == 0;
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(b->limit, sizeof(b->limit), "%.*f%s", secs ? 3 : 0, limit, unit);
	if (isnan(value))
		snprintf(b->value, sizeof(b->value), "N/A");
	else
		snprintf(b->value, sizeof(b->value), "%.*f%s", secs ? 3 : 0, value, unit);
	b->broken = broken;
}

bool cpw_budgets_check(const struct cpw_config *cfg, const struct cpw_metrics *m,
		       const struct cpw_verdict *v, struct cpw_budget_result *out, int *n)
{
	bool broken = false;

	*n = 0;
	if (cfg->max_wall_s > 0) {
		bool b = cpw_known(m->wall_s) && m->wall_s > cfg->max_wall_s;
		add_budget(out, n, "max-wall", b, "s", cfg->max_wall_s, m->wall_s);
		broken |= b;
	}
	if (cfg->max_cpu_s > 0) {
		double cpu = m->user_s + m->sys_s;
		bool b = cpw_known(cpu) && cpu > cfg->max_cpu_s;
		add_budget(out, n, "max-cpu", b, "s", cfg->max_cpu_s, cpu);
		broken |= b;
	}
	if (cfg->max_rss_kib > 0) {
		/* The tree's peak at one moment, falling back to the largest process. */
		double rss = cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib : m->max_rss_kib;
		if (cpw_known(m->max_rss_kib) && (!cpw_known(rss) || m->max_rss_kib > rss))
			rss = m->max_rss_kib;
		bool b = cpw_known(rss) && rss > (double)cfg->max_rss_kib;
		add_budget(out, n, "max-rss", b, "K", (double)cfg->max_rss_kib, rss);
		broken |= b;
	}
	if (cfg->fail_on_mask) {
		char limit[48] = "";
		for (int c = 0; c < CPW_CLASS_COUNT; c++)
			if (cfg->fail_on_mask & (1u << c)) {
				size_t used = strlen(limit);
				snprintf(limit + used, sizeof(limit) - used, "%s%s", used ? "," : "",
					 cpw_class_name((enum cpw_class)c));
			}
		bool b = (cfg->fail_on_mask & (1u << v->cls)) != 0;
		if (*n < CPW_BUDGETS_MAX) {
			struct cpw_budget_result *res = &out[(*n)++];
			snprintf(res->name, sizeof(res->name), "fail-on");
			snprintf(res->limit, sizeof(res->limit), "%s", limit);
			snprintf(res->value, sizeof(res->value), "%s", cpw_class_name(v->cls));
			res->broken = b;
		}
		broken |= b;
	}
	return broken;
}
