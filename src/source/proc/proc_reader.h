/*
 * proc_reader.h: one sample of the watched tree read from /proc (source/proc/proc_reader.c).
 *
 * The reader finds the tree from its roots through /proc/PID/task/TID/children (only the
 * tree is read, never all of /proc), reads each process and thread through descriptors
 * it keeps open, and skips what cannot have changed: a thread not scheduled since the last
 * sample (its schedstat says so) keeps its last state, context switches and children, so
 * an idle thread costs one small read; a process none of whose threads ran keeps its stat,
 * IO and thread list too (its stat is read one sample in eight all the same), so an idle
 * process costs one small read a thread. For a thread off the CPU the wait probe
 * (source/waits/wait_probe.c) says what it waits on, again only after it ran. New processes are
 * identified once (cmdline, and the user through libproc2). It hands the model (model/tree.c) what it read; it keeps no
 * figure of the model's.
 */
#ifndef CPW_SOURCE_PROC_PROC_READER_H
#define CPW_SOURCE_PROC_PROC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/proc/proc_parse.h"
#include "source/waits/wait_probe.h"

#define CPW_READING_CMDLINE_MAX 256
#define CPW_READING_WCHAN_MAX 64

/* One thread as read in this sample. */
struct cpw_thread_reading {
	pid_t tid;
	char state;            /* stat's letter; the last one read for a thread that did not run */
	char comm[16];         /* its name where its stat was read now; "" otherwise (the main
				* thread's is the process's) */
	bool ran;              /* scheduled since the last sample (also: new, or unknown) */
	bool has_schedstat;
	struct cpw_schedstat sched; /* zeros without schedstat */
	bool has_status;       /* status was read now (only when it ran) */
	struct cpw_status_fields status; /* vol/invol: the last read when it did not run */
	char wchan[CPW_READING_WCHAN_MAX]; /* read for threads in D only; "" otherwise */
	/* What a thread in S or D waits on (source/waits/wait_probe.h): probed when it ran since the
	 * last sample, was never probed, or its target may resolve now; otherwise the last
	 * probe's. NULL on a CPU or unknown. Valid until the next sample. */
	const struct cpw_wait *wait;
};

/* One process as read in this sample. */
struct cpw_proc_reading {
	pid_t pid;
	bool first;            /* the reader's first reading of this process (or of a reused pid) */
	struct cpw_stat_fields stat;
	bool io_read;          /* /proc/PID/io read now: only when a thread ran, or first */
	struct cpw_io_fields io;
	int io_errno;          /* why io could not be read (0: read, or not tried) */
	bool cmdline_read;     /* cmdline below was read now: first reading, or an exec (its name
				* or where its code starts changed: a pyenv shim becoming python) */
	const char *cmdline;   /* argv joined, raw, where cmdline_read ("" otherwise); kept beside
				* the readings (few are read in a sample: 256 bytes in each of
				* 500 readings cost 128 KiB), valid until the next sample */
	char user[32];         /* first reading only, where libproc2 named it; "" otherwise */
	double pss_kib;        /* smaps_rollup's Pss, where this sample read it; NAN otherwise */
	int pss_errno;         /* why it could not be read (0: read, or not asked) */
	int is_python;         /* 1 / 0 when asked in this sample (once it has a second
				  thread, and again after an exec); -1 otherwise */
	/* python version: where cmdline_read, whether its executable is Python (1 / 0; -1
	 * unreadable) and the version its name says ("3.11"; "" where it says none). */
	int python_exe;
	char python[16];
	size_t first_thread, nthreads; /* its threads in cpw_proc_sample.threads */
};

struct cpw_proc_sample {
	const struct cpw_proc_reading *procs; /* breadth first from the roots */
	size_t nprocs;
	const struct cpw_thread_reading *threads;
	size_t nthreads;
	/* Processes read by an earlier sample, not reached by this one, yet still running (the
	 * same start time, not a zombie): an orphan between its dead parent and its new one is
	 * under neither for a moment. Sorted. A process missed twice is dropped. */
	const pid_t *still_there;
	size_t nstill_there;
	/* The CPUs the tree's threads may run on: the union of Cpus_allowed_list over the
	 * threads whose status was read now (those that ran). cpus_threads counts them; 0
	 * means nothing is known of this sample. */
	const struct cpw_cpuset *cpus_allowed;
	size_t cpus_threads;
	const struct cpw_wait_probe_stats *wait_stats; /* the wait probe's, all samples; NULL
							  when there is no probe */
	bool pss_read;         /* this sample read every process's PSS (cpw_proc_reader_want_pss) */
	double pss_cost_s;     /* the time those reads took (they walk the page tables) */
};

struct cpw_proc_reader;

/* proc_root is normally "/proc"; NULL means that. Raises the descriptor limit to keep
 * files open between samples. */
struct cpw_proc_reader *cpw_proc_reader_new(const char *proc_root);
void cpw_proc_reader_free(struct cpw_proc_reader *r);
/* The Python stack reader that names the functions the threads of Python processes wait
 * in (cpw_wait's py_ fields; source/python/python_stacks.h), from the next sample on; NULL
 * (the default): none. The caller keeps it alive while the reader uses it. */
struct cpw_python_stacks;
void cpw_proc_reader_set_python(struct cpw_proc_reader *r, struct cpw_python_stacks *ps);
/* Users are named through libproc2 (opened at the first new process) only for a report
 * that shows them; this turns that off. A fixture root never uses libproc2. */
void cpw_proc_reader_skip_users(struct cpw_proc_reader *r);
/* Why processes could not be identified through libproc2; NULL when nothing failed. */
const char *cpw_proc_reader_identity_error(const struct cpw_proc_reader *r);

/* The next sample also reads each process's proportional set size (smaps_rollup), which
 * counts shared pages once over the tree; it costs a walk of the page tables, so the
 * caller asks for it at a slower pace. */
void cpw_proc_reader_want_pss(struct cpw_proc_reader *r);

/* Reads every process reachable from roots. The sample stays valid until the next call.
 * Returns 0, or -ENOMEM. */
int cpw_proc_reader_sample(struct cpw_proc_reader *r, const pid_t *roots, size_t nroots,
			   struct cpw_proc_sample *out);

#endif
