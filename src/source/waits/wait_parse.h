/*
 * wait_parse.h: pure parsers for what the wait probe reads (wait_parse.c):
 * /proc/PID/task/TID/syscall, and the socket tables /proc/net/{tcp,tcp6,udp,udp6,unix}
 * searched by inode. They take text, never a path, so fixtures and fuzz targets feed them.
 */
#ifndef CPW_SOURCE_WAIT_PARSE_H
#define CPW_SOURCE_WAIT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One syscall file: "nr a1 a2 a3 a4 a5 a6 sp pc" in a call, "-1 sp pc" blocked outside
 * one (nr = -1, no arguments), "running" on a CPU. */
struct cpw_syscall_fields {
	bool running;
	long nr;          /* -1 outside a call; meaningless when running */
	uint64_t args[6]; /* 0 where absent */
	int nargs;        /* 6 in a call, 0 otherwise */
};
int cpw_parse_syscall(const char *buf, size_t len, struct cpw_syscall_fields *out);

enum cpw_net_proto { CPW_NET_TCP, CPW_NET_TCP6, CPW_NET_UDP, CPW_NET_UDP6, CPW_NET_UNIX, CPW_NET_PROTO_COUNT };

/* The file name under /proc/net of each table: "tcp", "tcp6", "udp", "udp6", "unix". */
const char *cpw_net_table_name(enum cpw_net_proto proto);

struct cpw_net_entry {
	enum cpw_net_proto proto;
	unsigned long inode;
	int state;          /* TCP state (1 established, 10 listen); unix: the St column */
	char local[64];     /* "127.0.0.1:8080", "[::1]:8080"; unix: "" */
	char peer[64];      /* "" when not connected (0.0.0.0:0) */
	char path[108];     /* unix: the bound path, raw (may hold anything); "" if none */
};

/* Finds the line of inode in the text of one table (header line included). Returns 0
 * and fills *out, -ENOENT when no line has it, -EINVAL when a line holding it is broken. */
int cpw_net_find_inode(const char *text, size_t len, enum cpw_net_proto proto, unsigned long inode,
		       struct cpw_net_entry *out);

/* The entry as a wait target: "TCP 127.0.0.1:8080" (the peer of a connected socket),
 * "TCP listening on 0.0.0.0:8080", "UDP 0.0.0.0:53 (local)", "unix /run/x.sock",
 * "unix socket (unnamed)". Raw: unix paths may hold anything; escape to print. */
void cpw_net_target(const struct cpw_net_entry *e, char *out, size_t outlen);

#endif
