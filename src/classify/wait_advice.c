/*
 * wait_advice.c: what to do about a wait, by its kind, with the target it was on.
 *
 * The generic waiting advice ("find what it waits on") is what the user has to do by hand
 * with strace; where the probe named the kind, the advice says what helps for that kind.
 * Targets are raw text from the kernel: the writers escape the advice.
 */
#include "config.h"
#include "classify/wait_advice.h"

#include <stdio.h>
#include <string.h>

struct kind_advice {
	const char *kind;
	const char *head; /* then " (target)" where known, then tail */
	const char *tail;
};

static const struct kind_advice kinds[] = {
	{ "network", "Waiting on the network", ": make the requests concurrent (threads, async IO, "
		     "several connections), batch them into fewer round trips, and reuse connections "
		     "(keep-alive, a pool) instead of opening one per request." },
	{ "lock", "Waiting on locks (futex)", ": shorten the critical sections (compute outside the "
		  "lock), and share fewer locks between threads (per-thread data, finer-grained locks, "
		  "or work split so that threads need not meet)." },
	{ "timer", "Waiting on timers", ": it sleeps on purpose (sleep calls, timeouts). Remove "
		   "the sleeps or shorten them; wait for the event itself instead of polling on a timer." },
	{ "child", "Waiting for child processes", " that were mostly not waiting themselves: the time "
		   "goes to what the children do; look at them in the process table, not at the parent." },
	{ "pipe", "Waiting on a pipe", ": the process at the other end sets the pace; make that one "
		  "faster (see the findings), or let it run ahead with a larger buffer." },
	{ "event-loop", "Waiting in an event loop (poll, select, epoll)", ": it is idle until events "
			"arrive; the pace is set by its peers or clients, so look at what it waits for." },
	{ "terminal", "Waiting for terminal input", ": it waits for someone typing; feed its input from a "
		      "file or a pipe to measure the work alone." },
	{ "disk", "Waiting on storage", ": cache what is read again, read and write in large sequential "
		  "blocks, and sync less often." },
	{ "page-in", "Waiting for pages to be read in (page faults)", ": the working set is read from "
		     "disk on first touch or after eviction; warm the cache, read ahead, or use less memory." },
	{ "gpu", "Waiting on the GPU (a driver ioctl)", ": the device sets the pace; see the GPU "
		 "section for how busy it was, and make its kernels do more per launch, or overlap "
		 "them with the host's work (streams, asynchronous copies)." },
	{ "other", "Waiting on something the probe does not name", ": strace -f -T (or perf trace) shows "
		   "which calls block." },
};

bool cpw_wait_advice(const struct cpw_metrics *m, char *out, size_t outlen)
{
	char target[200] = "";

	if (!m->wait_kind[0])
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(kinds[i].kind, m->wait_kind) != 0)
			continue;
		if (m->wait_target[0])
			snprintf(target, sizeof(target), " (%.120s)", m->wait_target);
		else if (strcmp(m->wait_kind, "child") == 0 && m->top_process_comm[0] &&
			 cpw_known(m->top_process_cpu_share))
			/* What it waits for: the child that did the work. */
			snprintf(target, sizeof(target), " (pid %d, %.31s, did %.0f%% of the CPU work)",
				 m->top_process_pid, m->top_process_comm, 100 * m->top_process_cpu_share);
		snprintf(out, outlen, "%s%s%s", kinds[i].head, target, kinds[i].tail);
		return true;
	}
	return false;
}

bool cpw_wait_advice_files(const struct cpw_metrics *m, char *out, size_t outlen)
{
	if (!m->io_file[0])
		return false;
	if (m->io_files_more)
		snprintf(out, outlen, " Most of the disk waits are on %.120s (and %u other file%s).", m->io_file,
			 m->io_files_more, m->io_files_more == 1 ? "" : "s");
	else
		snprintf(out, outlen, " The disk waits are on %.120s.", m->io_file);
	return true;
}
