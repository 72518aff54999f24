/*
 * json_value.c: JSON numbers and strings as every writer makes them, and a document built
 * with json-c's failures noticed (json_value.h).
 */
#include "config.h"
#include "report/json_value.h"

#include <errno.h>
#include <math.h>

#include "report/report.h"
#include "util/escape.h"

struct json_object *cpw_json_value_number(double v)
{
	if (!isfinite(v))
		return NULL; /* json-c writes NULL as null */
	char text[64];
	cpw_report_number(v, text, sizeof(text));
	return json_object_new_double_s(v, text);
}

struct json_object *cpw_json_value_string(const char *s)
{
	char clean[1024];
	cpw_escape_utf8(s, clean, sizeof(clean));
	return json_object_new_string(clean);
}

struct json_object *cpw_json_value_need(struct cpw_json_doc *doc, struct json_object *v)
{
	if (!v)
		doc->failed = true;
	return v;
}

struct json_object *cpw_json_value_doc_object(struct cpw_json_doc *doc)
{
	return cpw_json_value_need(doc, json_object_new_object());
}

struct json_object *cpw_json_value_doc_array(struct cpw_json_doc *doc)
{
	return cpw_json_value_need(doc, json_object_new_array());
}

struct json_object *cpw_json_value_doc_int(struct cpw_json_doc *doc, int64_t v)
{
	return cpw_json_value_need(doc, json_object_new_int64(v));
}

struct json_object *cpw_json_value_doc_text(struct cpw_json_doc *doc, const char *s)
{
	return cpw_json_value_need(doc, json_object_new_string(s));
}

struct json_object *cpw_json_value_doc_number(struct cpw_json_doc *doc, double v)
{
	struct json_object *o = cpw_json_value_number(v);
	return isfinite(v) ? cpw_json_value_need(doc, o) : o;
}

struct json_object *cpw_json_value_doc_string(struct cpw_json_doc *doc, const char *s)
{
	return cpw_json_value_need(doc, cpw_json_value_string(s));
}

void cpw_json_value_put(struct cpw_json_doc *doc, struct json_object *o, const char *key, struct json_object *v)
{
	/* json_object_object_add() asserts that o is an object: NULL is not asked. */
	if (!o || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		doc->failed = true;
	}
}

void cpw_json_value_append(struct cpw_json_doc *doc, struct json_object *a, struct json_object *v)
{
	if (!a || json_object_array_add(a, v) != 0) {
		json_object_put(v);
		doc->failed = true;
	}
}

struct json_object *cpw_json_value_doc_end(struct cpw_json_doc *doc, struct json_object *v)
{
	if (!doc->failed)
		return v;
	json_object_put(v);
	return NULL;
}

const char *cpw_json_value_text(struct cpw_json_doc *doc, struct json_object *v, int flags)
{
	/* json-c appends to its print buffer unchecked: a buffer that cannot grow leaves a
	 * piece out of the text, and only the last append of each value is checked. A failed
	 * realloc() says ENOMEM, which nothing else in the printing sets. */
	int saved = errno;
	errno = 0;
	const char *text = json_object_to_json_string_ext(v, flags);
	if (!text || errno == ENOMEM) {
		doc->failed = true;
		errno = ENOMEM;
		return NULL;
	}
	errno = saved;
	return text;
}
