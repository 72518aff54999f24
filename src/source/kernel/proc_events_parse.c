/*
 * proc_events_parse.c: turn a datagram of the process events connector into events.
 *
 * Layout: one or more netlink messages (nlmsghdr), each holding a struct cn_msg (its id
 * CN_IDX_PROC/CN_VAL_PROC, its len the bytes of data that follow) whose data is a struct
 * proc_event. Pure and bounds-checked everywhere: it is a fuzz target.
 */
#include "config.h"
#include "source/kernel/proc_events.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>

static enum cpw_proc_event_kind kind_of(uint32_t what)
{
	switch (what) {
	case PROC_EVENT_NONE:
		return CPW_PROC_EVENT_ACK;
	case PROC_EVENT_FORK:
		return CPW_PROC_EVENT_FORK;
	case PROC_EVENT_EXEC:
		return CPW_PROC_EVENT_EXEC;
	case PROC_EVENT_EXIT:
		return CPW_PROC_EVENT_EXIT;
	default:
		return CPW_PROC_EVENT_OTHER;
	}
}

/* One proc_event into ev; a kind not used here is CPW_PROC_EVENT_OTHER. */
static void fill_event(const struct proc_event *pe, const struct cn_msg *cn, struct cpw_proc_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind_of(pe->what);
	ev->timestamp_ns = pe->timestamp_ns;
	ev->ack = cn->ack;
	if (ev->kind == CPW_PROC_EVENT_ACK) {
		ev->code = pe->event_data.ack.err;
	} else if (ev->kind == CPW_PROC_EVENT_FORK) {
		ev->pid = pe->event_data.fork.child_pid;
		ev->tgid = pe->event_data.fork.child_tgid;
		ev->parent_tgid = pe->event_data.fork.parent_tgid;
	} else {
		/* Every other kind's data begins with the task's pid and tgid. */
		ev->pid = pe->event_data.exec.process_pid;
		ev->tgid = pe->event_data.exec.process_tgid;
		if (ev->kind == CPW_PROC_EVENT_EXIT)
			ev->code = pe->event_data.exit.exit_code;
	}
}

int cpw_proc_events_parse(const void *buf, size_t len, struct cpw_proc_event *ev, size_t max)
{
	const unsigned char *p = buf;
	size_t off = 0, got = 0;

	while (len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr nh;
		memcpy(&nh, p + off, sizeof nh);
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > len - off)
			return -EBADMSG;
		size_t body = nh.nlmsg_len - NLMSG_HDRLEN;
		const unsigned char *b = p + off + NLMSG_HDRLEN;
		/* The connector's messages are NLMSG_DONE (each one is whole). */
		if (nh.nlmsg_type != NLMSG_NOOP && nh.nlmsg_type != NLMSG_ERROR &&
		    nh.nlmsg_type != NLMSG_OVERRUN && body >= sizeof(struct cn_msg)) {
			struct cn_msg cn;
			memcpy(&cn, b, sizeof cn);
			if (cn.len > body - sizeof cn)
				return -EBADMSG;
			/* The kernel's struct proc_event may be longer than our header's (a new
			 * kind's data): the fields read are at fixed places. */
			if (cn.id.idx == CN_IDX_PROC && cn.id.val == CN_VAL_PROC &&
			    cn.len >= sizeof(struct proc_event)) {
				struct proc_event pe;
				memcpy(&pe, b + sizeof cn, sizeof pe);
				if (got < max)
					fill_event(&pe, &cn, &ev[got]);
				got++;
			}
		}
		size_t step = NLMSG_ALIGN(nh.nlmsg_len);
		if (step > len - off)
			break;
		off += step;
	}
	return (int)(got < max ? got : max);
}
