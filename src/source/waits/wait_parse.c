/*
 * wait_parse.c: parsers of the syscall file and of the socket tables under /proc/net.
 *
 * The tables print addresses as the kernel holds them: an IPv4 address is one 32-bit word
 * in the machine's byte order ("0100007F" is 127.0.0.1 on x86), an IPv6 address four such
 * words; ports are plain hexadecimal numbers. Lines are copied before parsing, so a table
 * cut short by a buffer never makes a parser read past len.
 *
 * The memory of a poll or select (a pollfd array, fd_set bitmaps) comes as bytes copied
 * from the waiting process: parsed with memcpy, never cast, any length and alignment.
 */
#include "config.h"
#include "source/waits/wait_parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpw_wait_parse_syscall(const char *buf, size_t len, struct cpw_syscall_fields *out)
{
	char line[512];
	char *p, *end;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len >= sizeof(line))
		return -EINVAL;
	memcpy(line, buf, len);
	line[len] = '\0';
	if (strncmp(line, "running", 7) == 0) {
		out->running = true;
		out->nr = -1;
		return 0;
	}
	out->nr = strtol(line, &end, 10);
	if (end == line || (*end != ' ' && *end != '\n' && *end != '\0') || out->nr < -1)
		return -EINVAL;
	/* In a call: six arguments, then sp and pc. Outside: only sp and pc. */
	uint64_t v[8];
	int n = 0;
	for (p = end; n < 8; n++) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || *p == '\0')
			break;
		errno = 0;
		v[n] = strtoull(p, &end, 16);
		if (end == p || errno)
			return -EINVAL;
		p = end;
	}
	if (out->nr == -1) {
		if (n != 2)
			return -EINVAL;
		out->sp = v[0];
		out->pc = v[1];
		return 0;
	}
	if (n != 8)
		return -EINVAL;
	memcpy(out->args, v, sizeof(out->args));
	out->nargs = 6;
	out->sp = v[6];
	out->pc = v[7];
	return 0;
}

bool cpw_wait_parse_stack_has_return(const void *stack, size_t len, uint64_t lo, uint64_t hi)
{
	const unsigned char *b = stack;

	if (lo >= hi)
		return false;
	for (size_t off = 0; off + sizeof(uint64_t) <= len; off += sizeof(uint64_t)) {
		uint64_t w;
		memcpy(&w, b + off, sizeof(w));
		if (w >= lo && w < hi)
			return true;
	}
	return false;
}

int cpw_wait_parse_poll_call_from_args(const char *name, const struct cpw_syscall_fields *f, unsigned max_fds,
			    struct cpw_poll_call *out)
{
	memset(out, 0, sizeof(*out));
	if (f->nargs != 6)
		return -EINVAL;
	if (strcmp(name, "poll") == 0 || strcmp(name, "ppoll") == 0) {
		out->style = CPW_POLL_POLLFD;
		out->nfds = f->args[1];
		if (out->nfds > max_fds)
			return -E2BIG;
		out->addr[0] = f->args[0];
		out->len = (size_t)out->nfds * 8u; /* sizeof(struct pollfd) on every Linux ABI */
		return out->len && !out->addr[0] ? -EINVAL : 0;
	}
	if (strcmp(name, "select") == 0 || strcmp(name, "pselect6") == 0) {
		out->style = CPW_POLL_FDSET;
		out->nfds = f->args[0];
		/* The kernel reads whole longs: ceil(n / bits per long) of them. */
		uint64_t bits = 8u * sizeof(unsigned long);
		if (out->nfds > (uint64_t)CPW_FDSET_MAX_BYTES * 8u)
			return -E2BIG;
		out->len = (size_t)((out->nfds + bits - 1) / bits * sizeof(unsigned long));
		for (int i = 0; i < 3; i++)
			out->addr[i] = f->args[1 + i];
		return 0;
	}
	return -ENOENT;
}

/* Adds fd once; counts it whether kept or not. */
static size_t add_polled(struct cpw_polled_fd *fds, size_t n, size_t max, int fd, bool write)
{
	for (size_t i = 0; i < n && i < max; i++)
		if (fds[i].fd == fd) {
			fds[i].write = fds[i].write && write; /* read and write: a read */
			return n;
		}
	if (n < max) {
		fds[n].fd = fd;
		fds[n].write = write;
	}
	return n + 1;
}

size_t cpw_wait_parse_pollfds(const void *buf, size_t len, struct cpw_polled_fd *fds, size_t max)
{
	const unsigned char *b = buf;
	size_t n = 0;

	for (size_t off = 0; off + 8 <= len; off += 8) {
		int fd;
		short events;
		memcpy(&fd, b + off, sizeof(fd));
		memcpy(&events, b + off + 4, sizeof(events));
		if (fd < 0)
			continue;
		/* POLLOUT alone: waiting to write. */
		n = add_polled(fds, n, max, fd, (events & 0x4) && !(events & 0x1));
	}
	return n;
}

size_t cpw_wait_parse_fdsets(const void *readfds, const void *writefds, const void *exceptfds, size_t len,
			uint64_t nfds, struct cpw_polled_fd *fds, size_t max)
{
	const void *sets[3] = { readfds, exceptfds, writefds }; /* reads first: a fd in both reads */
	const size_t word = sizeof(unsigned long), bits = 8 * sizeof(unsigned long);
	size_t n = 0;

	for (int s = 0; s < 3; s++) {
		if (!sets[s])
			continue;
		for (size_t w = 0; w * word + word <= len; w++) {
			unsigned long x;
			memcpy(&x, (const unsigned char *)sets[s] + w * word, word);
			for (size_t bit = 0; x && bit < bits; bit++, x >>= 1) {
				uint64_t fd = (uint64_t)w * bits + bit;
				if ((x & 1) && fd < nfds && fd <= INT32_MAX)
					n = add_polled(fds, n, max, (int)fd, s == 2);
			}
		}
	}
	return n;
}

