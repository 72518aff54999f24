/*
 * test_taskstats.c: the taskstats reply parser on hand-built netlink datagrams (kernel
 * structs newer and older than our header, two records, errors, malformed input, random
 * bytes), and the delay accounting switch from fixture proc roots. Talking to the kernel is
 * tests/unit/test_kernel_live.c's job.
 */
#include "config.h"
#include "source/kernel/taskstats.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A datagram under construction. */
struct dgram {
	unsigned char buf[8192];
	size_t len;
	size_t msg_start;
};

static void put(struct dgram *d, const void *data, size_t len)
{
	memcpy(d->buf + d->len, data, len);
	d->len += len;
	while (d->len % 4)
		d->buf[d->len++] = 0;
}

static void begin_msg(struct dgram *d, uint16_t type, uint8_t cmd)
{
	d->msg_start = d->len;
	struct nlmsghdr nh = { .nlmsg_type = type };
	struct genlmsghdr gh = { .cmd = cmd, .version = 1 };
	put(d, &nh, sizeof nh);
	put(d, &gh, sizeof gh);
}

static void end_msg(struct dgram *d)
{
	uint32_t len = (uint32_t)(d->len - d->msg_start);
	memcpy(d->buf + d->msg_start, &len, sizeof len);
}

/* Starts a nest; returns its offset for end_nest. */
static size_t begin_attr(struct dgram *d, uint16_t type)
{
	size_t at = d->len;
	struct nlattr nla = { .nla_type = type };
	put(d, &nla, sizeof nla);
	return at;
}

static void end_attr(struct dgram *d, size_t at, size_t unpadded_end)
{
	uint16_t len = (uint16_t)(unpadded_end - at);
	memcpy(d->buf + at, &len, sizeof len);
}

static void put_attr(struct dgram *d, uint16_t type, const void *data, size_t len)
{
	size_t at = begin_attr(d, type);
	memcpy(d->buf + d->len, data, len);
	size_t end = d->len + len;
	d->len = end;
	while (d->len % 4)
		d->buf[d->len++] = 0;
	end_attr(d, at, end);
}

/* One AGGR_PID (or AGGR_TGID) record whose stats payload is stats_len bytes of t (padded
 * with 0xAA beyond our struct, as a newer kernel's unknown fields). */
static void put_record(struct dgram *d, bool tgid, uint32_t id, const struct taskstats *t,
		       size_t stats_len)
{
	unsigned char stats[1024];
	memset(stats, 0xAA, sizeof stats);
	memcpy(stats, t, stats_len < sizeof *t ? stats_len : sizeof *t);
	size_t nest = begin_attr(d, tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID);
	put_attr(d, tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID, &id, sizeof id);
	put_attr(d, TASKSTATS_TYPE_STATS, stats, stats_len);
	end_attr(d, nest, d->len);
}

static void sample_stats(struct taskstats *t, uint16_t version)
{
	memset(t, 0, sizeof *t);
	t->version = version;
	t->ac_pid = 1234;
	t->ac_ppid = 1;
	t->ac_tgid = 1230;
	memcpy(t->ac_comm, "spin", 5);
	t->ac_utime = 1500000;
	t->ac_stime = 250000;
	t->ac_minflt = 100;
	t->ac_majflt = 3;
	t->hiwater_rss = 20480;
	t->read_bytes = 4096;
	t->write_bytes = 8192;
	t->cpu_delay_total = 777000;
	t->blkio_delay_total = 5000000;
	t->swapin_delay_total = 6;
	t->freepages_delay_total = 7;
	t->thrashing_delay_total = 8000;
	t->ac_btime = 1700000000;
	t->ac_btime64 = 1700000000;
}

