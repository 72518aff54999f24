/*
 * phases.h: the run cut into phases, each with its own verdict (classify/phases.c).
 *
 * Pure: from the timeline's points (model/timeline.h) to phases. Each point is given the
 * lane (cpu, disk, wait) that took most of its thread lifetime; runs of one lane shorter
 * than the minimum phase length are absorbed by a neighbour; each phase is classified by
 * the same classifier as the whole run (cpw_classify on the phase's own metrics), and
 * neighbours with the same verdict join. doc/classification.md, section "Phases".
 */
#ifndef CPW_CLASSIFY_PHASES_H
#define CPW_CLASSIFY_PHASES_H

#include <stddef.h>

#include "classify/verdict.h"
#include "model/metrics.h"
#include "model/timeline.h"

#define CPW_PHASES_MAX 12

struct cpw_proc_verdicts; /* classify/process_verdict.h */

/* The lane a point (or phase) spent most of its thread lifetime in. */
/* GPU: the GPU the tree holds busy at least gpu_busy of the point, whatever the host
 * does (a training loop's host computes or spins while its device works). */
enum cpw_phase_lane { CPW_LANE_CPU, CPW_LANE_DISK, CPW_LANE_WAIT, CPW_LANE_GPU, CPW_LANE_NONE };

struct cpw_phase {
	double start_s, end_s;
	size_t first, last;             /* the timeline points it covers, inclusive */
	enum cpw_class cls;             /* the classifier's verdict on the phase's figures */
	double confidence;
	enum cpw_class secondary;
	char evidence[160];             /* the deciding evidence line (a waiting phase's names the
					 * kind most waited on: "...; waits: 96% network") */
	char wait_kind[16];             /* the kind its threads waited on most, waits for a child
					 * aside ("network", "lock"); "" where none was sampled */
	double cores_used;              /* CPU seconds / wall seconds in the phase */
	struct cpw_tl_proc procs[CPW_TIMELINE_TOP]; /* the processes that did most, first first */
	char who[48];   /* proc_label: procs[0]'s arguments shortened, where the session knew
			 * them ("python3 case.py test_slow"; raw: escape to print); "" otherwise */
};

struct cpw_phases {
	struct cpw_phase phase[CPW_PHASES_MAX];
	int n;              /* 0 when there is no timeline */
	double min_len_s;   /* the minimum phase length used */
	/* The points cpw_phases_find() cut and the cores it was given, for
	 * cpw_phases_refine_verdict() to judge the phases again with the run's facts: call it
	 * before the timeline changes. */
	const struct cpw_tl_point *points;
	size_t npoints;
	double cores_usable;
};

/* Cuts the points (oldest first) into phases. cores_usable as in the metrics (NAN:
 * unknown); interval_s is the sampling interval, for the minimum length. */
void cpw_phases_find(const struct cpw_tl_point *points, size_t n, double cores_usable,
		     double interval_s, struct cpw_phases *out);

/* The classifier's input for points first..last (inclusive), as cpw_classify() reads it. */
void cpw_phases_metrics(const struct cpw_tl_point *points, size_t first, size_t last,
			double cores_usable, struct cpw_metrics *m);

/* The lane of one point (CPW_LANE_NONE without thread samples). */
enum cpw_phase_lane cpw_phases_lane_of(const struct cpw_tl_point *p);

/* After cpw_gpu_verdict_apply() changed the run's class (gpu-bound): a single phase takes
 * it, as it takes the run's; several keep theirs, and their finding, "CLASS overall;
 * START-END s CLASS: COMM ..." (the GPU's own findings go before it), is told again with
 * the run's new class. */
void cpw_phases_retell(struct cpw_phases *ph, struct cpw_verdict *v);

/* Makes the phases and the run's verdict one story (doc/classification.md, "Phases"):
 *  - a single phase is the run: it takes the run's verdict;
 *  - a phase whose work is one process's (owners: the processes that matter, judged, as
 *    cpw_process_verdict_judge() gives them; NULL: none) takes that process's verdict, so
 *    that the two never tell the same stretch two ways;
 *  - a phase whose busiest process is the run's is judged again with what the run knows of
 *    that process and no window shows (its threads taking turns on a lock, Python, the CPUs
 *    it narrowed itself to), so that threads serialised on the GIL are not a cpu-starved
 *    phase in a cpu-bound run; neighbours that then agree join;
 *  - where more than one phase is left, the run's verdict gets a finding that names the
 *    phases that differ from it ("0.0-1.3 s io-bound: dd"), and the parallelism finding and
 *    advice judged on the cpu-bound phases' own use of the cores, not the run's average (a
 *    sequential run is not told to parallelise because it also waited). */
void cpw_phases_refine_verdict(struct cpw_phases *ph, const struct cpw_metrics *m,
			       const struct cpw_proc_verdicts *owners, struct cpw_verdict *v);

/* The phase that holds time t (the last one for t past the end); -1 without phases. */
int cpw_phases_at(const struct cpw_phases *ph, double t);
/* The mark of phase i in the timeline rows (text report and live view): 1-9, then a, b, c;
 * a blank for -1. */
char cpw_phases_mark(int i);

#endif
