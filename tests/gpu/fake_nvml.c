/*
 * fake_nvml.c: a fake libnvidia-ml.so.1 for the tests, loaded by cperfwatch through the
 * ordinary library search path (LD_LIBRARY_PATH). It serves what the file named by
 * CPW_FAKE_NVML says, read again at every nvmlDeviceGetCount (a test can change it while
 * the watch runs):
 *
 *   device NAME TOTAL_MIB USED_MIB UTIL_PCT     (NAME: underscores for blanks)
 *   proc COMM DEVICE MEM_MIB SM_PCT              (every process called COMM below the
 *                                                 process that loaded the library)
 *   fail FUNCTION CODE                           (FUNCTION answers CODE, an NVML error)
 *   gpm DEVICE SM_ACTIVE_PCT SM_OCCUPANCY_PCT    (the device has GPM, Hopper's, and its
 *                                                 SMs were this active between samples)
 *   pidoffset N                                  (processes are named by PID + N: the
 *                                                 host's PIDs, as seen from a container)
 *   ghost PID DEVICE MEM_MIB SM_PCT              (a process by a PID nobody has: one that
 *                                                 ended since, or another namespace's)
 *
 * Built three ways (tests/gpu/gpu.am): the current API; -DFAKE_OLD, an older driver
 * (nvmlInit, the first nvmlDeviceGetComputeRunningProcesses, no process utilisation);
 * -DFAKE_BROKEN, a library without nvmlDeviceGetCount.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAXDEV 4
#define MAXPROC 32

struct dev { char name[64]; unsigned long long total, used; unsigned util; int gpm; double active, occ; };
struct proc { int pid; int dev; unsigned long long mem; unsigned sm; int ghost; };
static struct dev devs[MAXDEV];
static int ndev;
static struct proc procs[MAXPROC];
static int nproc;
static char fails[16][64];
static int fail_code[16];
static int nfail;
static unsigned pid_offset;

static int failing(const char *fn)
{
	for (int i = 0; i < nfail; i++)
		if (strcmp(fails[i], fn) == 0)
			return fail_code[i];
	return 0;
}

static int ppid_of(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	int ppid = 0;
	if (!rp || sscanf(rp + 2, "%*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

static int below_me(int pid)
{
	int me = getpid();
	for (int i = 0; i < 64 && pid > 1; i++) {
		pid = ppid_of(pid);
		if (pid == me)
			return 1;
	}
	return 0;
}

static void add_procs(const char *comm, int dev, unsigned long long mem, unsigned sm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) && nproc < MAXPROC) {
		int pid = atoi(e->d_name);
		char path[64], c[64] = "";
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(c, sizeof(c), f))
			c[strcspn(c, "\n")] = '\0';
		fclose(f);
		if (strcmp(c, comm) == 0 && below_me(pid))
			procs[nproc++] = (struct proc){ pid, dev, mem, sm, 0 };
	}
	closedir(d);
}

static void load(void)
{
	const char *path = getenv("CPW_FAKE_NVML");
	char line[256];
	ndev = nproc = nfail = 0;
	pid_offset = 0;
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char a[64], b[64];
		unsigned long long x, y;
		unsigned u;
		int dev;
		if (sscanf(line, "device %63s %llu %llu %u", a, &x, &y, &u) == 4 && ndev < MAXDEV) {
			for (char *p = a; *p; p++)
				if (*p == '_')
					*p = ' ';
			snprintf(devs[ndev].name, sizeof(devs[ndev].name), "%s", a);
			devs[ndev].total = x << 20;
			devs[ndev].used = y << 20;
			devs[ndev++].util = u;
		} else if (sscanf(line, "proc %63s %d %llu %u", a, &dev, &x, &u) == 4) {
			add_procs(a, dev, x << 20, u);
		} else if (sscanf(line, "gpm %d %llu %llu", &dev, &x, &y) == 3 && dev >= 0 && dev < ndev) {
			devs[dev].gpm = 1;
			devs[dev].active = (double)x;
			devs[dev].occ = (double)y;
		} else if (sscanf(line, "ghost %llu %d %llu %u", &x, &dev, &y, &u) == 4 && nproc < MAXPROC) {
			procs[nproc++] = (struct proc){ (int)x, dev, y << 20, u, 1 };
		} else if (sscanf(line, "pidoffset %u", &u) == 1) {
			pid_offset = u;
		} else if (sscanf(line, "fail %63s %d", b, &dev) == 2 && nfail < 16) {
			snprintf(fails[nfail], sizeof(fails[0]), "%s", b);
			fail_code[nfail++] = dev;
		}
	}
	fclose(f);
}

typedef struct { int index; } *nvmlDevice_t;
static struct { int index; } handles[MAXDEV];

const char *nvmlErrorString(int rc)
{
	return rc == 999 ? "Unknown Error" : rc == 9 ? "Driver Not Loaded" : "fake error";
}

static int init_common(void)
{
	load();
	return failing("nvmlInit");
}

#ifdef FAKE_OLD
int nvmlInit(void) { return init_common(); }
#else
int nvmlInit_v2(void) { return init_common(); }
#endif
int nvmlShutdown(void) { return 0; }

#ifndef FAKE_BROKEN
static int count(unsigned *n)
{
	load();
	int rc = failing("nvmlDeviceGetCount");
	if (rc)
		return rc;
	*n = (unsigned)ndev;
	return 0;
}
#ifdef FAKE_OLD
int nvmlDeviceGetCount(unsigned *n) { return count(n); }
#else
int nvmlDeviceGetCount_v2(unsigned *n) { return count(n); }
#endif
#endif

int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (i >= (unsigned)ndev)
		return 2; /* invalid argument */
	handles[i].index = (int)i;
	*d = (nvmlDevice_t)&handles[i];
	return 0;
}

