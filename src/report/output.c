/*
 * output.c: the report's destination, checked at start-up and made when the report is
 * written: the -o file written under a temporary name and renamed into place (see
 * output.h). A fault while the temporary file exists removes it (cpw_signals_on_fault).
 */
#include "config.h"
#include "report/output.h"
#include "util/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/signals.h"

/* ---- The temporary files being written, for a fault's handler ---- */

#define LIVE_MAX 2 /* the report and the plot, written one after the other */
static char live_path[LIVE_MAX][CPW_PATH_LEN];
static volatile sig_atomic_t live_set[LIVE_MAX];

/* Async-signal-safe: unlink only. */
static void remove_live_temporaries(void)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (live_set[i])
			unlink(live_path[i]);
}

static void live_add(const char *path)
{
	static bool registered;
	if (!registered) {
		cpw_signals_on_fault(remove_live_temporaries);
		registered = true;
	}
	for (int i = 0; i < LIVE_MAX; i++) {
		if (!live_set[i]) {
			snprintf(live_path[i], sizeof(live_path[i]), "%s", path);
			live_set[i] = 1;
			return;
		}
	}
}

static void live_remove(const char *path)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (live_set[i] && strcmp(live_path[i], path) == 0)
			live_set[i] = 0;
}

/* ---- Checking at start-up: nothing is made ---- */

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

/* The temporary file's name beside path: ".NAME.XXXXXX" in the same directory (so the
 * rename stays within one file system), hidden, and not ending in .prom or .json, so that
 * collectors and globs pass it by. Returns 0 or -errno. */
static int temporary_name(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	const char *base = slash ? slash + 1 : path;
	if (!*base)
		return -EISDIR; /* "dir/" */
	int n = snprintf(out, len, "%.*s.%s.XXXXXX", dirlen, path, base);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The directory of path can take the temporary file: it is a directory that the user may
 * write in, and the temporary name fits in it. Returns 0 or -errno. */
static int check_directory(const char *path)
{
	char dir[CPW_PATH_LEN], tmp[CPW_PATH_LEN];
	int rc = temporary_name(path, tmp, sizeof(tmp));
	if (rc < 0)
		return rc;
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	struct stat st;
	if (stat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(dir, W_OK | X_OK) != 0)
		return -errno;
	long name_max = pathconf(dir, _PC_NAME_MAX);
	const char *base = slash ? slash + 1 : path;
	if (strlen(base) + sizeof(".XXXXXX") > (size_t)(name_max > 0 ? name_max : NAME_MAX))
		return -ENAMETOOLONG;
	return 0;
}

/* A path as the error lines show it: a file name may hold escape sequences for the terminal. */
static const char *shown(const char *path, char *buf, size_t len)
{
	cpw_escape_for_terminal(path, buf, len);
	return buf;
}

static int refuse(const char *path, char *err, size_t errlen, int rc)
{
	char safe[CPW_PATH_LEN * 4 + 1];
	snprintf(err, errlen, "cannot open '%s': %s", shown(path, safe, sizeof(safe)), strerror(-rc));
	return -1;
}

int cpw_output_init_file(struct cpw_output *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->reserve_fd = -1;
	/* Named on purpose: the standard streams, whatever they are (a pipe, a file). */
	if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0) {
		o->standard = strcmp(path, "/dev/stdout") == 0 ? stdout : stderr;
		return 0;
	}
	o->path = path;
	struct stat st;
	int rc;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT)
			return refuse(path, err, errlen, -errno);
		rc = check_directory(path); /* a new file */
	} else if (S_ISLNK(st.st_mode)) {
		rc = -ELOOP; /* a link planted where the report goes is refused, not followed */
	} else if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
	} else if (S_ISCHR(st.st_mode)) {
		o->device = true; /* /dev/null, a terminal: written in place */
		rc = access(path, W_OK) == 0 ? 0 : -errno;
	} else if (!S_ISREG(st.st_mode)) {
		char safe[CPW_PATH_LEN * 4 + 1];
		snprintf(err, errlen,
			 "refusing '%s': %s (the report goes to a regular file, a character device, "
			 "/dev/stdout or /dev/stderr)",
			 shown(path, safe, sizeof(safe)), kind_of(st.st_mode));
		return -1;
	} else if (access(path, W_OK) != 0) {
		rc = -errno; /* a read-only report stays as it is */
	} else {
		rc = check_directory(path);
	}
	if (rc < 0)
		return refuse(path, err, errlen, rc);
	/* Most of the descriptors left are the sampling's to keep: one is held back for this
	 * file. */
	o->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;
}

