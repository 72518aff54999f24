/*
 * series.h: --series FILE, the run's samples written as they are taken (series.c): one
 * JSON object a line (JSON Lines), each line one write(2), so that whatever ends
 * cperfwatch (SIGKILL, the OOM killer, a crash) leaves every line written before it, each
 * whole.
 *
 * A line: "unix_time_ms" (when the sample was written, milliseconds since the epoch), the
 * timeline's columns for that one sample under the report's keys (t_s, dt_s, cpu_user_s,
 * cpu_sys_s, runq_wait_s, threads_*, rss_kib_max, read_bytes, write_bytes, major_faults,
 * minor_faults, psi_*_some_s, child_wait_s, wait_*_s: doc/cperfwatch.schema.json's
 * timeline, here one number each, null where not measured), "processes_alive", and "top":
 * the processes that did most of the sample's work [{pid, comm, cpu_s, io_bytes}].
 */
#ifndef CPW_REPORT_SERIES_H
#define CPW_REPORT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "model/timeline.h"
#include "options.h"

struct cpw_series_out {
	int fd;                  /* -1: closed, or none */
	char path[CPW_PATH_LEN];
	unsigned long lines;     /* written whole */
	int error;               /* errno of the first failed write; later lines are not tried */
};

/* Checks and opens path for --series, as the report's -o is checked (report/output.c): a
 * new or writable regular file (emptied) or a character device; never through a symlink,
 * and never a FIFO or socket (refused without blocking). Returns 0, or -1 with one line
 * (no "cperfwatch: ") in err and so->fd -1. */
int cpw_series_open(struct cpw_series_out *so, const char *path, char *err, size_t errlen);

/* One line for the sample p (the tree's live processes: alive) into buf, with its
 * newline. Returns its length, or -1 where it did not fit or memory ran out. */
int cpw_series_format(const struct cpw_tl_point *p, int64_t unix_time_ms, unsigned alive, char *buf,
		      size_t len);

/* Writes the line of p in one write, now. Returns 0, or -errno (the first failure is kept
 * in so->error and no later line is written: a line is whole or absent). */
int cpw_series_write(struct cpw_series_out *so, const struct cpw_tl_point *p, unsigned alive);

/* Closes the file (harmless when closed). */
void cpw_series_close(struct cpw_series_out *so);

#endif
