/*
 * signals.h: cperfwatch's own signal handling (signals.c): what each mode does with the
 * terminal's and the system's signals, a sleep and a wait mask that a signal ends, and
 * the clean-up that a fault runs before it takes its course.
 *
 * Every signal whose default action would end cperfwatch is either caught or is a fault:
 * - caught (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
 *   SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT, the real-time signals): recorded,
 *   for the mode to act on as on SIGTERM (run mode forwards it to the command, attach mode
 *   ends the watch), and the report is written. One that cperfwatch inherited ignored
 *   stays ignored, but for SIGTERM, SIGHUP, and attach mode's SIGINT and SIGQUIT; the
 *   command starts with every signal cperfwatch inherited ignored still ignored (nohup). Run mode ignores SIGINT and SIGQUIT: the terminal delivers them
 *   to the command, as GNU time does.
 * - faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS): the registered
 *   clean-ups run (the terminal is restored, a temporary -o file removed), then the signal
 *   takes its course under the disposition it had before (the default: cperfwatch dies of
 *   it). The command is not left unwatched: it dies with cperfwatch (launch.c,
 *   PR_SET_PDEATHSIG).
 */
#ifndef CPW_UTIL_SIGNALS_H
#define CPW_UTIL_SIGNALS_H

#include <signal.h>
#include <time.h>
#include <stdbool.h>

#include "options.h"

/* The last caught signal not yet taken (cpw_signals_take), 0 if none. */
extern volatile sig_atomic_t cpw_signals_received;
/* Set when a child of cperfwatch ended (SIGCHLD came), for the run loop to clear when it
 * waits for its children: without it, no child can be waiting to be reaped. */
extern volatile sig_atomic_t cpw_signals_child_ended;
/* Set for good once any signal was caught: cperfwatch was told to stop (or to pass a
 * signal on), so it does not wait on the final view for q. */
extern volatile sig_atomic_t cpw_signals_stop;
/* Installs the handling above for mode, and the faults' handlers. SIGCHLD wakes the loop.
 * The caught signals are blocked outside a wait (see cpw_signals_wait_mask). */
void cpw_signals_install(enum cpw_mode mode);
/* Whether sig was ignored when cperfwatch started (as cpw_signals_install() found it): the
 * command is started with it ignored too (nohup's SIGHUP, a background job's SIGINT and
 * SIGQUIT), as GNU time leaves it, whatever cperfwatch does with it itself. */
bool cpw_signals_inherited_ignored(int sig);
/* The next caught signal not yet taken, each one once, lowest first; 0 when there is none
 * left (cpw_signals_received is then 0). */
int cpw_signals_take(void);
/* The signal mask to wait with (ppoll): the usual mask without the signals that end a
 * wait, which cpw_signals_install() blocks everywhere else. */
extern sigset_t cpw_signals_wait_mask;
/* Sleeps up to ms, waking early on a signal. */
void cpw_signals_sleep(unsigned ms);
/* Sleeps until deadline (CLOCK_MONOTONIC), waking early on a signal; returns at once when
 * it has passed, the signals that came since the last wait delivered. */
void cpw_signals_sleep_until(struct timespec deadline);
/* Registers fn to run in a fault's handler, before the fault takes its course (last
 * registered first); fn must be async-signal-safe. Installs the faults' handlers where
 * cpw_signals_install() has not. Up to 4; a function registered again is kept once. */
void cpw_signals_on_fault(void (*fn)(void));

#endif
