/*
 * fuzz_waits.c: fuzz target for the wait parsers: cpw_parse_syscall (the syscall file),
 * cpw_net_find_inode and cpw_net_target (/proc/net tables) and cpw_fd_link_type.
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
	int rc = cpw_parse_syscall(buf, size, &f);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	FUZZ_ASSERT(rc != 0 || f.nargs == 0 || f.nargs == 6);

	struct cpw_net_entry e;
	rc = cpw_net_find_inode(buf, size, proto, inode, &e);
	FUZZ_ASSERT(rc == 0 || rc == -ENOENT);
	if (rc == 0) {
		char target[64];
		FUZZ_ASSERT(e.inode == inode);
		cpw_net_target(&e, target, sizeof(target));
		FUZZ_ASSERT(memchr(target, '\0', sizeof(target)) != NULL);
	}
	free(buf);

	char *text = fuzz_copy(data, size, 1);
	unsigned long ino;
	enum cpw_fd_type t = cpw_fd_link_type(text, &ino);
	/* A socket or pipe link holds a plain decimal inode: no sign, no blanks. */
	FUZZ_ASSERT((t != CPW_FD_SOCKET && t != CPW_FD_PIPE) ||
		    (strchr(text, '[')[1] >= '0' && strchr(text, '[')[1] <= '9'));
	free(text);
	return 0;
}
