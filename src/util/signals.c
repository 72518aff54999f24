/*
 * signals.c: how cperfwatch treats signals in each mode (session.h).
 */
#include "config.h"
#include "util/signals.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

volatile sig_atomic_t cpw_signal_received;
sigset_t cpw_wait_mask;

static void record(int sig) { cpw_signal_received = sig; }
static void wake(int sig) { (void)sig; }

static void on(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must interrupt the sleep between samples. */
	sigaction(sig, &sa, NULL);
}

void cpw_signals_install(enum cpw_mode mode)
{
	sigset_t block;

	on(SIGTERM, record);
	on(SIGHUP, record);
	on(SIGCHLD, wake);
	on(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE when writing the report */
	if (mode == CPW_MODE_RUN) {
		on(SIGINT, SIG_IGN);
		on(SIGQUIT, SIG_IGN);
	} else {
		on(SIGINT, record);
	}
	/* The signals that end a wait stay blocked except inside ppoll(): one that arrives
	 * while a sample is being taken is then delivered at the next wait and ends it at
	 * once, instead of being lost and the wait lasting a whole interval (which would
	 * also have added up to an interval to the command's measured wall time). */
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	if (mode != CPW_MODE_RUN)
		sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &cpw_wait_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&block, sig) == 1)
			sigdelset(&cpw_wait_mask, sig);
}

void cpw_sleep_interruptible(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	/* ppoll with no fds: sleeps, and returns early with EINTR on any handled signal,
	 * including one that came while it was blocked. */
	ppoll(NULL, 0, &ts, &cpw_wait_mask);
}
