/*
 * taskstats_parse.c: turn a generic netlink datagram of the TASKSTATS family into records.
 *
 * Layout: nlmsghdr, genlmsghdr (cmd TASKSTATS_CMD_NEW), then attributes; a record is a nest
 * TASKSTATS_TYPE_AGGR_PID { TYPE_PID u32, TYPE_STATS struct taskstats } or AGGR_TGID with
 * TYPE_TGID. Pure and bounds-checked everywhere: it is a fuzz target.
 */
#include "config.h"
#include "source/kernel/taskstats.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <string.h>

/* Copies the kernel's struct taskstats (any version) into rec. */
static void fill_stats(const unsigned char *p, size_t len, struct cpw_taskstats_rec *rec)
{
	struct taskstats t;
	memset(&t, 0, sizeof t);
	/* The kernel's struct may be newer (larger) or older (smaller) than our header's. */
	memcpy(&t, p, len < sizeof t ? len : sizeof t);
	rec->version = t.version;
	rec->pid = t.ac_pid;
	rec->ppid = t.ac_ppid;
	rec->tgid = t.version >= 12 ? t.ac_tgid : 0;
	_Static_assert(sizeof rec->comm > sizeof t.ac_comm, "comm must fit with its NUL");
	memcpy(rec->comm, t.ac_comm, sizeof t.ac_comm);
	rec->comm[sizeof t.ac_comm] = '\0';
	rec->exitcode = t.ac_exitcode;
	rec->flags = t.ac_flag;
	rec->btime = t.version >= 10 && t.ac_btime64 ? t.ac_btime64 : t.ac_btime;
	rec->etime_us = t.ac_etime;
	rec->utime_us = t.ac_utime;
	rec->stime_us = t.ac_stime;
	rec->minflt = t.ac_minflt;
	rec->majflt = t.ac_majflt;
	rec->hiwater_rss_kib = t.hiwater_rss;
	rec->hiwater_vm_kib = t.hiwater_vm;
	rec->read_bytes = t.read_bytes;
	rec->write_bytes = t.write_bytes;
	rec->cancelled_write_bytes = t.cancelled_write_bytes;
	rec->read_char = t.read_char;
	rec->write_char = t.write_char;
	rec->nvcsw = t.nvcsw;
	rec->nivcsw = t.nivcsw;
	rec->cpu_count = t.cpu_count;
	rec->cpu_delay_total_ns = t.cpu_delay_total;
	rec->cpu_run_real_total_ns = t.cpu_run_real_total;
	rec->cpu_run_virtual_total_ns = t.cpu_run_virtual_total;
	rec->blkio_count = t.blkio_count;
	rec->blkio_delay_total_ns = t.blkio_delay_total;
	rec->swapin_count = t.swapin_count;
	rec->swapin_delay_total_ns = t.swapin_delay_total;
	rec->freepages_count = t.freepages_count;
	rec->freepages_delay_total_ns = t.freepages_delay_total;
	rec->thrashing_count = t.thrashing_count;
	rec->thrashing_delay_total_ns = t.thrashing_delay_total;
	rec->compact_count = t.compact_count;
	rec->compact_delay_total_ns = t.compact_delay_total;
}

/* One netlink attribute inside a buffer. */
struct attr { unsigned type; const unsigned char *data; size_t len; };

/* Steps to the next attribute in [*p, end): 1 with *a, 0 at the end, -EBADMSG when one
 * overruns the buffer. */
static int next_attr(const unsigned char **p, const unsigned char *end, struct attr *a)
{
	if ((size_t)(end - *p) < NLA_HDRLEN)
		return 0;
	struct nlattr nla;
	memcpy(&nla, *p, sizeof nla);
	if (nla.nla_len < NLA_HDRLEN || nla.nla_len > (size_t)(end - *p))
		return -EBADMSG;
	a->type = nla.nla_type & NLA_TYPE_MASK;
	a->data = *p + NLA_HDRLEN;
	a->len = nla.nla_len - NLA_HDRLEN;
	size_t step = NLA_ALIGN(nla.nla_len);
	*p = step > (size_t)(end - *p) ? end : *p + step;
	return 1;
}

