/*
 * openmetrics.c: the report in the OpenMetrics text format, for node_exporter's textfile
 * collector or a Pushgateway. Names follow Prometheus conventions: a cperfwatch_ prefix,
 * base units (seconds, bytes) as suffixes with a matching # UNIT line, _total only on
 * counters. A value that could not be measured is left out, never written as 0.
 */
#include "config.h"
#include "report/report.h"

#include <errno.h>
#include <libgen.h>
#include <string.h>

/* Label values: backslash, double quote and newline are escaped; the rest is UTF-8 text. */
static void label_value(const char *src, char *dst, size_t len)
{
	char clean[512];
	size_t n = 0;

	cpw_escape_utf8(src, clean, sizeof(clean));
	for (const char *s = clean; *s && n + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			dst[n++] = '\\';
			dst[n++] = *s;
		} else if (*s == '\n') {
			dst[n++] = '\\';
			dst[n++] = 'n';
		} else {
			dst[n++] = *s;
		}
	}
	dst[n] = '\0';
}

struct om {
	FILE *out;
	char labels[600];
};

static void family(struct om *om, const char *name, const char *type, const char *unit, const char *help)
{
	fprintf(om->out, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(om->out, "# UNIT %s %s\n", name, unit);
	fprintf(om->out, "# HELP %s %s\n", name, help);
}

static void gauge(struct om *om, const char *name, const char *unit, const char *help, double v)
{
	if (!cpw_known(v))
		return;
	char text[64];
	family(om, name, "gauge", unit, help);
	cpw_report_number(v, text, sizeof(text));
	fprintf(om->out, "%s{%s} %s\n", name, om->labels, text);
}

static void counter(struct om *om, const char *name, const char *unit, const char *help, double v)
{
	if (!cpw_known(v))
		return;
	char text[64];
	family(om, name, "counter", unit, help);
	cpw_report_number(v, text, sizeof(text));
	fprintf(om->out, "%s_total{%s} %s\n", name, om->labels, text);
}

int cpw_report_write_openmetrics(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	struct om om = { .out = out };
	char esc[512];

	if (r->mode == CPW_MODE_RUN && r->cfg->command_argc > 0) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "%s", r->cfg->command[0]);
		label_value(basename(cmd), esc, sizeof(esc));
	} else {
		const struct cpw_proc *p = r->tree ? cpw_tree_find(r->tree, r->pid) : NULL;
		label_value(p ? p->comm : "", esc, sizeof(esc));
	}
	snprintf(om.labels, sizeof(om.labels), "command=\"%s\",mode=\"%s\"", esc,
		 r->mode == CPW_MODE_RUN ? "run" : "attach");

	gauge(&om, "cperfwatch_wall_seconds", "seconds", "Wall-clock time watched.", m->wall_s);
	counter(&om, "cperfwatch_user_cpu_seconds", "seconds", "User CPU time of the tree.", m->user_s);
	counter(&om, "cperfwatch_system_cpu_seconds", "seconds", "System CPU time of the tree.", m->sys_s);
	gauge(&om, "cperfwatch_max_rss_bytes", "bytes", "Largest single process's peak resident set.",
	      cpw_known(m->max_rss_kib) ? m->max_rss_kib * 1024 : NAN);
	gauge(&om, "cperfwatch_tree_peak_rss_bytes", "bytes",
	      "Peak of the tree's summed resident set at one moment (shared pages in each process).",
	      cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib * 1024 : NAN);
	gauge(&om, "cperfwatch_tree_peak_memory_bytes", "bytes",
	      "Peak of the tree's memory, shared pages counted once (cgroup peak or PSS sum).",
	      cpw_known(m->tree_peak_kib) ? m->tree_peak_kib * 1024 : NAN);
	counter(&om, "cperfwatch_major_faults", NULL, "Major page faults.", (double)m->major_faults);
	counter(&om, "cperfwatch_minor_faults", NULL, "Minor page faults.", (double)m->minor_faults);
	counter(&om, "cperfwatch_voluntary_context_switches", NULL, "Voluntary context switches.",
		(double)m->vol_ctxsw);
	counter(&om, "cperfwatch_involuntary_context_switches", NULL, "Involuntary context switches.",
		(double)m->invol_ctxsw);
	counter(&om, "cperfwatch_storage_read_bytes", "bytes", "Bytes read from storage.", m->read_bytes);
	counter(&om, "cperfwatch_storage_written_bytes", "bytes", "Bytes written to storage.", m->write_bytes);
	gauge(&om, "cperfwatch_cores_used", NULL, "Mean cores used: (user+sys)/wall.", m->cores_used);
	gauge(&om, "cperfwatch_cores_usable", NULL, "CPUs usable: affinity and cgroup quota.", m->cores_usable);
	gauge(&om, "cperfwatch_processes", NULL, "Processes seen in the tree.", (double)m->nprocs);
	if (r->exit_known && r->mode == CPW_MODE_RUN)
		gauge(&om, "cperfwatch_exit_status", NULL, "The command's exit status (128+N for signal N).",
		      (double)(r->exit_signal ? 128 + r->exit_signal : r->exit_code));

	/* The verdict, one series per class with exactly one at 1. A gauge rather than an
	 * OpenMetrics stateset, so the plain Prometheus text parsers (node_exporter's textfile
	 * collector, the Pushgateway) accept it too. */
	fputs("# TYPE cperfwatch_verdict gauge\n"
	      "# HELP cperfwatch_verdict What bounds the tree (1 for the verdict's class).\n", out);
	for (int c = 0; c < CPW_CLASS_COUNT; c++)
		fprintf(out, "cperfwatch_verdict{%s,class=\"%s\"} %d\n", om.labels,
			cpw_class_name((enum cpw_class)c), r->verdict.cls == (enum cpw_class)c);
	gauge(&om, "cperfwatch_verdict_confidence", NULL, "Confidence of the verdict, 0..1.",
	      r->verdict.confidence);
	if (r->nbudgets) {
		fputs("# TYPE cperfwatch_budget_broken gauge\n"
		      "# HELP cperfwatch_budget_broken 1 when the budget was broken.\n", out);
		for (int i = 0; i < r->nbudgets; i++)
			fprintf(out, "cperfwatch_budget_broken{%s,budget=\"%s\"} %d\n", om.labels,
				r->budgets[i].name, r->budgets[i].broken);
	}
	fputs("# EOF\n", out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