int cpw_wait_parse_fdinfo_flags(const char *buf, size_t len, unsigned *flags)
{
	char line[80];
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		if (n > 6 && n < sizeof(line) && memcmp(buf + pos, "flags:", 6) == 0) {
			memcpy(line, buf + pos + 6, n - 6);
			line[n - 6] = '\0';
			char *p = line, *end;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '7')
				return -EINVAL;
			errno = 0;
			unsigned long v = strtoul(p, &end, 8);
			if (errno || *end != '\0' || v > UINT32_MAX)
				return -EINVAL;
			*flags = (unsigned)v;
			return 0;
		}
		pos += n + 1;
	}
	return -EINVAL;
}

static const char *const table_names[CPW_NET_PROTO_COUNT] = { "tcp", "tcp6", "udp", "udp6", "unix" };

const char *cpw_wait_parse_net_table_name(enum cpw_net_proto proto)
{
	return (unsigned)proto < CPW_NET_PROTO_COUNT ? table_names[proto] : "?";
}

/* "0100007F:1F90" into "127.0.0.1:8080" ("" for the unconnected 0.0.0.0:0 and [::]:0). */
static int format_address(const char *hex, unsigned port, bool v6, char *out, size_t outlen)
{
	char ip[INET6_ADDRSTRLEN];
	size_t digits = strlen(hex);
	bool zero = strspn(hex, "0") == digits;

	if (digits != (v6 ? 32u : 8u))
		return -EINVAL;
	if (zero && port == 0) {
		out[0] = '\0';
		return 0;
	}
	if (v6) {
		struct in6_addr a;
		for (int w = 0; w < 4; w++) {
			char word[9];
			memcpy(word, hex + 8 * w, 8);
			word[8] = '\0';
			uint32_t x = (uint32_t)strtoul(word, NULL, 16);
			memcpy(&a.s6_addr[4 * w], &x, 4);
		}
		inet_ntop(AF_INET6, &a, ip, sizeof(ip));
		snprintf(out, outlen, "[%s]:%u", ip, port);
	} else {
		struct in_addr a;
		a.s_addr = (uint32_t)strtoul(hex, NULL, 16);
		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		snprintf(out, outlen, "%s:%u", ip, port);
	}
	return 0;
}

static int parse_inet_line(const char *line, enum cpw_net_proto proto, struct cpw_net_entry *e)
{
	char lhex[40], rhex[40];
	unsigned lport, rport, st;
	unsigned long inode;
	bool v6 = proto == CPW_NET_TCP6 || proto == CPW_NET_UDP6;

	if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %*u %*d %lu",
		   lhex, &lport, rhex, &rport, &st, &inode) != 6)
		return -EINVAL;
	if (lport > 65535 || rport > 65535)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->proto = proto;
	e->inode = inode;
	e->state = (int)st;
	if (format_address(lhex, lport, v6, e->local, sizeof(e->local)) < 0 ||
	    format_address(rhex, rport, v6, e->peer, sizeof(e->peer)) < 0)
		return -EINVAL;
	return 0;
}

static int parse_unix_line(const char *line, struct cpw_net_entry *e)
{
	unsigned long inode;
	unsigned st;
	int used = 0;

	if (sscanf(line, " %*x: %*x %*x %*x %*x %x %lu%n", &st, &inode, &used) != 2)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->proto = CPW_NET_UNIX;
	e->inode = inode;
	e->state = (int)st;
	const char *path = line + used;
	while (*path == ' ')
		path++;
	snprintf(e->path, sizeof(e->path), "%s", path);
	return 0;
}

int cpw_wait_parse_net_find_inode(const char *text, size_t len, enum cpw_net_proto proto, unsigned long inode,
		       struct cpw_net_entry *out)
{
	char line[512];
	size_t pos = 0;
	bool header = true;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		size_t keep = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
		memcpy(line, text + pos, keep);
		line[keep] = '\0';
		pos += n + 1;
		if (header) { /* every table starts with a line of column names */
			header = false;
			continue;
		}
		struct cpw_net_entry e;
		int rc = proto == CPW_NET_UNIX ? parse_unix_line(line, &e) : parse_inet_line(line, proto, &e);
		if (rc < 0)
			continue; /* a line cut by the buffer, or not a socket line */
		if (e.inode == inode && inode != 0) {
			*out = e;
			return 0;
		}
	}
	return -ENOENT;
}

void cpw_wait_parse_net_target(const struct cpw_net_entry *e, char *out, size_t outlen)
{
	static const char *const label[CPW_NET_PROTO_COUNT] = { "TCP", "TCP", "UDP", "UDP", "unix" };
	const char *l = label[(unsigned)e->proto < CPW_NET_PROTO_COUNT ? e->proto : CPW_NET_UNIX];

	if (e->proto == CPW_NET_UNIX) {
		/* An abstract name starts with '@' in the table; both are names to show. */
		if (e->path[0])
			snprintf(out, outlen, "unix %s", e->path);
		else
			snprintf(out, outlen, "unix socket (unnamed)");
	} else if (e->peer[0]) {
		snprintf(out, outlen, "%s %s", l, e->peer);
	} else if ((e->proto == CPW_NET_TCP || e->proto == CPW_NET_TCP6) && e->state == 10) {
		snprintf(out, outlen, "%s listening on %s", l, e->local);
	} else {
		snprintf(out, outlen, "%s %s (local)", l, e->local[0] ? e->local : "unbound");
	}
}
