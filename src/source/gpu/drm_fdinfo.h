/*
 * drm_fdinfo.h: the DRM client figures an AMD or Intel GPU driver writes into
 * /proc/PID/fdinfo/N of a descriptor on /dev/dri/ * (the kernel's drm-usage-stats:
 * drm-driver, drm-pdev, drm-client-id, drm-engine-NAME in ns, drm-cycles-NAME and
 * drm-total-cycles-NAME on xe, drm-memory-REGION, drm-resident-REGION, drm-total-REGION),
 * parsed by a pure function (drm_fdinfo.c), and the busy share of one client between two
 * readings.
 */
#ifndef CPW_SOURCE_GPU_DRM_FDINFO_H
#define CPW_SOURCE_GPU_DRM_FDINFO_H

#include <stdbool.h>
#include <stddef.h>

#define CPW_DRM_ENGINES_MAX 16

struct cpw_drm_engine {
	char name[24];                  /* "gfx", "compute", "rcs", "vcs" ... */
	unsigned long long ns;          /* drm-engine-NAME: busy ns since the client opened */
	unsigned long long cycles;      /* drm-cycles-NAME (xe) */
	unsigned long long total_cycles; /* drm-total-cycles-NAME (xe): the GPU's clock */
	unsigned capacity;              /* drm-engine-capacity-NAME; 1 when absent */
	bool has_ns, has_cycles, has_total;
};

struct cpw_drm_client {
	char driver[32];                /* drm-driver: "amdgpu", "i915", "xe"; raw text */
	char pdev[32];                  /* drm-pdev: the PCI device, "" when absent */
	unsigned long long client_id;   /* drm-client-id: one per open of the device */
	bool has_client_id;
	struct cpw_drm_engine engine[CPW_DRM_ENGINES_MAX];
	int nengines;
	/* Bytes of device memory: drm-resident-* where the driver writes it (the newer
	 * keys), else drm-memory-* (amdgpu's older ones); drm-total-* beside. Saturated at
	 * ULLONG_MAX, never wrapped. */
	unsigned long long memory_bytes;
	unsigned long long total_bytes;
	bool has_memory;
	int lines_skipped;              /* malformed drm- lines, ignored */
};

/* Parses one fdinfo file's text (len bytes, not necessarily NUL-terminated). Returns 0
 * when it is a DRM client (a drm-driver line), -ENOENT when it is not (another kind of
 * descriptor), and never reads past len. Pure. */
int cpw_drm_fdinfo_parse(const char *text, size_t len, struct cpw_drm_client *out);

/* The client's busy share between two readings of the same client dt_s seconds apart:
 * the busiest engine's share (its busy ns over the wall ns, over its capacity; on xe its
 * cycles over the total cycles), 0..1; NAN when nothing can be told (no common engine,
 * counters gone backwards, dt_s <= 0). Pure. */
double cpw_drm_fdinfo_busy_share(const struct cpw_drm_client *prev, const struct cpw_drm_client *cur,
			  double dt_s);

#endif
