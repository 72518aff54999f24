/*
 * nvml.c: NVML opened with dlopen; the types are declared here by hand, from the NVML API
 * reference (nvml.h of the CUDA toolkit): they are ABI of the driver and do not change
 * within a function's version. Missing optional functions leave their figures NAN and a
 * note; an error of one call leaves that figure NAN, never stops the others.
 */
#include "config.h"
#include "source/gpu/nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvml_return;
typedef struct nvml_device *nvml_device;
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_NOT_FOUND 6
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* The driver's layouts: members read here or not, each keeps its place (the zeroing
 * functions below name them all, so that none looks unused). */
struct nvml_utilization {
	unsigned gpu;
	unsigned memory;
};
struct nvml_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};
struct nvml_proc_util {
	unsigned pid;
	unsigned long long time_stamp; /* µs */
	unsigned sm_util;
	unsigned mem_util, enc_util, dec_util;
};
struct nvml_proc_info_v1 { unsigned pid; unsigned long long used_gpu_memory; };
struct nvml_proc_info_v2 { /* the _v2 and _v3 functions' nvmlProcessInfo_t */
	unsigned pid;
	unsigned long long used_gpu_memory;
	unsigned gpu_instance_id, compute_instance_id;
};

/* GPM (GPU performance monitoring, Hopper and later; nvmlGpm*, driver 520 and later):
 * version 1 of nvmlGpmMetricsGet_t holds up to 98 metrics. */
typedef struct nvml_gpm_sample *nvml_gpm_sample;
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION 1
#define NVML_GPM_METRIC_MAX 98
#define NVML_GPM_METRIC_SM_UTIL 2      /* % of the SMs active */
#define NVML_GPM_METRIC_SM_OCCUPANCY 3 /* % of the warp slots in use */
struct nvml_gpm_support {
	unsigned version;
	unsigned supported;
};
struct nvml_gpm_metric {
	unsigned metric_id;
	nvml_return rc;
	double value;
	struct { char *short_name, *long_name, *unit; } info;
};
struct nvml_gpm_metrics_get {
	unsigned version;
	unsigned num_metrics;
	nvml_gpm_sample sample1, sample2;
	struct nvml_gpm_metric metrics[NVML_GPM_METRIC_MAX];
};

static void zero_util(struct nvml_utilization *u)
{
	u->gpu = u->memory = 0;
}

static void zero_memory(struct nvml_memory *m)
{
	m->total = m->free = m->used = 0;
}

static void zero_proc_util(struct nvml_proc_util *u)
{
	u->pid = u->sm_util = u->mem_util = u->enc_util = u->dec_util = 0;
	u->time_stamp = 0;
}

static void zero_proc_info(struct nvml_proc_info_v2 *p)
{
	p->pid = p->gpu_instance_id = p->compute_instance_id = 0;
	p->used_gpu_memory = 0;
}

struct cpw_nvml {
	void *lib;
	char proc_root[256];
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	const char *(*error_string)(nvml_return);
	nvml_return (*count)(unsigned *);
	nvml_return (*handle)(unsigned, nvml_device *);
	nvml_return (*name)(nvml_device, char *, unsigned);
	nvml_return (*util)(nvml_device, struct nvml_utilization *);
	nvml_return (*memory)(nvml_device, struct nvml_memory *);
	nvml_return (*proc_util)(nvml_device, struct nvml_proc_util *, unsigned *, unsigned long long);
	nvml_return (*procs)(nvml_device, unsigned *, void *);
	int procs_version;                 /* 3, 2, 1; 0 when none */
	unsigned long long last_seen[CPW_GPU_DEVICES_MAX]; /* µs: process samples already taken */
	nvml_return (*gpm_support)(nvml_device, struct nvml_gpm_support *);
	nvml_return (*gpm_alloc)(nvml_gpm_sample *);
	nvml_return (*gpm_free)(nvml_gpm_sample);
	nvml_return (*gpm_sample)(nvml_device, nvml_gpm_sample);
	nvml_return (*gpm_metrics)(struct nvml_gpm_metrics_get *);
	/* Per device: -1 no GPM, 0 not asked yet, 1 sampled; its last sample and the next. */
	int gpm[CPW_GPU_DEVICES_MAX];
	nvml_gpm_sample gpm_prev[CPW_GPU_DEVICES_MAX], gpm_next[CPW_GPU_DEVICES_MAX];
	bool gpm_have_prev[CPW_GPU_DEVICES_MAX];
	struct nvml_proc_util *ubuf;
	unsigned ubuf_len;
	void *pbuf;
	unsigned pbuf_len;
	char missing[160];
};

