/*
 * series.c: --series FILE, one JSON line per sample as it is taken (series.h).
 */
#include "config.h"
#include "report/series.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/json_value.h"
#include "report/phases_report.h"

#define SERIES_LINE_MAX 8192

static int refuse(struct cpw_series_out *so, const char *path, int err, char *msg, size_t len,
		  const char *why)
{
	if (so->fd >= 0)
		close(so->fd);
	so->fd = -1;
	snprintf(msg, len, "cannot open series file '%s': %s", path, why ? why : strerror(err));
	return -1;
}

int cpw_series_open(struct cpw_series_out *so, const char *path, char *err, size_t errlen)
{
	struct stat st;

	memset(so, 0, sizeof(*so));
	so->fd = -1;
	if (strlen(path) >= sizeof(so->path))
		return refuse(so, path, ENAMETOOLONG, err, errlen, NULL);
	snprintf(so->path, sizeof(so->path), "%s", path);
	/* Checked before it is opened: a FIFO would block the open (or feed a reader). */
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return refuse(so, path, ELOOP, err, errlen, NULL);
		if (S_ISFIFO(st.st_mode))
			return refuse(so, path, 0, err, errlen, "a FIFO");
		if (S_ISSOCK(st.st_mode))
			return refuse(so, path, 0, err, errlen, "a socket");
		if (S_ISDIR(st.st_mode))
			return refuse(so, path, EISDIR, err, errlen, NULL);
		if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
			return refuse(so, path, 0, err, errlen, "not a regular file");
	} else if (errno != ENOENT) {
		return refuse(so, path, errno, err, errlen, NULL);
	}
	/* O_NOFOLLOW and O_NONBLOCK: a link or a FIFO put there since is refused, not waited on. */
	so->fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	if (so->fd < 0)
		return refuse(so, path, errno, err, errlen, NULL);
	if (fstat(so->fd, &st) != 0)
		return refuse(so, path, errno, err, errlen, NULL);
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
		return refuse(so, path, 0, err, errlen, S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
	if (S_ISREG(st.st_mode) && ftruncate(so->fd, 0) != 0)
		return refuse(so, path, errno, err, errlen, NULL);
	int flags = fcntl(so->fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(so->fd, F_SETFL, flags & ~O_NONBLOCK);
	return 0;
}

int cpw_series_format(const struct cpw_tl_point *p, int64_t unix_time_ms, unsigned alive, char *buf,
		      size_t len)
{
	struct cpw_json_doc doc = { .failed = false }, *d = &doc;
	json_object *o = cpw_json_value_doc_object(d);

	cpw_json_value_put(d, o, "unix_time_ms", cpw_json_value_doc_int(d, unix_time_ms));
	cpw_phases_report_point_put(d, o, p);
	cpw_json_value_put(d, o, "processes_alive", cpw_json_value_doc_int(d, alive));
	json_object *top = cpw_json_value_doc_array(d);
	for (int i = 0; i < CPW_TIMELINE_TOP && p->top[i].pid; i++) {
		json_object *t = cpw_json_value_doc_object(d);
		cpw_json_value_put(d, t, "pid", cpw_json_value_doc_int(d, p->top[i].pid));
		char comm[sizeof(p->top[i].comm) + 1];
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(p->top[i].comm), p->top[i].comm);
		cpw_json_value_put(d, t, "comm", cpw_json_value_doc_string(d, comm));
		cpw_json_value_put(d, t, "cpu_s", cpw_json_value_doc_number(d, p->top[i].cpu_s));
		cpw_json_value_put(d, t, "io_bytes", cpw_json_value_doc_number(d, p->top[i].io_bytes));
		cpw_json_value_append(d, top, t);
	}
	cpw_json_value_put(d, o, "top", top);
	const char *text = d->failed ? NULL : cpw_json_value_text(d, o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	int n = -1;
	if (text && strlen(text) + 2 <= len)
		n = snprintf(buf, len, "%s\n", text);
	json_object_put(o);
	return n;
}

int cpw_series_write(struct cpw_series_out *so, const struct cpw_tl_point *p, unsigned alive)
{
	char line[SERIES_LINE_MAX];
	struct timespec now;

	if (so->fd < 0 || so->error)
		return so->error ? -so->error : -EBADF;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	int n = cpw_series_format(p, ms, alive, line, sizeof(line));
	if (n < 0) {
		so->error = ENOMEM;
		return -ENOMEM;
	}
	size_t done = 0;
	while (done < (size_t)n) {
		ssize_t w = write(so->fd, line + done, (size_t)n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			so->error = w < 0 ? errno : EIO;
			return -so->error;
		}
		done += (size_t)w;
	}
	so->lines++;
	return 0;
}

void cpw_series_close(struct cpw_series_out *so)
{
	if (so->fd >= 0)
		close(so->fd);
	so->fd = -1;
}
