/*
 * test_waits.c: the wait analysis: the syscall and /proc/net parsers, the kind classifier,
 * and the probe on the fixture /proc root tests/fixtures/procroot-waits (sockets connected,
 * listening, vanished; a pipe fed by another process of the tree; an epoll; a terminal;
 * a file whose path holds a newline; a thread without syscall file; the cache and the
 * budget; polls and selects on a few fds and on many, read through a memory reader of the
 * test's; a pipe queue). The fixture's syscall files hold x86-64 numbers: the probe tests
 * run there only. Also the idle-by-design rule of the waits model.
 */
#include "config.h"
#include "source/waits/wait_kind.h"
#include "source/waits/wait_parse.h"
#include "source/waits/wait_probe.h"
#include "model/waits.h"
#include "model/metrics.h"
#include "model/tree.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT FIXTURES "/procroot-waits"

static long nr_of(const char *name)
{
	const struct cpw_syscall_info *s = cpw_wait_kind_syscall_by_name(name);
	return s ? s->nr : -100;
}

static void test_parse_syscall(void)
{
	struct cpw_syscall_fields f;
	const char in_call[] = "45 0x3 0x7ffd 0x1000 0x0 0x0 0x0 0x7ffc0 0x7f001\n";
	CU_ASSERT_EQUAL(cpw_wait_parse_syscall(in_call, strlen(in_call), &f), 0);
	CU_ASSERT_FALSE(f.running);
	CU_ASSERT_EQUAL(f.nr, 45);
	CU_ASSERT_EQUAL(f.nargs, 6);
	CU_ASSERT_EQUAL(f.args[0], 3);
	CU_ASSERT_EQUAL(f.args[2], 0x1000);
	CU_ASSERT_EQUAL(f.sp, 0x7ffc0); /* the stack a blocking synchronize is read from */
	CU_ASSERT_EQUAL(f.pc, 0x7f001);

	const char outside[] = "-1 0x7ffc0 0x7f001\n";
	CU_ASSERT_EQUAL(cpw_wait_parse_syscall(outside, strlen(outside), &f), 0);
	CU_ASSERT_EQUAL(f.nr, -1);
	CU_ASSERT_EQUAL(f.nargs, 0);
	CU_ASSERT_EQUAL(f.sp, 0x7ffc0);

	CU_ASSERT_EQUAL(cpw_wait_parse_syscall("running\n", 8, &f), 0);
	CU_ASSERT_TRUE(f.running);

	const char *bad[] = { "", "x 0x1", "45 0x3 0x4\n", "-1 0x1\n", "-7 0x1 0x2\n", "45 0x3 zz 0 0 0 0 1 2\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(cpw_wait_parse_syscall(bad[i], strlen(bad[i]), &f), -EINVAL);
}

static struct cpw_syscall_fields call_of(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct cpw_syscall_fields f;
	memset(&f, 0, sizeof(f));
	f.nr = 7;
	f.nargs = 6;
	f.args[0] = a0;
	f.args[1] = a1;
	f.args[2] = a2;
	f.args[3] = a3;
	return f;
}

/* What to read for a poll or a select, from its arguments. */
static void test_poll_args(void)
{
	struct cpw_poll_call c;
	struct cpw_syscall_fields f = call_of(0x7ffd1000, 3, 30000, 0);

	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("poll", &f, 8, &c), 0);
	CU_ASSERT_EQUAL(c.style, CPW_POLL_POLLFD);
	CU_ASSERT_EQUAL(c.addr[0], 0x7ffd1000);
	CU_ASSERT_EQUAL(c.len, 24);
	CU_ASSERT_EQUAL(c.nfds, 3);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("ppoll", &f, 8, &c), 0);
	/* More than the few: not read. */
	f = call_of(0x7ffd1000, 20, 0, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("poll", &f, 8, &c), -E2BIG);
	CU_ASSERT_EQUAL(c.nfds, 20);
	CU_ASSERT_EQUAL(c.len, 0);
	/* A pollfd count with no array is not a call the kernel would take. */
	f = call_of(0, 2, 0, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("poll", &f, 8, &c), -EINVAL);
	/* poll(NULL, 0, ms): nothing to read. */
	f = call_of(0, 0, 100, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("poll", &f, 8, &c), 0);
	CU_ASSERT_EQUAL(c.len, 0);
	/* select(n, r, w, e, tv): whole longs up to n. */
	f = call_of(11, 0x2000, 0, 0x3000);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("select", &f, 8, &c), 0);
	CU_ASSERT_EQUAL(c.style, CPW_POLL_FDSET);
	CU_ASSERT_EQUAL(c.len, sizeof(unsigned long));
	CU_ASSERT_EQUAL(c.addr[0], 0x2000);
	CU_ASSERT_EQUAL(c.addr[1], 0);
	CU_ASSERT_EQUAL(c.addr[2], 0x3000);
	f = call_of(65, 0x2000, 0, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("pselect6", &f, 8, &c), 0);
	CU_ASSERT_EQUAL(c.len, sizeof(unsigned long) == 8 ? 16 : 12); /* 2 or 3 whole longs */
	f = call_of((uint64_t)CPW_FDSET_MAX_BYTES * 8 + 1, 0x2000, 0, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("select", &f, 8, &c), -E2BIG);
	f = call_of(3, 0x2000, 0, 0);
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("read", &f, 8, &c), -ENOENT);
	f.nargs = 0;
	CU_ASSERT_EQUAL(cpw_wait_parse_poll_call_from_args("poll", &f, 8, &c), -EINVAL);
}

static void put_pollfd(unsigned char *b, int fd, short events)
{
	memcpy(b, &fd, sizeof(fd));
	memcpy(b + 4, &events, sizeof(events));
	memset(b + 6, 0, 2);
}

/* A pollfd array: negative fds skipped, each fd once, POLLOUT alone a write. */
static void test_parse_pollfds(void)
{
	unsigned char b[5 * 8 + 3];
	struct cpw_polled_fd fds[8];

	put_pollfd(b, 3, 0x1);
	put_pollfd(b + 8, -1, 0x1);
	put_pollfd(b + 16, 5, 0x4);
	put_pollfd(b + 24, 3, 0x4);
	put_pollfd(b + 32, 7, 0x5);
	memset(b + 40, 0xff, 3); /* a partial entry: ignored */
	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_pollfds(b, sizeof(b), fds, 8), 3);
	CU_ASSERT_EQUAL(fds[0].fd, 3);
	CU_ASSERT_FALSE(fds[0].write); /* read and write: a read */
	CU_ASSERT_EQUAL(fds[1].fd, 5);
	CU_ASSERT_TRUE(fds[1].write);
	CU_ASSERT_EQUAL(fds[2].fd, 7);
	CU_ASSERT_FALSE(fds[2].write);
	/* Cut at max, counted in all. */
	CU_ASSERT_EQUAL(cpw_wait_parse_pollfds(b, sizeof(b), fds, 1), 3);
	CU_ASSERT_EQUAL(fds[0].fd, 3);
	CU_ASSERT_EQUAL(cpw_wait_parse_pollfds(b, 7, fds, 8), 0);
	/* Unaligned input. */
	unsigned char u[17];
	put_pollfd(u + 1, 9, 0x1);
	put_pollfd(u + 9, 2, 0x1);
	CU_ASSERT_EQUAL(cpw_wait_parse_pollfds(u + 1, 16, fds, 8), 2);
	CU_ASSERT_EQUAL(fds[1].fd, 2);
}

