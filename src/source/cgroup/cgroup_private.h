/*
 * cgroup_private.h: the layout of a cpw_cgroup, shared by cgroup.c (lifecycle, membership),
 * cgroup_path.c (finding the hierarchies) and cgroup_read.c (figures, CPU quota).
 */
#ifndef CPW_SOURCE_CGROUP_CGROUP_PRIVATE_H
#define CPW_SOURCE_CGROUP_CGROUP_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "source/cgroup/cgroup.h"

/* The longest cgroup path handled (a mount, a group, or a file in it). PATH_MAX (4 KiB)
 * would spread the hierarchies' three paths each over nine pages and put 4 KiB buffers on
 * the stack, and each page first touched is a fault (2-5 us on our VMs); real cgroup paths
 * are a few hundred bytes (a Kubernetes pod's ~200). A longer one is refused, and the notes
 * say the path is too long. */
#define CPW_CG_PATH_MAX 1024

/* One hierarchy's directory: where the mount is, our group in it, and its parent. */
struct cpw_cg_dir {
	char mount[CPW_CG_PATH_MAX];   /* "" when this hierarchy is not used */
	char path[CPW_CG_PATH_MAX];    /* the group's directory */
	char parent[CPW_CG_PATH_MAX];  /* where leftovers go back on destroy */
	bool created;           /* ours to remove */
	bool deferred;          /* v1: not made yet, left to the command's child (cgroup.h) */
};

struct cpw_cgroup {
	struct cpw_cg_dir v2;       /* membership, pressure, cpu.stat; memory.* when enabled */
	struct cpw_cg_dir mem1;     /* v1 memory controller */
	struct cpw_cg_dir cpuacct1; /* v1 cpuacct controller */
	bool v2_memory;             /* v2 dir has memory.current */
	char late_why[512];         /* why a group the child was to make is missing */
	/* The files read at the start and again at the end, held open in between (source/kernel/kfile.h)
	 * and closed before the rmdir. */
	struct cpw_held_file mem_peak;    /* v1 memory.max_usage_in_bytes, v2 memory.peak */
	struct cpw_held_file mem_current; /* v2 memory.current, where there is no memory.peak */
	struct cpw_held_file mem_stat;    /* memory.stat */
	struct cpw_psi_files psi;
	/* v2: the smallest memory.max up to the mount, walked once at the first reading (one
	 * file per level). NAN: none. */
	double v2_limit_kib;
	bool v2_limit_read;
	struct cpw_cgroup_placement placement; /* fds -1 until cpw_cgroup_placement() */
	char describe[512];
};

/* Where the hierarchies of the process described by the /proc/PID/cgroup text are, below
 * cgroup_root: fills the mount and path (the process's own group) of each used dir.
 * Returns 0 when at least one is usable, else -ENOENT with why. */
int cpw_cgroup_locate(const char *cgroup_root, const char *self_text, size_t len,
		  struct cpw_cgroup *cg, char *why, size_t whylen);

/* One hierarchy: a v1 controller's mount (checked to hold probe_file) and the group in it,
 * or the v2 mount (at the root or at unified/) and the group. 0 or -ENOENT. */
int cpw_cgroup_locate_v1(const char *root, const char *text, size_t len, const char *controller,
		     const char *probe_file, struct cpw_cg_dir *d);
int cpw_cgroup_locate_v2(const char *root, const char *text, size_t len, struct cpw_cg_dir *d);

/* Makes the v1 groups left to a child that did not make and join them (or to a child never
 * forked): before anything reads them. Failures are noted in cg->late_why. */
void cpw_cgroup_ensure_made(struct cpw_cgroup *cg);

/* A group of a run that is gone is removed only once it is this old (cgroup_stale.c). */
#define CPW_CG_STALE_MIN_AGE_S 2

/* Reads the /proc/PID/cgroup file into buf. Returns its length or -errno. */
long cpw_cgroup_read_self(const char *proc_cgroup_path, char *buf, size_t size);

/* True when path names an existing file or directory. */
bool cpw_cgroup_exists(const char *path);

/* Cuts the last component off dir; false when dir is already mount (the top). */
bool cpw_cgroup_up(char *dir, const char *mount);

#endif
