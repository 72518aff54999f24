/*
 * sampler.h: on-CPU samples of the watched tree from the software cpu-clock perf event
 * (sampler.c), each handed on as a stack of named frames.
 *
 * One event per thread and CPU with inherit (the kernel refuses to map the ring buffer of an
 * inherited event that follows a task on every CPU), the events of one CPU writing into one
 * ring buffer. Armed on the tree's threads; their children and threads are followed by
 * inherit, and the threads a later listing names that nothing follows are armed then. Each
 * drain copies the records out of the buffers, orders them by time and turns
 * each sample into a stack: the instruction pointer and the frame-pointer callchain, every
 * address tied to its file by the MMAP2 records (and /proc/PID/maps for what was mapped
 * before arming) and named by the file's ELF symbols or a JIT perf map (source/elf/).
 *
 * A Python stack reader can be added beside it: it would hand on the same struct cpw_stack
 * with interpreter frames in place of the interpreter's own.
 */
#ifndef CPW_SOURCE_SAMPLE_SAMPLER_H
#define CPW_SOURCE_SAMPLE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What kind of code a frame runs. */
enum cpw_code_kind {
	CPW_CODE_NATIVE,      /* the program and its native libraries and extensions */
	CPW_CODE_LIBC,        /* the C library and the dynamic loader */
	CPW_CODE_INTERPRETER, /* a language runtime: libpython, the python executable, ... */
	CPW_CODE_KERNEL,
	CPW_CODE_JIT,         /* code a JIT wrote: named by /tmp/perf-PID.map, or anonymous */
	CPW_CODE_UNKNOWN,     /* no mapping holds the address */
	CPW_CODE_PYTHON,      /* a Python function, read by source/python/python_stacks.c */
	CPW_CODE_KINDS
};
const char *cpw_sampler_code_kind_name(enum cpw_code_kind k);

#define CPW_STACK_MAX 64

struct cpw_frame {
	const char *func; /* the symbol, or "[FILE]" where none holds the address */
	const char *file; /* the file's base name ("[kernel]", "[jit]", "[unknown]") */
	enum cpw_code_kind kind;
};

/* One sample. The strings live until the callback returns. */
struct cpw_stack {
	pid_t pid, tid;
	const char *comm;    /* the process's command name */
	double mono_s;       /* when, on CLOCK_MONOTONIC */
	int nframes;         /* frames[0] is where it ran, then its callers */
	struct cpw_frame frames[CPW_STACK_MAX];
	bool cut_short;      /* the chain ended at an address no mapping holds */
};

typedef void (*cpw_stack_fn)(void *ctx, const struct cpw_stack *st);

struct cpw_sampler_stats {
	uint64_t samples;        /* handed on */
	uint64_t lost;           /* records the kernel dropped (buffer full) */
	uint64_t cut_short;      /* samples whose chain ended at an address no mapping held */
	uint64_t leaf_only;      /* user-space samples with no caller at all */
	uint64_t unresolved;     /* samples whose own address no mapping held */
	uint64_t kernel_unnamed; /* samples in the kernel named [kernel]: before its names were
				  * read, or with its addresses hidden */
	bool kernel_read;        /* the kernel's names were read (kernel_hidden: all hidden) */
	bool kernel_hidden;
	unsigned kernel_names_after; /* samples in the kernel before its names are read */
	uint64_t unreadable;     /* files that could not be read or were replaced */
	const char *lines_why;   /* why files with debug information gave no source lines
				  * (libdw not found), or NULL: once lines were asked for */
	unsigned threads_armed;
	unsigned threads_refused;
	unsigned threads_late;   /* armed by cpw_sampler_arm_new() */
	int hz;
};

/* A sampler of hz samples per second per running thread; proc_root is /proc. NULL with why
 * filled when the kernel refuses the event (perf_event_paranoid, seccomp, no perf events). */
struct cpw_sampler *cpw_sampler_new(const char *proc_root, int hz, char *why, size_t len);
/* Arms every thread of tids (one event per CPU each, inherited by what they start).
 * Returns how many threads were armed; why says why none could be. */
int cpw_sampler_arm(struct cpw_sampler *s, const pid_t *tids, size_t n, char *why, size_t len);
/* Arms the threads of tids that no event follows: not armed, and not started by a followed
 * thread (its FORK record, drained). For threads that began after the listing given to
 * cpw_sampler_arm() and before it opened the events: call it after a drain, with a listing
 * of the tree taken before that drain. A thread that ended is passed over; a refused one is
 * counted in threads_refused once, but for one refused as past the limit of threads (the
 * caller counts those its listing for cpw_sampler_arm() left out). Returns how many it
 * armed: none once the kernel has dropped records (a dropped FORK would have a thread armed
 * twice, its samples counted twice). */
int cpw_sampler_arm_new(struct cpw_sampler *s, const pid_t *tids, size_t n);
/* Reads at once the mappings of processes that were running when the events were armed,
 * as perf record does at its start: one that ends before the next drain would otherwise
 * have its samples named "[unknown]" (a command that ran 0.58 s had all its samples so). */
void cpw_sampler_prime(struct cpw_sampler *s, const pid_t *pids, size_t n);
bool cpw_sampler_armed(const struct cpw_sampler *s);
/* Hands on every sample taken since the last drain, in time order. Returns how many. */
int cpw_sampler_drain(struct cpw_sampler *s, cpw_stack_fn fn, void *ctx);
void cpw_sampler_get_stats(const struct cpw_sampler *s, struct cpw_sampler_stats *out);
/* Where native function func of file (a frame's names) is declared, "file.c:LINE" (the line
 * its definition starts on), from the DWARF of the file or of its /usr/lib/debug/.build-id
 * file, read with libdw (opened with dlopen at the first file with debug information). Asked
 * at the end for the report's functions: one file's DWARF is held open at a time, so ask for
 * the functions of one file in a row; cpw_sampler_source_lines_done() closes it. */
bool cpw_sampler_source_line(struct cpw_sampler *s, const char *func, const char *file, char *out, size_t len);
void cpw_sampler_source_lines_done(struct cpw_sampler *s);
void cpw_sampler_free(struct cpw_sampler *s);

#endif