/* select's bitmaps: bits below n, reads and writes, each fd once. */
static void test_parse_fdsets(void)
{
	unsigned long r[2] = { 0, 0 }, w[2] = { 0, 0 };
	struct cpw_polled_fd fds[8];
	const size_t bits = 8 * sizeof(unsigned long);

	r[0] = 1ul << 3 | 1ul << 10;
	w[0] = 1ul << 10 | 1ul << 4;
	r[1] = 1ul; /* fd `bits`: at n = bits it is past the range */
	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_fdsets(r, w, NULL, sizeof(r), bits, fds, 8), 3);
	CU_ASSERT_EQUAL(fds[0].fd, 3);
	CU_ASSERT_FALSE(fds[0].write);
	CU_ASSERT_EQUAL(fds[1].fd, 10);
	CU_ASSERT_FALSE(fds[1].write);
	CU_ASSERT_EQUAL(fds[2].fd, 4);
	CU_ASSERT_TRUE(fds[2].write);
	CU_ASSERT_EQUAL(cpw_wait_parse_fdsets(r, w, NULL, sizeof(r), bits + 1, fds, 8), 4);
	CU_ASSERT_EQUAL(cpw_wait_parse_fdsets(NULL, NULL, NULL, sizeof(r), bits, fds, 8), 0);
	/* An except set counts as a read. */
	CU_ASSERT_EQUAL(cpw_wait_parse_fdsets(NULL, NULL, w, sizeof(unsigned long), bits, fds, 8), 2);
	CU_ASSERT_FALSE(fds[0].write);
}

static void test_fdinfo_flags(void)
{
	unsigned flags = 99;
	const char ok[] = "pos:\t0\nflags:\t02000001\nmnt_id:\t14\n";
	CU_ASSERT_EQUAL(cpw_wait_parse_fdinfo_flags(ok, strlen(ok), &flags), 0);
	CU_ASSERT_EQUAL(flags, 02000001);
	const char *bad[] = { "pos:\t0\n", "flags:\t\n", "flags:\t09\n", "flags:\t-1\n", "flags:\t0x1\n",
			      "flags:\t7777777777777\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(cpw_wait_parse_fdinfo_flags(bad[i], strlen(bad[i]), &flags), -EINVAL);
	const char last[] = "flags:\t0";
	CU_ASSERT_EQUAL(cpw_wait_parse_fdinfo_flags(last, strlen(last), &flags), 0);
	CU_ASSERT_EQUAL(flags, 0);
}

static const char tcp[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	"   0: 0100007F:A028 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 1001 1 0 20 4 30 10 -1\n"
	"   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0 100 0 0 10 0\n"
	"   2: 0100007F:A0";

static void test_net_tcp(void)
{
	struct cpw_net_entry e;
	char target[128];

	CU_ASSERT_EQUAL(cpw_wait_parse_net_find_inode(tcp, strlen(tcp), CPW_NET_TCP, 1001, &e), 0);
	CU_ASSERT_STRING_EQUAL(e.local, "127.0.0.1:41000");
	CU_ASSERT_STRING_EQUAL(e.peer, "127.0.0.1:8080");
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "TCP 127.0.0.1:8080");

	CU_ASSERT_EQUAL(cpw_wait_parse_net_find_inode(tcp, strlen(tcp), CPW_NET_TCP, 1002, &e), 0);
	CU_ASSERT_STRING_EQUAL(e.peer, "");
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "TCP listening on 0.0.0.0:8080");

	/* Absent, and the header's "inode" column is never taken for a socket. */
	CU_ASSERT_EQUAL(cpw_wait_parse_net_find_inode(tcp, strlen(tcp), CPW_NET_TCP, 4242, &e), -ENOENT);
	CU_ASSERT_EQUAL(cpw_wait_parse_net_find_inode(tcp, strlen(tcp), CPW_NET_TCP, 0, &e), -ENOENT);
	/* Cut short: the text ends inside a line. */
	CU_ASSERT_EQUAL(cpw_wait_parse_net_find_inode(tcp, 120, CPW_NET_TCP, 1002, &e), -ENOENT);
}

static void test_net_tcp6_udp_unix(void)
{
	static const char tcp6[] =
		"  sl  local_address                         remote_address                        st\n"
		"   0: 00000000000000000000000001000000:D431 00000000000000000000000001000000:1538 01 "
		"00000000:00000000 00:00000000 00000000  1000        0 1003 1\n";
	static const char udp[] =
		"   sl  local_address rem_address   st\n"
		"  512: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1006 2 0 0\n";
	static const char unx[] =
		"Num       RefCount Protocol Flags    Type St Inode Path\n"
		"0000000000000000: 00000002 00000000 00010000 0001 01 1004 /run/app.sock\n"
		"0000000000000000: 00000003 00000000 00000000 0001 03 1005\n";
	struct cpw_net_entry e;
	char target[128];

	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_net_find_inode(tcp6, strlen(tcp6), CPW_NET_TCP6, 1003, &e), 0);
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "TCP [::1]:5432");
	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_net_find_inode(udp, strlen(udp), CPW_NET_UDP, 1006, &e), 0);
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "UDP 0.0.0.0:53 (local)");
	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_net_find_inode(unx, strlen(unx), CPW_NET_UNIX, 1004, &e), 0);
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "unix /run/app.sock");
	CU_ASSERT_EQUAL_FATAL(cpw_wait_parse_net_find_inode(unx, strlen(unx), CPW_NET_UNIX, 1005, &e), 0);
	cpw_wait_parse_net_target(&e, target, sizeof(target));
	CU_ASSERT_STRING_EQUAL(target, "unix socket (unnamed)");
	CU_ASSERT_STRING_EQUAL(cpw_wait_parse_net_table_name(CPW_NET_UDP6), "udp6");
}

static void test_fd_link_type(void)
{
	unsigned long ino;
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("socket:[123]", &ino), CPW_FD_SOCKET);
	CU_ASSERT_EQUAL(ino, 123);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("pipe:[77]", &ino), CPW_FD_PIPE);
	CU_ASSERT_EQUAL(ino, 77);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("socket:[12", &ino), CPW_FD_UNKNOWN);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("socket:[+0]", &ino), CPW_FD_UNKNOWN);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("pipe:[ 7]", &ino), CPW_FD_UNKNOWN);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("socket:[99999999999999999999999]", &ino), CPW_FD_UNKNOWN);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/pts/4", &ino), CPW_FD_TTY);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/tty1", &ino), CPW_FD_TTY);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/home/a\nb", &ino), CPW_FD_FILE);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("anon_inode:[timerfd]", &ino), CPW_FD_TIMER);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("anon_inode:[eventfd]", &ino), CPW_FD_ANON);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("net:[4026531840]", &ino), CPW_FD_UNKNOWN);
}

