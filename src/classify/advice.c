/*
 * advice.c: what to do about a verdict, short and concrete, one text per class plus a few
 * details taken from the metrics (idle cores, oversubscription, the memory limit). Pure:
 * formats into the verdict, no I/O, no allocation.
 */
#include "classify/advice.h"

#include <stdio.h>
#include <string.h>

#include "classify/thresholds.h"
#include "classify/wait_advice.h"

/* Full advice, when the class is the verdict. Each well under half the 767 characters. */
static const char *const advice_full[CPW_CLASS_COUNT] = {
	[CPW_CLASS_CPU_BOUND] =
		"CPU-bound: the time goes to computing. Profile it (perf record -g) and look for a "
		"better algorithm, compiled libraries (numpy, a C extension) instead of interpreted "
		"loops, and compiler optimisation (-O2, -march=native).",
	[CPW_CLASS_MEMORY_BOUND] =
		"Memory-bound: the CPU waits for memory. Improve locality: contiguous arrays instead "
		"of pointers, smaller types, blocking/tiling; use less space. More threads may make "
		"it worse: they share the memory bandwidth.",
	[CPW_CLASS_IO_BOUND] =
		"IO-bound: the tree waits for storage. Cache what is read again, read and write "
		"sequentially in large blocks, batch small writes and sync less often (one fsync "
		"per batch, not per record), or use faster storage.",
	[CPW_CLASS_THRASHING] =
		"Thrashing: the working set does not fit in the memory it may use, so pages are "
		"dropped and read again. Reduce the working set (process the data in chunks, "
		"stream instead of random access, smaller structures) or give it more memory.",
	[CPW_CLASS_WAITING] =
		"Waiting: the tree mostly sleeps. Find what it waits on (timers, pipes, sockets, "
		"locks, a child: strace -f -T, or perf trace) and overlap or parallelise the waits, "
		"batch round trips, or remove the sleeps.",
	[CPW_CLASS_CPU_STARVED] =
		"CPU-starved: the tree is runnable but other load takes the CPUs it may use. Move "
		"or nice the other work, or give this job more CPUs (taskset, the cgroup CPU quota).",
	[CPW_CLASS_MIXED] = "No single resource dominates.",
	[CPW_CLASS_UNKNOWN] =
		"Too little data to judge: run it longer (a bigger input or a loop) or sample more "
		"often with a lower --interval.",
	[CPW_CLASS_GPU_BOUND] =
		"GPU-bound: the device is busy and the host waits on it. Make the device's work "
		"cheaper: mixed precision (bf16, fp16 with tensor cores), fused kernels (torch.compile), "
		"fewer, larger launches; profile the kernels (nsys, ncu) for the slowest ones.",
};

/* Memory-bound by page faults alone: the kernel's work of giving fresh memory on first
 * touch (a fault, a zeroed page each), which locality does not change. */
static const char first_touch_advice[] =
	"Memory-bound on page faults: most of the time goes to first touches of fresh memory, "
	"each a fault and a zeroed page. Allocate once and reuse the buffers (a pool, no "
	"malloc/free or mmap/munmap per item), use huge pages (madvise(MADV_HUGEPAGE), "
	"transparent huge pages), or pre-fault what will be used (MAP_POPULATE) outside the "
	"timed part.";

/* The CPU work is starting processes (fork, exec, page-table copies, the loader). */
static const char spawn_advice[] =
	"Process creation: the time goes to starting processes (fork and exec, page-table "
	"copies, copy-on-write faults, the dynamic loader), not to their work. Start fewer: "
	"batch items per command (xargs -n, find -exec ... +), do the loop inside one program "
	"or with shell builtins, keep a persistent worker that takes many items, or spawn with "
	"posix_spawn or vfork, which copy no page tables.";

/* Short advice, used in pairs for a mixed verdict. */
static const char *const advice_short[CPW_CLASS_COUNT] = {
	[CPW_CLASS_CPU_BOUND] = "for the CPU part, profile and use a better algorithm or compiled code",
	[CPW_CLASS_MEMORY_BOUND] = "for the memory part, improve locality and use less space",
	[CPW_CLASS_IO_BOUND] = "for the IO part, cache, read sequentially, batch writes, sync less",
	[CPW_CLASS_THRASHING] = "for the memory stalls, shrink the working set or give it more memory",
	[CPW_CLASS_WAITING] = "for the waits, find what it sleeps on and overlap the waits",
	[CPW_CLASS_CPU_STARVED] = "for the run-queue wait, move other load away or give it more CPUs",
	[CPW_CLASS_MIXED] = "",
	[CPW_CLASS_UNKNOWN] = "run it longer",
	[CPW_CLASS_GPU_BOUND] = "for the GPU part, make the device's kernels cheaper",
};

const char *cpw_advice_for(enum cpw_class cls)
{
	if (cls < 0 || cls >= CPW_CLASS_COUNT)
		return "";
	return advice_full[cls];
}

static const char *short_for(enum cpw_class cls)
{
	if (cls < 0 || cls >= CPW_CLASS_COUNT)
		return "";
	return advice_short[cls];
}

void cpw_advice_replace(struct cpw_verdict *v, const char *from, const char *to)
{
	char *at = strstr(v->advice, from);
	char rest[sizeof v->advice];

	if (at == NULL || strlen(v->advice) - strlen(from) + strlen(to) >= sizeof v->advice)
		return;
	snprintf(rest, sizeof rest, "%s", at + strlen(from));
	snprintf(at, sizeof v->advice - (size_t)(at - v->advice), "%s%s", to, rest);
}

