/*
 * number.c: a measured figure as text for the JSON and OpenMetrics writers (report.h):
 * whole numbers with every digit, other figures with 9 significant digits. Its own file,
 * so that the writers and report.c, which picks among them, do not depend on each other.
 */
#include "config.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>

void cpw_report_number(double v, char *buf, size_t len)
{
	/* Below 2^53 a double holds every whole number exactly. */
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.9g", v);
}
