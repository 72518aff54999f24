/*
 * exitcodes.h: the exit statuses cperfwatch itself may return.
 *
 * Run mode returns the command's own status (128+N for death by signal N); these are the
 * codes cperfwatch uses for its own outcomes. They follow the coreutils convention that GNU
 * time and env use, so scripts that know those tools read them the same way.
 */
#ifndef CPW_EXITCODES_H
#define CPW_EXITCODES_H

enum cpw_exit {
	CPW_EXIT_OK = 0,
	CPW_EXIT_BUDGET = 124,     /* the command succeeded but broke a budget (--max-wall and friends) */
	CPW_EXIT_FAILURE = 125,    /* cperfwatch itself failed or was misused */
	CPW_EXIT_CANNOT_RUN = 126, /* COMMAND was found but could not be run */
	CPW_EXIT_NOT_FOUND = 127,  /* COMMAND was not found */
	CPW_EXIT_SIGNAL_BASE = 128 /* + N when COMMAND died of signal N */
};

#endif
