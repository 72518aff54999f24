/*
 * heldfile.h: a kernel file kept open between readings (read by source/kfile.c).
 *
 * Some files are read at a run's start and again at its end (pressure, the cgroup's memory
 * figures, /proc/vmstat), and the live view reads system pressure on every refresh. With the
 * descriptor kept, a later reading is one pread at offset 0, which has the kernel generate
 * the text afresh: 3-14 us on cgroupfs and /proc, where open, read and close cost 25-45 us
 * (measured on our 6.x VMs). The end of a run is on the way to the report, so this is time
 * the user waits for.
 */
#ifndef CPERFWATCH_HELDFILE_H
#define CPERFWATCH_HELDFILE_H

#include <stdbool.h>

struct cpw_held_file {
	int fd;
	bool open; /* zeroed: not opened yet */
};

/* Closes the descriptor, if open, and marks it not open. */
void cpw_held_file_close(struct cpw_held_file *h);

#endif