static void test_classify(void)
{
	if (!cpw_wait_kind_syscall_by_name("read")) {
		CU_PASS("no system call table for this architecture: wait channels only");
	} else {
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("recvfrom"), CPW_FD_UNKNOWN), CPW_WAIT_NETWORK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("accept4"), CPW_FD_SOCKET), CPW_WAIT_NETWORK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("read"), CPW_FD_SOCKET), CPW_WAIT_NETWORK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("read"), CPW_FD_PIPE), CPW_WAIT_PIPE);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("write"), CPW_FD_PIPE), CPW_WAIT_PIPE);
		/* A path slept on in S is a FIFO or a device (a file's IO blocks in D). */
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "pipe_read", nr_of("read"), CPW_FD_FILE), CPW_WAIT_PIPE);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('D', "io_schedule", nr_of("read"), CPW_FD_FILE), CPW_WAIT_DISK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("read"), CPW_FD_TTY), CPW_WAIT_TERMINAL);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('D', "", nr_of("pread64"), CPW_FD_FILE), CPW_WAIT_DISK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("read"), CPW_FD_TIMER), CPW_WAIT_TIMER);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("read"), CPW_FD_ANON), CPW_WAIT_EVENT_LOOP);
		/* read with an fd not resolved: the wait channel tells. */
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "pipe_read", nr_of("read"), CPW_FD_UNKNOWN), CPW_WAIT_PIPE);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("futex"), CPW_FD_UNKNOWN), CPW_WAIT_LOCK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("clock_nanosleep"), CPW_FD_UNKNOWN), CPW_WAIT_TIMER);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("wait4"), CPW_FD_UNKNOWN), CPW_WAIT_CHILD);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("waitid"), CPW_FD_UNKNOWN), CPW_WAIT_CHILD);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("epoll_pwait"), CPW_FD_ANON), CPW_WAIT_EVENT_LOOP);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("ppoll"), CPW_FD_UNKNOWN), CPW_WAIT_EVENT_LOOP);
		/* A poll on a few fds is a wait on the most telling of them. */
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("poll"), CPW_FD_SOCKET), CPW_WAIT_NETWORK);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("pselect6"), CPW_FD_PIPE), CPW_WAIT_PIPE);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("select"), CPW_FD_TIMER), CPW_WAIT_TIMER);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("ppoll"), CPW_FD_ANON), CPW_WAIT_EVENT_LOOP);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "poll_schedule_timeout", nr_of("poll"), CPW_FD_FILE),
				CPW_WAIT_EVENT_LOOP);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "", nr_of("epoll_wait"), CPW_FD_SOCKET), CPW_WAIT_EVENT_LOOP);
		CU_ASSERT_EQUAL(cpw_wait_kind_classify('D', "", nr_of("fsync"), CPW_FD_FILE), CPW_WAIT_DISK);
	}
	/* Outside a call in D: a page fault. */
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('D', "folio_wait_bit_common", CPW_SYSCALL_NONE, CPW_FD_UNKNOWN),
			CPW_WAIT_PAGE_IN);
	/* Wait channels alone (the syscall file unreadable). */
	struct { const char *wchan; char state; enum cpw_wait_kind kind; } w[] = {
		{ "sk_wait_data", 'S', CPW_WAIT_NETWORK },
		{ "inet_csk_accept", 'S', CPW_WAIT_NETWORK },
		{ "unix_stream_read_generic", 'S', CPW_WAIT_NETWORK },
		{ "pipe_read", 'S', CPW_WAIT_PIPE },
		{ "futex_wait_queue", 'S', CPW_WAIT_LOCK },
		{ "hrtimer_nanosleep", 'S', CPW_WAIT_TIMER },
		{ "do_wait", 'S', CPW_WAIT_CHILD },
		{ "do_epoll_wait", 'S', CPW_WAIT_EVENT_LOOP },
		{ "do_select", 'S', CPW_WAIT_EVENT_LOOP },
		{ "n_tty_read", 'S', CPW_WAIT_TERMINAL },
		{ "filemap_fault", 'D', CPW_WAIT_PAGE_IN },
		{ "jbd2_log_wait_commit", 'D', CPW_WAIT_DISK },
		{ "", 'D', CPW_WAIT_DISK },
		{ "rwsem_down_read_slowpath", 'D', CPW_WAIT_LOCK },
		{ "wait_woken", 'S', CPW_WAIT_OTHER },
		{ "0", 'S', CPW_WAIT_OTHER },
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		CU_ASSERT_EQUAL(cpw_wait_kind_classify(w[i].state, w[i].wchan, CPW_SYSCALL_UNREAD, CPW_FD_UNKNOWN), w[i].kind);
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('R', "", CPW_SYSCALL_UNREAD, CPW_FD_UNKNOWN), CPW_WAIT_OTHER);
	for (int k = 0; k < CPW_WAIT_KIND_COUNT; k++)
		CU_ASSERT_EQUAL(cpw_wait_kind_from_name(cpw_wait_kind_name(k)), k);
	CU_ASSERT_EQUAL(cpw_wait_kind_from_name("nope"), -1);
}

static void add_wait(struct cpw_waits *w, pid_t pid, const char *comm, enum cpw_wait_kind kind,
		     const char *target, pid_t peer, double s)
{
	struct cpw_wait one;
	memset(&one, 0, sizeof(one));
	one.kind = kind;
	snprintf(one.target, sizeof(one.target), "%s", target);
	one.peer_pid = peer;
	cpw_waits_add(w, pid, comm, &one, s);
}

