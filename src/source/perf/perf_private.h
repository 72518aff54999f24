/*
 * perf_private.h: the inside of the counters module (source/perf/perf.c, perf_errors.c), for its
 * report writer and its unit tests.
 *
 * The pure parts (errno to status and reason, multiplex scaling, what a perf_event_paranoid
 * level allows) are exported so tests can check them without a kernel; the hooks replace
 * the perf_event_open and read system calls and the /proc and /sys roots, so tests can fake
 * ENOENT, EACCES, EOPNOTSUPP, EINVAL and multiplexed reads on any machine.
 */
#ifndef CPW_SOURCE_PERF_PERF_PRIVATE_H
#define CPW_SOURCE_PERF_PERF_PRIVATE_H

#include <linux/perf_event.h> /* before libpfm4's header, which otherwise defines its own */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfmon/pfmlib_perf_event.h>
#include "source/perf/perf.h"

/* What decides why an event could not open. */
struct cpw_perf_env {
	int paranoid;        /* kernel.perf_event_paranoid, CPW_PARANOID_UNKNOWN if unreadable */
	bool is_root;        /* effective uid 0 */
	bool hw_pmu_present; /* a CPU PMU is registered with the kernel */
};

/* One encoded event, as it travels from the process that ran libpfm4 (perf_transfer.c). */
struct cpw_event_spec {
	char name[96];
	struct perf_event_attr attr;
	int role; /* enum cpw_counter_role */
	int refused_errno; /* why the kernel refuses the event as such (no CPU PMU...); 0 if not */
};
/* Counters from events encoded elsewhere: libpfm4 is not used in this process. */
int cpw_perf_new_encoded(struct cpw_counters **out, const struct cpw_event_spec *specs,
			     size_t n, char *err, size_t errlen);
/* Event i of c as a spec, for sending. */
void cpw_perf_spec(const struct cpw_counters *c, size_t i, struct cpw_event_spec *spec);

/* The helper's side: encodes event_list (cpw_perf_new) and writes the result to fd.
 * Returns 0, or -EIO when fd would not take it. */
int cpw_perf_send(const char *event_list, int fd);
/* The other side: reads what cpw_perf_send wrote and builds the counters. Returns 0,
 * the sender's error (err says it), or -EIO when the stream ended early. */
int cpw_perf_receive(int fd, struct cpw_counters **out, char *err, size_t errlen);

/* Maps the errno of a failed perf_event_open to a status and a one-line reason.
 * hw_event: the event needs the CPU's PMU (hardware, cache or raw events). */
enum cpw_counter_status cpw_perf_errno_status(int err, const struct cpw_perf_env *env,
					      bool hw_event, char *reason, size_t len);
/* What a perf_event_paranoid level allows an unprivileged user, in a few words. */
const char *cpw_perf_paranoid_meaning(int level);
/* Reads PROC_ROOT/sys/kernel/perf_event_paranoid. Returns 0, or -errno. */
int cpw_perf_read_paranoid(const char *proc_root, int *level);
/* Whether the kernel registered a CPU PMU, from SYS_ROOT/bus/event_source/devices:
 * 1 when a device is named cpu, cpu_core, cpu_atom or armv*, or (unless names_decide) one
 * has type 4 (PERF_TYPE_RAW, what a core PMU registers as); 0 when it certainly has none:
 * names_decide (x86, whose core PMU is always named so) and devices listed without one;
 * -1 when none was found but that proves nothing (no readable directory, or the names
 * do not decide). */
int cpw_perf_cpu_pmu(const char *sys_root, bool names_decide);

/* While hide is true, libpfm4's initialisation finds no debugfs and reads no tracepoints
 * (pfm_mounts.c). Returns false where that cannot be done (fopen not exported to it). */
bool cpw_perf_hide_tracepoints(bool hide);

/* The libpfm4 functions used, typed from its own declarations; filled by cpw_perf_pfm_load(). */
struct cpw_pfm_api {
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_terminate) *terminate;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	__typeof__(pfm_strerror) *strerror;
	__typeof__(pfm_get_event_next) *get_event_next;
	__typeof__(pfm_get_event_info) *get_event_info;
	__typeof__(pfm_get_event_attr_info) *get_event_attr_info;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
};
extern struct cpw_pfm_api cpw_perf_pfm;
/* Opens libpfm4 once for the process's lifetime (pfm_load.c). Returns 0, or -errno with
 * *why saying why (when why is not NULL). */
int cpw_perf_pfm_load(const char **why);

/* One reading of a counter opened with TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING. */
struct cpw_perf_reading {
	uint64_t value;
	uint64_t enabled_ns;
	uint64_t running_ns;
};

/* Scales a reading by enabled/running, as perf stat does. Returns COUNTED (running ==
 * enabled), MULTIPLEXED (scaled; *fraction = running / enabled) or NOT_SUPPORTED when the
 * event never ran (running == 0: "not counted"; *value = NAN, *fraction = 0). */
enum cpw_counter_status cpw_perf_scale(const struct cpw_perf_reading *r, double *value,
				       double *fraction);



/* The role of an encoded event (generic hardware events map whatever name gave them). */
enum cpw_counter_role cpw_perf_role_of(const struct perf_event_attr *attr);
/* The role of the i-th event of c. */
enum cpw_counter_role cpw_perf_role(const struct cpw_counters *c, size_t i);
/* Computes the derived figures from values indexed by role (NAN = not counted). */
void cpw_perf_derive(const double by_role[CPW_ROLE_COUNT], struct cpw_counters_derived *d);
/* The same from a counters set. */
void cpw_perf_derive_set(const struct cpw_counters *c, struct cpw_counters_derived *d);

/* Test hooks: a NULL member keeps the real one. The euid hook is -1 for the real one. */
struct cpw_perf_hooks {
	int (*open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags); /* returns an fd, or -1 with errno set */
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*close)(int fd);
	const char *proc_root; /* default "/proc" */
	const char *sys_root;  /* default "/sys" */
	int euid;
};
/* Installs hooks (NULL restores the real system). Affects counters made afterwards. */
void cpw_perf_set_hooks(const struct cpw_perf_hooks *hooks);
/* The environment cpw_perf_new decided on (tests check what was read). */
const struct cpw_perf_env *cpw_perf_env_of(const struct cpw_counters *c);
/* The perf_event_attr of the i-th event, as it will be (or was) opened. */
const struct perf_event_attr *cpw_perf_attr(const struct cpw_counters *c, size_t i);

#endif
