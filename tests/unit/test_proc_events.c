/*
 * test_proc_events.c: the process events connector's parser on hand-built datagrams (each
 * kind of event, two messages in one datagram, other connectors' messages, hostile lengths,
 * random bytes), and, as root, the live connector: a child's arguments read at its exec,
 * found in its life's window and not outside it (another process that had the pid).
 */
#include "config.h"
#include "source/kernel/proc_events.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A datagram under construction. */
struct dgram {
	unsigned char buf[4096] __attribute__((aligned(8)));
	size_t len;
};

/* Appends one netlink message holding a cn_msg of idx/val whose data is ev (dlen bytes). */
static void add_msg(struct dgram *d, uint32_t idx, const void *ev, size_t dlen, uint32_t ack)
{
	struct nlmsghdr nh = { .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { .idx = idx, .val = CN_VAL_PROC }, .ack = ack, .len = (uint16_t)dlen };
	nh.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + sizeof cn + dlen);
	size_t at = d->len;
	memcpy(d->buf + at, &nh, sizeof nh);
	memcpy(d->buf + at + NLMSG_HDRLEN, &cn, sizeof cn);
	memcpy(d->buf + at + NLMSG_HDRLEN + sizeof cn, ev, dlen);
	d->len = at + NLMSG_ALIGN(nh.nlmsg_len);
}

/* An event of kind what whose data begins with the n words of data. */
static struct proc_event event_of(uint32_t what, const uint32_t *data, size_t n)
{
	struct proc_event e;
	memset(&e, 0, sizeof e);
	e.what = what;
	memcpy(&e.event_data, data, n * sizeof *data);
	return e;
}

static struct proc_event exec_event(pid_t pid, uint64_t ts)
{
	struct proc_event e = event_of(PROC_EVENT_EXEC, (uint32_t[]){ (uint32_t)pid, (uint32_t)pid }, 2);
	e.timestamp_ns = ts;
	return e;
}

static void test_each_kind(void)
{
	struct dgram d = { .len = 0 };
	struct proc_event e = exec_event(42, 123456789);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);
	/* The fields of each kind, as the kernel's union lays them out. */
	e = event_of(PROC_EVENT_FORK, (uint32_t[]){ 42, 42, 43, 43 }, 4);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);
	e = event_of(PROC_EVENT_EXIT, (uint32_t[]){ 44, 43, 256, 17 }, 4);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);
	e = event_of(PROC_EVENT_NONE, (uint32_t[]){ EPERM }, 1);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 2);
	e = event_of(PROC_EVENT_UID, (uint32_t[]){ 0 }, 1);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);

	struct cpw_proc_event ev[8];
	CU_ASSERT_EQUAL_FATAL(cpw_proc_events_parse(d.buf, d.len, ev, 8), 5);
	CU_ASSERT_EQUAL(ev[0].kind, CPW_PROC_EVENT_EXEC);
	CU_ASSERT_EQUAL(ev[0].pid, 42);
	CU_ASSERT_EQUAL(ev[0].tgid, 42);
	CU_ASSERT_EQUAL(ev[0].timestamp_ns, 123456789);
	CU_ASSERT_EQUAL(ev[1].kind, CPW_PROC_EVENT_FORK);
	CU_ASSERT_EQUAL(ev[1].pid, 43);
	CU_ASSERT_EQUAL(ev[1].parent_tgid, 42);
	CU_ASSERT_EQUAL(ev[2].kind, CPW_PROC_EVENT_EXIT);
	CU_ASSERT_EQUAL(ev[2].pid, 44);
	CU_ASSERT_EQUAL(ev[2].tgid, 43);
	CU_ASSERT_EQUAL(ev[2].code, 256);
	CU_ASSERT_EQUAL(ev[3].kind, CPW_PROC_EVENT_ACK);
	CU_ASSERT_EQUAL(ev[3].code, EPERM);
	CU_ASSERT_EQUAL(ev[3].ack, 2);
	CU_ASSERT_EQUAL(ev[4].kind, CPW_PROC_EVENT_OTHER);
	/* Room for two: two stored, the rest not written. */
	memset(ev, 0x5a, sizeof ev);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(d.buf, d.len, ev, 2), 2);
	CU_ASSERT_EQUAL(ev[1].kind, CPW_PROC_EVENT_FORK);
	CU_ASSERT_EQUAL(ev[2].pid, 0x5a5a5a5a);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(d.buf, d.len, ev, 0), 0);
}

/* Other connectors' messages, netlink's own, short events and bytes after the last
 * message are skipped, not errors. */
static void test_skipped(void)
{
	struct dgram d = { .len = 0 };
	struct proc_event e = exec_event(7, 1);
	add_msg(&d, CN_IDX_PROC + 1, &e, sizeof e, 0);       /* another connector */
	add_msg(&d, CN_IDX_PROC, &e, sizeof e - 8, 0);       /* shorter than an event */
	struct nlmsghdr err = { .nlmsg_len = NLMSG_HDRLEN + 4, .nlmsg_type = NLMSG_ERROR };
	memcpy(d.buf + d.len, &err, sizeof err);
	memset(d.buf + d.len + NLMSG_HDRLEN, 0xff, 4);
	d.len += NLMSG_ALIGN(err.nlmsg_len);
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);           /* the one event */
	d.buf[d.len] = 1;                                    /* a stray tail, shorter than a header */
	struct cpw_proc_event ev[4];
	CU_ASSERT_EQUAL_FATAL(cpw_proc_events_parse(d.buf, d.len + 3, ev, 4), 1);
	CU_ASSERT_EQUAL(ev[0].pid, 7);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(d.buf, 0, ev, 4), 0);
	/* A kernel's longer event (a newer struct) is read by its known fields. */
	struct dgram big = { .len = 0 };
	unsigned char longer[sizeof e + 32];
	memset(longer, 0, sizeof longer);
	memcpy(longer, &e, sizeof e);
	add_msg(&big, CN_IDX_PROC, longer, sizeof longer, 0);
	CU_ASSERT_EQUAL_FATAL(cpw_proc_events_parse(big.buf, big.len, ev, 4), 1);
	CU_ASSERT_EQUAL(ev[0].kind, CPW_PROC_EVENT_EXEC);
}