void cpw_advice_append(struct cpw_verdict *v, const char *sep, const char *text)
{
	static const char cut[] = "...";
	size_t used = strnlen(v->advice, sizeof v->advice - 1), room = sizeof v->advice - 1 - used;
	size_t want = strlen(sep) + strlen(text);

	v->advice[used] = '\0';
	if (want <= room) {
		snprintf(v->advice + used, room + 1, "%s%s", sep, text);
	} else if (room >= strlen(sep) + sizeof cut) { /* a word of it at least, then "..." */
		snprintf(v->advice + used, room + 1 - (sizeof cut - 1), "%s%s", sep, text);
		strcat(v->advice, cut);
	}
}

/* Appends to the advice buffer, cut where it is full. */
static void append(struct cpw_verdict *v, const char *text)
{
	cpw_advice_append(v, "", text);
}

/* What to do when the CPU lane is the verdict and the tree has more CPUs than it uses,
 * or uses them all, or its threads take turns. */
static void cpu_detail(const struct cpw_advice_facts *f, struct cpw_verdict *v)
{
	char extra[320];
	bool several = cpw_known(f->cores) && f->cores > 1;

	if (f->serialised && f->python) {
		snprintf(extra, sizeof extra,
			 " Its %d threads take turns on Python's GIL: more threads will not help; use "
			 "processes (multiprocessing, concurrent.futures.ProcessPoolExecutor) or code "
			 "that releases the GIL (numpy, C extensions).", f->threads);
		append(v, extra);
	} else if (f->serialised) {
		snprintf(extra, sizeof extra,
			 " Its %d threads take turns on a lock: more threads will not help. Shorten "
			 "the critical sections or share fewer locks (perf lock finds them).",
			 f->threads);
		append(v, extra);
	} else if (f->oversub && cpw_known(f->cores)) {
		snprintf(extra, sizeof extra,
			 " It runs %s thread%s on %s usable CPU%s: more threads will not help.",
			 cpw_verdict_figure(f->runnable).s, cpw_verdict_figure_plural(f->runnable),
			 cpw_verdict_figure(f->cores).s, cpw_verdict_figure_plural(f->cores));
		append(v, extra);
	} else if (several && !f->saturated && cpw_known(f->cores_used) && v->cls == CPW_CLASS_CPU_BOUND) {
		if (f->python)
			snprintf(extra, sizeof extra,
				 " It uses %.1f of %s usable cores: parallelise with processes "
				 "(multiprocessing, concurrent.futures.ProcessPoolExecutor) to use the "
				 "rest; Python threads take turns on the GIL.", f->cores_used,
				 cpw_verdict_figure(f->cores).s);
		else
			snprintf(extra, sizeof extra,
				 " It uses %.1f of %s usable cores: parallelise (threads, processes, "
				 "make -j) to use the rest.", f->cores_used, cpw_verdict_figure(f->cores).s);
		append(v, extra);
	}
}

void cpw_advice_fill(const struct cpw_metrics *m, const struct cpw_advice_facts *f,
		     struct cpw_verdict *v)
{
	char extra[320];

	v->advice[0] = '\0';
	if (v->cls == CPW_CLASS_MIXED) {
		append(v, advice_full[CPW_CLASS_MIXED]);
		if (v->secondary != CPW_CLASS_NONE) {
			append(v, " Mostly ");
			append(v, cpw_verdict_class_name(v->secondary));
			append(v, ": ");
			append(v, short_for(v->secondary));
			append(v, ".");
		}
		return;
	}
	/* Waiting with a named kind: advice for that kind (wait_advice.c). */
	if (f != NULL && f->spawn && v->cls == CPW_CLASS_CPU_BOUND)
		append(v, spawn_advice);
	else if (f != NULL && f->first_touch && v->cls == CPW_CLASS_MEMORY_BOUND)
		append(v, first_touch_advice);
	else if (v->cls != CPW_CLASS_WAITING || !cpw_wait_advice(m, v->advice, sizeof(v->advice)))
		append(v, cpw_advice_for(v->cls));
	if (v->cls == CPW_CLASS_IO_BOUND && cpw_wait_advice_files(m, extra, sizeof extra))
		append(v, extra);

	if (f != NULL && !f->spawn && (v->cls == CPW_CLASS_CPU_BOUND || v->cls == CPW_CLASS_MEMORY_BOUND))
		cpu_detail(f, v);
	if (v->cls == CPW_CLASS_THRASHING && cpw_known(m->memory_limit_kib) && m->memory_limit_kib > 0) {
		snprintf(extra, sizeof extra, " Its memory limit is %.0f MiB.",
			 m->memory_limit_kib / 1024.0);
		append(v, extra);
	}
	if (v->secondary != CPW_CLASS_NONE && v->cls != CPW_CLASS_UNKNOWN) {
		append(v, " Also, ");
		if (f != NULL && f->spawn && v->secondary == CPW_CLASS_CPU_BOUND)
			append(v, "for the CPU part, start fewer processes (batch items per command, a "
				  "persistent worker, posix_spawn)");
		else if (f != NULL && f->first_touch && v->secondary == CPW_CLASS_MEMORY_BOUND)
			append(v, "for the page faults, reuse memory instead of touching fresh pages");
		else
			append(v, short_for(v->secondary));
		append(v, ".");
	}
}