static void *sym(struct cpw_nvml *n, const char *name)
{
	return dlsym(n->lib, name);
}

#define NVML_SYM(n, field, name) ((n)->field = (__typeof__((n)->field))sym(n, name))

static const char *err_text(const struct cpw_nvml *n, nvml_return rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;
	return s ? s : "unknown error";
}

static void add_missing(struct cpw_nvml *n, const char *what)
{
	size_t used = strlen(n->missing);
	snprintf(n->missing + used, sizeof(n->missing) - used, "%s%s", used ? ", " : "", what);
}

static bool nvidia_device_present(void)
{
	return access("/dev/nvidiactl", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
}

struct cpw_nvml *cpw_nvml_open(const char *proc_root, const char *library, char *why, size_t len)
{
	/* Without a device node, dlopen's search alone (every directory of the loader's path,
	 * and their hardware-capability subdirectories: ~110 system calls, 0.4 ms on our VMs)
	 * would be paid by every run of a machine without an NVIDIA GPU, for nothing. */
	if (!library && !nvidia_device_present()) {
		snprintf(why, len, "no NVIDIA device (/dev/nvidiactl)");
		return NULL;
	}
	void *lib = dlopen(library ? library : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib && library) { /* named, and not there: said, where an absent one is not */
		const char *e = dlerror();
		snprintf(why, len, "cannot open %s (CPERFWATCH_NVML): %s", library, e ? e : "unknown error");
		return NULL;
	}
	if (!lib) {
		snprintf(why, len, "no NVIDIA driver library (libnvidia-ml.so.1)");
		return NULL;
	}
	struct cpw_nvml *n = calloc(1, sizeof(*n));
	if (!n) {
		dlclose(lib);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	n->lib = lib;
	snprintf(n->proc_root, sizeof(n->proc_root), "%s", proc_root ? proc_root : "/proc");
	NVML_SYM(n, error_string, "nvmlErrorString");
	if (!NVML_SYM(n, init, "nvmlInit_v2"))
		NVML_SYM(n, init, "nvmlInit");
	NVML_SYM(n, shutdown, "nvmlShutdown");
	if (!NVML_SYM(n, count, "nvmlDeviceGetCount_v2"))
		NVML_SYM(n, count, "nvmlDeviceGetCount");
	if (!NVML_SYM(n, handle, "nvmlDeviceGetHandleByIndex_v2"))
		NVML_SYM(n, handle, "nvmlDeviceGetHandleByIndex");
	NVML_SYM(n, name, "nvmlDeviceGetName");
	NVML_SYM(n, util, "nvmlDeviceGetUtilizationRates");
	NVML_SYM(n, memory, "nvmlDeviceGetMemoryInfo");
	NVML_SYM(n, proc_util, "nvmlDeviceGetProcessUtilization");
	NVML_SYM(n, gpm_support, "nvmlGpmQueryDeviceSupport");
	NVML_SYM(n, gpm_alloc, "nvmlGpmSampleAlloc");
	NVML_SYM(n, gpm_free, "nvmlGpmSampleFree");
	NVML_SYM(n, gpm_sample, "nvmlGpmSampleGet");
	NVML_SYM(n, gpm_metrics, "nvmlGpmMetricsGet");
	if (NVML_SYM(n, procs, "nvmlDeviceGetComputeRunningProcesses_v3"))
		n->procs_version = 3;
	else if (NVML_SYM(n, procs, "nvmlDeviceGetComputeRunningProcesses_v2"))
		n->procs_version = 2;
	else if (NVML_SYM(n, procs, "nvmlDeviceGetComputeRunningProcesses"))
		n->procs_version = 1;
	const char *need = !n->init ? "nvmlInit" : !n->shutdown ? "nvmlShutdown"
		: !n->count ? "nvmlDeviceGetCount" : !n->handle ? "nvmlDeviceGetHandleByIndex" : NULL;
	if (need) {
		snprintf(why, len, "libnvidia-ml.so.1 lacks %s", need);
		dlclose(lib);
		free(n);
		return NULL;
	}
	nvml_return rc = n->init();
	if (rc != NVML_SUCCESS) {
		snprintf(why, len, "nvmlInit failed: %s (%d)", err_text(n, rc), rc);
		dlclose(lib);
		free(n);
		return NULL;
	}
	if (!n->util)
		add_missing(n, "no nvmlDeviceGetUtilizationRates: device busy unknown");
	if (!n->memory)
		add_missing(n, "no nvmlDeviceGetMemoryInfo: device memory unknown");
	if (!n->proc_util)
		add_missing(n, "no nvmlDeviceGetProcessUtilization: per-process SM share unknown");
	if (!n->procs)
		add_missing(n, "no nvmlDeviceGetComputeRunningProcesses: per-process memory unknown");
	else if (n->procs_version < 3)
		add_missing(n, n->procs_version == 2 ? "an older driver: compute processes through _v2"
			    : "an older driver: compute processes through the first version");
	return n;
}

const char *cpw_nvml_missing(const struct cpw_nvml *n)
{
	return n->missing;
}

static void note(struct cpw_gpu_reading *out, const struct cpw_nvml *n, const char *what, nvml_return rc)
{
	if (!out->note[0])
		snprintf(out->note, sizeof(out->note), "%s failed: %s (%d)", what, err_text(n, rc), rc);
}

/* Grows a buffer to hold want entries of size each; false when out of memory. */
static bool grow(void **buf, unsigned *len, unsigned want, size_t size)
{
	if (want <= *len)
		return true;
	if (want > 65536)
		return false;
	void *p = realloc(*buf, (size_t)want * size);
	if (!p)
		return false;
	*buf = p;
	*len = want;
	return true;
}

static struct cpw_gpu_proc_reading *proc_slot(struct cpw_gpu_reading *out, int dev, unsigned pid)
{
	for (int i = 0; i < out->nproc; i++)
		if (out->proc[i].dev == dev && out->proc[i].pid == (pid_t)pid)
			return &out->proc[i];
	if (out->nproc == CPW_GPU_PROCS_MAX)
		return NULL;
	struct cpw_gpu_proc_reading *p = &out->proc[out->nproc++];
	p->dev = dev;
	p->pid = (pid_t)pid;
	p->sm = NAN;
	p->mem_b = NAN;
	p->invisible = false;
	return p;
}

static void read_procs(struct cpw_nvml *n, nvml_device d, int dev, struct cpw_gpu_reading *out)
{
	if (!n->procs)
		return;
	unsigned count = 0;
	nvml_return rc = n->procs(d, &count, NULL);
	if (rc == NVML_SUCCESS && count == 0)
		return;
	size_t size = n->procs_version == 1 ? sizeof(struct nvml_proc_info_v1) : sizeof(struct nvml_proc_info_v2);
	if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS) {
		note(out, n, "nvmlDeviceGetComputeRunningProcesses", rc);
		return;
	}
	count += 8; /* room for processes that start between the two calls */
	if (!grow(&n->pbuf, &n->pbuf_len, count, size))
		return;
	count = n->pbuf_len;
	if (n->procs_version > 1)
		for (unsigned i = 0; i < count; i++)
			zero_proc_info((struct nvml_proc_info_v2 *)n->pbuf + i);
	rc = n->procs(d, &count, n->pbuf);
	if (rc != NVML_SUCCESS) {
		note(out, n, "nvmlDeviceGetComputeRunningProcesses", rc);
		return;
	}
	for (unsigned i = 0; i < count && i < n->pbuf_len; i++) {
		unsigned pid;
		unsigned long long mem;
		if (n->procs_version == 1) {
			const struct nvml_proc_info_v1 *p = (const struct nvml_proc_info_v1 *)n->pbuf + i;
			pid = p->pid;
			mem = p->used_gpu_memory;
		} else {
			const struct nvml_proc_info_v2 *p = (const struct nvml_proc_info_v2 *)n->pbuf + i;
			pid = p->pid;
			mem = p->used_gpu_memory;
		}
		char path[300];
		snprintf(path, sizeof(path), "%s/%u", n->proc_root, pid);
		bool invisible = access(path, F_OK) != 0 && errno == ENOENT;
		if (invisible)
			out->invisible++; /* a host's PID, seen from inside a PID namespace */
		struct cpw_gpu_proc_reading *slot = proc_slot(out, dev, pid);
		if (slot)
			slot->invisible = invisible;
		if (slot && mem != NVML_VALUE_NOT_AVAILABLE)
			slot->mem_b = (double)mem;
	}
}

static void read_proc_util(struct cpw_nvml *n, nvml_device d, int dev, struct cpw_gpu_reading *out)
{
	if (!n->proc_util)
		return;
	unsigned count = 0;
	nvml_return rc = n->proc_util(d, NULL, &count, n->last_seen[dev]);
	if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && count == 0))
		return; /* no process sampled since the last reading */
	if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS) {
		note(out, n, "nvmlDeviceGetProcessUtilization", rc);
		return;
	}
	if (!grow((void **)&n->ubuf, &n->ubuf_len, count + 8, sizeof(*n->ubuf)))
		return;
	count = n->ubuf_len;
	for (unsigned i = 0; i < count; i++)
		zero_proc_util(&n->ubuf[i]);
	rc = n->proc_util(d, n->ubuf, &count, n->last_seen[dev]);
	if (rc == NVML_ERROR_NOT_FOUND)
		return;
	if (rc != NVML_SUCCESS) {
		note(out, n, "nvmlDeviceGetProcessUtilization", rc);
		return;
	}
	/* Several samples of one process: their mean. */
	unsigned nsamples[CPW_GPU_PROCS_MAX] = { 0 };
	for (unsigned i = 0; i < count && i < n->ubuf_len; i++) {
		const struct nvml_proc_util *u = &n->ubuf[i];
		if (u->time_stamp > n->last_seen[dev])
			n->last_seen[dev] = u->time_stamp;
		struct cpw_gpu_proc_reading *slot = proc_slot(out, dev, u->pid);
		if (!slot || u->sm_util > 100)
			continue;
		size_t k = (size_t)(slot - out->proc);
		double sm = u->sm_util / 100.0;
		slot->sm = nsamples[k] ? (slot->sm * nsamples[k] + sm) / (nsamples[k] + 1) : sm;
		nsamples[k]++;
	}
}