/* Thread-seconds per kind, target and process; the dominant kind leaves child waits aside. */
static void test_model_waits(void)
{
	struct cpw_waits w;
	double share;

	cpw_waits_init(&w);
	CU_ASSERT_EQUAL(cpw_waits_dominant(&w, &share), -1);
	add_wait(&w, 10, "sh", CPW_WAIT_CHILD, "", 0, 4.0);
	CU_ASSERT_EQUAL(cpw_waits_dominant(&w, &share), CPW_WAIT_CHILD); /* all there is */
	add_wait(&w, 11, "curl", CPW_WAIT_NETWORK, "TCP 10.0.0.1:80", 0, 1.0);
	add_wait(&w, 11, "curl", CPW_WAIT_NETWORK, "TCP 10.0.0.2:80", 0, 3.0);
	add_wait(&w, 11, "curl", CPW_WAIT_NETWORK, "TCP 10.0.0.1:80", 0, 0.5);
	add_wait(&w, 11, "curl", CPW_WAIT_TIMER, "", 0, 0.5);
	add_wait(&w, 11, "curl", CPW_WAIT_TIMER, "", 0, -1.0); /* ignored */
	CU_ASSERT_DOUBLE_EQUAL(w.total_s, 9.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_NETWORK], 4.5, 1e-9);
	CU_ASSERT_EQUAL(w.ntargets, 2);
	CU_ASSERT_EQUAL(cpw_waits_dominant(&w, &share), CPW_WAIT_NETWORK);
	CU_ASSERT_DOUBLE_EQUAL(share, 0.9, 1e-9);
	const struct cpw_wait_target_time *top = cpw_waits_top_target(&w, CPW_WAIT_NETWORK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(top);
	CU_ASSERT_STRING_EQUAL(top->target, "TCP 10.0.0.2:80");
	CU_ASSERT_PTR_NULL(cpw_waits_top_target(&w, CPW_WAIT_LOCK));
	/* The reports' copy: sorted, its figures w's, the thread records left behind; w as it was. */
	struct cpw_waits *copy = cpw_waits_sorted_copy(&w);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	CU_ASSERT_STRING_EQUAL(copy->targets[0].target, "TCP 10.0.0.2:80");
	CU_ASSERT_STRING_EQUAL(w.targets[0].target, "TCP 10.0.0.1:80");
	CU_ASSERT_EQUAL(copy->procs[0].pid, 11);
	CU_ASSERT_EQUAL(copy->ntargets, w.ntargets);
	CU_ASSERT_EQUAL(copy->nprocs, w.nprocs);
	CU_ASSERT_DOUBLE_EQUAL(copy->total_s, w.total_s, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(copy->seconds[CPW_WAIT_NETWORK], 4.5, 1e-9);
	CU_ASSERT_EQUAL(copy->adds, w.adds);
	CU_ASSERT_EQUAL(copy->nthreads, 0);
	free(copy);
	cpw_waits_sort(&w);
	CU_ASSERT_EQUAL(w.procs[0].pid, 11);
	CU_ASSERT_STRING_EQUAL(w.targets[0].target, "TCP 10.0.0.2:80");
	CU_ASSERT_PTR_NOT_NULL(cpw_waits_proc(&w, 10));
	CU_ASSERT_PTR_NULL(cpw_waits_proc(&w, 99));
	/* Past the tables: counted apart. */
	for (int i = 0; i < CPW_WAIT_TARGETS_MAX + 2; i++) {
		char t[32];
		snprintf(t, sizeof(t), "/f%d", i);
		add_wait(&w, (pid_t)(100 + i), "p", CPW_WAIT_DISK, t, 0, 1.0);
	}
	CU_ASSERT_EQUAL(w.ntargets, CPW_WAIT_TARGETS_MAX);
	CU_ASSERT_DOUBLE_EQUAL(w.untracked_target_s, 4.0, 1e-9);
	CU_ASSERT_EQUAL(w.nprocs, CPW_WAIT_PROCS_MAX);
	CU_ASSERT_TRUE(w.untracked_proc_s > 0);
}

static void add_thread_wait(struct cpw_waits *w, pid_t pid, pid_t tid, uint64_t seq, enum cpw_wait_kind kind,
			    const char *target, bool queue)
{
	struct cpw_wait one;
	memset(&one, 0, sizeof(one));
	one.kind = kind;
	one.tid = tid;
	one.seq = seq;
	one.queue = queue;
	snprintf(one.target, sizeof(one.target), "%s", target);
	cpw_waits_add(w, pid, "python3", &one, 0.1);
}

/* A GPU driver's helper threads (CUDA's, seen on an H100 with driver 580) wait on the
 * device's events all their lives and wake often: idle by design from their first wait,
 * whatever the kind; the main thread's waits on the GPU stay counted. */
static void test_model_driver_helper(void)
{
	struct cpw_waits w;
	struct cpw_wait one;

	CU_ASSERT_TRUE(cpw_wait_kind_driver_thread("cuda-EvtHandlr"));
	CU_ASSERT_TRUE(cpw_wait_kind_driver_thread("cuda00001400006"));
	CU_ASSERT_FALSE(cpw_wait_kind_driver_thread("cuda"));
	CU_ASSERT_FALSE(cpw_wait_kind_driver_thread("cuda0001"));    /* too few hex digits */
	CU_ASSERT_FALSE(cpw_wait_kind_driver_thread("cudaworker1234")); /* not hex */
	CU_ASSERT_FALSE(cpw_wait_kind_driver_thread("python3"));
	CU_ASSERT_FALSE(cpw_wait_kind_driver_thread(""));
	cpw_waits_init(&w);
	memset(&one, 0, sizeof(one));
	for (int i = 0; i < 10; i++) {
		one.tid = 11; /* cuda00001400006 on its socket: a new wait each sample */
		one.seq = 100 + (uint64_t)i;
		one.kind = CPW_WAIT_NETWORK;
		one.driver_helper = true;
		snprintf(one.target, sizeof(one.target), "unix @cuda-uvmfd-4026531836-10@ and 2 other fds");
		cpw_waits_add(&w, 10, "gpu_work", &one, 0.1);
		one.tid = 12; /* cuda-EvtHandlr on the device's descriptors */
		one.kind = CPW_WAIT_EVENT_LOOP;
		snprintf(one.target, sizeof(one.target), "poll on 11 fds");
		cpw_waits_add(&w, 10, "gpu_work", &one, 0.1);
		one.tid = 10; /* the main thread in the driver's ioctl: a wait on the GPU */
		one.kind = CPW_WAIT_GPU;
		snprintf(one.target, sizeof(one.target), "/dev/nvidia0");
		cpw_waits_add(&w, 10, "gpu_work", &one, 0.1);
	}
	CU_ASSERT_EQUAL(w.idle_threads, 2);
	CU_ASSERT_DOUBLE_EQUAL(w.idle_s, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_NETWORK], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_EVENT_LOOP], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_GPU], 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.total_s, 1.0, 1e-9);
	const struct cpw_wait_proc_time *p = cpw_waits_proc(&w, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->idle_s, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->total_s, 1.0, 1e-9);
}

/* Helper waits: counted in helper_seconds as in seconds, never the main thread's, and
 * taken out of both when the wait turns out idle by design; the process keeps its
 * latest name (a pyenv shim that became python3). */