int cpw_output_init(struct cpw_output *o, const struct cpw_config *cfg, char *err, size_t errlen)
{
	if (cfg->output_path && strcmp(cfg->output_path, "-") != 0)
		return cpw_output_init_file(o, cfg->output_path, err, errlen);
	memset(o, 0, sizeof(*o));
	o->reserve_fd = -1;
	o->standard = cfg->output_path || cfg->mode != CPW_MODE_RUN ? stdout : stderr;
	return 0;
}

/* ---- Writing: the file is made now ---- */

static void release_reserve(struct cpw_output *o)
{
	if (o->reserve_fd >= 0)
		close(o->reserve_fd);
	o->reserve_fd = -1;
}

/* The device, in place: O_NONBLOCK so that a FIFO put there since the check cannot block
 * the open, and checked again after it. */
static int open_device(struct cpw_output *o)
{
	int fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); /* a terminal's writes may wait */
	o->stream = fdopen(fd, "w");
	if (!o->stream) {
		int err = errno;
		close(fd);
		return -err;
	}
	return 0;
}

static int open_temporary(struct cpw_output *o)
{
	int rc = temporary_name(o->path, o->tmp_path, sizeof(o->tmp_path));
	if (rc < 0) {
		o->tmp_path[0] = '\0';
		return rc;
	}
	struct stat old;
	bool replaces = lstat(o->path, &old) == 0 && S_ISREG(old.st_mode);
	int fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		o->tmp_path[0] = '\0';
		return -err;
	}
	live_add(o->tmp_path);
	/* mkostemp makes it 0600: give it what open(O_CREAT, 0666) would have, or what the
	 * file it replaces had. */
	if (replaces) {
		if (fchown(fd, old.st_uid, old.st_gid) != 0) {
			/* not root: the new file is the user's, as any file they write */
		}
		(void)fchmod(fd, old.st_mode & 07777);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	o->stream = fdopen(fd, "w");
	if (!o->stream) {
		int err = errno;
		close(fd);
		live_remove(o->tmp_path);
		unlink(o->tmp_path);
		o->tmp_path[0] = '\0';
		return -err;
	}
	return 0;
}

int cpw_output_begin(struct cpw_output *o)
{
	if (o->stream)
		return 0;
	if (o->standard) {
		o->stream = o->standard;
		return 0;
	}
	release_reserve(o); /* its number is the one the file gets */
	return o->device ? open_device(o) : open_temporary(o);
}

int cpw_output_commit(struct cpw_output *o)
{
	release_reserve(o);
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
		if (o->tmp_path[0]) {
			unlink(o->tmp_path);
			live_remove(o->tmp_path);
		}
		o->tmp_path[0] = '\0';
		return rc;
	}
	if (o->tmp_path[0] && rename(o->tmp_path, o->path) != 0) {
		rc = -errno;
		/* The report stays where it is: abandon must not remove it. */
		live_remove(o->tmp_path);
		snprintf(o->kept_path, sizeof(o->kept_path), "%s", o->tmp_path);
		o->tmp_path[0] = '\0';
		return rc;
	}
	if (o->tmp_path[0])
		live_remove(o->tmp_path);
	o->tmp_path[0] = '\0';
	return 0;
}

int cpw_output_finish(struct cpw_output *o, int write_rc, const char *what)
{
	char safe[CPW_PATH_LEN * 4 + 1], kept[CPW_PATH_LEN * 4 + 1];
	const char *name = shown(cpw_output_name(o), safe, sizeof(safe));
	if (write_rc != 0) {
		cpw_output_abandon(o); /* a file that was there before stays as it was */
		fprintf(stderr, "cperfwatch: cannot write the %s to %s: %s\n", what, name, strerror(-write_rc));
		return -1;
	}
	int rc = cpw_output_commit(o);
	if (rc != 0 && o->kept_path[0]) {
		fprintf(stderr, "cperfwatch: cannot rename the %s to %s: %s (it is in %s)\n", what, name,
			strerror(-rc), shown(o->kept_path, kept, sizeof(kept)));
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
	release_reserve(o);
	if (o->stream && o->stream != stdout && o->stream != stderr)
		fclose(o->stream);
	o->stream = NULL;
	if (o->tmp_path[0]) {
		unlink(o->tmp_path);
		live_remove(o->tmp_path);
	}
	o->tmp_path[0] = '\0';
}

const char *cpw_output_name(const struct cpw_output *o)
{
	if (o->path)
		return o->path;
	return o->standard == stderr ? "standard error" : "standard output";
}
