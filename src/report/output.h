/*
 * output.h: where the report goes (output.c): standard error or output, or the -o file,
 * which is written whole under a temporary name in its own directory and then renamed
 * into place, so that a reader that looks at it meanwhile (node_exporter's textfile
 * collector, a job's merge step) sees the old file or the new one, never half of one.
 *
 * Two steps. At start-up, before the command runs, the destination is checked and nothing
 * is made (cpw_output_init): a bad -o fails at once, and a cperfwatch killed (even with
 * SIGKILL) before its report leaves no file behind. When the report is written, its file
 * is made (cpw_output_begin), written, and renamed into place (cpw_output_commit).
 *
 * What may be named: a regular file, new or writable (never through a symlink), which is
 * replaced whole; a character device (/dev/null, a terminal), written in place; "-",
 * /dev/stdout and /dev/stderr, the standard streams. Anything else (a FIFO, a socket, a
 * directory, a block device) is refused: a FIFO planted in a shared directory would
 * receive the report, or block cperfwatch before the command runs.
 */
#ifndef CPW_REPORT_OUTPUT_H
#define CPW_REPORT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

struct cpw_output {
	FILE *stream;                /* open from cpw_output_begin() to the commit or the
				      * abandon; a standard stream is never closed */
	FILE *standard;              /* stdout or stderr where the report goes there; NULL
				      * for a file */
	const char *path;            /* the file; NULL for a standard stream */
	bool device;                 /* path is a character device: written in place */
	int reserve_fd;              /* a descriptor held from the check to the begin, so
				      * that the file can be made whatever the run opened
				      * meanwhile; -1 none */
	char tmp_path[CPW_PATH_LEN]; /* the temporary file being written, renamed onto path;
				      * "" when there is none */
	char kept_path[CPW_PATH_LEN]; /* where the report stays when its rename failed; "" */
};

/* Decides where the report of cfg goes: -o FILE, "-" for standard output, else standard
 * error (run mode) or standard output (attach, merge); and checks FILE as cpw_output_init_file
 * does. Makes nothing. Returns 0, or -1 with one line (no "cperfwatch: ") in err. */
int cpw_output_init(struct cpw_output *o, const struct cpw_config *cfg, char *err, size_t errlen);
/* The same for a file given by its path (--plot FILE; /dev/stdout and /dev/stderr name the
 * standard streams): refuses what is not a regular file nor a character device, a symlink,
 * an existing file that is not writable, and a directory where the temporary file cannot be
 * made. Never opens path (a FIFO would block). Makes nothing. */
int cpw_output_init_file(struct cpw_output *o, const char *path, char *err, size_t errlen);

/* The report is about to be written: makes its temporary file (".NAME.XXXXXX" beside it,
 * with the user's umask, or the permissions of the file it replaces), or opens the device
 * (checked again: a FIFO put there meanwhile is refused, without blocking), and sets
 * o->stream. Harmless when o->stream is set. Returns 0, or -errno with nothing made. */
int cpw_output_begin(struct cpw_output *o);

/* The report is written: closes the stream (unless a standard one) and renames the
 * temporary file into place. Returns 0, or -errno; when the rename failed, the report
 * stays in o->kept_path (not removed, not even by cpw_output_abandon(): nothing measured
 * is lost). */
int cpw_output_commit(struct cpw_output *o);

/* Ends a report whose writing returned write_rc (0 or -errno, or cpw_output_begin()'s
 * failure): commits it, or abandons it when the writing failed, and says on standard
 * error what went wrong and where the report is. what names it ("report", "job report").
 * Returns 0, or -1. */
int cpw_output_finish(struct cpw_output *o, int write_rc, const char *what);

/* The report will not be written (cperfwatch failed before it, or writing it failed):
 * closes the stream, removes the temporary file, lets the reserved descriptor go. Harmless
 * after a commit. */
void cpw_output_abandon(struct cpw_output *o);

/* Where the report went, for messages: the file, "standard output" or "standard error". */
const char *cpw_output_name(const struct cpw_output *o);

#endif