static void test_model_helper_seconds(void)
{
	struct cpw_waits w;
	struct cpw_wait one;

	cpw_waits_init(&w);
	memset(&one, 0, sizeof(one));
	one.kind = CPW_WAIT_NETWORK;
	one.tid = 11;
	one.seq = 1;
	cpw_waits_add_thread(&w, 10, "bash", &one, 0.1, true);
	one.tid = 10; /* the main thread: never a helper */
	cpw_waits_add_thread(&w, 10, "python3", &one, 0.1, true);
	const struct cpw_wait_proc_time *p = cpw_waits_proc(&w, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(p->comm, "python3");
	CU_ASSERT_DOUBLE_EQUAL(p->seconds[CPW_WAIT_NETWORK], 0.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->helper_seconds[CPW_WAIT_NETWORK], 0.1, 1e-9);
	/* A helper on one lock until idle by design: out of seconds and helper_seconds. */
	one.kind = CPW_WAIT_LOCK;
	one.tid = 12;
	one.seq = 2;
	cpw_waits_add_thread(&w, 10, "python3", &one, 0.1, false); /* not yet a helper */
	for (int i = 0; i < 2 * CPW_WAIT_IDLE_SAMPLES + 5; i++)
		cpw_waits_add_thread(&w, 10, "python3", &one, 0.1, true);
	CU_ASSERT_EQUAL(w.idle_threads, 1);
	CU_ASSERT_DOUBLE_EQUAL(p->seconds[CPW_WAIT_LOCK], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->helper_seconds[CPW_WAIT_LOCK], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->helper_seconds[CPW_WAIT_NETWORK], 0.1, 1e-9);
}

/* Idle by design: a helper thread on one lock, queue or poll without running, for
 * CPW_WAIT_IDLE_SAMPLES samples and CPW_WAIT_IDLE_S seconds, leaves the kinds; the main
 * thread, a thread that runs between waits, a network wait do not. */
static void test_model_idle(void)
{
	struct cpw_waits w;
	double share;
	const int n = 20; /* 2 s of 0.1 s samples */

	CU_ASSERT_TRUE(CPW_WAIT_IDLE_SAMPLES * 0.1 <= CPW_WAIT_IDLE_S + 1e-9); /* the seconds decide here */
	cpw_waits_init(&w);
	for (int i = 0; i < n; i++) {
		add_thread_wait(&w, 10, 10, 1, CPW_WAIT_LOCK, "", false);           /* main: stays */
		add_thread_wait(&w, 10, 11, 2, CPW_WAIT_LOCK, "", false);           /* handler: idle */
		add_thread_wait(&w, 10, 12, 3, CPW_WAIT_PIPE, "pipe queue from worker (pid 20)", true);
		add_thread_wait(&w, 10, 13, 100 + (uint64_t)i, CPW_WAIT_LOCK, "", false); /* runs between */
		add_thread_wait(&w, 10, 14, 4, CPW_WAIT_NETWORK, "TCP 10.0.0.1:80", false);
		add_thread_wait(&w, 10, 15, 5, CPW_WAIT_PIPE, "pipe from xz (pid 30)", false);
	}
	CU_ASSERT_EQUAL(w.idle_threads, 2);
	CU_ASSERT_DOUBLE_EQUAL(w.idle_s, 2 * n * 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], 2 * n * 0.1, 1e-9); /* main + tid 13 */
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_PIPE], n * 0.1, 1e-9);      /* xz's only */
	CU_ASSERT_DOUBLE_EQUAL(w.total_s, 4 * n * 0.1, 1e-9);
	CU_ASSERT_EQUAL(cpw_waits_dominant(&w, &share), CPW_WAIT_LOCK);
	CU_ASSERT_DOUBLE_EQUAL(share, 0.5, 1e-9);
	const struct cpw_wait_target_time *q = NULL;
	for (size_t i = 0; i < w.ntargets; i++)
		if (strncmp(w.targets[i].target, "pipe queue", 10) == 0)
			q = &w.targets[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_DOUBLE_EQUAL(q->seconds, 0, 1e-9);
	const struct cpw_wait_proc_time *p = cpw_waits_proc(&w, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->idle_s, 2 * n * 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->total_s, 4 * n * 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->seconds[CPW_WAIT_LOCK], 2 * n * 0.1, 1e-9);
	/* It runs once and waits again: a new wait, counted until it is long enough again;
	 * its idle time stays idle. */
	add_thread_wait(&w, 10, 11, 99, CPW_WAIT_LOCK, "", false);
	CU_ASSERT_DOUBLE_EQUAL(w.idle_s, 2 * n * 0.1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], 2 * n * 0.1 + 0.1, 1e-9);
	CU_ASSERT_EQUAL(w.idle_threads, 2);
	/* Short: one sample under, nothing is idle. */
	cpw_waits_init(&w);
	for (int i = 0; i + 1 < CPW_WAIT_IDLE_SAMPLES; i++)
		add_thread_wait(&w, 10, 11, 2, CPW_WAIT_LOCK, "", false);
	CU_ASSERT_EQUAL(w.idle_threads, 0);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], (CPW_WAIT_IDLE_SAMPLES - 1) * 0.1, 1e-9);
	/* Long enough in samples, too short in seconds (a fast interval): not idle either. */
	cpw_waits_init(&w);
	struct cpw_wait quick;
	memset(&quick, 0, sizeof(quick));
	quick.kind = CPW_WAIT_LOCK;
	quick.tid = 11;
	quick.seq = 2;
	for (int i = 0; i < 2 * CPW_WAIT_IDLE_SAMPLES; i++)
		cpw_waits_add(&w, 10, "python3", &quick, CPW_WAIT_IDLE_S / (4 * CPW_WAIT_IDLE_SAMPLES));
	CU_ASSERT_EQUAL(w.idle_threads, 0);
	/* A helper accepting on a local listener (multiprocessing's resource sharer in each
	 * DataLoader worker, seen on a GPU host) idles; on a TCP port it is what a server
	 * waits for. */
	struct cpw_wait acc;
	memset(&acc, 0, sizeof(acc));
	acc.tid = 11;
	acc.kind = CPW_WAIT_NETWORK;
	snprintf(acc.syscall, sizeof(acc.syscall), "accept4");
	snprintf(acc.target, sizeof(acc.target), "unix /tmp/pymp-nkojy3eq/listener-ze81z1uz");
	CU_ASSERT_TRUE(cpw_waits_idle_kind(10, &acc));
	acc.tid = 10;
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &acc)); /* the main thread's: a server's */
	acc.tid = 11;
	snprintf(acc.target, sizeof(acc.target), "TCP 127.0.0.1:8080");
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &acc));
	snprintf(acc.syscall, sizeof(acc.syscall), "recvfrom");
	snprintf(acc.target, sizeof(acc.target), "unix /tmp/pymp-nkojy3eq/listener-ze81z1uz");
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &acc));
	/* The kinds a helper idles on. */
	struct cpw_wait k;
	memset(&k, 0, sizeof(k));
	k.tid = 11;
	k.kind = CPW_WAIT_EVENT_LOOP;
	CU_ASSERT_TRUE(cpw_waits_idle_kind(10, &k));
	k.kind = CPW_WAIT_PIPE;
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &k));
	k.polled = 3;
	CU_ASSERT_TRUE(cpw_waits_idle_kind(10, &k)); /* a pool's poll on its workers' sentinels */
	k.kind = CPW_WAIT_TIMER;
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &k)); /* a sleep is what it does */
	k.kind = CPW_WAIT_LOCK;
	k.tid = 10;
	CU_ASSERT_FALSE(cpw_waits_idle_kind(10, &k));
	/* Past the table of threads: the one that waited least recently is forgotten. */
	cpw_waits_init(&w);
	for (int i = 0; i < CPW_WAIT_THREADS_MAX + 5; i++)
		add_thread_wait(&w, 10, (pid_t)(1000 + i), 7, CPW_WAIT_LOCK, "", false);
	CU_ASSERT_EQUAL(w.nthreads, CPW_WAIT_THREADS_MAX);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], (CPW_WAIT_THREADS_MAX + 5) * 0.1, 1e-6);
}

/* A pool of 1,000 helper threads, each on its lock all along: every one is found idle by
 * design (the table held 256 once, and a larger pool evicted each thread before its fifth
 * sample: none was). */
static void test_model_big_idle_pool(void)
{
	static struct cpw_waits w;
	cpw_waits_init(&w);
	for (int sample = 0; sample < 10; sample++)
		for (int i = 0; i < 1000; i++)
			add_thread_wait(&w, 10, (pid_t)(2000 + i), 7, CPW_WAIT_LOCK, "", false);
	CU_ASSERT_EQUAL(w.nthreads, 1000);
	CU_ASSERT_EQUAL(w.idle_threads, 1000);
	CU_ASSERT_DOUBLE_EQUAL(w.idle_s, 1000.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_LOCK], 0, 1e-6);
}

/* The table of threads behaves as a list in the order of their last wait: a thread that
 * waits again keeps its record (its samples go on), the one that waited least recently
 * makes room. Checked against a plain list over a long run of many threads, some of them
 * often, some once in a while, with pids and tids that collide in the index. */
