/*
 * signals.c: how cperfwatch treats signals in each mode, and its faults (signals.h).
 */
#include "config.h"
#include "util/signals.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t cpw_signals_received;
volatile sig_atomic_t cpw_signals_stop;
volatile sig_atomic_t cpw_signals_child_ended;
sigset_t cpw_signals_wait_mask;

static volatile sig_atomic_t pending[NSIG];

/* Asynchronous signals whose default action ends the process, but for the real-time ones
 * (SIGRTMIN..SIGRTMAX, counted at run time). SIGTERM, SIGHUP, SIGINT and SIGQUIT come
 * first: they are caught even where inherited ignored (a shell starts a background job
 * with SIGINT and SIGQUIT ignored; SIGTERM and SIGHUP always were). */
static const int stop_signals[] = {
	SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
	SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};
#define ALWAYS_CAUGHT 4

/* Faults: the signal of an instruction that went wrong, of abort(), or of seccomp. */
static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
#define NFAULTS (sizeof(fault_signals) / sizeof(fault_signals[0]))

#define CLEANUPS_MAX 4
static void (*cleanups[CLEANUPS_MAX])(void);
static volatile sig_atomic_t ncleanups;
static struct sigaction before_fault[NFAULTS]; /* the dispositions a fault goes back to */
static bool faults_installed;
static pid_t owner; /* cperfwatch itself: a child between fork and exec cleans nothing up */

static void record(int sig)
{
	if (sig > 0 && sig < NSIG)
		pending[sig] = 1;
	cpw_signals_received = sig;
	cpw_signals_stop = 1;
}

static void child_ended(int sig)
{
	(void)sig;
	cpw_signals_child_ended = 1;
}

/* Async-signal-safe: the clean-ups, the disposition from before, then the signal again. */
static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	int saved_errno = errno;
	if (getpid() == owner)
		for (int i = ncleanups; i-- > 0;)
			cleanups[i]();
	for (size_t i = 0; i < NFAULTS; i++)
		if (fault_signals[i] == sig)
			sigaction(sig, &before_fault[i], NULL);
	/* An instruction that faulted faults again on return, now under the disposition from
	 * before (a sanitizer's handler gets the real fault's details); a signal that was sent
	 * (kill, abort) is sent again, delivered as this handler returns. */
	bool refaults = si && si->si_code > 0 &&
			(sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL);
	if (!refaults)
		kill(getpid(), sig);
	errno = saved_errno;
}

static void install_faults(void)
{
	if (faults_installed)
		return;
	faults_installed = true;
	owner = getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask); /* nothing else runs in the middle of the clean-ups */
	for (size_t i = 0; i < NFAULTS; i++)
		sigaction(fault_signals[i], &sa, &before_fault[i]);
}

void cpw_signals_on_fault(void (*fn)(void))
{
	install_faults();
	for (int i = 0; i < ncleanups; i++)
		if (cleanups[i] == fn)
			return;
	if (ncleanups < CLEANUPS_MAX) {
		cleanups[ncleanups] = fn;
		ncleanups = ncleanups + 1;
	}
}

static void on(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must interrupt the sleep between samples. */
	sigaction(sig, &sa, NULL);
}

static bool inherited_ignored(int sig)
{
	struct sigaction old;
	return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

/* The signals ignored at start-up, recorded before any is changed. */
static sigset_t ignored_at_start;
static bool start_recorded;

bool cpw_signals_inherited_ignored(int sig)
{
	return start_recorded && sigismember(&ignored_at_start, sig) == 1;
}

/* Catches sig (recorded and blocked outside a wait), unless mode leaves it to the
 * terminal or it was inherited ignored. */
static void catch_stop(int sig, size_t index, enum cpw_mode mode, sigset_t *block)
{
	if (mode == CPW_MODE_RUN && (sig == SIGINT || sig == SIGQUIT)) {
		on(sig, SIG_IGN);
		return;
	}
	if (index >= ALWAYS_CAUGHT && cpw_signals_inherited_ignored(sig))
		return;
	on(sig, record);
	sigaddset(block, sig);
}

void cpw_signals_install(enum cpw_mode mode)
{
	sigset_t block;

	sigemptyset(&ignored_at_start);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && inherited_ignored(sig))
			sigaddset(&ignored_at_start, sig);
	start_recorded = true;
	install_faults();
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		catch_stop(stop_signals[i], i, mode, &block);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_stop(sig, ALWAYS_CAUGHT, mode, &block);
	on(SIGCHLD, child_ended);
	on(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE when writing the report */
	/* The signals that end a wait stay blocked except inside ppoll(): one that arrives
	 * while a sample is being taken is then delivered at the next wait and ends it at
	 * once, instead of being lost and the wait lasting a whole interval (which would
	 * also have added up to an interval to the command's measured wall time). */
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &cpw_signals_wait_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&block, sig) == 1)
			sigdelset(&cpw_signals_wait_mask, sig);
}

int cpw_signals_take(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (pending[sig]) {
			pending[sig] = 0;
			return sig;
		}
	}
	cpw_signals_received = 0;
	return 0;
}

void cpw_signals_sleep(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	/* ppoll with no fds: sleeps, and returns early with EINTR on any handled signal,
	 * including one that came while it was blocked. */
	ppoll(NULL, 0, &ts, &cpw_signals_wait_mask);
}

void cpw_signals_sleep_until(struct timespec deadline)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long left = ((long long)deadline.tv_sec - now.tv_sec) * 1000000000LL + (deadline.tv_nsec - now.tv_nsec);
	/* Passed already (by the time between the caller's clock and this one): no sleep, but
	 * the signals blocked since the last wait are delivered all the same, at once (a
	 * SIGCHLD is what tells run mode to reap). */
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 0 };
	if (left > 0)
		ts = (struct timespec){ .tv_sec = (time_t)(left / 1000000000LL), .tv_nsec = (long)(left % 1000000000LL) };
	ppoll(NULL, 0, &ts, &cpw_signals_wait_mask);
}
