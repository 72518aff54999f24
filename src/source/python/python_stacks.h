/*
 * python_stacks.h: the Python stacks of the watched tree's CPython processes, read from
 * outside with process_vm_readv, never stopping them (python_stacks.c).
 *
 * A process is taken on when its first sample arrives: the interpreter it maps (libpython or
 * the python executable, in /proc/PID/maps), its version (Py_Version) and layout (from 3.13
 * _Py_DebugOffsets at the start of _PyRuntime; 3.11 and 3.12 from python_layout.c's table);
 * a process forked from one taken on (the same /proc/PID/auxv: the same exec) takes its
 * interpreter's place, checked by one read. A thread of the reader then reads, at the rate
 * it is given (the session gives a quarter of the sampling rate), the frame chain of each
 * thread of
 * those interpreters that the samples saw run in the last second and that ran since its last
 * read (its schedstat run time moved; a thread found running at 8 looks in a row is looked
 * at every 8th; one on a CPU part of the time is read once per period of its CPU time, at
 * least at every other look), and keeps each reading with its time; the threads' lists are walked every
 * 0.25 s (idle threads cost nothing more). A reading is one process_vm_readv where the
 * stack stayed where the last one found it: the thread state, the frames' pages and the
 * code objects read together (python_frames.h), more reads only for what moved. Each cpu-clock sample of such a thread is then given the
 * reading nearest its time: the Python functions take the place of the interpreter's own.
 *
 * The waits (cpw_python_stacks_waiting): a thread seen waiting is asked for its two
 * innermost Python frames, from the caller's thread, at no cost to the threads that run.
 *
 * What is read is checked: every object's type is the interpreter's PyCode_Type or
 * PyUnicode_Type, pointers are aligned, names are compact ASCII of bounded length, the walk
 * is bounded. A reading that fails a check (the frames changed while read) is dropped and
 * counted as torn.
 */
#ifndef CPW_SOURCE_PYTHON_PYTHON_STACKS_H
#define CPW_SOURCE_PYTHON_PYTHON_STACKS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "source/sample/sampler.h"

struct cpw_python_stacks;

struct cpw_python_stacks_stats {
	unsigned processes;     /* CPython processes whose stacks are read */
	uint64_t readings;      /* stacks read */
	uint64_t torn;          /* readings dropped: the frames changed while read */
	uint64_t matched;       /* samples given Python frames */
	uint64_t unmatched;     /* samples of such a process in the interpreter with no reading near */
	unsigned refused;       /* processes process_vm_readv refused (EPERM) */
	unsigned twins;         /* processes taken on as a twin (same exec: a fork) was, unsearched */
};

/* A Python function as the reader names it: its qualified name and "file:first line",
 * held by the reader (valid until cpw_python_stacks_free). */
struct cpw_python_frame {
	const char *name, *where;
};

/* A reader of a reading per running thread every period_ns, at the points of a grid from
 * origin (CLOCK_MONOTONIC: util/tick_grid.h), the session's, so that it wakes when the
 * session samples where their grids meet; proc_root is /proc. NULL when out of memory or
 * no thread could be started (why filled). */
struct cpw_python_stacks *cpw_python_stacks_new(const char *proc_root, uint64_t period_ns, struct timespec origin,
					       char *why, size_t len);
/* Gives st (a sample of the tree) the Python frames of its thread where it ran in a CPython
 * interpreter; a process seen for the first time is looked at first. */
void cpw_python_stacks_resolve(struct cpw_python_stacks *ps, struct cpw_stack *st);
/* Takes on pid, a Python process that was running when sampling was armed, and reads its
 * main thread from now, as its first sample in the interpreter would: samples taken before
 * the first drain (all of a command's last 0.1 s) find a reading near them. */
void cpw_python_stacks_prime(struct cpw_python_stacks *ps, pid_t pid, const char *comm);
/* The Python functions waiting thread tid of pid waits in, for the wait probe's waits:
 * its innermost Python frame and that frame's caller into out, innermost first; returns
 * how many (0: none, not a Python thread, or not readable). Called from the sampling
 * thread; a process seen for the first time is taken on (once: a few ms), without starting
 * the reader's thread. A blocked thread's frames stand still, so its newest reading serves
 * where its schedstat run time did not move since; otherwise its two innermost frames are
 * read now (a few process_vm_readv calls). comm: the process's name (a new name is an exec,
 * looked at again); run_ns: the thread's run time as the caller has just read it from its
 * schedstat, 0 to read it here. */
int cpw_python_stacks_waiting(struct cpw_python_stacks *ps, pid_t pid, pid_t tid, const char *comm,
			      uint64_t run_ns, struct cpw_python_frame out[2]);
void cpw_python_stacks_get_stats(struct cpw_python_stacks *ps, struct cpw_python_stacks_stats *out);
/* Calls fn for each line to put in Notes (versions not read and why, refusals); at most max. */
typedef void (*cpw_python_note_fn)(void *ctx, const char *line);
void cpw_python_stacks_notes(struct cpw_python_stacks *ps, cpw_python_note_fn fn, void *ctx);
/* Stops the reader's thread and frees it all. */
void cpw_python_stacks_free(struct cpw_python_stacks *ps);

#endif