static void test_model_thread_table(void)
{
	static struct cpw_waits w;
	enum { SPAN = CPW_WAIT_THREADS_MAX * 3, ADDS = 40000 };
	struct ref {
		pid_t pid, tid;
		unsigned samples;
	} ref[CPW_WAIT_THREADS_MAX] = { { 0, 0, 0 } }; /* ref[0] is the oldest */
	size_t nref = 0;
	unsigned rnd = 12345;

	cpw_waits_init(&w);
	for (int a = 0; a < ADDS; a++) {
		rnd = rnd * 1103515245u + 12345u;
		unsigned x = (rnd >> 8) % SPAN;
		/* Half the adds go to a tenth of the threads: they stay in the table. */
		if ((rnd >> 4) & 1)
			x %= SPAN / 10;
		pid_t pid = (pid_t)(10 + (x % 7) * 512), tid = (pid_t)(pid + (pid_t)(x / 7) * 512);
		add_thread_wait(&w, pid, tid, 7, CPW_WAIT_OTHER, "", false);
		size_t i = 0;
		while (i < nref && !(ref[i].pid == pid && ref[i].tid == tid))
			i++;
		struct ref r = { pid, tid, 1 };
		if (i < nref)
			r.samples = ref[i].samples + 1;
		else if (nref == CPW_WAIT_THREADS_MAX)
			i = 0; /* the oldest goes */
		else
			i = nref++;
		memmove(&ref[i], &ref[i + 1], (nref - 1 - i) * sizeof(ref[0]));
		ref[nref - 1] = r;
		if (a % 97 != 0 && a != ADDS - 1)
			continue;
		CU_ASSERT_EQUAL_FATAL(w.nthreads, nref);
		for (size_t k = 0; k < nref; k++) {
			size_t j = 0;
			while (j < w.nthreads && !(w.threads[j].pid == ref[k].pid && w.threads[j].tid == ref[k].tid))
				j++;
			CU_ASSERT_FATAL(j < w.nthreads);
			CU_ASSERT_EQUAL_FATAL(w.threads[j].samples, ref[k].samples);
		}
	}
	CU_ASSERT_DOUBLE_EQUAL(w.seconds[CPW_WAIT_OTHER], ADDS * 0.1, 1e-6);
}

/* The metrics the classifier reads: dominant kind, its target, the files, the pipeline. */
static void test_metrics_from_waits(void)
{
	struct cpw_waits w;
	struct cpw_metrics m;
	struct cpw_tree *t = cpw_tree_new(false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* xz: 4 s of CPU in its 4 s of life; wc waits on the pipe it feeds. */
	cpw_tree_record_exit(t, 20, 1, "xz", 3.9, 0.1, 0, 0, 1024, 4.0);
	cpw_tree_record_exit(t, 21, 1, "wc", 0.0, 0.01, 0, 0, 512, 4.0);
	cpw_waits_init(&w);
	add_wait(&w, 21, "wc", CPW_WAIT_PIPE, "pipe from xz (pid 20)", 20, 3.5);
	add_wait(&w, 20, "xz", CPW_WAIT_DISK, "/data/in.tar", 0, 0.25);
	add_wait(&w, 20, "xz", CPW_WAIT_DISK, "/data/other", 0, 0.125);
	add_wait(&w, 1, "sh", CPW_WAIT_CHILD, "", 0, 4.0);
	cpw_metrics_init(&m);
	CU_ASSERT_TRUE(isnan(m.pipe_wait_s));
	cpw_metrics_from_waits(&m, &w, t);
	CU_ASSERT_STRING_EQUAL(m.wait_kind, "pipe");
	CU_ASSERT_DOUBLE_EQUAL(m.wait_kind_share, 3.5 / 3.875, 1e-9);
	CU_ASSERT_STRING_EQUAL(m.wait_target, "pipe from xz (pid 20)");
	CU_ASSERT_DOUBLE_EQUAL(m.wait_child_share, 4.0 / 7.875, 1e-9);
	CU_ASSERT_STRING_EQUAL(m.io_file, "/data/in.tar");
	CU_ASSERT_EQUAL(m.io_files_more, 1);
	CU_ASSERT_EQUAL(m.pipe_waiter_pid, 21);
	CU_ASSERT_EQUAL(m.pipe_feeder_pid, 20);
	CU_ASSERT_STRING_EQUAL(m.pipe_feeder_comm, "xz");
	CU_ASSERT_STRING_EQUAL(m.pipe_feeder_wait_kind, "disk");
	CU_ASSERT_DOUBLE_EQUAL(m.pipe_wait_s, 3.5, 1e-9);
	/* Nothing waited: everything stays unknown. */
	cpw_waits_init(&w);
	cpw_metrics_init(&m);
	cpw_metrics_from_waits(&m, &w, t);
	CU_ASSERT_STRING_EQUAL(m.wait_kind, "");
	CU_ASSERT_TRUE(isnan(m.wait_kind_share));
	cpw_tree_free(t);
}

#if defined(__x86_64__)
static struct cpw_wait probe(struct cpw_wait_probe *wp, pid_t pid, pid_t tid, char state)
{
	struct cpw_wait w;
	CU_ASSERT_EQUAL(cpw_wait_probe_thread(wp, pid, tid, state, NULL, &w), 0);
	return w;
}

static void test_probe_fixture(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wp);
	const pid_t tree[] = { 100, 200, 300, 400 };
	cpw_wait_probe_begin_sample(wp, tree, 4);
	struct cpw_wait w;

	w = probe(wp, 100, 100, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_STRING_EQUAL(w.syscall, "recvfrom");
	CU_ASSERT_STRING_EQUAL(w.target, "TCP 127.0.0.1:8080");
	CU_ASSERT_STRING_EQUAL(w.wchan, ""); /* the call told: not read */
	w = probe(wp, 100, 101, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_LOCK);
	w = probe(wp, 100, 102, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_TIMER);
	w = probe(wp, 100, 103, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_CHILD);
	w = probe(wp, 100, 104, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_EVENT_LOOP);
	CU_ASSERT_STRING_EQUAL(w.target, "epoll on 2 fds");
	/* The socket vanished: the fd link is there, no table has its inode. */
	w = probe(wp, 100, 105, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_STRING_EQUAL(w.target, "socket:[9999] (not in /proc/net)");
	/* A path with a newline comes back raw; writers escape it. */
	w = probe(wp, 100, 106, 'D');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_DISK);
	CU_ASSERT_STRING_EQUAL(w.target, "/data/evil\nname");
	CU_ASSERT_STRING_EQUAL(w.wchan, "folio_wait_bit_common");
	w = probe(wp, 100, 107, 'D');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_PAGE_IN);
	CU_ASSERT_EQUAL(w.syscall_nr, CPW_SYSCALL_NONE);
	/* No syscall file: the kind from the wait channel, and why. */
	w = probe(wp, 100, 108, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_EQUAL(w.detail, CPW_WAIT_DETAIL_NO_SYSCALL);
	CU_ASSERT_EQUAL(w.syscall_nr, CPW_SYSCALL_UNREAD);
	w = probe(wp, 100, 109, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_TERMINAL);
	CU_ASSERT_STRING_EQUAL(w.target, "/dev/pts/3");
	w = probe(wp, 100, 110, 'S');
	CU_ASSERT_STRING_EQUAL(w.target, "TCP [::1]:5432");
	w = probe(wp, 100, 111, 'S');
	CU_ASSERT_STRING_EQUAL(w.target, "TCP listening on 0.0.0.0:8080");
	w = probe(wp, 100, 112, 'S');
	CU_ASSERT_STRING_EQUAL(w.target, "unix /run/app.sock");
	CU_ASSERT_EQUAL(cpw_wait_probe_thread(wp, 100, 113, 'S', NULL, &w), -EAGAIN);
	CU_ASSERT_EQUAL(cpw_wait_probe_thread(wp, 100, 999, 'S', NULL, &w), -ESRCH);
	/* "running" from a thread that blocks and wakes too fast to be caught (short O_DIRECT
	 * reads): its wait channel says it is blocked; the call is unknown, to be retried. */
	w = probe(wp, 100, 114, 'D');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_DISK);
	CU_ASSERT_EQUAL(w.syscall_nr, CPW_SYSCALL_UNREAD);
	CU_ASSERT_TRUE(w.retry);
	/* A pipe: the other end is xz, another process of the tree. */
	w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_PIPE);
	CU_ASSERT_EQUAL(w.peer_pid, 300);
	CU_ASSERT_STRING_EQUAL(w.target, "pipe from xz (pid 300)");
	w = probe(wp, 400, 400, 'D');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_DISK);
	CU_ASSERT_STRING_EQUAL(w.syscall, "fsync");
	CU_ASSERT_STRING_EQUAL(w.target, "/var/lib/db file");

	const struct cpw_wait_probe_stats *s = cpw_wait_probe_stats(wp);
	CU_ASSERT_EQUAL(s->no_syscall, 1);
	CU_ASSERT_EQUAL(s->samples_over_budget, 0);
	cpw_wait_probe_free(wp);
}

