/*
 * fuzz_waits.c: fuzz target for the wait parsers: cpw_wait_parse_syscall (the syscall file),
 * cpw_wait_parse_net_find_inode and cpw_wait_parse_net_target (/proc/net tables), cpw_wait_kind_fd_link_type,
 * cpw_wait_parse_fdinfo_flags, and what a poll or select waits on: cpw_wait_parse_poll_call_from_args on
 * the syscall file's arguments, cpw_wait_parse_pollfds and cpw_wait_parse_fdsets on the raw bytes
 * (as copied from a process's memory: any length, any alignment).
 *
 * The first byte picks the table and the inode searched for; the text is not
 * NUL-terminated, so a parser reading past len shows under ASan.
 */
#include "config.h"
#include "fuzz.h"

#include <errno.h>

#include "source/waits/wait_kind.h"
#include "source/waits/wait_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	enum cpw_net_proto proto = (enum cpw_net_proto)((data[0] & 7u) % CPW_NET_PROTO_COUNT);
	unsigned long inode = 1000u + (data[0] >> 3);
	data++, size--;

	char *buf = fuzz_copy(data, size, 0);
	struct cpw_syscall_fields f;
	int rc = cpw_wait_parse_syscall(buf, size, &f);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	FUZZ_ASSERT(rc != 0 || f.nargs == 0 || f.nargs == 6);

	unsigned flags;
	rc = cpw_wait_parse_fdinfo_flags(buf, size, &flags);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	if (cpw_wait_parse_syscall(buf, size, &f) == 0) {
		static const char *const calls[] = { "poll", "ppoll", "select", "pselect6", "read" };
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
			struct cpw_poll_call c;
			rc = cpw_wait_parse_poll_call_from_args(calls[i], &f, 8, &c);
			FUZZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -EINVAL || rc == -ENOENT);
			FUZZ_ASSERT(rc != 0 || c.len <= CPW_FDSET_MAX_BYTES + sizeof(unsigned long));
			FUZZ_ASSERT(rc != -E2BIG || c.len == 0);
		}
	}
	/* The bytes as a pollfd array and as three fd sets, from an odd offset too. */
	struct cpw_polled_fd fds[9];
	size_t max = data[-1] % 10u;
	size_t n = cpw_wait_parse_pollfds(data, size, fds, max);
	FUZZ_ASSERT(n <= size / 8);
	for (size_t i = 0; i < n && i < max; i++)
		FUZZ_ASSERT(fds[i].fd >= 0);
	size_t third = size / 3;
	n = cpw_wait_parse_fdsets(data, data + third, size > 1 ? data + 1 : NULL, third, (uint64_t)data[-1] * 37u, fds,
			     max);
	for (size_t i = 0; i < n && i < max; i++)
		FUZZ_ASSERT(fds[i].fd >= 0 && (uint64_t)fds[i].fd < (uint64_t)data[-1] * 37u);

	struct cpw_net_entry e;
	rc = cpw_wait_parse_net_find_inode(buf, size, proto, inode, &e);
	FUZZ_ASSERT(rc == 0 || rc == -ENOENT);
	if (rc == 0) {
		char target[64];
		FUZZ_ASSERT(e.inode == inode);
		cpw_wait_parse_net_target(&e, target, sizeof(target));
		FUZZ_ASSERT(memchr(target, '\0', sizeof(target)) != NULL);
	}
	free(buf);

	char *text = fuzz_copy(data, size, 1);
	unsigned long ino;
	enum cpw_fd_type t = cpw_wait_kind_fd_link_type(text, &ino);
	/* A socket or pipe link holds a plain decimal inode: no sign, no blanks. */
	FUZZ_ASSERT((t != CPW_FD_SOCKET && t != CPW_FD_PIPE) ||
		    (strchr(text, '[')[1] >= '0' && strchr(text, '[')[1] <= '9'));
	free(text);
	return 0;
}
