/*
 * kfile.h: small helpers shared by the kernel-interface sources (psi, cgroup, vmstat, cpus,
 * taskstats): read a small kernel file whole, find "key value" lines, join paths; and the
 * held file (a descriptor kept open between readings) that the session keeps for them.
 */
#ifndef CPW_SOURCE_KERNEL_KFILE_H
#define CPW_SOURCE_KERNEL_KFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

/* A kernel file kept open between readings.
 *
 * Some files are read at a run's start and again at its end (pressure, the cgroup's memory
 * figures, /proc/vmstat), and the live view reads system pressure on every refresh. With the
 * descriptor kept, a later reading is one pread at offset 0, which has the kernel generate
 * the text afresh: 3-14 us on cgroupfs and /proc, where open, read and close cost 25-45 us
 * (measured on our 6.x VMs). The end of a run is on the way to the report, so this is time
 * the user waits for.
 */
struct cpw_held_file {
	int fd;
	bool open; /* zeroed: not opened yet */
};

/* Closes the descriptor, if open, and marks it not open. */
void cpw_kfile_held_close(struct cpw_held_file *h);

/* Reads the file into buf (NUL-terminated, at most size-1 bytes). Returns the length or
 * -errno. Kernel pseudo-files report size 0, so this reads until the end, which is the
 * first read shorter than asked: /proc, sysfs and cgroupfs files (seq_file and sysfs
 * attributes) give all they have that fits in one read, as regular files do, so a small
 * file costs one read and no second one to see EOF. Not for pipes or sockets. */
ssize_t cpw_kfile_read(const char *path, char *buf, size_t size);

/* The same through a held descriptor: path is opened at the first call (a failed open is
 * retried at the next), and later calls re-read that descriptor from offset 0 (pread),
 * path unused. The same end rule: a reading is one system call. */
ssize_t cpw_kfile_read_held(struct cpw_held_file *h, const char *path, char *buf, size_t size);

/* Reads a file of any size into a malloc'd NUL-terminated buffer (*buf, free it). Returns
 * the length or -errno. */
ssize_t cpw_kfile_read_alloc(const char *path, char **buf);

/* Reads the first unsigned decimal number of a file ("12345\n"). -EINVAL when there is
 * none (e.g. "max"), -ERANGE when it overflows. */
int cpw_kfile_read_u64(const char *path, uint64_t *value);
/* The same for text already read. */
int cpw_kfile_parse_u64(const char *text, size_t len, uint64_t *value);

/* Writes s to an existing file (cgroup control files). Returns 0 or -errno. */
int cpw_kfile_write(const char *path, const char *s);

/* Finds a line "key value" (key followed by a space) in text and parses value.
 * Returns 0, -ENOENT when the key is absent, -EINVAL when the value is not a number. */
int cpw_kfile_find_u64(const char *text, size_t len, const char *key, uint64_t *value);

/* snprintf into a path buffer; -ENAMETOOLONG instead of a silently cut path. */
int cpw_kfile_pathf(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
