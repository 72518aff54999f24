/*
 * json_value.c: JSON numbers and strings as every writer makes them (json_value.h).
 */
#include "config.h"
#include "report/json_value.h"

#include <math.h>

#include "report/report.h"
#include "util/escape.h"

struct json_object *cpw_json_number(double v)
{
	if (!isfinite(v))
		return NULL; /* json-c writes NULL as null */
	char text[64];
	cpw_report_number(v, text, sizeof(text));
	return json_object_new_double_s(v, text);
}

struct json_object *cpw_json_string(const char *s)
{
	char clean[1024];
	cpw_escape_utf8(s, clean, sizeof(clean));
	return json_object_new_string(clean);
}