/* Lengths that point past the datagram or below a header: -EBADMSG, nothing read past. */
static void test_hostile(void)
{
	struct proc_event e = exec_event(9, 1);
	struct cpw_proc_event ev[4];
	struct dgram d = { .len = 0 };
	add_msg(&d, CN_IDX_PROC, &e, sizeof e, 0);
	struct nlmsghdr nh;

	/* The message says it is longer than the datagram. */
	unsigned char *copy = malloc(d.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, d.buf, d.len);
	memcpy(&nh, copy, sizeof nh);
	nh.nlmsg_len = (uint32_t)d.len + 4;
	memcpy(copy, &nh, sizeof nh);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(copy, d.len, ev, 4), -EBADMSG);
	/* Shorter than its own header (a loop that would never advance). */
	nh.nlmsg_len = 4;
	memcpy(copy, &nh, sizeof nh);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(copy, d.len, ev, 4), -EBADMSG);
	nh.nlmsg_len = 0xffffffffu;
	memcpy(copy, &nh, sizeof nh);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(copy, d.len, ev, 4), -EBADMSG);
	/* The cn_msg says its data is longer than the message. */
	memcpy(copy, d.buf, d.len);
	struct cn_msg cn;
	memcpy(&cn, copy + NLMSG_HDRLEN, sizeof cn);
	cn.len = 0xffff;
	memcpy(copy + NLMSG_HDRLEN, &cn, sizeof cn);
	CU_ASSERT_EQUAL(cpw_proc_events_parse(copy, d.len, ev, 4), -EBADMSG);
	/* Cut anywhere: never more than the one event, never a read past the end (ASan). */
	for (size_t cut = 0; cut <= d.len; cut++) {
		unsigned char *part = malloc(cut ? cut : 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(part);
		memcpy(part, d.buf, cut);
		int n = cpw_proc_events_parse(part, cut, ev, 4);
		CU_ASSERT_TRUE(n == -EBADMSG || n == 0 || (n == 1 && cut == d.len));
		free(part);
	}
	free(copy);
}

static void test_random_bytes(void)
{
	unsigned seed = 29;
	struct cpw_proc_event ev[4];
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % 200);
		unsigned char *buf = malloc(len ? len : 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		for (size_t i = 0; i < len; i++)
			buf[i] = (unsigned char)rand_r(&seed);
		if (len >= 4 && round % 2) { /* a plausible length, to get past the first check */
			uint32_t l = (uint32_t)len;
			memcpy(buf, &l, 4);
		}
		int n = cpw_proc_events_parse(buf, len, ev, 4);
		CU_ASSERT_TRUE(n == -EBADMSG || (n >= 0 && n <= 4));
		free(buf);
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* As root: a child's arguments, read at its exec by the thread; none outside its window. */
static void test_live(void)
{
	struct cpw_proc_events *pe;
	char why[256];
	if (cpw_proc_events_open(&pe, "/proc", why, sizeof why) < 0) {
		printf("# live connector not tested: %s\n", why);
		return;
	}
	cpw_proc_events_start(pe);
	cpw_proc_events_start(pe); /* once */
	uint64_t before = mono_ns();
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "sleep 0.05", "unit_marker_29", (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	uint64_t after = mono_ns();
	char args[CPW_PROC_EVENTS_ARGS_MAX] = "";
	uint64_t at = 0;
	bool found = false;
	for (int i = 0; i < 100 && !found; i++) { /* the thread may not have run yet */
		found = cpw_proc_events_args(pe, pid, before, after, args, sizeof args, &at);
		if (!found)
			usleep(10000);
	}
	CU_ASSERT_TRUE(found);
	CU_ASSERT_STRING_EQUAL(args, "sh -c sleep 0.05 unit_marker_29");
	CU_ASSERT_TRUE(at >= before && at <= after);
	/* A window after its life: the pid's later holder's, not this one's. */
	CU_ASSERT_FALSE(cpw_proc_events_args(pe, pid, after + 1, after + 1000000000u, args,
					     sizeof args, NULL));
	/* A window that ends before its exec: a holder before it. */
	CU_ASSERT_FALSE(cpw_proc_events_args(pe, pid, 0, before - 1, args, sizeof args, NULL));
	CU_ASSERT_FALSE(cpw_proc_events_args(pe, 0x7ffffff0, 0, after, args, sizeof args, NULL));
	cpw_proc_events_close(pe);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("proc_events", NULL, NULL);
	CU_add_test(s, "each kind of event, and room for fewer", test_each_kind);
	CU_add_test(s, "other messages, short events, a longer kernel struct", test_skipped);
	CU_add_test(s, "hostile lengths and cut datagrams", test_hostile);
	CU_add_test(s, "random bytes", test_random_bytes);
	CU_add_test(s, "live: a child's arguments from its exec (root; else says why)", test_live);
	return cpw_cunit_run_tap();
}
