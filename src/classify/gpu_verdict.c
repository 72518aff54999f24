/*
 * gpu_verdict.c: the GPU's verdict. The classifier names what the host does; this names
 * what the device does, from the gpu_* metrics (model/gpu.c), with the thresholds of
 * classify/thresholds.c (gpu_*):
 *  - gpu-bound: the tree holds a device busy gpu_busy of the run or more, and it is
 *    saturated (gpu_saturated) or the host threads wait on it (gpu waits, gpu_wait_share of
 *    the wall time; or spin in libcuda, gpu_spin_share of the on-CPU samples). The host's own verdict stays as the secondary class.
 *  - a held device that idles (busy under gpu_busy): the holder waits on a pipe fed by a
 *    cpu-bound or io-bound process of the tree (its input pipeline); the holder is itself
 *    cpu-bound (the host); the holder waits on the network (communication).
 *  - device memory at gpu_mem of its total or more.
 * Pure.
 */
#include "config.h"
#include "classify/gpu_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "classify/advice.h"
#include "classify/thresholds.h"

#define SRC_NVML "NVML / DRM fdinfo"

/* A GPU finding goes first: the others move down, the last drops where the list is full. */
__attribute__((format(printf, 2, 3)))
static void gpu_finding(struct cpw_verdict *v, const char *fmt, ...)
{
	int n = v->nfindings < CPW_FINDINGS_MAX ? v->nfindings : CPW_FINDINGS_MAX - 1;
	memmove(v->findings[1], v->findings[0], (size_t)n * sizeof(v->findings[0]));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->findings[0], sizeof(v->findings[0]), fmt, ap);
	va_end(ap);
	v->nfindings = n + 1;
}

static void append_advice(struct cpw_verdict *v, const char *text)
{
	size_t used = strlen(v->advice);
	if (used + strlen(text) + 2 < sizeof(v->advice))
		snprintf(v->advice + used, sizeof(v->advice) - used, "%s%s", used ? " " : "", text);
}

/* The GPU's evidence first, the host's after it, as many as fit. */
static void gpu_evidence(struct cpw_verdict *v, const struct cpw_evidence *lines, int n)
{
	struct cpw_evidence host[CPW_EVIDENCE_MAX];
	int nhost = v->nevidence;
	memcpy(host, v->evidence, sizeof(host));
	v->nevidence = 0;
	for (int i = 0; i < n && v->nevidence < CPW_EVIDENCE_MAX; i++)
		v->evidence[v->nevidence++] = lines[i];
	for (int i = 0; i < nhost && v->nevidence < CPW_EVIDENCE_MAX; i++)
		v->evidence[v->nevidence++] = host[i];
}

