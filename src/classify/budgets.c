/*
 * budgets.c: the CI budgets (--max-wall, --max-cpu, --max-rss, --fail-on, --timeout)
 * judged on a finished run's figures and verdict (budgets.h).
 */
#include "config.h"
#include "classify/budgets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A budget on a number: seconds with 3 decimals for people, or whole KiB. */
static void add_budget(struct cpw_budget_result *out, int *n, const char *name, bool broken,
		       enum cpw_budget_unit unit, double limit, double value)
{
	if (*n >= CPW_BUDGETS_MAX)
		return;
	struct cpw_budget_result *b = &out[(*n)++];
	bool secs = unit == CPW_BUDGET_SECONDS;
	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(b->limit, sizeof(b->limit), "%.*f%s", secs ? 3 : 0, limit, secs ? "s" : "K");
	if (isnan(value))
		snprintf(b->value, sizeof(b->value), "N/A");
	else
		snprintf(b->value, sizeof(b->value), "%.*f%s", secs ? 3 : 0, value, secs ? "s" : "K");
	b->unit = unit;
	b->limit_num = limit;
	b->value_num = value;
	b->value_class = -1;
	b->broken = broken;
}

static void add_fail_on(struct cpw_budget_result *out, int *n, unsigned mask, enum cpw_class cls)
{
	if (*n >= CPW_BUDGETS_MAX)
		return;
	struct cpw_budget_result *res = &out[(*n)++];
	memset(res, 0, sizeof(*res));
	for (int c = 0; c < CPW_CLASS_COUNT; c++)
		if (mask & (1u << c)) {
			size_t used = strlen(res->limit);
			snprintf(res->limit + used, sizeof(res->limit) - used, "%s%s", used ? "," : "",
				 cpw_verdict_class_name((enum cpw_class)c));
		}
	snprintf(res->name, sizeof(res->name), "fail-on");
	snprintf(res->value, sizeof(res->value), "%s", cpw_verdict_class_name(cls));
	res->unit = CPW_BUDGET_CLASS;
	res->limit_num = res->value_num = NAN;
	res->limit_classes = mask;
	res->value_class = (int)cls;
	res->broken = (mask & (1u << cls)) != 0;
}

bool cpw_budgets_check(const struct cpw_config *cfg, const struct cpw_metrics *m,
		       const struct cpw_verdict *v, struct cpw_budget_result *out, int *n)
{
	bool broken = false;

	*n = 0;
	if (cfg->max_wall_s > 0) {
		bool b = cpw_known(m->wall_s) && m->wall_s > cfg->max_wall_s;
		add_budget(out, n, "max-wall", b, CPW_BUDGET_SECONDS, cfg->max_wall_s, m->wall_s);
		broken |= b;
	}
	if (cfg->max_cpu_s > 0) {
		double cpu = m->user_s + m->sys_s;
		bool b = cpw_known(cpu) && cpu > cfg->max_cpu_s;
		add_budget(out, n, "max-cpu", b, CPW_BUDGET_SECONDS, cfg->max_cpu_s, cpu);
		broken |= b;
	}
	if (cfg->max_rss_kib > 0) {
		/* The tree's peak at one moment, falling back to the largest process. */
		double rss = cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib : m->max_rss_kib;
		if (cpw_known(m->max_rss_kib) && (!cpw_known(rss) || m->max_rss_kib > rss))
			rss = m->max_rss_kib;
		bool b = cpw_known(rss) && rss > (double)cfg->max_rss_kib;
		add_budget(out, n, "max-rss", b, CPW_BUDGET_KIB, (double)cfg->max_rss_kib, rss);
		broken |= b;
	}
	if (cfg->fail_on_mask) {
		add_fail_on(out, n, cfg->fail_on_mask, v->cls);
		broken |= (cfg->fail_on_mask & (1u << v->cls)) != 0;
	}
	if (cfg->timeout_s > 0) {
		/* Run mode stops the command once this much time has passed: a run that lasted
		 * as long was stopped (or ended on its own at the limit, as timeout(1) counts it). */
		bool b = cpw_known(m->wall_s) && m->wall_s >= cfg->timeout_s;
		add_budget(out, n, "timeout", b, CPW_BUDGET_SECONDS, cfg->timeout_s, m->wall_s);
		broken |= b;
	}
	return broken;
}

int cpw_budgets_broken_line(const struct cpw_budget_result *b, int n, char *buf, size_t len)
{
	int broken = 0;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!b[i].broken)
			continue;
		if (used < len) {
			int w = snprintf(buf + used, len - used, "%s%s (limit %s, measured %s)",
					 broken ? ", " : "", b[i].name, b[i].limit, b[i].value);
			used += w > 0 ? (size_t)w : 0;
		}
		broken++;
	}
	return broken;
}
