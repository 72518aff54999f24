/*
 * exposition.h: the Prometheus text exposition formats (exposition.c), shared by the
 * writers that speak them: the report in OpenMetrics or Prometheus 0.0.4 text
 * (openmetrics.c) and the merged job (job_report.c).
 *
 * The two dialects differ only in how a family is announced: OpenMetrics names a counter
 * family without its _total suffix and gives # TYPE, # UNIT, # HELP and a final # EOF;
 * Prometheus 0.0.4 (what node_exporter's textfile collector, the Pushgateway and promtool
 * read) names every family as its samples are named, gives # HELP then # TYPE, and has no
 * # UNIT and no # EOF.
 */
#ifndef CPW_REPORT_EXPOSITION_H
#define CPW_REPORT_EXPOSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"

enum cpw_expo_dialect { CPW_EXPO_OPENMETRICS, CPW_EXPO_PROMETHEUS };

/* Room for every label at its longest: CPW_LABELS_MAX --label pairs (names under 128
 * bytes, values of at most CPW_LABEL_VALUE_MAX, 5 bytes each when escaped: \\x1b) and the
 * few cperfwatch adds (a command name, rank, host). */
#define CPW_EXPO_LABELS_LEN 12288

struct cpw_expo {
	FILE *out;
	enum cpw_expo_dialect dialect;
	char labels[CPW_EXPO_LABELS_LEN]; /* name="value",... on every sample; may be empty */
};

/* Starts a writer on out; its labels are empty. */
void cpw_exposition_init(struct cpw_expo *e, FILE *out, enum cpw_expo_dialect dialect);

/* Appends name="value" to the labels of every sample, value escaped as
 * cpw_exposition_label_value() does. */
void cpw_exposition_add_label(struct cpw_expo *e, const char *name, const char *value);

/* Appends the --label pairs of cfg. */
void cpw_exposition_add_config_labels(struct cpw_expo *e, const struct cpw_config *cfg);

/* Escapes a label value into dst (always NUL-terminated), cut between characters where
 * dst is short: backslash, double quote and newline as the formats want (\\ \" \n); the
 * other control bytes (DEL and C1 included) and invalid UTF-8 as the text \xNN, as the
 * text report shows them (util/escape.h), its backslash escaped. What comes out is UTF-8
 * and has no byte below 0x20. */
void cpw_exposition_label_value(const char *src, char *dst, size_t len);

/* Announces a family. base is the name without _total; counter says whether it is one;
 * unit is NULL for none. */
void cpw_exposition_family(struct cpw_expo *e, const char *base, bool counter, const char *unit,
		     const char *help);

/* One sample of the family base (with _total for a counter), with the writer's labels and
 * extra (name="value",..., already escaped, or NULL). */
void cpw_exposition_sample(struct cpw_expo *e, const char *base, bool counter, const char *extra,
		     double v);

/* A family of one sample; nothing at all where v was not measured (NAN). */
void cpw_exposition_gauge(struct cpw_expo *e, const char *base, const char *unit, const char *help, double v);
void cpw_exposition_counter(struct cpw_expo *e, const char *base, const char *unit, const char *help, double v);

/* Ends the exposition (# EOF in OpenMetrics). Returns 0 or -errno. */
int cpw_exposition_end(struct cpw_expo *e);

/* Whether name is a label name a user may add with --label: the Prometheus grammar
 * [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ (reserved), and none of the names
 * cperfwatch writes itself (cpw_exposition_reserved_labels). */
bool cpw_exposition_label_name_ok(const char *name);

/* The label names cperfwatch writes itself, space-separated, for messages. */
extern const char cpw_exposition_reserved_labels[];

#endif
