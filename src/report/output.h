/*
 * output.h: where the report goes (output.c): standard error or output, or the -o file,
 * which is written whole under a temporary name in its own directory and then renamed
 * into place, so that a reader that looks at it meanwhile (node_exporter's textfile
 * collector, a job's merge step) sees the old file or the new one, never half of one.
 */
#ifndef CPERFWATCH_OUTPUT_H
#define CPERFWATCH_OUTPUT_H

#include <stdio.h>

#include "options.h"

struct cpw_output {
	FILE *stream;                /* NULL once committed or abandoned */
	const char *path;            /* -o FILE; NULL for standard error or output */
	char tmp_path[CPW_PATH_LEN]; /* the temporary file renamed onto path; "" when the
				      * report is written to path itself (not a regular file:
				      * /dev/null, a pipe) or to a standard stream */
	char kept_path[CPW_PATH_LEN]; /* where the report stays when its rename failed; "" */
};

/* Opens where the report of cfg goes: -o FILE (never through a symlink: refused with
 * ELOOP; an existing file must be writable; a new one gets the user's umask, a replaced
 * one its predecessor's permissions), "-" for standard output, else standard error (run
 * mode) or standard output (attach, merge). Returns 0, or -errno with nothing left behind. */
int cpw_output_open(struct cpw_output *o, const struct cpw_config *cfg);
/* The same for a file given by its path (--plot FILE). */
int cpw_output_open_file(struct cpw_output *o, const char *path);

/* The report is written: closes the stream (unless a standard one) and renames the
 * temporary file into place. Returns 0, or -errno; when the rename failed, the report
 * stays in o->kept_path (not removed, not even by cpw_output_abandon(): nothing measured
 * is lost). */
int cpw_output_commit(struct cpw_output *o);

/* Ends a report whose writing returned write_rc (0 or -errno): commits it, or abandons it
 * when the writing failed, and says on standard error what went wrong and where the
 * report is. what names it ("report", "job report"). Returns 0, or -1. */
int cpw_output_finish(struct cpw_output *o, int write_rc, const char *what);

/* The report will not be written (cperfwatch failed before it, or writing it failed):
 * closes the stream and removes the temporary file. Harmless after a commit. */
void cpw_output_abandon(struct cpw_output *o);

/* Where the report went, for messages: the file, "standard output" or "standard error". */
const char *cpw_output_name(const struct cpw_output *o);

#endif