__attribute__((format(printf, 5, 6)))
static void line(struct cpw_evidence *e, const char *metric, double value, double threshold,
		 const char *fmt, ...)
{
	memset(e, 0, sizeof(*e)); /* whole bytes: a verdict compares equal to itself */
	snprintf(e->metric, sizeof(e->metric), "%s", metric);
	e->value = value;
	e->threshold = threshold;
	snprintf(e->source, sizeof(e->source), "%s", SRC_NVML);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

static void gpu_bound(const struct cpw_metrics *m, struct cpw_verdict *v, bool saturated, bool waits,
		      bool spins)
{
	struct cpw_evidence e[2];
	int n = 0;
	line(&e[n++], "gpu_busy_share", m->gpu_busy_share, cpw_threshold(CPW_T_GPU_BUSY),
	     "the GPU %s (pid %d) holds is busy %.0f%% of the run (>= %.0f%%)", m->gpu_holder_comm,
	     m->gpu_holder_pid, 100 * m->gpu_busy_share, 100 * cpw_threshold(CPW_T_GPU_BUSY));
	if (waits)
		line(&e[n++], "gpu_wait_share", m->gpu_wait_share, cpw_threshold(CPW_T_GPU_WAIT_SHARE),
		     "host threads wait on the GPU (in its driver) %.0f%% of the wall time (>= %.0f%%)",
		     100 * m->gpu_wait_share, 100 * cpw_threshold(CPW_T_GPU_WAIT_SHARE));
	else if (spins)
		line(&e[n++], "gpu_driver_spin_share", m->gpu_driver_spin_share,
		     cpw_threshold(CPW_T_GPU_SPIN_SHARE),
		     "the host spins in the GPU driver (libcuda) %.0f%% of its CPU samples (>= %.0f%%): "
		     "it waits on the device", 100 * m->gpu_driver_spin_share,
		     100 * cpw_threshold(CPW_T_GPU_SPIN_SHARE));
	else
		line(&e[n++], "gpu_busy_share", m->gpu_busy_share, cpw_threshold(CPW_T_GPU_SATURATED),
		     "it is saturated: busy %.0f%% (>= %.0f%%), the limit whatever the host does",
		     100 * m->gpu_busy_share, 100 * cpw_threshold(CPW_T_GPU_SATURATED));
	enum cpw_class host = v->cls;
	v->secondary = host == CPW_CLASS_UNKNOWN || host == CPW_CLASS_MIXED ? CPW_CLASS_NONE : host;
	v->cls = CPW_CLASS_GPU_BOUND;
	v->confidence = saturated && (waits || spins) ? 0.9 : saturated ? 0.8 : 0.7;
	gpu_evidence(v, e, n);
	snprintf(v->advice, sizeof(v->advice), "%s", cpw_advice_for(CPW_CLASS_GPU_BOUND));
}

static void gpu_idles(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	double busy = 100 * m->gpu_busy_share;
	bool feeder_io = strcmp(m->pipe_feeder_wait_kind, "disk") == 0;
	bool feeder_cpu = m->pipe_feeder_cpu_share >= cpw_threshold(CPW_T_GPU_FEEDER_CPU);
	/* A feeder that waited on nothing was on a CPU or in the run queue all along. */
	bool feeder_busy = m->pipe_feeder_pid != 0 && !m->pipe_feeder_wait_kind[0];
	if (m->pipe_waiter_pid != 0 && m->pipe_waiter_pid == m->gpu_holder_pid &&
	    (feeder_cpu || feeder_io || feeder_busy)) {
		gpu_finding(v, "the GPU idles (busy %.0f%%): starved by its input pipeline, %.31s "
			    "waits on a pipe fed by %.31s (pid %d), %s", busy, m->gpu_holder_comm,
			    m->pipe_feeder_comm, m->pipe_feeder_pid, feeder_io ? "io-bound"
			    : feeder_cpu ? "cpu-bound" : "on or waiting for a CPU");
		append_advice(v, feeder_io ? "GPU: feed it faster: more data-loader workers, or "
			      "faster storage (cache the data set in memory or on local disk)."
			      : "GPU: feed it faster: more data-loader workers, cheaper transforms "
			      "(decode once and cache, smaller images).");
	} else if (m->gpu_holder_cpu_share >= cpw_threshold(CPW_T_GPU_HOST_CPU)) {
		gpu_finding(v, "the GPU idles (busy %.0f%%): starved by the host, %.31s (pid %d) is "
			    "on or waiting for a CPU %.0f%% of its life", busy, m->gpu_holder_comm,
			    m->gpu_holder_pid, 100 * m->gpu_holder_cpu_share);
		append_advice(v, "GPU: give it more per step: bigger batches, fewer Python steps per "
			      "batch, compiled graphs (torch.compile, CUDA graphs).");
	}
	if (m->gpu_holder_net_wait_share >= cpw_threshold(CPW_T_GPU_NET_WAIT)) {
		gpu_finding(v, "the GPU idles (busy %.0f%%): waiting on communication, %.31s waits on "
			    "the network %.0f%% of its time", busy, m->gpu_holder_comm,
			    100 * m->gpu_holder_net_wait_share);
		append_advice(v, "GPU: overlap communication with computation (bucketed all-reduce), "
			      "or communicate less often (gradient accumulation).");
	}
}

void cpw_gpu_verdict_apply(const struct cpw_metrics *m, struct cpw_verdict *v)
{
	if (m->gpu_devices_held <= 0)
		return;
	double busy = m->gpu_busy_share;
	bool saturated = busy >= cpw_threshold(CPW_T_GPU_SATURATED);
	bool waits = m->gpu_wait_share >= cpw_threshold(CPW_T_GPU_WAIT_SHARE);
	bool spins = m->gpu_driver_spin_share >= cpw_threshold(CPW_T_GPU_SPIN_SHARE);
	if (busy >= cpw_threshold(CPW_T_GPU_BUSY) && (saturated || waits || spins))
		gpu_bound(m, v, saturated, waits, spins);
	else if (busy < cpw_threshold(CPW_T_GPU_BUSY))
		gpu_idles(m, v);
	if (m->gpu_mem_share >= cpw_threshold(CPW_T_GPU_MEM)) {
		gpu_finding(v, "GPU memory is %.0f%% full (>= %.0f%%)", 100 * m->gpu_mem_share,
			    100 * cpw_threshold(CPW_T_GPU_MEM));
		append_advice(v, "GPU: memory is nearly full: smaller batches, activation "
			      "checkpointing, or mixed precision.");
	}
}
