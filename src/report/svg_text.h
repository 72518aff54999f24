/*
 * svg_text.h: text inside an SVG picture's markup (report/svg_text.c), for the pictures
 * cperfwatch draws (plot_svg, flame_svg).
 */
#ifndef CPW_REPORT_SVG_TEXT_H
#define CPW_REPORT_SVG_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Writes the first n bytes of s (valid UTF-8: cpw_escape_utf8's) as XML character data or
 * an attribute's value: & < > " escaped, control characters written as '?'. */
void cpw_svg_text_put(FILE *out, const char *s, size_t n);

#endif
