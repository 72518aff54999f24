/*
 * openmetrics.c: the report in the OpenMetrics text format and in the Prometheus text
 * format 0.0.4 (what node_exporter's textfile collector, the Pushgateway and promtool
 * read): the same families, announced as each dialect wants (report/exposition.c). Names
 * follow Prometheus conventions: a cperfwatch_ prefix, base units (seconds, bytes) as
 * suffixes, _total only on counters. A value that could not be measured is left out, never
 * written as 0.
 */
#include "config.h"
#include "report/report.h"
#include "report/exposition.h"

#include <errno.h>
#include <libgen.h>
#include <string.h>

static int write_exposition(const struct cpw_report *r, FILE *out, enum cpw_expo_dialect dialect)
{
	const struct cpw_metrics *m = &r->metrics;
	struct cpw_expo e;
	const char *command;
	char cmd[256]; /* command points into it: basename() */ // cppcheck-suppress variableScope

	if (r->mode == CPW_MODE_RUN && r->cfg->command_argc > 0) {
		snprintf(cmd, sizeof(cmd), "%s", r->cfg->command[0]);
		command = basename(cmd);
	} else {
		const struct cpw_proc *p = r->tree ? cpw_tree_find(r->tree, r->pid) : NULL;
		command = p ? p->comm : "";
	}
	cpw_exposition_init(&e, out, dialect);
	cpw_exposition_add_label(&e, "command", command);
	cpw_exposition_add_label(&e, "mode", r->mode == CPW_MODE_RUN ? "run" : "attach");
	cpw_exposition_add_config_labels(&e, r->cfg);

	cpw_exposition_gauge(&e, "cperfwatch_wall_seconds", "seconds", "Wall-clock time watched.", m->wall_s);
	cpw_exposition_counter(&e, "cperfwatch_user_cpu_seconds", "seconds", "User CPU time of the tree.", m->user_s);
	cpw_exposition_counter(&e, "cperfwatch_system_cpu_seconds", "seconds", "System CPU time of the tree.", m->sys_s);
	cpw_exposition_gauge(&e, "cperfwatch_max_rss_bytes", "bytes", "Largest single process's peak resident set.",
		       cpw_known(m->max_rss_kib) ? m->max_rss_kib * 1024 : NAN);
	cpw_exposition_gauge(&e, "cperfwatch_tree_peak_rss_bytes", "bytes",
		       "Peak of the tree's summed resident set at one moment (shared pages in each process).",
		       cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib * 1024 : NAN);
	cpw_exposition_gauge(&e, "cperfwatch_tree_peak_memory_bytes", "bytes",
		       "Peak of the tree's memory, shared pages counted once (cgroup peak or PSS sum).",
		       cpw_known(m->tree_peak_kib) ? m->tree_peak_kib * 1024 : NAN);
	cpw_exposition_counter(&e, "cperfwatch_major_faults", NULL, "Major page faults.", (double)m->major_faults);
	cpw_exposition_counter(&e, "cperfwatch_minor_faults", NULL, "Minor page faults.", (double)m->minor_faults);
	cpw_exposition_counter(&e, "cperfwatch_voluntary_context_switches", NULL, "Voluntary context switches.",
			 (double)m->vol_ctxsw);
	cpw_exposition_counter(&e, "cperfwatch_involuntary_context_switches", NULL, "Involuntary context switches.",
			 (double)m->invol_ctxsw);
	cpw_exposition_counter(&e, "cperfwatch_storage_read_bytes", "bytes", "Bytes read from storage.", m->read_bytes);
	cpw_exposition_counter(&e, "cperfwatch_storage_written_bytes", "bytes", "Bytes written to storage.", m->write_bytes);
	cpw_exposition_gauge(&e, "cperfwatch_cores_used", NULL, "Mean cores used: (user+sys)/wall.", m->cores_used);
	cpw_exposition_gauge(&e, "cperfwatch_cores_usable", NULL, "CPUs usable: affinity and cgroup quota.", m->cores_usable);
	cpw_exposition_gauge(&e, "cperfwatch_processes", NULL, "Processes seen in the tree.", (double)m->nprocs);
	if (r->exit_known && r->mode == CPW_MODE_RUN)
		cpw_exposition_gauge(&e, "cperfwatch_exit_status", NULL, "The command's exit status (128+N for signal N).",
			       (double)(r->exit_signal ? 128 + r->exit_signal : r->exit_code));

	/* The verdict, one series per class with exactly one at 1. A gauge rather than an
	 * OpenMetrics stateset, so the plain Prometheus text parsers (node_exporter's textfile
	 * collector, the Pushgateway) accept it too. */
	cpw_exposition_family(&e, "cperfwatch_verdict", false, NULL,
			"What bounds the tree (1 for the verdict's class).");
	for (int c = 0; c < CPW_CLASS_COUNT; c++) {
		char label[64];
		snprintf(label, sizeof(label), "class=\"%s\"", cpw_verdict_class_name((enum cpw_class)c));
		cpw_exposition_sample(&e, "cperfwatch_verdict", false, label, r->verdict.cls == (enum cpw_class)c);
	}
	cpw_exposition_gauge(&e, "cperfwatch_verdict_confidence", NULL, "Confidence of the verdict, 0..1.",
		       r->verdict.confidence);
	if (r->nbudgets) {
		cpw_exposition_family(&e, "cperfwatch_budget_broken", false, NULL,
				"1 when the budget was broken.");
		for (int i = 0; i < r->nbudgets; i++) {
			char label[64];
			snprintf(label, sizeof(label), "budget=\"%s\"", r->budgets[i].name);
			cpw_exposition_sample(&e, "cperfwatch_budget_broken", false, label, r->budgets[i].broken);
		}
	}
	return cpw_exposition_end(&e);
}

int cpw_report_write_openmetrics(const struct cpw_report *r, FILE *out)
{
	return write_exposition(r, out, CPW_EXPO_OPENMETRICS);
}

int cpw_report_write_prometheus(const struct cpw_report *r, FILE *out)
{
	return write_exposition(r, out, CPW_EXPO_PROMETHEUS);
}
