/*
 * pfm_load.c: opens libpfm4 with dlopen when counters are first encoded.
 *
 * libpfm4's event tables are ~1 MB of pointers. Linked into the position-independent
 * binary they are relocated at every start, counters or not: ~270 pages written, ~4 ms on
 * our VMs, where the whole start-up of `cperfwatch -- true` is ~11 ms. As a shared
 * library loaded up front it costs as much. Opened on first use, a run that arms no
 * counter (the default set on a machine without a CPU PMU, --no-counters-like event
 * lists) never pays for it, and a run that does pays ~1 ms beside perf's own set-up.
 */
#include "config.h"
#include "source/perf/perf_private.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

struct cpw_pfm_api cpw_perf_pfm;

static int load_state;          /* 0 not tried, 1 loaded, -errno failed */
static char load_error[200];

int cpw_perf_pfm_load(const char **why)
{
	if (load_state == 0) {
		void *lib = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			snprintf(load_error, sizeof load_error, "%s", dlerror());
			load_state = -ENOENT;
		} else {
			*(void **)&cpw_perf_pfm.initialize = dlsym(lib, "pfm_initialize");
			*(void **)&cpw_perf_pfm.terminate = dlsym(lib, "pfm_terminate");
			*(void **)&cpw_perf_pfm.get_os_event_encoding = dlsym(lib, "pfm_get_os_event_encoding");
			*(void **)&cpw_perf_pfm.strerror = dlsym(lib, "pfm_strerror");
			*(void **)&cpw_perf_pfm.get_event_next = dlsym(lib, "pfm_get_event_next");
			*(void **)&cpw_perf_pfm.get_event_info = dlsym(lib, "pfm_get_event_info");
			*(void **)&cpw_perf_pfm.get_event_attr_info = dlsym(lib, "pfm_get_event_attr_info");
			*(void **)&cpw_perf_pfm.get_pmu_info = dlsym(lib, "pfm_get_pmu_info");
			load_state = 1;
			if (!cpw_perf_pfm.initialize || !cpw_perf_pfm.terminate || !cpw_perf_pfm.get_os_event_encoding ||
			    !cpw_perf_pfm.strerror || !cpw_perf_pfm.get_event_next || !cpw_perf_pfm.get_event_info ||
			    !cpw_perf_pfm.get_event_attr_info || !cpw_perf_pfm.get_pmu_info) {
				snprintf(load_error, sizeof load_error, "%s lacks a pfm_* function it needs",
					 PFM_SONAME);
				dlclose(lib);
				load_state = -ENOSYS;
			}
		}
	}
	if (why)
		*why = load_state < 0 ? load_error : "";
	return load_state < 0 ? load_state : 0;
}
