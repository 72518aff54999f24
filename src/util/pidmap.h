/*
 * pidmap.h: a map from a pid to an index into its owner's array (pidmap.c), for the tree's
 * processes (model/tree.c) and the reader's kept handles (source/proc/proc_reader.c).
 * Open addressing with linear probing, at most half full, with deletion that moves the
 * entries after a gap back into it (no tombstones: a long watch of short processes keeps
 * its probe lengths short).
 */
#ifndef CPW_UTIL_PIDMAP_H
#define CPW_UTIL_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

struct cpw_pidmap_entry {
	pid_t pid;
	int idx; /* -1: a free slot */
};

struct cpw_pidmap {
	struct cpw_pidmap_entry *slot;
	size_t size; /* a power of two, or 0 before the first put */
	size_t used;
};

/* An empty map (no allocation until the first put). */
void cpw_pidmap_init(struct cpw_pidmap *m);
void cpw_pidmap_free(struct cpw_pidmap *m);
/* The index stored for pid, or -1. */
int cpw_pidmap_get(const struct cpw_pidmap *m, pid_t pid);
/* Stores idx for pid, replacing what was there (a reused pid maps to its newest owner).
 * Returns 0, or -ENOMEM (the map is unchanged). */
int cpw_pidmap_put(struct cpw_pidmap *m, pid_t pid, int idx);
/* Removes pid; nothing when it is not there. */
void cpw_pidmap_remove(struct cpw_pidmap *m, pid_t pid);

#endif
