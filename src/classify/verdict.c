/*
 * verdict.c: the names of the verdict classes, the vocabulary of verdict.class in every
 * report and of --fail-on.
 */
#include "config.h"
#include "classify/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const class_names[CPW_CLASS_COUNT] = {
	[CPW_CLASS_CPU_BOUND] = "cpu-bound",
	[CPW_CLASS_MEMORY_BOUND] = "memory-bound",
	[CPW_CLASS_IO_BOUND] = "io-bound",
	[CPW_CLASS_THRASHING] = "thrashing",
	[CPW_CLASS_WAITING] = "waiting",
	[CPW_CLASS_CPU_STARVED] = "cpu-starved",
	[CPW_CLASS_MIXED] = "mixed",
	[CPW_CLASS_UNKNOWN] = "unknown",
};

const char *cpw_verdict_class_name(enum cpw_class cls)
{
	if (cls == CPW_CLASS_NONE)
		return "none";
	if (cls < 0 || cls >= CPW_CLASS_COUNT)
		return "invalid";
	return class_names[cls];
}

int cpw_verdict_class_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < CPW_CLASS_COUNT; i++)
		if (strcmp(class_names[i], name) == 0)
			return i;
	return -1;
}

struct cpw_figure cpw_verdict_figure(double v)
{
	struct cpw_figure f;
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(f.s, sizeof(f.s), "N/A");
	else if (v == floor(v) || a >= 9.95) /* whole, or two digits before the point */
		snprintf(f.s, sizeof(f.s), "%.0f", v);
	else if (a >= 0.995)
		snprintf(f.s, sizeof(f.s), "%.1f", v);
	else
		snprintf(f.s, sizeof(f.s), "%.2g", v);
	return f;
}

const char *cpw_verdict_figure_plural(double v)
{
	struct cpw_figure f = cpw_verdict_figure(v);

	return strcmp(f.s, "1") == 0 || strcmp(f.s, "1.0") == 0 ? "" : "s";
}
