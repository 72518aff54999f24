/*
 * budgets.h: the CI budgets (--max-wall, --max-cpu, --max-rss, --fail-on) judged on a
 * finished run's figures and verdict (budgets.c). Pure: it writes nothing.
 */
#ifndef CPW_CLASSIFY_BUDGETS_H
#define CPW_CLASSIFY_BUDGETS_H

#include <stdbool.h>

#include "options.h"
#include "model/metrics.h"
#include "classify/verdict.h"

#define CPW_BUDGETS_MAX 8

struct cpw_budget_result {
	char name[16];     /* "max-wall", "max-cpu", "max-rss", "fail-on" */
	char limit[48];    /* as given: "2s", "512M", "cpu-bound,io-bound" */
	char value[48];    /* measured, same unit */
	bool broken;
};

/* Judges every configured budget into out[0..*n) (at most CPW_BUDGETS_MAX); true when
 * any was broken. */
bool cpw_budgets_check(const struct cpw_config *cfg, const struct cpw_metrics *m,
		       const struct cpw_verdict *v, struct cpw_budget_result *out, int *n);

#endif