static void test_newer_kernel_struct(void)
{
	struct dgram d = { .len = 0 };
	struct taskstats t;
	sample_stats(&t, 16);
	begin_msg(&d, 0x1a, TASKSTATS_CMD_NEW);
	put_record(&d, false, 1234, &t, sizeof t + 64); /* v16 is larger than our header's */
	end_msg(&d);
	struct cpw_taskstats_rec r[2];
	CU_ASSERT_EQUAL_FATAL(cpw_taskstats_parse(d.buf, d.len, r, 2), 1);
	CU_ASSERT_FALSE(r[0].is_tgid);
	CU_ASSERT_EQUAL(r[0].id, 1234);
	CU_ASSERT_EQUAL(r[0].version, 16);
	CU_ASSERT_EQUAL(r[0].pid, 1234);
	CU_ASSERT_EQUAL(r[0].ppid, 1);
	CU_ASSERT_EQUAL(r[0].tgid, 1230);
	CU_ASSERT_STRING_EQUAL(r[0].comm, "spin");
	CU_ASSERT_EQUAL(r[0].utime_us, 1500000);
	CU_ASSERT_EQUAL(r[0].stime_us, 250000);
	CU_ASSERT_EQUAL(r[0].minflt, 100);
	CU_ASSERT_EQUAL(r[0].majflt, 3);
	CU_ASSERT_EQUAL(r[0].hiwater_rss_kib, 20480);
	CU_ASSERT_EQUAL(r[0].read_bytes, 4096);
	CU_ASSERT_EQUAL(r[0].write_bytes, 8192);
	CU_ASSERT_EQUAL(r[0].cpu_delay_total_ns, 777000);
	CU_ASSERT_EQUAL(r[0].blkio_delay_total_ns, 5000000);
	CU_ASSERT_EQUAL(r[0].swapin_delay_total_ns, 6);
	CU_ASSERT_EQUAL(r[0].freepages_delay_total_ns, 7);
	CU_ASSERT_EQUAL(r[0].thrashing_delay_total_ns, 8000);
	CU_ASSERT_EQUAL(r[0].btime, 1700000000);
}

static void test_older_kernel_struct(void)
{
	/* A version 8 kernel ends before thrashing_count: those fields must read 0, not the
	 * bytes that follow in the buffer. */
	struct dgram d = { .len = 0 };
	struct taskstats t;
	sample_stats(&t, 8);
	begin_msg(&d, 0x1a, TASKSTATS_CMD_NEW);
	put_record(&d, false, 1234, &t, offsetof(struct taskstats, thrashing_count));
	put_attr(&d, TASKSTATS_TYPE_NULL, "\xff\xff\xff\xff", 4);
	end_msg(&d);
	struct cpw_taskstats_rec r;
	CU_ASSERT_EQUAL_FATAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), 1);
	CU_ASSERT_EQUAL(r.freepages_delay_total_ns, 7);
	CU_ASSERT_EQUAL(r.thrashing_delay_total_ns, 0);
	CU_ASSERT_EQUAL(r.tgid, 0); /* ac_tgid is version 12+ */
}

static void test_pid_and_tgid_records(void)
{
	struct dgram d = { .len = 0 };
	struct taskstats t;
	sample_stats(&t, 16);
	begin_msg(&d, 0x1a, TASKSTATS_CMD_NEW);
	put_record(&d, false, 1234, &t, sizeof t);
	t.ac_utime = 9;
	put_record(&d, true, 1230, &t, sizeof t);
	end_msg(&d);
	/* A second message in the same datagram. */
	begin_msg(&d, 0x1a, TASKSTATS_CMD_NEW);
	put_record(&d, false, 99, &t, sizeof t);
	end_msg(&d);
	struct cpw_taskstats_rec r[3];
	CU_ASSERT_EQUAL_FATAL(cpw_taskstats_parse(d.buf, d.len, r, 3), 3);
	CU_ASSERT_FALSE(r[0].is_tgid);
	CU_ASSERT_TRUE(r[1].is_tgid);
	CU_ASSERT_EQUAL(r[1].id, 1230);
	CU_ASSERT_EQUAL(r[1].utime_us, 9);
	CU_ASSERT_EQUAL(r[2].id, 99);
	/* Room for one: all are counted, one is stored. */
	memset(r, 0, sizeof r);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, r, 1), 3);
	CU_ASSERT_EQUAL(r[0].id, 1234);
	CU_ASSERT_EQUAL(r[1].id, 0);
}

static void put_error(struct dgram *d, int error)
{
	struct nlmsghdr nh = { .nlmsg_type = NLMSG_ERROR };
	struct nlmsgerr e = { .error = error };
	nh.nlmsg_len = (uint32_t)(sizeof nh + sizeof e);
	put(d, &nh, sizeof nh);
	put(d, &e, sizeof e);
}

static void test_errors(void)
{
	struct dgram d = { .len = 0 };
	struct cpw_taskstats_rec r;
	put_error(&d, -EPERM);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), -EPERM);
	d.len = 0;
	put_error(&d, 0); /* an ACK */
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), 0);
	/* Other commands and control messages carry no record. */
	d.len = 0;
	begin_msg(&d, 0x1a, TASKSTATS_CMD_GET);
	end_msg(&d);
	struct nlmsghdr done = { .nlmsg_len = sizeof done, .nlmsg_type = NLMSG_DONE };
	put(&d, &done, sizeof done);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), 0);
}

