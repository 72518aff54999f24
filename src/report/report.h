/*
 * report.h: everything a report writer needs, gathered by the session (session.c).
 *
 * Writers (report/text.c, json.c, openmetrics.c, plot_svg.c) read this and nothing else: none
 * of them reads the kernel. (The live view draws the session's snapshot, view/tui.h.)
 */
#ifndef CPW_REPORT_REPORT_H
#define CPW_REPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "options.h"
#include "counter_values.h"
#include "model/metrics.h"
#include "model/tree.h"
#include "model/waits.h"
#include "util/escape.h"
#include "classify/verdict.h"
#include "classify/phases.h"
#include "classify/budgets.h"
#include "model/timeline.h"
#include "model/hotspots.h"

#define CPW_NOTES_MAX 24
#define CPW_NOTE_LEN 512 /* room for a deep cgroup path and its reason */

struct cpw_report {
	const struct cpw_config *cfg;
	enum cpw_mode mode;
	pid_t pid;                  /* run mode: the child; attach mode: the target */
	bool exit_known;
	int exit_code;              /* run mode: the command's exit status (0..255) */
	int exit_signal;            /* the signal that ended it, 0 if none */
	bool rusage_known;          /* run mode: ru holds wait4's rusage of the tree */
	struct rusage ru;
	long page_size;
	unsigned descendants_running; /* still alive when the report was made */
	double cgroup_mem_peak_kib;  /* the command's cgroup, page cache included; NAN */
	struct cpw_metrics metrics;
	struct cpw_verdict verdict;
	const struct cpw_tree *tree;
	const struct cpw_waits *waits;       /* NULL where waits were not probed */
	const struct cpw_counter_values *counters; /* NULL where counting was not set up */
	const struct cpw_timeline *timeline; /* the run over time; NULL where none was kept */
	struct cpw_phases phases;            /* n = 0: no timeline */
	const struct cpw_hotspots *hotspots; /* on-CPU samples by function; NULL: --no-hotspots */
	char notes[CPW_NOTES_MAX][CPW_NOTE_LEN];
	int nnotes;
	struct cpw_budget_result budgets[CPW_BUDGETS_MAX];
	int nbudgets;
};

/* Appends a note (printf format); silently drops beyond CPW_NOTES_MAX. A note longer than
 * CPW_NOTE_LEN is cut and ends in "...", so that the cut shows. */
void cpw_report_note(struct cpw_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writers: return 0, or -errno when writing failed (the caller reports it). */
int cpw_report_write_text(const struct cpw_report *r, FILE *out);
int cpw_report_write_json(const struct cpw_report *r, FILE *out);
/* Tests: false makes the JSON writer build the processes array inside the document, as it
 * does for a json-c that lays the placeholder out unexpectedly; true (the default) streams
 * it. Both must give the same document. */
void cpw_report_json_stream_processes(bool stream);
int cpw_report_write_openmetrics(const struct cpw_report *r, FILE *out);
/* The same figures in the Prometheus text format 0.0.4 (openmetrics.c). */
int cpw_report_write_prometheus(const struct cpw_report *r, FILE *out);

/* A measured figure as text for the JSON and OpenMetrics writers: every digit of a whole
 * number (a byte count past 1e9 must not lose its last digits), 9 significant digits of
 * anything else (what the measurement carries, without binary noise). */
void cpw_report_number(double v, char *buf, size_t len);

/* Writes the report in the configured format. Returns 0 or -errno. */
int cpw_report_write(const struct cpw_report *r, FILE *out);

/* Writes the report to out and commits it (report/output.h: the -o file renamed into
 * place), or abandons it and says in one line on standard error where it could not be
 * written. Returns 0 or -1 (emit.c). */
struct cpw_output;
int cpw_report_emit(const struct cpw_report *r, struct cpw_output *out);

#endif