/* Sockets and pipes resolved once are cached by (pid, fd, inode): a thread still blocked
 * on them next sample costs its fd link, not the tables or the tree's fds again. */
static void test_probe_cache(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t tree[] = { 100, 200, 300, 400 };
	cpw_wait_probe_begin_sample(wp, tree, 4);
	probe(wp, 100, 100, 'S');
	probe(wp, 200, 200, 'S');
	uint64_t first = cpw_wait_probe_stats(wp)->reads;
	cpw_wait_probe_begin_sample(wp, tree, 4);
	struct cpw_wait a = probe(wp, 100, 100, 'S');
	struct cpw_wait b = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(cpw_wait_probe_stats(wp)->reads - first, 2); /* two fd links */
	CU_ASSERT_STRING_EQUAL(a.target, "TCP 127.0.0.1:8080");
	CU_ASSERT_STRING_EQUAL(b.target, "pipe from xz (pid 300)");
	CU_ASSERT_EQUAL(b.peer_pid, 300);
	cpw_wait_probe_free(wp);
}

/* A pipe whose other end no process of the tree holds: searched once per tree, not again
 * each sample while the tree stays the same; searched again when it changes. */
static void test_probe_pipe_without_peer(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t without_xz[] = { 100, 200, 400 }, with_xz[] = { 100, 200, 300, 400 };
	cpw_wait_probe_begin_sample(wp, without_xz, 3);
	struct cpw_wait w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_PIPE);
	CU_ASSERT_EQUAL(w.peer_pid, 0);
	CU_ASSERT_TRUE(w.retry);
	CU_ASSERT_EQUAL(strncmp(w.target, "pipe:[", 6), 0);
	uint64_t first = cpw_wait_probe_stats(wp)->reads;
	cpw_wait_probe_begin_sample(wp, without_xz, 3);
	w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(cpw_wait_probe_stats(wp)->reads - first, 1); /* its fd link only */
	CU_ASSERT_EQUAL(strncmp(w.target, "pipe:[", 6), 0);
	cpw_wait_probe_begin_sample(wp, with_xz, 4);
	w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(w.peer_pid, 300);
	CU_ASSERT_STRING_EQUAL(w.target, "pipe from xz (pid 300)");
	cpw_wait_probe_free(wp);
}

/* A child listed during the sample (a pool's workers, started with the threads that wait on
 * their pipes) is searched at once: the first probe names the other end, where it found
 * none and searched again at the next sample. Added twice, it is searched once. */
static void test_probe_pipe_peer_found_this_sample(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t last_sample[] = { 100, 200, 400 };
	cpw_wait_probe_begin_sample(wp, last_sample, 3);
	cpw_wait_probe_add_process(wp, 300);
	cpw_wait_probe_add_process(wp, 300);
	struct cpw_wait w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(w.peer_pid, 300);
	CU_ASSERT_STRING_EQUAL(w.target, "pipe from xz (pid 300)");
	CU_ASSERT_FALSE(w.retry);
	/* The next sample's tree has it: the answer is the cache's, one read (the fd's link). */
	const pid_t now[] = { 100, 200, 300, 400 };
	cpw_wait_probe_begin_sample(wp, now, 4);
	uint64_t before = cpw_wait_probe_stats(wp)->reads;
	w = probe(wp, 200, 200, 'S');
	CU_ASSERT_EQUAL(cpw_wait_probe_stats(wp)->reads - before, 1);
	CU_ASSERT_EQUAL(w.peer_pid, 300);
	cpw_wait_probe_free(wp);
}

/* A process in another network namespace (a container's, watched from the host): its
 * socket is looked up in its own /proc/PID/net, where the same inode number names another
 * connection; a process without one of its own reads /proc/net. */
static void test_probe_other_netns(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t tree[] = { 100, 500 };
	cpw_wait_probe_begin_sample(wp, tree, 2);
	struct cpw_wait w = probe(wp, 100, 100, 'S');
	CU_ASSERT_STRING_EQUAL(w.target, "TCP 127.0.0.1:8080");
	w = probe(wp, 500, 500, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_STRING_EQUAL(w.target, "TCP 10.0.0.10:5432");
	cpw_wait_probe_free(wp);
}

/* A wait channel the caller read already (a thread in D) is used, not read again. */
static void test_probe_given_wchan(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	struct cpw_wait w;
	cpw_wait_probe_begin_sample(wp, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(cpw_wait_probe_thread(wp, 100, 106, 'D', "io_schedule\n", &w), 0);
	CU_ASSERT_STRING_EQUAL(w.wchan, "io_schedule"); /* the file holds folio_wait_bit_common */
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_DISK);
	cpw_wait_probe_free(wp);
}

/* The test's memory of fixture process 100: a pollfd array at 0x1000 (fd 3), select's read
 * set at 0x2000 (fds 0 and 10); 0x3000 is denied, as without ptrace rights. */
static int mem_reads;
static long fixture_mem(void *ctx, pid_t pid, const struct iovec *local, const struct iovec *remote,
			unsigned long n)
{
	long total = 0;
	(void)ctx;
	mem_reads++;
	if (pid != 100)
		return -ESRCH;
	for (unsigned long i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)remote[i].iov_base;
		unsigned char *to = local[i].iov_base;
		memset(to, 0, local[i].iov_len);
		if (at == 0x1000 && local[i].iov_len >= 8) {
			put_pollfd(to, 3, 0x1);
		} else if (at == 0x2000 && local[i].iov_len >= sizeof(unsigned long)) {
			unsigned long set = 1ul | 1ul << 10;
			memcpy(to, &set, sizeof(set));
		} else {
			return -EPERM;
		}
		total += (long)local[i].iov_len;
	}
	return total;
}

