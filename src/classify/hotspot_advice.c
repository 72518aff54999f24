/*
 * hotspot_advice.c: the hotspots in cpu-bound advice (hotspot_advice.h). Pure: it reads
 * the model's tables and writes text.
 */
#include "config.h"
#include "classify/hotspot_advice.h"

#include <stdio.h>
#include <string.h>

#include "classify/advice.h"

/* Fewer samples than this say too little to name a function. */
#define ADVICE_MIN_SAMPLES 20
#define ADVICE_TOP 2

static const char *what_to_do(enum cpw_code_kind k, const char *file)
{
	/* A shared library's own code (libz, libcrypto): the time is in it, not the caller's. */
	if (k == CPW_CODE_NATIVE && strstr(file, ".so"))
		return "the time is in that library itself: call it less often, on less data, or with cheaper settings";
	switch (k) {
	case CPW_CODE_INTERPRETER:
		return "the interpreter itself: interpreted loops; vectorise them (numpy) or move them to compiled code";
	case CPW_CODE_LIBC:
		return "the C library: look at what calls it (memory copies, allocation, string handling)";
	case CPW_CODE_KERNEL:
		return "system calls or page faults on the program's behalf; batch them"; /* its file: [kernel] */
	case CPW_CODE_JIT:
		return "JIT-compiled code";
	case CPW_CODE_NATIVE:
		return "native code: the algorithm there";
	case CPW_CODE_PYTHON:
		return "the Python interpreter running it: a pure-Python loop; vectorise it (numpy) or move it to "
		       "compiled code";
	default:
		return "code no file holds";
	}
}

size_t cpw_hotspot_advice(const struct cpw_hotspots *h, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!h || cpw_hotspots_unavailable(h) || cpw_hotspots_samples(h) < ADVICE_MIN_SAMPLES || len == 0)
		return 0;
	struct cpw_hot_fn top[ADVICE_TOP + 1];
	size_t n = cpw_hotspots_top(h, top, ADVICE_TOP + 1);
	uint64_t all = cpw_hotspots_samples(h);
	size_t used = 0;
	int named = 0;
	for (size_t i = 0; i < n && named < ADVICE_TOP; i++) {
		if (strcmp(top[i].name, "[other]") == 0)
			continue;
		double pct = 100.0 * (double)top[i].self / (double)all;
		if (named > 0 && pct < 10)
			break;
		/* "[libz.so.1.2.13]": a file's code that no symbol names, told as such. */
		bool nameless = top[i].name[0] == '[' && top[i].kind != CPW_CODE_KERNEL;
		/* "[kernel]": the kernel's samples its names did not name (Notes say why). */
		bool kernel_nameless = top[i].name[0] == '[' && top[i].kind == CPW_CODE_KERNEL;
		int w = nameless ? snprintf(buf + used, len - used, "%s%.0f%% of the CPU in %s (code without symbols): %s",
					    named ? "; " : "Hotspots: ", pct, top[i].file, what_to_do(top[i].kind, top[i].file))
			: kernel_nameless ? snprintf(buf + used, len - used,
						     "%s%.0f%% of the CPU in the kernel (its functions not named: see Notes): %s",
						     named ? "; " : "Hotspots: ", pct, what_to_do(top[i].kind, top[i].file))
				 : snprintf(buf + used, len - used, "%s%.0f%% of the CPU in %s (%s): %s",
					    named ? "; " : "Hotspots: ", pct, top[i].name, top[i].file,
					    what_to_do(top[i].kind, top[i].file));
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
		named++;
	}
	if (named && used + 1 < len) {
		buf[used++] = '.';
		buf[used] = '\0';
	}
	return used;
}

void cpw_hotspot_advice_append(const struct cpw_hotspots *h, struct cpw_verdict *v)
{
	/* cpu-bound, or a CPU part second (cpu-starved, then cpu-bound: beside other load the
	 * work is still the functions'). */
	if (!h || (v->cls != CPW_CLASS_CPU_BOUND && v->secondary != CPW_CLASS_CPU_BOUND))
		return;
	char text[512];
	if (cpw_hotspot_advice(h, text, sizeof(text)) == 0)
		return;
	/* The functions are named right after: the advice no longer sends people to another
	 * profiler to find them (classify/advice.c's cpu-bound text). */
	/* Bounded: the longer words once ran past a near-full advice (a tree's "Per process:"
	 * list) into the report's next field, and the cperfwatch that wrote it crashed. */
	cpw_advice_replace(v, "Profile it (perf record -g) and look for", "In the functions the Hotspots name, look for");
	/* the secondary's words: the functions follow */
	cpw_advice_replace(v, "for the CPU part, profile and use", "for the CPU part, use");
	cpw_advice_append(v, v->advice[0] ? " " : "", text);
}

void cpw_hotspot_advice_name_turns(const struct cpw_hotspots *h, struct cpw_verdict *v)
{
	static const char turns[] = "they take turns on a lock";
	if (!h || cpw_hotspots_unavailable(h) || cpw_hotspots_samples(h) < ADVICE_MIN_SAMPLES)
		return;
	for (int i = 0; i < v->nfindings; i++) {
		char *f = v->findings[i];
		if (!strstr(f, turns) || strstr(f, ", running "))
			continue;
		struct cpw_hot_fn top[2];
		size_t n = cpw_hotspots_top(h, top, 2);
		size_t k = n && strcmp(top[0].name, "[other]") == 0 ? 1 : 0;
		if (k >= n)
			return;
		double pct = 100.0 * (double)top[k].self / (double)cpw_hotspots_samples(h);
		char add[160];
		int w = snprintf(add, sizeof(add), ", running %s (%s), %.0f%% of the CPU", top[k].name, top[k].file, pct);
		size_t have = strlen(f);
		if (w > 0 && have + (size_t)w < sizeof(v->findings[i])) /* whole, or not at all */
			memcpy(f + have, add, (size_t)w + 1);
		return;
	}
}
