/*
 * signals.h: cperfwatch's own signal handling (signals.c): what each mode does with the
 * terminal's and the system's signals, and a sleep and a wait mask that a signal ends.
 */
#ifndef CPW_UTIL_SIGNALS_H
#define CPW_UTIL_SIGNALS_H

#include <signal.h>

#include "options.h"

extern volatile sig_atomic_t cpw_signal_received; /* last SIGTERM/SIGHUP/SIGINT seen, 0 if none */
/* Run mode: SIGINT and SIGQUIT ignored (the terminal delivers them to the command, as
 * GNU time does); SIGTERM and SIGHUP recorded, to be forwarded. Attach mode: SIGINT,
 * SIGTERM, SIGHUP recorded, to end the watch with a report. SIGCHLD wakes the loop.
 * Those that end a wait are blocked outside it (see cpw_wait_mask). */
void cpw_signals_install(enum cpw_mode mode);
/* The signal mask to wait with (ppoll): the usual mask without the signals that end a
 * wait, which cpw_signals_install() blocks everywhere else. */
extern sigset_t cpw_wait_mask;
/* Sleeps up to ms, waking early on a signal. */
void cpw_sleep_interruptible(unsigned ms);

#endif
