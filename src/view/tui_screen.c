/*
 * tui_screen.c: the live view's hold on the terminal (tui.h): choosing the terminal,
 * entering and leaving curses and the alternate screen, colours, and giving the terminal
 * back on every way out: cpw_tui_close() (a caught signal ends the loop that calls it), an
 * atexit handler, and a fault's clean-up (util/signals.c) that restores the saved modes,
 * leaves the alternate screen and shows the cursor with async-signal-safe calls only.
 * SIGWINCH is noted here for the keys' wait to act on.
 */
#include "config.h"
#include "view/tui_private.h"

#include <curses.h>
#include <term.h>

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "util/signals.h"

/* ---- Terminal restore on every way out ---- */

static struct cpw_tui *active;
volatile sig_atomic_t cpw_tui_winch_seen;
static struct termios saved_in, saved_out;
static bool saved_in_ok, saved_out_ok;
static int saved_in_fd = -1, saved_out_fd = -1;
static char restore_seq[256]; /* rmcup, cnorm, sgr0: what endwin would send */
static size_t restore_len;

static void on_winch(int sig)
{
	(void)sig;
	cpw_tui_winch_seen = 1;
}

static void restore_now(void)
{
	if (!active)
		return;
	endwin();
	fflush(active->out);
}

static void on_exit_restore(void)
{
	restore_now();
}

/* Async-signal-safe (a fault's clean-up, cpw_signals_on_fault): only tcsetattr and
 * write. Does nothing once the view is closed. */
static void restore_on_fault(void)
{
	if (saved_out_ok)
		tcsetattr(saved_out_fd, TCSAFLUSH, &saved_out);
	if (saved_in_ok && saved_in_fd != saved_out_fd)
		tcsetattr(saved_in_fd, TCSAFLUSH, &saved_in);
	if (restore_len && saved_out_fd >= 0) {
		ssize_t w = write(saved_out_fd, restore_seq, restore_len);
		(void)w;
	}
}

static void append_cap(const char *name)
{
	char *cap = tigetstr(name);
	if (!cap || cap == (char *)-1)
		return;
	size_t n = strlen(cap);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, cap, n);
		restore_len += n;
	}
}

/* Every other signal that would end cperfwatch is caught (util/signals.c): the loop ends
 * and cpw_tui_close() gives the terminal back. */
static void install_restore_handlers(void)
{
	static bool atexit_done;
	if (!atexit_done && atexit(on_exit_restore) == 0)
		atexit_done = true;
	cpw_signals_on_fault(restore_on_fault);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a resize must wake poll(). */
	sigaction(SIGWINCH, &sa, NULL);
}

static void remove_restore_handlers(void)
{
	signal(SIGWINCH, SIG_DFL);
}

/* ---- Opening ---- */

bool cpw_tui_wanted(const struct cpw_config *cfg)
{
	if (cfg->no_tui)
		return false;
	if (cfg->tui || cfg->tui_forced)
		return true;
	return cfg->mode == CPW_MODE_ATTACH && isatty(STDOUT_FILENO);
}

static bool no_color(void)
{
	const char *v = getenv("NO_COLOR");
	return v && v[0];
}

static void setup_colors(struct cpw_tui *ui)
{
	ui->colors = has_colors() && !no_color() && start_color() == OK;
	if (!ui->colors)
		return;
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(PAIR_VERDICT, COLOR_YELLOW, -1);
	init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_SPARK, COLOR_GREEN, -1);
	init_pair(PAIR_NOTICE, COLOR_BLACK, COLOR_YELLOW);
	/* The exited in grey: bright black where the terminal has 16 colours, else dim white. */
	init_pair(PAIR_EXITED, COLORS >= 16 ? 8 : COLOR_WHITE, -1);
}

