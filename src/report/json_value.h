/*
 * json_value.h: the JSON values every writer of a JSON document makes the same way
 * (json_value.c): numbers as cperfwatch writes them, null where unknown, and strings made
 * valid UTF-8.
 */
#ifndef CPERFWATCH_JSON_VALUE_H
#define CPERFWATCH_JSON_VALUE_H

#include <json-c/json.h>

/* A number written as report/number.c writes it (every digit of a whole number); NULL (JSON
 * null) for NAN or an infinity. */
struct json_object *cpw_json_number(double v);
/* A string from the kernel or a report file, invalid UTF-8 escaped (util/escape.h); at most
 * 1023 bytes of the escaped text. */
struct json_object *cpw_json_string(const char *s);

#endif
