/*
 * test_python_live.c: the Python stack reader (source/python/python_stacks.c) on real
 * CPython processes, this program's children: a process and the child it forked (no exec)
 * are both read, the child taken on as a twin of its parent (its interpreter not searched
 * for again); a Python process exec'd on its own is taken on in full, never as a twin. Plain
 * TAP (not CUnit), to SKIP with the reason where there is no /usr/bin/python3.
 */
#include "config.h"
#include "source/python/python_stacks.h"
#include "live_tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TESTS 7
#define PYTHON "/usr/bin/python3"

/* A parent and the child it forks, both asleep in napping(); the parent prints the child's
 * pid. */
static const char *const forking =
	"import os, time\n"
	"def napping():\n"
	"    time.sleep(60)\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    napping()\n"
	"    os._exit(0)\n"
	"print(pid, flush=True)\n"
	"napping()\n";
static const char *const alone =
	"import time\n"
	"def dozing():\n"
	"    time.sleep(60)\n"
	"print(0, flush=True)\n"
	"dozing()\n";

/* Starts PYTHON -c script; *pid is it, the number it prints into *printed. -1 on failure. */
static int start(const char *script, pid_t *pid, long *printed)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(PYTHON, PYTHON, "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	FILE *f = fdopen(fds[0], "r");
	int got = f ? fscanf(f, "%ld", printed) : 0;
	if (f)
		fclose(f);
	else
		close(fds[0]);
	return got == 1 ? 0 : -1;
}

/* The innermost Python function tid's thread waits in, asked until it answers (the process
 * may still be on its way into the sleep): true when it is want. */
static int waits_in(struct cpw_python_stacks *ps, pid_t pid, const char *want)
{
	for (int i = 0; i < 40; i++) {
		struct cpw_python_frame fr[2];
		int n = cpw_python_stacks_waiting(ps, pid, pid, "python3", 0, fr);
		if (n > 0 && strcmp(fr[0].name, want) == 0)
			return 1;
		if (n > 0)
			diag("innermost", fr[0].name);
		usleep(50000);
	}
	return 0;
}

int main(void)
{
	printf("1..%d\n", TESTS);
	if (access(PYTHON, X_OK) != 0) {
		skip(TESTS, "no " PYTHON);
		return 0;
	}
	pid_t parent = 0, other = 0;
	long child = 0, unused = 0;
	char why[300] = "";
	struct cpw_python_stacks *ps = cpw_python_stacks_new("/proc", 24, why, sizeof(why));
	if (!ps || start(forking, &parent, &child) < 0 || start(alone, &other, &unused) < 0) {
		skip(TESTS, ps ? "a Python process could not be started" : why);
		goto out;
	}
	usleep(100000);
	struct cpw_python_stacks_stats st;

	ok(waits_in(ps, parent, "napping"), "the parent is read: it waits in napping()");
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 1 && st.twins == 0, "taken on in full (%u processes, %u twins)", st.processes, st.twins);

	ok(waits_in(ps, (pid_t)child, "napping"), "its forked child is read: it waits in napping()");
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 2 && st.twins == 1, "the child is taken on as its parent's twin (%u processes, %u twins)",
	   st.processes, st.twins);

	ok(waits_in(ps, other, "dozing"), "a Python process exec'd on its own is read: it waits in dozing()");
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 3 && st.twins == 1, "and taken on in full, not as a twin (%u processes, %u twins)",
	   st.processes, st.twins);
	ok(st.refused == 0, "nothing refused (%u)", st.refused);
out:
	if (child > 0)
		kill((pid_t)child, SIGKILL);
	if (parent > 0) {
		kill(parent, SIGKILL);
		waitpid(parent, NULL, 0);
	}
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	cpw_python_stacks_free(ps);
	return tap_failures ? 1 : 0;
}