static int pick_terminal(struct cpw_tui *ui, char *err, size_t errlen)
{
	if (isatty(STDOUT_FILENO)) {
		ui->out = stdout;
	} else if (isatty(STDERR_FILENO)) {
		ui->out = stderr;
	} else {
		ui->out = fopen("/dev/tty", "w");
		ui->own_out = ui->out != NULL;
	}
	if (isatty(STDIN_FILENO)) {
		ui->in = stdin;
	} else {
		ui->in = fopen("/dev/tty", "r");
		ui->own_in = ui->in != NULL;
	}
	if (!ui->out || !ui->in) {
		snprintf(err, errlen, "no terminal to draw on (%s)", strerror(errno ? errno : ENOTTY));
		return -ENOTTY;
	}
	ui->out_fd = fileno(ui->out);
	ui->in_fd = fileno(ui->in);
	/* In the background (cperfwatch &, or under timeout, which runs it in a process group
	 * of its own), the terminal's modes cannot be set: SIGTTOU would stop cperfwatch for
	 * good where no shell brings it to the foreground. */
	pid_t fg_out = tcgetpgrp(ui->out_fd), fg_in = tcgetpgrp(ui->in_fd);
	if ((fg_out > 0 && fg_out != getpgrp()) || (fg_in > 0 && fg_in != getpgrp())) {
		snprintf(err, errlen, "cperfwatch is not in the foreground of its terminal (run in the "
			 "background, or by timeout without --foreground)");
		return -ENOTTY;
	}
	return 0;
}

struct cpw_tui *cpw_tui_open(const struct cpw_config *cfg, const char *target, bool shared_terminal,
			     char *err, size_t errlen)
{
	struct cpw_tui *ui = calloc(1, sizeof(*ui));
	if (!ui) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ui->cfg = cfg;
	ui->shared_terminal = shared_terminal;
	ui->snap.cores_usable = NAN;
	ui->in_fd = ui->out_fd = -1;
	snprintf(ui->target, sizeof(ui->target), "%s", target ? target : "");
	ui->tree = true;
	ui->sort = CPW_TUI_COL_PID;
	ui->interval_ms = cfg->interval_ms;
	if (pick_terminal(ui, err, errlen) < 0) {
		cpw_tui_close(ui);
		return NULL;
	}
	const char *term = getenv("TERM");
	if (!term || !term[0] || strcmp(term, "dumb") == 0) {
		snprintf(err, errlen, "the terminal (TERM=%s) cannot show it", term ? term : "");
		cpw_tui_close(ui);
		return NULL;
	}
	saved_out_ok = tcgetattr(ui->out_fd, &saved_out) == 0;
	saved_in_ok = tcgetattr(ui->in_fd, &saved_in) == 0;
	saved_out_fd = ui->out_fd;
	saved_in_fd = ui->in_fd;

	/* The character set, for ncurses and the names drawn: only the live view needs it
	 * (reports escape names themselves, and their numbers stay in the C locale), and
	 * loading it costs ~0.15 ms, which `cperfwatch -- CMD` does not pay. */
	setlocale(LC_CTYPE, "");
	fflush(ui->out);
	ui->screen = newterm(NULL, ui->out, ui->in);
	if (!ui->screen) {
		snprintf(err, errlen, "cannot set up the terminal TERM=%s", term);
		cpw_tui_close(ui);
		return NULL;
	}
	active = ui;
	restore_len = 0;
	append_cap("rmcup");
	append_cap("cnorm");
	append_cap("sgr0");
	install_restore_handlers();

	const char *cs = nl_langinfo(CODESET);
	ui->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	cbreak(); /* keeps ISIG: ^C still reaches cperfwatch as SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_colors(ui);

	clock_gettime(CLOCK_MONOTONIC, &ui->last_update);
	return ui;
}

void cpw_tui_close(struct cpw_tui *ui)
{
	if (!ui)
		return;
	if (ui->screen) {
		endwin();
		fflush(ui->out);
		delscreen(ui->screen);
		remove_restore_handlers();
	}
	if (active == ui)
		active = NULL;
	saved_in_ok = saved_out_ok = false;
	restore_len = 0;
	if (ui->own_out)
		fclose(ui->out);
	if (ui->own_in)
		fclose(ui->in);
	cpw_tui_table_free(&ui->table);
	free(ui->procs);
	free(ui);
}

unsigned cpw_tui_interval_ms(const struct cpw_tui *ui) { return ui->interval_ms; }

void cpw_tui_screen_resize(struct cpw_tui *ui)
{
	struct winsize ws;
	cpw_tui_winch_seen = 0;
	if (ioctl(ui->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
}