/* Whether device dev has GPM: asked once (a driver or device without it, or a virtual
 * machine that hides it, answers no); its two samples allocated then. */
static bool gpm_ready(struct cpw_nvml *n, nvml_device d, int dev)
{
	if (n->gpm[dev] == 0) {
		struct nvml_gpm_support s;
		s.version = NVML_GPM_SUPPORT_VERSION;
		s.supported = 0;
		bool ok = n->gpm_support && n->gpm_alloc && n->gpm_free && n->gpm_sample && n->gpm_metrics &&
			n->gpm_support(d, &s) == NVML_SUCCESS && s.supported &&
			n->gpm_alloc(&n->gpm_prev[dev]) == NVML_SUCCESS;
		if (ok && n->gpm_alloc(&n->gpm_next[dev]) != NVML_SUCCESS) {
			n->gpm_free(n->gpm_prev[dev]);
			ok = false;
		}
		n->gpm[dev] = ok ? 1 : -1;
	}
	return n->gpm[dev] == 1;
}

/* SM activity and occupancy between the last GPM sample of the device and one taken now. */
static void read_gpm(struct cpw_nvml *n, nvml_device d, int dev, struct cpw_gpu_device_reading *dr)
{
	if (!gpm_ready(n, d, dev) || n->gpm_sample(d, n->gpm_next[dev]) != NVML_SUCCESS)
		return;
	if (n->gpm_have_prev[dev]) {
		static struct nvml_gpm_metrics_get get; /* 4 KiB; one reader at a time */
		memset(&get, 0, sizeof(get));
		get.version = NVML_GPM_METRICS_GET_VERSION;
		get.num_metrics = 2;
		get.sample1 = n->gpm_prev[dev];
		get.sample2 = n->gpm_next[dev];
		get.metrics[0].metric_id = NVML_GPM_METRIC_SM_UTIL;
		get.metrics[1].metric_id = NVML_GPM_METRIC_SM_OCCUPANCY;
		if (n->gpm_metrics(&get) == NVML_SUCCESS) {
			const struct nvml_gpm_metric *a = &get.metrics[0], *o = &get.metrics[1];
			if (a->rc == NVML_SUCCESS && a->value >= 0 && a->value <= 100)
				dr->sm_active = a->value / 100.0;
			if (o->rc == NVML_SUCCESS && o->value >= 0 && o->value <= 100)
				dr->sm_occupancy = o->value / 100.0;
			(void)a->info.short_name, (void)a->info.long_name, (void)a->info.unit;
		}
	}
	nvml_gpm_sample t = n->gpm_prev[dev]; /* the sample taken now is the next one's start */
	n->gpm_prev[dev] = n->gpm_next[dev];
	n->gpm_next[dev] = t;
	n->gpm_have_prev[dev] = true;
}

