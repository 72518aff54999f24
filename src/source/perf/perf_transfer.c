/*
 * perf_transfer.c: naming and encoding the events in a short-lived helper process.
 *
 * libpfm4's set-up walks every PMU table it was built with, even when told to use only
 * the generic perf PMU: it touches ~1 MB of the binary (and copies ~180 KB of it on
 * write), which would stay resident in cperfwatch for the whole watch although only the
 * perf_event_attr of each event is needed afterwards. A forked helper runs libpfm4, sends
 * the encoded events back over a pipe and exits; it also runs on another CPU while the
 * session sets up the rest, so start-up does not wait for it either.
 */
#include "config.h"
#include "source/perf/perf.h"
#include "source/perf/perf_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SPECS 64

/* What the helper sends first: cpw_perf_new's result, then n specs. */
struct wire_header {
	int32_t rc;
	uint32_t n;
	char err[256];
};

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int cpw_perf_send(const char *event_list, int fd)
{
	struct wire_header h;
	struct cpw_counters *c = NULL;
	memset(&h, 0, sizeof(h));
	h.rc = cpw_perf_new(&c, event_list, h.err, sizeof(h.err));
	h.n = h.rc == 0 ? (uint32_t)cpw_perf_count(c) : 0;
	if (h.n > MAX_SPECS) {
		h.rc = -E2BIG;
		h.n = 0;
		snprintf(h.err, sizeof(h.err), "too many events (at most %d)", MAX_SPECS);
	}
	int rc = write_full(fd, &h, sizeof(h));
	for (uint32_t i = 0; i < h.n && rc == 0; i++) {
		struct cpw_event_spec spec;
		cpw_perf_spec(c, i, &spec);
		rc = write_full(fd, &spec, sizeof(spec));
	}
	cpw_perf_free(c);
	return rc;
}

int cpw_perf_receive(int fd, struct cpw_counters **out, char *err, size_t errlen)
{
	struct wire_header h;
	static struct cpw_event_spec specs[MAX_SPECS];

	*out = NULL;
	if (read_full(fd, &h, sizeof(h)) < 0) {
		snprintf(err, errlen, "the event encoder ended without an answer");
		return -EIO;
	}
	if (h.rc < 0) {
		h.err[sizeof(h.err) - 1] = '\0';
		snprintf(err, errlen, "%s", h.err);
		return h.rc;
	}
	if (h.n > MAX_SPECS) {
		snprintf(err, errlen, "the event encoder sent %u events (at most %d)", h.n, MAX_SPECS);
		return -EPROTO;
	}
	for (uint32_t i = 0; i < h.n; i++) {
		if (read_full(fd, &specs[i], sizeof(specs[i])) < 0) {
			snprintf(err, errlen, "the event encoder's answer was cut short");
			return -EIO;
		}
		specs[i].name[sizeof(specs[i].name) - 1] = '\0';
	}
	return cpw_perf_new_encoded(out, specs, h.n, err, errlen);
}

int cpw_perf_encode_start(struct cpw_counters_helper *h, const char *event_list)
{
	int p[2];
	h->pid = -1;
	h->fd = -1;
	h->event_list = event_list;
	/* Nothing for libpfm4 to do (no CPU PMU for the default set): finish needs no helper. */
	if (!cpw_perf_may_open(event_list))
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(cpw_perf_send(event_list, p[1]) == 0 ? 0 : 1);
	}
	close(p[1]);
	h->pid = pid;
	h->fd = p[0];
	return 0;
}

int cpw_perf_encode_finish(struct cpw_counters_helper *h, struct cpw_counters **out,
			       char *err, size_t errlen)
{
	int rc = -EIO;
	if (h->fd >= 0) {
		rc = cpw_perf_receive(h->fd, out, err, errlen);
		close(h->fd);
		h->fd = -1;
	}
	if (h->pid > 0) {
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
		h->pid = -1;
	}
	/* No helper, or it died without an answer: encode here instead. */
	if (rc == -EIO)
		rc = cpw_perf_new(out, h->event_list, err, errlen);
	return rc;
}
