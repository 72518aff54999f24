/*
 * test_python_live.c: the Python stack reader (source/python/python_stacks.c) on real
 * CPython processes, this program's children: a process and the child it forked (no exec)
 * are both read, the child taken on as a twin of its parent (its interpreter not searched
 * for again); a Python process exec'd on its own is taken on in full, never as a twin. On
 * Debian's /usr/bin/python3 and on pyenv's 3.12 and 3.13 (a shared libpython; 3.13's layout
 * from _Py_DebugOffsets), bound into CI's root where the host has them. Plain TAP (not
 * CUnit), to SKIP with the reason where an interpreter is not there.
 */
#include "config.h"
#include "source/python/python_stacks.h"
#include "live_tap.h"

#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECKS 7 /* for each interpreter */
#define TESTS (3 * CHECKS)

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

/* Starts python -c script; *pid is it, the number it prints into *printed. -1 on failure. */
static int start(const char *python, const char *script, pid_t *pid, long *printed)
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
		execl(python, python, "-c", script, (char *)NULL);
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

/* The checks on one interpreter. */
static void run_on(const char *python, const char *label)
{
	pid_t parent = 0, other = 0;
	long child = 0, unused = 0;
	char why[300] = "", text[400];
	struct timespec origin;
	clock_gettime(CLOCK_MONOTONIC, &origin);
	/* 20 readings a second, as the session's default grid gives them */
	struct cpw_python_stacks *ps = cpw_python_stacks_new("/proc", 50000000u, origin, why, sizeof(why));
	if (!ps || start(python, forking, &parent, &child) < 0 || start(python, alone, &other, &unused) < 0) {
		snprintf(text, sizeof(text), "%s: %s", label, ps ? "a Python process could not be started" : why);
		skip(CHECKS, text);
		goto out;
	}
	usleep(100000);
	struct cpw_python_stacks_stats st;

	ok(waits_in(ps, parent, "napping"), "%s: the parent is read: it waits in napping()", label);
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 1 && st.twins == 0, "%s: taken on in full (%u processes, %u twins)", label, st.processes,
	   st.twins);

	ok(waits_in(ps, (pid_t)child, "napping"), "%s: its forked child is read: it waits in napping()", label);
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 2 && st.twins == 1, "%s: the child is taken on as its parent's twin (%u processes, %u twins)",
	   label, st.processes, st.twins);

	ok(waits_in(ps, other, "dozing"), "%s: a Python process exec'd on its own is read: it waits in dozing()", label);
	cpw_python_stacks_get_stats(ps, &st);
	ok(st.processes == 3 && st.twins == 1, "%s: and taken on in full, not as a twin (%u processes, %u twins)", label,
	   st.processes, st.twins);
	ok(st.refused == 0, "%s: nothing refused (%u)", label, st.refused);
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
}

int main(void)
{
	printf("1..%d\n", TESTS);
	if (access("/usr/bin/python3", X_OK) == 0)
		run_on("/usr/bin/python3", "python3");
	else
		skip(CHECKS, "python3: no /usr/bin/python3");
	const char *root = getenv("PYENV_ROOT") ? getenv("PYENV_ROOT") : "/root/.pyenv";
	const char *versions[] = { "3.12", "3.13" };
	for (int v = 0; v < 2; v++) {
		char pattern[600], label[16];
		snprintf(pattern, sizeof(pattern), "%s/versions/%s.*/bin/python%s", root, versions[v], versions[v]);
		snprintf(label, sizeof(label), "py%s", versions[v]);
		glob_t g;
		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0 && access(g.gl_pathv[g.gl_pathc - 1], X_OK) == 0) {
			run_on(g.gl_pathv[g.gl_pathc - 1], label);
		} else {
			char text[700];
			snprintf(text, sizeof(text), "%s: no Python %s here (%s: the pyenv builds, bound into CI's root "
				 "where the host has them)", label, versions[v], pattern);
			skip(CHECKS, text);
		}
		globfree(&g);
	}
	return tap_failures ? 1 : 0;
}