int cpw_nvml_read(struct cpw_nvml *n, struct cpw_gpu_reading *out)
{
	out->ndev = 0;
	out->nproc = 0;
	out->invisible = 0;
	out->note[0] = '\0';
	unsigned count = 0;
	nvml_return rc = n->count(&count);
	if (rc != NVML_SUCCESS) {
		note(out, n, "nvmlDeviceGetCount", rc);
		return -1;
	}
	if (count > CPW_GPU_DEVICES_MAX)
		count = CPW_GPU_DEVICES_MAX;
	for (unsigned i = 0; i < count; i++) {
		struct cpw_gpu_device_reading *dr = &out->dev[out->ndev];
		nvml_device d = NULL;
		dr->busy = dr->mem_used_b = dr->mem_total_b = dr->sm_active = dr->sm_occupancy = NAN;
		snprintf(dr->name, sizeof(dr->name), "GPU %u", i);
		rc = n->handle(i, &d);
		if (rc != NVML_SUCCESS) {
			note(out, n, "nvmlDeviceGetHandleByIndex", rc);
			out->ndev++;
			continue;
		}
		char name[96];
		if (n->name && n->name(d, name, sizeof(name)) == NVML_SUCCESS) {
			name[sizeof(name) - 1] = '\0';
			snprintf(dr->name, sizeof(dr->name), "%s", name);
		}
		struct nvml_utilization u;
		zero_util(&u);
		if (n->util) {
			rc = n->util(d, &u);
			if (rc == NVML_SUCCESS && u.gpu <= 100)
				dr->busy = u.gpu / 100.0;
			else if (rc != NVML_SUCCESS)
				note(out, n, "nvmlDeviceGetUtilizationRates", rc);
		}
		struct nvml_memory m;
		zero_memory(&m);
		if (n->memory) {
			rc = n->memory(d, &m);
			if (rc == NVML_SUCCESS && m.total > 0 && m.used <= m.total) {
				dr->mem_used_b = (double)m.used;
				dr->mem_total_b = (double)m.total;
			} else if (rc != NVML_SUCCESS)
				note(out, n, "nvmlDeviceGetMemoryInfo", rc);
		}
		int dev = out->ndev++;
		read_gpm(n, d, dev, dr);
		read_procs(n, d, dev, out);
		read_proc_util(n, d, dev, out);
	}
	return out->ndev;
}

void cpw_nvml_close(struct cpw_nvml *n)
{
	if (!n)
		return;
	for (int i = 0; i < CPW_GPU_DEVICES_MAX; i++)
		if (n->gpm[i] == 1) {
			n->gpm_free(n->gpm_prev[i]);
			n->gpm_free(n->gpm_next[i]);
		}
	n->shutdown();
	dlclose(n->lib);
	free(n->ubuf);
	free(n->pbuf);
	free(n);
}