int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned len)
{
	snprintf(name, len, "%s", devs[d->index].name);
	return 0;
}

struct util { unsigned gpu, memory; };
int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, struct util *u)
{
	int rc = failing("nvmlDeviceGetUtilizationRates");
	if (rc)
		return rc;
	u->gpu = devs[d->index].util;
	u->memory = 0;
	return 0;
}

struct memory { unsigned long long total, free, used; };
int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, struct memory *m)
{
	m->total = devs[d->index].total;
	m->used = devs[d->index].used;
	m->free = m->total - m->used;
	return 0;
}

#ifdef FAKE_OLD
struct pinfo { unsigned pid; unsigned long long mem; };
#else
struct pinfo { unsigned pid; unsigned long long mem; unsigned gi, ci; }; /* nvmlProcessInfo_t */
unsigned fake_nvml_mig(const struct pinfo *p); /* names gi and ci: the layout is the driver's */
unsigned fake_nvml_mig(const struct pinfo *p) { return p->gi + p->ci; }
#endif

/* The processes on device d; *need gets their number. 0, or the code to answer: fn's
 * scripted failure, 7 (insufficient size) where the caller's *n is short. */
static int on_device(const char *fn, nvmlDevice_t d, const unsigned *n, const void *out, unsigned *need)
{
	int rc = failing(fn);
	if (rc)
		return rc;
	*need = 0;
	for (int i = 0; i < nproc; i++)
		if (procs[i].dev == d->index)
			(*need)++;
	return !out || *n < *need ? 7 : 0;
}

static int running(nvmlDevice_t d, unsigned *n, struct pinfo *out)
{
	unsigned k;
	int rc = on_device("nvmlDeviceGetComputeRunningProcesses", d, n, out, &k);
	if (rc == 7 || k == 0) {
		*n = k;
		return k ? rc : 0;
	}
	if (rc)
		return rc;
	k = 0;
	for (int i = 0; i < nproc; i++)
		if (procs[i].dev == d->index) {
			memset(&out[k], 0, sizeof(out[k])); /* gi, ci: 0, as a machine without MIG */
			out[k].pid = (unsigned)procs[i].pid + (procs[i].ghost ? 0 : pid_offset);
			out[k++].mem = procs[i].mem;
		}
	*n = k;
	return 0;
}

#ifdef FAKE_OLD
int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned *n, struct pinfo *out)
{
	return running(d, n, out);
}
#else
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *n, struct pinfo *out)
{
	return running(d, n, out);
}

struct putil { unsigned pid; unsigned long long ts; unsigned sm, mem, enc, dec; };
int nvmlDeviceGetProcessUtilization(nvmlDevice_t d, struct putil *out, unsigned *n,
				    unsigned long long last)
{
	static unsigned long long clock_us = 1;
	(void)last;
	unsigned k;
	int rc = on_device("nvmlDeviceGetProcessUtilization", d, n, out, &k);
	if (rc && rc != 7)
		return rc;
	if (k == 0)
		return 6; /* not found: no sample */
	if (rc == 7) {
		*n = k;
		return 7;
	}
	k = 0;
	clock_us += 1000000;
	for (int i = 0; i < nproc; i++)
		if (procs[i].dev == d->index)
			out[k++] = (struct putil){ (unsigned)procs[i].pid + (procs[i].ghost ? 0 : pid_offset), clock_us, procs[i].sm, 0, 0, 0 };
	*n = k;
	return 0;
}

/* GPM, version 1 of its structures: a sample remembers its device; the metrics between two
 * samples are the device's scripted figures. */
struct gpm_sample { int dev; int taken; };
struct gpm_support { unsigned version, supported; };
struct gpm_metric { unsigned id; int rc; double value; struct { char *s, *l, *u; } info; };
struct gpm_get { unsigned version, num; struct gpm_sample *s1, *s2; struct gpm_metric m[98]; };

int nvmlGpmQueryDeviceSupport(nvmlDevice_t d, struct gpm_support *s)
{
	int rc = failing("nvmlGpmQueryDeviceSupport");
	if (rc)
		return rc;
	s->supported = d->index < ndev && devs[d->index].gpm;
	return 0;
}

int nvmlGpmSampleAlloc(struct gpm_sample **s)
{
	*s = calloc(1, sizeof(**s));
	return *s ? 0 : 2;
}

int nvmlGpmSampleFree(struct gpm_sample *s)
{
	free(s);
	return 0;
}

int nvmlGpmSampleGet(nvmlDevice_t d, struct gpm_sample *s)
{
	s->dev = d->index;
	s->taken = 1;
	return failing("nvmlGpmSampleGet");
}

int nvmlGpmMetricsGet(struct gpm_get *g)
{
	if (g->version != 1 || !g->s1 || !g->s2 || !g->s1->taken || !g->s2->taken || g->s1->dev != g->s2->dev ||
	    g->s1 == g->s2 || g->num > 98)
		return 2; /* invalid argument */
	const struct dev *dv = &devs[g->s1->dev];
	for (unsigned i = 0; i < g->num; i++) {
		g->m[i].rc = g->m[i].id == 2 || g->m[i].id == 3 ? 0 : 3;
		g->m[i].value = g->m[i].id == 2 ? dv->active : dv->occ;
	}
	return failing("nvmlGpmMetricsGet");
}
#endif
