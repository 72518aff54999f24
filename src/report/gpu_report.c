/*
 * gpu_report.c: the GPU section. Busy is the mean of the readings (NVML: the share of
 * each sample period in which a kernel ran; DRM: the busiest engine's share); memory the
 * peak of the readings. Names from the driver are escaped.
 */
#include "config.h"
#include "report/gpu_report.h"

#include <math.h>
#include <string.h>

#include "report/json_value.h"
#include "util/escape.h"

static void pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%.0f%%", 100 * v);
}

static void mib(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%.0f MiB", v / (1024.0 * 1024.0));
}

void cpw_gpu_report_write_text(const struct cpw_gpu *g, FILE *out)
{
	if (!g)
		return;
	fprintf(out, "GPU (%s, %u readings):\n", strcmp(g->source, "nvml") == 0 ? "NVML" : "DRM fdinfo",
		g->readings);
	for (int i = 0; i < g->ndev; i++) {
		const struct cpw_gpu_device *d = &g->dev[i];
		char name[256], busy[16], peak[16], used[32], total[32];
		cpw_escape_for_terminal(d->name, name, sizeof(name));
		pct(cpw_gpu_device_busy(d), busy, sizeof(busy));
		pct(d->busy_max, peak, sizeof(peak));
		mib(d->mem_used_max_b, used, sizeof(used));
		mib(d->mem_total_b, total, sizeof(total));
		char gpm[64] = "";
		if (d->gpm_n) { /* GPM: how much of the device a busy share keeps at work */
			char act[16], occ[16];
			pct(cpw_gpu_device_sm_active(d), act, sizeof(act));
			pct(cpw_gpu_device_sm_occupancy(d), occ, sizeof(occ));
			snprintf(gpm, sizeof(gpm), "; SMs active %s, occupancy %s", act, occ);
		}
		fprintf(out, "\tGPU %d %s: busy %s of the run (peak %s)%s, memory %s of %s%s\n", i, name,
			busy, peak, gpm, used, total, d->held ? "" : " (not used by the tree)");
		for (int k = 0; k < g->nproc; k++) {
			const struct cpw_gpu_process *p = &g->proc[k];
			if (p->dev != i)
				continue;
			char comm[128], sm[16], mem[32];
			cpw_escape_for_terminal(p->comm, comm, sizeof(comm));
			pct(cpw_gpu_process_sm(p), sm, sizeof(sm));
			mib(p->mem_max_b, mem, sizeof(mem));
			fprintf(out, "\t\tpid %d %s: SM %s, memory %s\n", (int)p->pid, comm, sm, mem);
		}
	}
}

struct json_object *cpw_gpu_report_to_json(const struct cpw_gpu *g)
{
	struct cpw_json_doc d = { false };
	json_object *root = cpw_json_value_doc_object(&d);
	json_object *devs = cpw_json_value_doc_array(&d);
	json_object *procs = cpw_json_value_doc_array(&d);
	cpw_json_value_put(&d, root, "source", cpw_json_value_doc_text(&d, g->source));
	cpw_json_value_put(&d, root, "readings", cpw_json_value_doc_int(&d, g->readings));
	for (int i = 0; i < g->ndev; i++) {
		const struct cpw_gpu_device *dv = &g->dev[i];
		json_object *o = cpw_json_value_doc_object(&d);
		cpw_json_value_put(&d, o, "index", cpw_json_value_doc_int(&d, i));
		cpw_json_value_put(&d, o, "name", cpw_json_value_doc_string(&d, dv->name));
		cpw_json_value_put(&d, o, "busy_share", cpw_json_value_doc_number(&d, cpw_gpu_device_busy(dv)));
		cpw_json_value_put(&d, o, "busy_max", cpw_json_value_doc_number(&d, dv->busy_max));
		cpw_json_value_put(&d, o, "sm_active_share", cpw_json_value_doc_number(&d, cpw_gpu_device_sm_active(dv)));
		cpw_json_value_put(&d, o, "sm_occupancy_share",
				   cpw_json_value_doc_number(&d, cpw_gpu_device_sm_occupancy(dv)));
		cpw_json_value_put(&d, o, "memory_used_bytes", cpw_json_value_doc_number(&d, dv->mem_used_max_b));
		cpw_json_value_put(&d, o, "memory_total_bytes", cpw_json_value_doc_number(&d, dv->mem_total_b));
		cpw_json_value_put(&d, o, "held", cpw_json_value_need(&d, json_object_new_boolean(dv->held)));
		cpw_json_value_append(&d, devs, o);
	}
	for (int i = 0; i < g->nproc; i++) {
		const struct cpw_gpu_process *p = &g->proc[i];
		json_object *o = cpw_json_value_doc_object(&d);
		cpw_json_value_put(&d, o, "pid", cpw_json_value_doc_int(&d, p->pid));
		cpw_json_value_put(&d, o, "comm", cpw_json_value_doc_string(&d, p->comm));
		cpw_json_value_put(&d, o, "device", cpw_json_value_doc_int(&d, p->dev));
		cpw_json_value_put(&d, o, "sm_share", cpw_json_value_doc_number(&d, cpw_gpu_process_sm(p)));
		cpw_json_value_put(&d, o, "memory_bytes", cpw_json_value_doc_number(&d, p->mem_max_b));
		cpw_json_value_append(&d, procs, o);
	}
	cpw_json_value_put(&d, root, "devices", devs);
	cpw_json_value_put(&d, root, "processes", procs);
	return cpw_json_value_doc_end(&d, root);
}

void cpw_gpu_report_write_exposition(const struct cpw_gpu *g, struct cpw_expo *e)
{
	if (!g)
		return;
	static const struct {
		const char *base, *unit, *help;
	} fam[] = {
		{ "cperfwatch_gpu_busy_ratio", NULL, "Mean share of the run a GPU was busy, 0..1." },
		{ "cperfwatch_gpu_memory_used_bytes", "bytes", "Peak GPU memory used." },
		{ "cperfwatch_gpu_memory_total_bytes", "bytes", "GPU memory in all." },
	};
	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		cpw_exposition_family(e, fam[f].base, false, fam[f].unit, fam[f].help);
		for (int i = 0; i < g->ndev; i++) {
			const struct cpw_gpu_device *d = &g->dev[i];
			double v = f == 0 ? cpw_gpu_device_busy(d) : f == 1 ? d->mem_used_max_b : d->mem_total_b;
			if (isnan(v))
				continue;
			char name[160], label[200];
			cpw_exposition_label_value(d->name, name, sizeof(name));
			snprintf(label, sizeof(label), "gpu=\"%d\",name=\"%s\"", i, name);
			cpw_exposition_sample(e, fam[f].base, false, label, v);
		}
	}
	cpw_exposition_family(e, "cperfwatch_gpu_process_sm_ratio", false, NULL,
			"Mean share of a GPU's SMs a process of the tree kept busy, 0..1.");
	for (int i = 0; i < g->nproc; i++) {
		double v = cpw_gpu_process_sm(&g->proc[i]);
		if (isnan(v))
			continue;
		char comm[128], label[200];
		cpw_exposition_label_value(g->proc[i].comm, comm, sizeof(comm));
		snprintf(label, sizeof(label), "gpu=\"%d\",pid=\"%d\",comm=\"%s\"", g->proc[i].dev,
			 (int)g->proc[i].pid, comm);
		cpw_exposition_sample(e, "cperfwatch_gpu_process_sm_ratio", false, label, v);
	}
}
