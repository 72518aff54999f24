/*
 * taskstats.c: the TASKSTATS generic netlink family: resolve it, query one task, and listen
 * for exit records. Parsing the replies is taskstats_parse.c's job.
 */
#include "config.h"
#include "source/kernel/taskstats.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct cpw_taskstats {
	int fd;
	uint16_t family;
	uint32_t seq;
};

struct cpw_taskstats_listener {
	int fd;
	uint16_t family;
	uint64_t lost;
	char cpumask[256];
};

/* Room for one request: headers plus one attribute of up to 256 bytes. */
struct request {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	unsigned char attrs[NLA_HDRLEN + 256];
};

/* Big enough for a reply holding two records of any struct taskstats version. */
#define REPLY_SIZE 4096 /* an exit datagram is ~600 bytes (two records) */

static int open_socket(char *why, size_t whylen)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		int err = errno;
		snprintf(why, whylen, "cannot open a generic netlink socket: %s", strerror(err));
		return -err;
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int err = errno;
		snprintf(why, whylen, "cannot bind a netlink socket: %s", strerror(err));
		close(fd);
		return -err;
	}
	/* Replies come fast; a stuck kernel must not hang us. */
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return fd;
}

/* Builds and sends one genetlink request with one attribute. */
static int send_request(int fd, uint16_t type, uint8_t cmd, uint16_t attr_type,
			const void *data, size_t dlen, uint32_t seq, bool ack)
{
	struct request req;
	if (dlen > 256)
		return -EINVAL;
	memset(&req, 0, sizeof req);
	struct nlattr nla = { .nla_len = (uint16_t)(NLA_HDRLEN + dlen), .nla_type = attr_type };
	memcpy(req.attrs, &nla, sizeof nla);
	memcpy(req.attrs + NLA_HDRLEN, data, dlen);
	req.nh.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(nla.nla_len));
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | (ack ? NLM_F_ACK : 0);
	req.nh.nlmsg_seq = seq;
	req.gh.cmd = cmd;
	req.gh.version = type == GENL_ID_CTRL ? 2 : TASKSTATS_GENL_VERSION;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	ssize_t n = sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&to, sizeof to);
	if (n < 0)
		return -errno;
	return 0;
}

/* Receives one datagram (blocking up to SO_RCVTIMEO). Returns its length or -errno. */
static ssize_t recv_reply(int fd, void *buf, size_t size, int flags)
{
	for (;;) {
		ssize_t n = recv(fd, buf, size, flags);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
}

/* Finds CTRL_ATTR_FAMILY_ID in a CTRL_CMD_NEWFAMILY reply. */
static int parse_family(const unsigned char *buf, size_t len, uint16_t *family)
{
	if (len < NLMSG_HDRLEN)
		return -EBADMSG;
	struct nlmsghdr nh;
	memcpy(&nh, buf, sizeof nh);
	if (nh.nlmsg_len > len || nh.nlmsg_len < NLMSG_HDRLEN)
		return -EBADMSG;
	if (nh.nlmsg_type == NLMSG_ERROR) {
		int err;
		if (nh.nlmsg_len < NLMSG_HDRLEN + sizeof err)
			return -EBADMSG;
		memcpy(&err, buf + NLMSG_HDRLEN, sizeof err);
		return err < 0 ? err : -EBADMSG;
	}
	const unsigned char *p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
	const unsigned char *end = buf + nh.nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		struct nlattr nla;
		memcpy(&nla, p, sizeof nla);
		if (nla.nla_len < NLA_HDRLEN || nla.nla_len > (size_t)(end - p))
			return -EBADMSG;
		if ((nla.nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID && nla.nla_len >= NLA_HDRLEN + 2) {
			memcpy(family, p + NLA_HDRLEN, sizeof *family);
			return 0;
		}
		p += NLA_ALIGN(nla.nla_len);
	}
	return -ENOENT;
}

static int resolve_family(int fd, uint16_t *family, char *why, size_t whylen)
{
	static const char name[] = TASKSTATS_GENL_NAME;
	int err = send_request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			       name, sizeof name, 1, false);
	unsigned char buf[REPLY_SIZE];
	ssize_t n = err < 0 ? err : recv_reply(fd, buf, sizeof buf, 0);
	if (n >= 0)
		err = parse_family(buf, (size_t)n, family);
	else
		err = (int)n;
	if (err < 0)
		snprintf(why, whylen, "no taskstats netlink family (%s): kernel without "
			 "CONFIG_TASKSTATS?", strerror(-err));
	return err;
}

static const char *perm_hint(int err)
{
	return err == -EPERM || err == -EACCES ? " (taskstats needs root: CAP_NET_ADMIN)" : "";
}

int cpw_taskstats_new(struct cpw_taskstats **out, char *why, size_t whylen)
{
	*out = NULL;
	struct cpw_taskstats *ts = calloc(1, sizeof *ts);
	if (!ts) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	ts->fd = open_socket(why, whylen);
	if (ts->fd < 0) {
		int err = ts->fd;
		free(ts);
		return err;
	}
	int err = resolve_family(ts->fd, &ts->family, why, whylen);
	if (err < 0) {
		close(ts->fd);
		free(ts);
		return err;
	}
	ts->seq = 1;
	*out = ts;
	return 0;
}

void cpw_taskstats_free(struct cpw_taskstats *ts)
{
	if (!ts)
		return;
	close(ts->fd);
	free(ts);
}

