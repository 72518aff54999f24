/*
 * verdict.c: the names of the verdict classes, the vocabulary of verdict.class in every
 * report and of --fail-on.
 */
#include "config.h"
#include "classify/verdict.h"

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

const char *cpw_class_name(enum cpw_class cls)
{
	if (cls == CPW_CLASS_NONE)
		return "none";
	if (cls < 0 || cls >= CPW_CLASS_COUNT)
		return "invalid";
	return class_names[cls];
}

int cpw_class_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < CPW_CLASS_COUNT; i++)
		if (strcmp(class_names[i], name) == 0)
			return i;
	return -1;
}
