/*
 * escape.h: making strings from the kernel safe to print (escape.c), for the report
 * writers and the live view.
 */
#ifndef CPW_UTIL_ESCAPE_H
#define CPW_UTIL_ESCAPE_H

#include <stddef.h>

/* Escapes a string from the kernel for a terminal: control bytes and invalid UTF-8 become
 * \xNN, so no escape sequence reaches the terminal. Always NUL-terminates dst. */
void cpw_escape_for_terminal(const char *src, char *dst, size_t dstlen);

/* Replaces only invalid UTF-8 with \xNN (for JSON, whose writer escapes controls). */
void cpw_escape_utf8(const char *src, char *dst, size_t dstlen);

#endif
