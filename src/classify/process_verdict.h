/*
 * process_verdict.h: a verdict per process (process_verdict.c). Every process that
 * matters, by its share of the tree's CPU, its waits or its memory, gets its own class and
 * the one finding that explains it: "python3 (pid 2139), 5.9-8.0 s: 5 threads take turns
 * on the GIL". Pure: from the model's per-process figures (model/tree.h struct cpw_proc)
 * and its waits (model/waits.h), with the classifier's thresholds (thresholds.h).
 */
#ifndef CPW_CLASSIFY_PROCESS_VERDICT_H
#define CPW_CLASSIFY_PROCESS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "classify/verdict.h"
#include "model/tree.h"
#include "model/waits.h"

#define CPW_PROC_VERDICTS_MAX 16 /* processes judged (those busy longest); the rest is counted */
/* A process matters by its memory from this peak RSS on (and a notable share of the
 * tree's): below it, the few MiB of a shell or a sleep say nothing. */
#define CPW_PROC_VERDICT_MEM_MIN_KIB (64.0 * 1024.0)

struct cpw_proc_verdict {
	pid_t pid;
	char comm[CPW_COMM_MAX];   /* raw: escape to print */
	double from_s, to_s;       /* when it was seen, since the watch began */
	enum cpw_class cls;
	enum cpw_class secondary;  /* CPW_CLASS_NONE when there is none */
	double confidence;         /* 0..1 */
	/* Its thread-seconds, as shares of its own time (on a CPU plus queued plus waits):
	 * NAN where unknown. */
	double cpu_share, runq_share, disk_share, wait_share;
	double cpu_s;              /* user + sys */
	int python;                /* 1 / 0; -1 unknown */
	bool serialised;           /* its threads take turns on a lock (the GIL for Python) */
	int threads;               /* threads that did its CPU work */
	char why[16];              /* why it matters: "cpu", "waits", "time", "memory" */
	/* The finding without the process's name and times: "5 threads take turns on the
	 * GIL". Targets in it are escaped for UTF-8 (a writer for a terminal escapes again). */
	char finding[192];
};

struct cpw_proc_verdicts {
	struct cpw_proc_verdict v[CPW_PROC_VERDICTS_MAX];
	size_t n;
	size_t left_out;           /* processes that mattered past CPW_PROC_VERDICTS_MAX */
};

/* What the processes are judged against: their waits (NULL: not probed), the CPUs the
 * tree may use (NAN: unknown; a process's own threads queued past them explain its
 * run-queue wait), and the time now, which ends the ones still alive (NAN: as last seen). */
struct cpw_proc_verdict_ctx {
	const struct cpw_waits *waits;
	double cores_usable;
	double now_s;
};

/* The processes at(ctx, 0 .. n-1), in that order (first sight): the ones that matter,
 * each judged. */
void cpw_process_verdict_judge(const struct cpw_proc *(*at)(const void *ctx, size_t i),
			       const void *ctx, size_t n, const struct cpw_proc_verdict_ctx *with,
			       struct cpw_proc_verdicts *out);
/* The same over a plain array of processes (fixtures). */
void cpw_process_verdict_judge_array(const struct cpw_proc *procs, size_t n,
				     const struct cpw_proc_verdict_ctx *with,
				     struct cpw_proc_verdicts *out);
/* The same over the model's tree. */
void cpw_process_verdict_judge_tree(const struct cpw_tree *t, const struct cpw_proc_verdict_ctx *with,
				    struct cpw_proc_verdicts *out);

/* The whole sentence: "python3 (pid 2139), 5.9-8.0 s: 5 threads take turns on the GIL"
 * (the name escaped for UTF-8). */
void cpw_process_verdict_sentence(const struct cpw_proc_verdict *pv, char *buf, size_t len);

/* Makes the tree's advice hold for every process: never recommends what a process's
 * finding rules out (threads for a Python process or for one whose threads take turns on
 * a lock), and names the processes whose class differs from the tree's. Pure. */
void cpw_process_verdict_guard_advice(const struct cpw_proc_verdicts *pvs, struct cpw_verdict *v);

#endif
