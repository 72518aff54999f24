/*
 * signals.c: how cperfwatch treats signals in each mode (session.h).
 */
#include "config.h"
#include "cperfwatch/session.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

volatile sig_atomic_t cpw_signal_received;

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
}

void cpw_sleep_interruptible(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	/* ppoll with no fds: sleeps, and returns early with EINTR on any handled signal. */
	ppoll(NULL, 0, &ts, NULL);
}
