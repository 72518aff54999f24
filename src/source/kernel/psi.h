/*
 * psi.h: pressure stall information, system-wide (/proc/pressure/{cpu,io,memory}) or of one
 * cgroup v2 directory ({cpu,io,memory}.pressure).
 *
 * Only the cumulative total= counters (µs) are kept: short runs need deltas of them, the
 * avg10 figures lag by seconds. The caller reads at the run's start and end and takes
 * cpw_psi_delta().
 */
#ifndef CPW_SOURCE_KERNEL_PSI_H
#define CPW_SOURCE_KERNEL_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/kernel/kfile.h"

/* One pressure file: its "some" and "full" lines. */
struct cpw_psi_resource {
	bool has_some;
	bool has_full;          /* cpu "full" exists only since Linux 5.13 */
	uint64_t some_total_us;
	uint64_t full_total_us;
};

/* The three resources. When !available every total is 0 and reason says why. */
struct cpw_psi {
	bool available;
	char reason[160];
	uint64_t cpu_some_us;
	uint64_t cpu_full_us;   /* 0 where the kernel has no cpu "full" line */
	uint64_t io_some_us;
	uint64_t io_full_us;
	uint64_t mem_some_us;
	uint64_t mem_full_us;
};

/* The three files (cpu, io, memory) kept open between readings (source/kernel/kfile.h). Zeroed: none
 * open yet; cpw_psi_files_close() closes them. */
struct cpw_psi_files {
	struct cpw_held_file file[3];
};

/* Parses the text of one pressure file ("some avg10=.. avg60=.. avg300=.. total=N" and the
 * same for "full"). Pure; text need not be NUL-terminated. Returns 0, or -EINVAL when there
 * is no valid "some" line. Unknown lines are ignored. */
int cpw_psi_parse(const char *text, size_t len, struct cpw_psi_resource *out);

/* System-wide pressure from <proc_root>/pressure, through files (opened at the first
 * reading, re-read after; NULL: opened and closed each time). Returns 0 (out->available), or -errno with
 * out->available false and out->reason set (-ENOENT: kernel without PSI or psi=0;
 * -EOPNOTSUPP: the files exist but reading fails, which is what psi=0 does on some kernels). */
int cpw_psi_read_system(const char *proc_root, struct cpw_psi_files *files, struct cpw_psi *out);

/* Pressure of one cgroup v2 directory (cpu.pressure, io.pressure, memory.pressure). Same
 * files and returns as cpw_psi_read_system(). */
int cpw_psi_read_cgroup(const char *cgroup_dir, struct cpw_psi_files *files, struct cpw_psi *out);

void cpw_psi_files_close(struct cpw_psi_files *files);

/* d = end - start, field by field (a counter that went backwards gives 0). d->available is
 * true only when both readings were. */
void cpw_psi_delta(const struct cpw_psi *start, const struct cpw_psi *end, struct cpw_psi *d);

#endif
