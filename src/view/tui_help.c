/*
 * tui_help.c: the live view's help text and the signals k offers (tui.h). The help is
 * laid out for a width here, wrapped, never cut; tui_draw.c puts it in a box, in one
 * column or two, and scrolls it where the screen is too short for it.
 */
#include "config.h"
#include "view/tui.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *keys, *what;
} help[] = {
	{ "q", "quit and print the report" },
	{ "space", "pause the display (sampling goes on)" },
	{ "t", "tree / flat list" },
	{ "H", "a row per thread under each process (htop's H)" },
	{ "v", "the verdict so far: evidence, findings, advice" },
	{ "f", "the top functions so far: self%, total%, file, process; f or Esc closes it" },
	{ "c Enter", "collapse / expand the selected subtree" },
	{ "Up Down", "move the selection (also PgUp PgDn Home End)" },
	{ "< > F6", "sort by the column on the left / right" },
	{ "/ F4", "filter by name or command line as you type; Enter keeps it, Esc clears it" },
	{ "k F9", "send a signal to the selected process (choose it, then y sends it)" },
	{ "+ -", "sampling interval up / down" },
	{ "h ?", "this help (Up Down scroll it where it does not fit)" },
	{ "", "" },
	{ "TIME+", "CPU time over the watch, as htop shows it" },
	{ "X", "exited: shown dimmed for 3 s with its final TIME+, then dropped" },
	{ "[+]", "a collapsed row: the sums of its subtree" },
	{ "", "The line under the table shows the selected process's whole command line, its "
	      "start, end and duration (since the watch began), average CPU and peak RSS." },
};

#define KEYS_CELLS 8 /* the keys' column, and a space after it */

int cpw_tui_help_width(void)
{
	int w = 0;
	for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
		int n = (int)strlen(help[i].what) + (help[i].keys[0] ? KEYS_CELLS + 1 : 0);
		if (n > w)
			w = n;
	}
	return w;
}

int cpw_tui_help_lines(int width, char rows[][CPW_TUI_HELP_ROW], int max)
{
	int n = 0;
	if (width < 24)
		width = 24;
	if (width > CPW_TUI_HELP_ROW - 1)
		width = CPW_TUI_HELP_ROW - 1;
	for (size_t i = 0; i < sizeof(help) / sizeof(help[0]) && n < max; i++) {
		/* A note without keys takes the whole width; an entry wraps under its text. */
		int indent = help[i].keys[0] ? KEYS_CELLS + 1 : 0;
		const char *p = help[i].what;
		bool first = true;
		if (!p[0]) {
			rows[n++][0] = '\0';
			continue;
		}
		while (*p && n < max) {
			while (!first && *p == ' ')
				p++;
			size_t len = cpw_tui_wrap(p, width - indent);
			snprintf(rows[n++], CPW_TUI_HELP_ROW, "%-*s%.*s", indent, first ? help[i].keys : "", (int)len, p);
			p += len;
			first = false;
		}
	}
	return n;
}

static const struct cpw_tui_signal signals[] = {
	{ SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },   { SIGQUIT, "SIGQUIT" }, { SIGKILL, "SIGKILL" },
	{ SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGTERM, "SIGTERM" }, { SIGCONT, "SIGCONT" },
	{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" },
};

const struct cpw_tui_signal *cpw_tui_signals(size_t *n)
{
	*n = sizeof(signals) / sizeof(signals[0]);
	return signals;
}

size_t cpw_tui_signal_default(void)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].sig == SIGTERM)
			return i;
	return 0;
}
