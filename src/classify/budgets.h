/*
 * budgets.h: the CI budgets (--max-wall, --max-cpu, --max-rss, --fail-on, --timeout)
 * judged on a finished run's figures and verdict (budgets.c). Pure: it writes nothing.
 */
#ifndef CPW_CLASSIFY_BUDGETS_H
#define CPW_CLASSIFY_BUDGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"
#include "model/metrics.h"
#include "classify/verdict.h"

#define CPW_BUDGETS_MAX 8

/* What a budget's limit and value are measured in. */
enum cpw_budget_unit {
	CPW_BUDGET_SECONDS, /* limit_num, value_num: seconds */
	CPW_BUDGET_KIB,     /* limit_num, value_num: KiB */
	CPW_BUDGET_CLASS    /* limit_classes, value_class */
};

struct cpw_budget_result {
	char name[16];     /* "max-wall", "max-cpu", "max-rss", "fail-on", "timeout" */
	char limit[48];    /* for people: "2.000s", "524288K", "cpu-bound,io-bound" */
	char value[48];    /* measured, same unit; "N/A" when not measured */
	enum cpw_budget_unit unit;
	double limit_num;       /* SECONDS, KIB: the limit as a number */
	double value_num;       /* SECONDS, KIB: what was measured; NAN when not measured */
	unsigned limit_classes; /* CLASS: bit (1u << enum cpw_class) per class named */
	int value_class;        /* CLASS: the verdict's enum cpw_class */
	bool broken;
};

/* Judges every configured budget into out[0..*n) (at most CPW_BUDGETS_MAX); true when
 * any was broken. The timeout (--timeout) is broken when the run lasted as long as it. */
bool cpw_budgets_check(const struct cpw_config *cfg, const struct cpw_metrics *m,
		       const struct cpw_verdict *v, struct cpw_budget_result *out, int *n);

/* The broken budgets of b[0..n) in one line for people, "max-wall (limit 5.000s, measured
 * 7.210s), fail-on (...)", into buf (cut to len); "" when none is broken. Returns how many
 * were broken. */
int cpw_budgets_broken_line(const struct cpw_budget_result *b, int n, char *buf, size_t len);

#endif
