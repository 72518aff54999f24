/*
 * json_value.h: the JSON values every writer of a JSON document makes the same way
 * (json_value.c): numbers as cperfwatch writes them, null where unknown, and strings made
 * valid UTF-8; and a document built with every json-c failure (out of memory) noticed.
 */
#ifndef CPW_REPORT_JSON_VALUE_H
#define CPW_REPORT_JSON_VALUE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* A number written as report/number.c writes it (every digit of a whole number); NULL (JSON
 * null) for NAN or an infinity, and where json-c runs out of memory. */
struct json_object *cpw_json_value_number(double v);
/* A string from the kernel or a report file, invalid UTF-8 escaped (util/escape.h); at most
 * 1023 bytes of the escaped text. NULL where json-c runs out of memory. */
struct json_object *cpw_json_value_string(const char *s);

/* A document being built. json-c answers an allocation that fails with NULL, which its
 * next call on that NULL turns into an assertion: a writer builds through the calls below,
 * which take a failed (NULL) value or container in their stride and mark the document
 * failed, and checks failed once, before it writes anything. */
struct cpw_json_doc {
	bool failed; /* a json-c call failed: the document is not whole */
};

/* v, which must not be NULL (a json-c constructor's result); where it is, doc fails. */
struct json_object *cpw_json_value_need(struct cpw_json_doc *doc, struct json_object *v);
/* A new object, array, integer and string (as it is: text cperfwatch made); NULL, and doc
 * failed, where memory ran out. */
struct json_object *cpw_json_value_doc_object(struct cpw_json_doc *doc);
struct json_object *cpw_json_value_doc_array(struct cpw_json_doc *doc);
struct json_object *cpw_json_value_doc_int(struct cpw_json_doc *doc, int64_t v);
struct json_object *cpw_json_value_doc_text(struct cpw_json_doc *doc, const char *s);
/* cpw_json_value_number() and cpw_json_value_string(), a failure told from JSON null. */
struct json_object *cpw_json_value_doc_number(struct cpw_json_doc *doc, double v);
struct json_object *cpw_json_value_doc_string(struct cpw_json_doc *doc, const char *s);
/* Puts v (NULL: JSON null) under key in the object o, or at the end of the array a. Where
 * o or a is NULL (its making failed) or json-c cannot add, v is freed and doc fails. */
void cpw_json_value_put(struct cpw_json_doc *doc, struct json_object *o, const char *key, struct json_object *v);
void cpw_json_value_append(struct cpw_json_doc *doc, struct json_object *a, struct json_object *v);
/* v where doc is whole; else NULL, v freed (for a part another writer puts in its
 * document: NULL there says memory ran out). */
struct json_object *cpw_json_value_doc_end(struct cpw_json_doc *doc, struct json_object *v);
/* The text of v as json-c writes it with flags; NULL, and doc failed, where memory ran out
 * while json-c wrote it (even where json-c says nothing, having left a piece out). */
const char *cpw_json_value_text(struct cpw_json_doc *doc, struct json_object *v, int flags);

#endif