static void test_probe_poll(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t tree[] = { 100 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(wp);
	cpw_wait_probe_set_mem_reader(wp, fixture_mem, NULL);
	cpw_wait_probe_begin_sample(wp, tree, 1);
	mem_reads = 0;
	/* poll on one socket (a read with a timeout): the network, its peer. */
	struct cpw_wait w = probe(wp, 100, 115, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_STRING_EQUAL(w.syscall, "poll");
	CU_ASSERT_STRING_EQUAL(w.target, "TCP 127.0.0.1:8080");
	CU_ASSERT_EQUAL(w.polled, 1);
	CU_ASSERT_EQUAL(mem_reads, 1);
	/* ppoll on 20 fds: an event loop, its array not even read. */
	w = probe(wp, 100, 116, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_EVENT_LOOP);
	CU_ASSERT_STRING_EQUAL(w.target, "poll on 20 fds");
	CU_ASSERT_EQUAL(w.polled, 20);
	CU_ASSERT_EQUAL(mem_reads, 1);
	/* select on a terminal and a socket: the socket tells more. */
	w = probe(wp, 100, 117, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_STRING_EQUAL(w.target, "unix /run/app.sock and 1 other fd");
	CU_ASSERT_EQUAL(w.polled, 2);
	CU_ASSERT_EQUAL(w.peer_pid, 0);
	/* Denied: an event loop as before, and counted for the note. */
	w = probe(wp, 100, 118, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_EVENT_LOOP);
	CU_ASSERT_EQUAL(w.polled, 0);
	CU_ASSERT_EQUAL(cpw_wait_probe_stats(wp)->poll_denied, 1);
	/* Each probe has its own number. */
	struct cpw_wait again = probe(wp, 100, 115, 'S');
	CU_ASSERT_TRUE(again.seq > w.seq);
	CU_ASSERT_EQUAL(again.tid, 115);
	/* The default reader reads no memory under a proc root that is not /proc. */
	cpw_wait_probe_set_mem_reader(wp, NULL, NULL);
	w = probe(wp, 100, 115, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_EVENT_LOOP);
	cpw_wait_probe_free(wp);
}

/* A pipe the waiting process holds both ends of is a queue: named, with no feeder. */
static void test_probe_queue(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 0);
	const pid_t tree[] = { 600, 700 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(wp);
	cpw_wait_probe_begin_sample(wp, tree, 2);
	struct cpw_wait w = probe(wp, 600, 601, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_PIPE);
	CU_ASSERT_TRUE(w.queue);
	CU_ASSERT_EQUAL(w.peer_pid, 0);
	CU_ASSERT_STRING_EQUAL(w.target, "pipe queue from worker (pid 700)");
	CU_ASSERT_FALSE(w.retry);
	/* Cached: the next probe costs its fd link. */
	uint64_t first = cpw_wait_probe_stats(wp)->reads;
	cpw_wait_probe_begin_sample(wp, tree, 2);
	w = probe(wp, 600, 601, 'S');
	CU_ASSERT_EQUAL(cpw_wait_probe_stats(wp)->reads - first, 1);
	CU_ASSERT_TRUE(w.queue);
	CU_ASSERT_EQUAL(w.peer_pid, 0);
	/* Without the worker in the tree: still a queue, not named until the tree changes. */
	struct cpw_wait_probe *alone = cpw_wait_probe_new(ROOT, 0);
	cpw_wait_probe_begin_sample(alone, tree, 1);
	w = probe(alone, 600, 601, 'S');
	CU_ASSERT_TRUE(w.queue);
	CU_ASSERT_STRING_EQUAL(w.target, "pipe queue:[7000]");
	cpw_wait_probe_begin_sample(alone, tree, 2);
	w = probe(alone, 600, 601, 'S');
	CU_ASSERT_STRING_EQUAL(w.target, "pipe queue from worker (pid 700)");
	cpw_wait_probe_free(alone);
	cpw_wait_probe_free(wp);
}

/* Past the budget the kind is still named; the target is not, and the stats say so. */
static void test_probe_budget(void)
{
	struct cpw_wait_probe *wp = cpw_wait_probe_new(ROOT, 1);
	cpw_wait_probe_begin_sample(wp, NULL, 0);
	struct cpw_wait w = probe(wp, 100, 100, 'S');
	CU_ASSERT_EQUAL(w.kind, CPW_WAIT_NETWORK);
	CU_ASSERT_EQUAL(w.detail, CPW_WAIT_DETAIL_OVER_BUDGET);
	w = probe(wp, 100, 101, 'S'); /* futex: nothing to resolve, nothing spent */
	CU_ASSERT_EQUAL(w.detail, CPW_WAIT_DETAIL_OK);
	const struct cpw_wait_probe_stats *s = cpw_wait_probe_stats(wp);
	CU_ASSERT_EQUAL(s->samples_over_budget, 1);
	CU_ASSERT_EQUAL(s->over_budget, 1);
	CU_ASSERT_EQUAL(s->budget, 1);
	cpw_wait_probe_begin_sample(wp, NULL, 0);
	w = probe(wp, 100, 109, 'S');
	CU_ASSERT_EQUAL(w.detail, CPW_WAIT_DETAIL_OK); /* a fresh budget */
	cpw_wait_probe_free(wp);
}
#endif

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("waits", NULL, NULL);
	CU_add_test(s, "parse syscall file", test_parse_syscall);
	CU_add_test(s, "poll and select arguments", test_poll_args);
	CU_add_test(s, "pollfd arrays", test_parse_pollfds);
	CU_add_test(s, "select's fd sets", test_parse_fdsets);
	CU_add_test(s, "fdinfo flags", test_fdinfo_flags);
	CU_add_test(s, "idle by design", test_model_idle);
	CU_add_test(s, "a GPU driver's helper threads are idle by design", test_model_driver_helper);
	CU_add_test(s, "a helper's waits counted apart", test_model_helper_seconds);
	CU_add_test(s, "tcp table by inode", test_net_tcp);
	CU_add_test(s, "tcp6, udp, unix tables", test_net_tcp6_udp_unix);
	CU_add_test(s, "fd link types", test_fd_link_type);
	CU_add_test(s, "wait kinds", test_classify);
	CU_add_test(s, "thread-seconds per kind, target, process", test_model_waits);
	CU_add_test(s, "metrics from waits", test_metrics_from_waits);
	CU_add_test(s, "the table of threads keeps the latest waiters", test_model_thread_table);
	CU_add_test(s, "a pool of 1,000 helpers on their locks: each idle by design", test_model_big_idle_pool);
#if defined(__x86_64__)
	CU_add_test(s, "probe on fixture /proc", test_probe_fixture);
	CU_add_test(s, "probe reads a poll's few fds", test_probe_poll);
	CU_add_test(s, "probe tells a pipe queue", test_probe_queue);
	CU_add_test(s, "probe caches targets", test_probe_cache);
	CU_add_test(s, "probe budget", test_probe_budget);
	CU_add_test(s, "probe searches a pipe without a peer once per tree", test_probe_pipe_without_peer);
	CU_add_test(s, "probe searches a child listed during the sample", test_probe_pipe_peer_found_this_sample);
	CU_add_test(s, "probe uses a wait channel already read", test_probe_given_wchan);
	CU_add_test(s, "probe reads a socket's table in its own network namespace", test_probe_other_netns);
#endif
	return cpw_cunit_run_tap();
}
