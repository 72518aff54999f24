/*
 * verdict.h: the classifier's answer: the fixed vocabulary of classes and their names
 * (verdict.c), the evidence, findings and advice. Filled by cpw_classify() (classify.h);
 * read by every report writer and the live view.
 */
#ifndef CPW_CLASSIFY_VERDICT_H
#define CPW_CLASSIFY_VERDICT_H

#include <stdbool.h>

/* The fixed vocabulary of verdict.class (doc/cperfwatch.schema.json). Keep the order:
 * budgets use bits. */
enum cpw_class {
	CPW_CLASS_CPU_BOUND,
	CPW_CLASS_MEMORY_BOUND,
	CPW_CLASS_IO_BOUND,
	CPW_CLASS_THRASHING,
	CPW_CLASS_WAITING,
	CPW_CLASS_CPU_STARVED,
	CPW_CLASS_MIXED,
	CPW_CLASS_UNKNOWN,
	CPW_CLASS_GPU_BOUND, /* gpu: after unknown, so that the others keep their bits */
	CPW_CLASS_COUNT,
	CPW_CLASS_NONE = -1 /* no secondary */
};

#define CPW_EVIDENCE_MAX 8
#define CPW_FINDINGS_MAX 4

struct cpw_evidence {
	char metric[48];    /* e.g. "cpu_share" */
	double value;       /* NAN where the rule could not be evaluated */
	double threshold;   /* NAN for purely informative lines */
	char source[64];    /* the kernel interface, e.g. "wait4 rusage", "/proc/PID/task/TID/schedstat" */
	char text[160];     /* one human line, e.g. "user+sys is 98% of wall x usable cores (>= 85%)" */
	bool aside;         /* a rule that did not fire and was not near: JSON keeps it, the text
			     * report shows only what supports or nearly changes the verdict */
};

struct cpw_verdict {
	enum cpw_class cls;
	double confidence;        /* 0..1 */
	enum cpw_class secondary; /* CPW_CLASS_NONE when there is none */
	struct cpw_evidence evidence[CPW_EVIDENCE_MAX];
	int nevidence;
	char findings[CPW_FINDINGS_MAX][160]; /* parallelism and similar: "uses 1.0 of 4 usable cores" */
	int nfindings;
	char advice[1536]; /* room for every part: the class, the cores, the waits, the processes, the Hotspots */
};

const char *cpw_verdict_class_name(enum cpw_class cls);      /* "cpu-bound", ... */
int cpw_verdict_class_from_name(const char *name);           /* enum value, or -1 */

/* A figure in the verdict's words as a person reads it: a whole number as it is ("2",
 * "128"), else two significant digits ("1.0" for 1.03226, "1.5", "0.75", "12" for 12.4).
 * The evidence's value and threshold keep the exact figures (JSON prints them). Use the
 * member at once: cpw_verdict_figure(x).s lives until the end of the full expression. */
struct cpw_figure { char s[24]; };
struct cpw_figure cpw_verdict_figure(double v);
/* "" when that figure reads as one ("1", "1.0"), else "s": "1.0 usable CPU", "2 usable CPUs". */
const char *cpw_verdict_figure_plural(double v);

#endif