/* One AGGR nest: fills rec; returns 1 when it held stats, 0 if not, -EBADMSG. */
static int parse_aggr(const unsigned char *p, size_t len, bool is_tgid,
		      struct cpw_taskstats_rec *rec)
{
	const unsigned char *end = p + len;
	struct attr a;
	int r, have_stats = 0;
	memset(rec, 0, sizeof *rec);
	rec->is_tgid = is_tgid;
	while ((r = next_attr(&p, end, &a)) > 0) {
		if ((a.type == TASKSTATS_TYPE_PID || a.type == TASKSTATS_TYPE_TGID) && a.len >= 4) {
			uint32_t id;
			memcpy(&id, a.data, sizeof id);
			rec->id = id;
		} else if (a.type == TASKSTATS_TYPE_STATS) {
			fill_stats(a.data, a.len, rec);
			have_stats = 1;
		}
	}
	return r < 0 ? r : have_stats;
}

int cpw_taskstats_parse(const void *buf, size_t len, struct cpw_taskstats_rec *recs, size_t max)
{
	const unsigned char *msg = buf;
	const unsigned char *end = msg + len;
	int found = 0;
	while ((size_t)(end - msg) >= NLMSG_HDRLEN) {
		struct nlmsghdr nh;
		memcpy(&nh, msg, sizeof nh);
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > (size_t)(end - msg))
			return -EBADMSG;
		const unsigned char *payload = msg + NLMSG_HDRLEN;
		size_t plen = nh.nlmsg_len - NLMSG_HDRLEN;
		if (nh.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;
			if (plen < sizeof e.error)
				return -EBADMSG;
			memcpy(&e.error, payload, sizeof e.error);
			/* error 0 is an ACK; a failure ends the datagram. Only -4095..-1 are
			 * errnos: anything else is a broken message. */
			if (e.error < -4095)
				return -EBADMSG;
			if (e.error < 0)
				return e.error;
		} else if (nh.nlmsg_type >= NLMSG_MIN_TYPE && plen >= GENL_HDRLEN) {
			struct genlmsghdr gh;
			memcpy(&gh, payload, sizeof gh);
			if (gh.cmd == TASKSTATS_CMD_NEW) {
				const unsigned char *p = payload + GENL_HDRLEN;
				const unsigned char *pend = payload + plen;
				struct attr a;
				int r;
				while ((r = next_attr(&p, pend, &a)) > 0) {
					if (a.type != TASKSTATS_TYPE_AGGR_PID &&
					    a.type != TASKSTATS_TYPE_AGGR_TGID)
						continue;
					struct cpw_taskstats_rec rec;
					int got = parse_aggr(a.data, a.len,
							     a.type == TASKSTATS_TYPE_AGGR_TGID, &rec);
					if (got < 0)
						return got;
					if (got) {
						if ((size_t)found < max)
							recs[found] = rec;
						found++;
					}
				}
				if (r < 0)
					return r;
			}
		}
		size_t step = NLMSG_ALIGN(nh.nlmsg_len);
		msg = step > (size_t)(end - msg) ? end : msg + step;
	}
	return found;
}

void cpw_taskstats_cpu(const struct cpw_taskstats_rec *r, double *user_s, double *sys_s)
{
	double user = (double)r->utime_us / 1e6, sys = (double)r->stime_us / 1e6;
	double exact = (double)r->cpu_run_virtual_total_ns / 1e9;
	if (exact > 0) {
		if (sys == 0) { /* no system tick (or none at all): all user */
			user = exact;
		} else if (user == 0) {
			sys = exact;
		} else {
			sys = exact * sys / (user + sys);
			user = exact - sys;
		}
	}
	*user_s = user;
	*sys_s = sys;
}
