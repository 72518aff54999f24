/*
 * report_fixture.h: one fixed report, filled by hand, shared by the tests of the writers
 * (test_report spot-checks it, test_golden compares its whole rendering with
 * tests/expected/). Nothing in it depends on the machine, the clock or the test's pid.
 */
#ifndef CPW_REPORT_FIXTURE_H
#define CPW_REPORT_FIXTURE_H

#include "report/report.h"
#include "model/tree.h"
#include "model/timeline.h"

/* Fills r and cfg (r->cfg = cfg): run mode of `prog arg<ESC>[31m`, pid 4321, exit status 3,
 * its rusage and metrics, a cpu-bound verdict with one evidence of invalid UTF-8, and the
 * note "a note 1", the waits of report_fixture_waits(). r->tree is NULL. */
void report_fixture_build(struct cpw_report *r, struct cpw_config *cfg);

/* A tree of three exited processes (read from no /proc), for r->tree: pids 100, 101, 102
 * named "first", "a \"q\"\nname" (a quote and a newline) and "@cperfwatch-processes@" (the
 * JSON writer's own placeholder). NULL when out of memory. Free it with cpw_tree_free(). */
struct cpw_tree *report_fixture_tree(void);

/* A timeline of 20 points of 0.1 s (pids 100 "first" reading 8 MiB/s for 0.8 s, then
 * computing on one core) and its two phases, hand-set, into r->timeline and r->phases.
 * Returns the timeline (free it with cpw_timeline_free()), NULL when out of memory. */
struct cpw_timeline *report_fixture_timeline(struct cpw_report *r);
/* The waits of the fixed report (r->waits): network on two sockets, a child, a pipe fed by
 * another process, disk on a file whose name holds a newline and an escape sequence, and
 * probe counts that give notes (denied, over budget). Static: do not free. */
const struct cpw_waits *report_fixture_waits(void);
/* On-CPU stacks of 2,000 samples, for r->hotspots (--flame's golden picture): python3 (pid 10)
 * in Python, interpreter, libc and kernel frames; a process whose name holds markup and a
 * control byte (pid 11) in native code with a long name, a JIT and a UTF-8 name; one stack
 * of one sample (under 0.1%). NULL when out of memory. Free it with cpw_hotspots_free(). */
struct cpw_hotspots *report_fixture_hotspots(void);

#endif
