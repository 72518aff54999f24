/*
 * process_report.c: the verdict per process in the text and JSON reports (see
 * process_report.h). The names in a finding are the kernel's: escaped for the terminal here.
 */
#include "report/process_report.h"

#include <math.h>
#include <stdio.h>

#include "report/report.h"
#include "report/json_value.h"
#include "util/escape.h"

void cpw_process_report_judge(const struct cpw_report *r, struct cpw_proc_verdicts *out)
{
	/* The report's processes have ended or were last seen: no later end. */
	struct cpw_proc_verdict_ctx with = {
		.waits = r->waits, .now_s = NAN,
		.cores_usable = cpw_known(r->metrics.cores_usable_sampled) ? r->metrics.cores_usable_sampled
			: r->metrics.cores_usable,
	};

	cpw_process_verdict_judge_tree(r->tree, &with, out);
}

void cpw_process_report_write_text(const struct cpw_report *r, FILE *out)
{
	struct cpw_proc_verdicts pvs;
	char line[512], esc[sizeof line * 4];

	cpw_process_report_judge(r, &pvs);
	/* Run mode: one process that matters, of the run's own class, would repeat the verdict
	 * (the command line heads the report). Attach mode keeps it: its line is where the
	 * process's own name is (argv is what the header quotes). */
	if (pvs.n == 0 || (r->mode == CPW_MODE_RUN && pvs.n == 1 && !pvs.left_out &&
			   pvs.v[0].cls == r->verdict.cls))
		return;
	fputs("Processes:\n", out);
	for (size_t i = 0; i < pvs.n; i++) {
		const struct cpw_proc_verdict *pv = &pvs.v[i];
		char comm[CPW_COMM_MAX * 4];

		cpw_escape_utf8(pv->comm, comm, sizeof comm);
		snprintf(line, sizeof line, "%s (pid %d), %.1f-%.1f s: %s (%.0f%%): %s", comm,
			 (int)pv->pid, pv->from_s, pv->to_s, cpw_verdict_class_name(pv->cls),
			 100 * pv->confidence, pv->finding);
		cpw_escape_for_terminal(line, esc, sizeof esc);
		fprintf(out, "\t%s\n", esc);
	}
	if (pvs.left_out)
		fprintf(out, "\t... and %zu more that matter\n", pvs.left_out);
}

struct json_object *cpw_process_report_verdict_json(struct cpw_json_doc *d,
						    const struct cpw_proc_verdicts *pvs, pid_t pid)
{
	const struct cpw_proc_verdict *pv = NULL;
	struct json_object *o, *shares;
	char text[512];

	for (size_t i = 0; pvs && i < pvs->n && !pv; i++)
		if (pvs->v[i].pid == pid)
			pv = &pvs->v[i];
	if (pv == NULL)
		return NULL;
	o = cpw_json_value_doc_object(d);
	cpw_json_value_put(d, o, "class", cpw_json_value_doc_text(d, cpw_verdict_class_name(pv->cls)));
	cpw_json_value_put(d, o, "confidence", cpw_json_value_doc_number(d, pv->confidence));
	cpw_json_value_put(d, o, "secondary", pv->secondary == CPW_CLASS_NONE ? NULL
			: cpw_json_value_doc_text(d, cpw_verdict_class_name(pv->secondary)));
	cpw_json_value_put(d, o, "finding", cpw_json_value_doc_string(d, pv->finding));
	cpw_process_verdict_sentence(pv, text, sizeof text);
	cpw_json_value_put(d, o, "text", cpw_json_value_doc_string(d, text));
	cpw_json_value_put(d, o, "matters_by", cpw_json_value_doc_text(d, pv->why));
	cpw_json_value_put(d, o, "start_s", cpw_json_value_doc_number(d, pv->from_s));
	cpw_json_value_put(d, o, "end_s", cpw_json_value_doc_number(d, pv->to_s));
	shares = cpw_json_value_doc_object(d);
	cpw_json_value_put(d, shares, "cpu", cpw_json_value_doc_number(d, pv->cpu_share));
	cpw_json_value_put(d, shares, "runqueue", cpw_json_value_doc_number(d, pv->runq_share));
	cpw_json_value_put(d, shares, "disk", cpw_json_value_doc_number(d, pv->disk_share));
	cpw_json_value_put(d, shares, "wait", cpw_json_value_doc_number(d, pv->wait_share));
	cpw_json_value_put(d, o, "shares", shares);
	cpw_json_value_put(d, o, "serialised", cpw_json_value_need(d, json_object_new_boolean(pv->serialised)));
	return o;
}