int cpw_taskstats_query(struct cpw_taskstats *ts, pid_t id, bool tgid,
			struct cpw_taskstats_rec *rec, char *why, size_t whylen)
{
	uint32_t v = (uint32_t)id;
	uint32_t seq = ++ts->seq;
	int err = send_request(ts->fd, ts->family, TASKSTATS_CMD_GET,
			       tgid ? TASKSTATS_CMD_ATTR_TGID : TASKSTATS_CMD_ATTR_PID,
			       &v, sizeof v, seq, false);
	unsigned char buf[REPLY_SIZE];
	while (err == 0) {
		ssize_t n = recv_reply(ts->fd, buf, sizeof buf, 0);
		if (n < 0) {
			err = (int)n;
			break;
		}
		struct nlmsghdr nh;
		if ((size_t)n < sizeof nh)
			continue;
		memcpy(&nh, buf, sizeof nh);
		if (nh.nlmsg_seq != seq)
			continue; /* a late reply to an earlier, timed-out query */
		int found = cpw_taskstats_parse(buf, (size_t)n, rec, 1);
		if (found < 0)
			err = found;
		else if (found == 0)
			err = -EBADMSG;
		else
			return 0;
	}
	snprintf(why, whylen, "taskstats of %s %ld: %s%s", tgid ? "process" : "thread", (long)id,
		 strerror(-err), perm_hint(err));
	return err;
}

/* The CPUs the kernel accepts in a cpumask: every possible one. */
static void possible_cpus(char *mask, size_t size)
{
	ssize_t n = cpw_kfile_read("/sys/devices/system/cpu/possible", mask, size);
	while (n > 0 && (mask[n - 1] == '\n' || mask[n - 1] == ' '))
		mask[--n] = '\0';
	if (n <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_CONF);
		snprintf(mask, size, "0-%ld", cpus > 1 ? cpus - 1 : 0);
	}
}

/* Sends a (de)register command and waits for its ACK. */
static int cpumask_command(int fd, uint16_t family, uint16_t attr, const char *mask)
{
	int err = send_request(fd, family, TASKSTATS_CMD_GET, attr, mask, strlen(mask) + 1, 1, true);
	if (err < 0)
		return err;
	unsigned char buf[REPLY_SIZE];
	for (;;) {
		ssize_t n = recv_reply(fd, buf, sizeof buf, 0);
		if (n < 0)
			return (int)n;
		struct nlmsghdr nh;
		if ((size_t)n < NLMSG_HDRLEN + sizeof(int))
			continue;
		memcpy(&nh, buf, sizeof nh);
		if (nh.nlmsg_type != NLMSG_ERROR)
			continue; /* an exit record that raced the ACK: not ours to keep here */
		int e;
		memcpy(&e, buf + NLMSG_HDRLEN, sizeof e);
		return e;
	}
}

int cpw_taskstats_listen(struct cpw_taskstats_listener **out, char *why, size_t whylen)
{
	*out = NULL;
	struct cpw_taskstats_listener *l = calloc(1, sizeof *l);
	if (!l) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	l->fd = open_socket(why, whylen);
	if (l->fd < 0) {
		int err = l->fd;
		free(l);
		return err;
	}
	int err = resolve_family(l->fd, &l->family, why, whylen);
	if (err == 0) {
		/* A burst of exits (make -j) must not overflow the queue: ask for 4 MiB, and
		 * root may exceed rmem_max. */
		int size = 4 << 20;
		if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
			setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
		possible_cpus(l->cpumask, sizeof l->cpumask);
		err = cpumask_command(l->fd, l->family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
				      l->cpumask);
		if (err < 0)
			snprintf(why, whylen, "cannot register for taskstats exit records on CPUs "
				 "%s: %s%s", l->cpumask, strerror(-err), perm_hint(err));
	}
	if (err < 0) {
		close(l->fd);
		free(l);
		return err;
	}
	*out = l;
	return 0;
}

int cpw_taskstats_poll(struct cpw_taskstats_listener *l, struct cpw_taskstats_rec *recs,
		       size_t max)
{
	unsigned char buf[REPLY_SIZE];
	size_t got = 0;
	/* A datagram holds at most two records (thread and thread group): keep room for both. */
	while (max - got >= 2) {
		ssize_t n = recv_reply(l->fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n == -EAGAIN)
			break;
		if (n == -ENOBUFS) {
			l->lost++; /* at least one; the kernel does not say how many */
			continue;
		}
		if (n < 0)
			return got ? (int)got : (int)n;
		int r = cpw_taskstats_parse(buf, (size_t)n, recs + got, max - got);
		if (r > 0)
			got += (size_t)r < max - got ? (size_t)r : max - got;
	}
	return (int)got;
}

uint64_t cpw_taskstats_lost(const struct cpw_taskstats_listener *l)
{
	return l->lost;
}

void cpw_taskstats_unlisten(struct cpw_taskstats_listener *l)
{
	if (!l)
		return;
	/* Without this the kernel keeps us listed until a send to the closed socket fails. */
	cpumask_command(l->fd, l->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, l->cpumask);
	close(l->fd);
	free(l);
}

int cpw_taskstats_delayacct(const char *proc_root, char *why, size_t whylen)
{
	char path[4096];
	uint64_t v;
	int err = cpw_kfile_pathf(path, sizeof path, "%s/sys/kernel/task_delayacct", proc_root);
	if (err == 0)
		err = cpw_kfile_read_u64(path, &v);
	if (err == -ENOENT) {
		snprintf(why, whylen, "no kernel.task_delayacct sysctl (kernel before 5.14: delay "
			 "accounting is on unless booted with nodelayacct)");
		return err;
	}
	if (err < 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	if (v)
		snprintf(why, whylen, "delay accounting is on: kernel.task_delayacct=1");
	else
		snprintf(why, whylen, "delay accounting is off: kernel.task_delayacct=0");
	return v ? 1 : 0;
}