static void test_malformed(void)
{
	struct dgram d = { .len = 0 };
	struct taskstats t;
	struct cpw_taskstats_rec r;
	sample_stats(&t, 16);
	begin_msg(&d, 0x1a, TASKSTATS_CMD_NEW);
	put_record(&d, false, 1, &t, sizeof t);
	end_msg(&d);
	/* Cut short: the message claims more than there is. */
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len - 8, &r, 1), -EBADMSG);
	/* Fewer bytes than a header: nothing. */
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, 10, &r, 1), 0);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, 0, &r, 1), 0);
	/* An attribute longer than its message. */
	uint16_t big = 0x7fff;
	memcpy(d.buf + NLMSG_HDRLEN + GENL_HDRLEN, &big, sizeof big);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), -EBADMSG);
	/* An attribute shorter than its own header. */
	uint16_t tiny = 2;
	memcpy(d.buf + NLMSG_HDRLEN + GENL_HDRLEN, &tiny, sizeof tiny);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), -EBADMSG);
	/* nlmsg_len 0 would loop forever if accepted. */
	uint32_t zero = 0;
	memcpy(d.buf, &zero, sizeof zero);
	CU_ASSERT_EQUAL(cpw_taskstats_parse(d.buf, d.len, &r, 1), -EBADMSG);
}

static void test_random_bytes(void)
{
	/* Not a proof, but with ASan any overread here fails the suite. */
	unsigned char *buf = malloc(600);
	struct cpw_taskstats_rec r[4];
	unsigned seed = 12345;
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(rand_r(&seed) % 600);
		for (size_t k = 0; k < len; k++)
			buf[k] = (unsigned char)rand_r(&seed);
		if (len >= 4) { /* keep the length plausible so the walk goes deeper */
			uint32_t l = (uint32_t)len;
			memcpy(buf, &l, sizeof l);
		}
		int n = cpw_taskstats_parse(buf, len, r, 4);
		CU_ASSERT_TRUE(n >= -4095);
	}
	free(buf);
}

static void test_delayacct(void)
{
	char why[256];
	CU_ASSERT_EQUAL(cpw_taskstats_delayacct(FIXTURES "/procroot-delayacct-on", why, sizeof why), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "=1"));
	CU_ASSERT_EQUAL(cpw_taskstats_delayacct(FIXTURES "/procroot-delayacct-off", why, sizeof why), 0);
	CU_ASSERT_STRING_EQUAL(why, "delay accounting is off: kernel.task_delayacct=0");
	CU_ASSERT_EQUAL(cpw_taskstats_delayacct(FIXTURES "/psi-absent", why, sizeof why), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "5.14"));
}

/* The CPU of a record as rusage and /proc give it: the ticks scaled to the exact time. */
static void test_cpu_time(void)
{
	struct cpw_taskstats_rec r;
	double u, s;
	memset(&r, 0, sizeof(r));
	/* 30 ms of ticks, 3/4 user, for 20 ms of CPU (it shared its CPU). */
	r.utime_us = 24000;
	r.stime_us = 8000;
	r.cpu_run_virtual_total_ns = 20000000;
	cpw_taskstats_cpu(&r, &u, &s);
	CU_ASSERT_DOUBLE_EQUAL(s, 0.005, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(u, 0.015, 1e-9);
	/* No tick landed on it (a 60 ms spin under load, seen here): all user, not 0. */
	r.utime_us = r.stime_us = 0;
	r.cpu_run_virtual_total_ns = 60000000;
	cpw_taskstats_cpu(&r, &u, &s);
	CU_ASSERT_DOUBLE_EQUAL(u, 0.06, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s, 0, 1e-12);
	/* System ticks only: all system. */
	r.stime_us = 4000;
	cpw_taskstats_cpu(&r, &u, &s);
	CU_ASSERT_DOUBLE_EQUAL(u, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s, 0.06, 1e-9);
	/* No exact time (an old kernel's record): the ticks stand. */
	r.utime_us = 12000;
	r.cpu_run_virtual_total_ns = 0;
	cpw_taskstats_cpu(&r, &u, &s);
	CU_ASSERT_DOUBLE_EQUAL(u, 0.012, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s, 0.004, 1e-9);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("taskstats", NULL, NULL);
	CU_add_test(s, "parse a newer (larger) kernel struct", test_newer_kernel_struct);
	CU_add_test(s, "parse an older (smaller) kernel struct", test_older_kernel_struct);
	CU_add_test(s, "thread and group records, two messages", test_pid_and_tgid_records);
	CU_add_test(s, "errors and ACKs", test_errors);
	CU_add_test(s, "malformed datagrams", test_malformed);
	CU_add_test(s, "random bytes", test_random_bytes);
	CU_add_test(s, "delay accounting switch", test_delayacct);
	CU_add_test(s, "the CPU time: ticks scaled to the exact time", test_cpu_time);
	return cpw_cunit_run_tap();
}
