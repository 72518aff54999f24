/*
 * output.c: the report's destination, and the -o file written under a temporary name and
 * renamed into place (see output.h).
 */
#include "config.h"
#include "report/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes to path itself, as for a device or a pipe (renaming onto /dev/null would be a
 * disaster): O_NOFOLLOW refuses a symlink planted meanwhile. */
static int open_in_place(struct cpw_output *o)
{
	int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return -errno;
	o->stream = fdopen(fd, "w");
	if (!o->stream) {
		int err = errno;
		close(fd);
		return -err;
	}
	return 0;
}

/* The temporary file beside path: ".NAME.XXXXXX" in the same directory (so the rename
 * stays within one file system), hidden, and not ending in .prom or .json, so that
 * collectors and globs pass it by. */
static int open_temporary(struct cpw_output *o, const struct stat *old)
{
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash ? (int)(slash - o->path + 1) : 0;
	const char *base = slash ? slash + 1 : o->path;
	if (!*base)
		return -EISDIR; /* "dir/" */
	int n = snprintf(o->tmp_path, sizeof(o->tmp_path), "%.*s.%s.XXXXXX", dirlen, o->path, base);
	if (n < 0 || (size_t)n >= sizeof(o->tmp_path)) {
		o->tmp_path[0] = '\0';
		return -ENAMETOOLONG;
	}
	int fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		o->tmp_path[0] = '\0';
		return -err;
	}
	/* mkostemp makes it 0600: give it what open(O_CREAT, 0666) would have, or what the
	 * file it replaces had. */
	if (old) {
		if (fchown(fd, old->st_uid, old->st_gid) != 0) {
			/* not root: the new file is the user's, as any file they write */
		}
		(void)fchmod(fd, old->st_mode & 07777);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	o->stream = fdopen(fd, "w");
	if (!o->stream) {
		int err = errno;
		close(fd);
		unlink(o->tmp_path);
		o->tmp_path[0] = '\0';
		return -err;
	}
	return 0;
}

int cpw_output_open(struct cpw_output *o, const struct cpw_config *cfg)
{
	memset(o, 0, sizeof(*o));
	if (!cfg->output_path) {
		o->stream = cfg->mode == CPW_MODE_RUN ? stderr : stdout;
		return 0;
	}
	if (strcmp(cfg->output_path, "-") == 0) {
		o->stream = stdout;
		return 0;
	}
	return cpw_output_open_file(o, cfg->output_path);
}

int cpw_output_open_file(struct cpw_output *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	struct stat st;
	if (lstat(o->path, &st) != 0) {
		if (errno != ENOENT)
			return -errno;
		return open_temporary(o, NULL);
	}
	if (S_ISLNK(st.st_mode))
		return -ELOOP; /* a link planted where the report goes is refused, not followed */
	if (!S_ISREG(st.st_mode))
		return open_in_place(o);
	if (access(o->path, W_OK) != 0)
		return -errno; /* a read-only report stays as it is */
	return open_temporary(o, &st);
}

int cpw_output_commit(struct cpw_output *o)
{
	if (!o->stream)
		return 0;
	FILE *f = o->stream;
	o->stream = NULL;
	if (f == stdout || f == stderr)
		return fflush(f) == 0 ? 0 : -errno;
	int rc = 0;
	/* No fsync: readers need the rename's atomicity, not durability across a crash. */
	if (fflush(f) != 0)
		rc = -errno;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0) {
		if (o->tmp_path[0])
			unlink(o->tmp_path);
		o->tmp_path[0] = '\0';
		return rc;
	}
	if (o->tmp_path[0] && rename(o->tmp_path, o->path) != 0) {
		rc = -errno;
		/* The report stays where it is: abandon must not remove it. */
		snprintf(o->kept_path, sizeof(o->kept_path), "%s", o->tmp_path);
		o->tmp_path[0] = '\0';
		return rc;
	}
	o->tmp_path[0] = '\0';
	return 0;
}

int cpw_output_finish(struct cpw_output *o, int write_rc, const char *what)
{
	const char *name = cpw_output_name(o);
	if (write_rc != 0) {
		cpw_output_abandon(o); /* a file that was there before stays as it was */
		fprintf(stderr, "cperfwatch: cannot write the %s to %s: %s\n", what, name, strerror(-write_rc));
		return -1;
	}
	int rc = cpw_output_commit(o);
	if (rc != 0 && o->kept_path[0]) {
		fprintf(stderr, "cperfwatch: cannot rename the %s to %s: %s (it is in %s)\n", what, name,
			strerror(-rc), o->kept_path);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "cperfwatch: cannot write the %s to %s: %s\n", what, name, strerror(-rc));
		return -1;
	}
	return 0;
}

void cpw_output_abandon(struct cpw_output *o)
{
	if (o->stream && o->stream != stdout && o->stream != stderr)
		fclose(o->stream);
	o->stream = NULL;
	if (o->tmp_path[0])
		unlink(o->tmp_path);
	o->tmp_path[0] = '\0';
}

const char *cpw_output_name(const struct cpw_output *o)
{
	if (o->path)
		return o->path;
	return o->stream == stderr ? "standard error" : "standard output";
}
