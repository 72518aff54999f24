/*
 * leak.h: memory that grows and is not given back (model/leak.c).
 *
 * A resident-set series at bounded memory (struct cpw_rss_series: at most CPW_RSS_POINTS
 * points spread evenly over the whole life, plus the last sample) that the tree keeps for
 * each process and for the tree's sum (model/tree.h), and a pure detector that reads one:
 * memory that grew steadily up to the end and was not given back is a leak; memory that
 * grew and then levelled off is a warm-up. The detector takes its limits as arguments (the
 * classifier's thresholds: classify/thresholds.c) and reads nothing.
 */
#ifndef CPW_MODEL_LEAK_H
#define CPW_MODEL_LEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPW_RSS_POINTS 32 /* an even number: when full, every other point goes */

/* Every stride-th sample of a series, oldest first; when full, every other point is
 * dropped and the stride doubles, so the points always span the whole life. The last
 * sample is kept apart, so the series always reaches the end. 264 bytes. */
struct cpw_rss_series {
	float t_s[CPW_RSS_POINTS];     /* seconds since the watch began */
	float rss_kib[CPW_RSS_POINTS];
	uint32_t n;                    /* points held */
	uint32_t stride;               /* samples per point (1, 2, 4 ...); 0: empty */
	uint32_t samples;              /* samples offered */
	float last_t_s, last_rss_kib;  /* the last sample offered */
};

/* Offers one sample (t_s seconds since the watch began, rss in KiB). */
void cpw_leak_series_add(struct cpw_rss_series *s, double t_s, double rss_kib);

/* The points of s with the last sample appended where it is not the last point: writes at
 * most CPW_RSS_POINTS + 1 to t and rss, returns how many. */
size_t cpw_leak_series_points(const struct cpw_rss_series *s, double *t, double *rss);

struct cpw_leak_limits {
	double min_growth_kib; /* growth smaller than this is never a leak */
	double min_span_s;     /* growth over less time than this is a step, not a leak */
	double steady_share;   /* each third of the growth adds at least this share of a third */
	double kept_share;     /* the end holds at least this share of the growth's peak */
};

enum cpw_leak_kind {
	CPW_LEAK_NONE,     /* flat, too small, too short, given back, or growing in steps */
	CPW_LEAK_GROWING,  /* grew steadily up to the end and was not given back: a leak */
	CPW_LEAK_LEVELLED, /* grew, then levelled off: a warm-up */
};

struct cpw_leak {
	enum cpw_leak_kind kind;
	double start_s;      /* when the growth began */
	double end_s;        /* the last point (GROWING), when it levelled off (LEVELLED) */
	double start_kib;    /* the resident set when it began */
	double end_kib;      /* at end_s */
	double rate_kib_s;   /* growth per second from start_s to end_s (GROWING: the
			      * least-squares slope of its points) */
};

/* Reads n points (t ascending) and says what they are. Pure. */
enum cpw_leak_kind cpw_leak_detect(const double *t, const double *rss, size_t n,
				   const struct cpw_leak_limits *lim, struct cpw_leak *out);

/* The same on a series. */
enum cpw_leak_kind cpw_leak_detect_series(const struct cpw_rss_series *s,
					  const struct cpw_leak_limits *lim, struct cpw_leak *out);

/* The same on the series of something that has ended (a process, or the run's tree): its
 * last readings may catch its end freeing memory (an interpreter's shutdown frees every
 * object, then the exit tears the rest down), which is not memory given back. A falling
 * tail that spans at most CPW_LEAK_ENDING_S, or CPW_LEAK_ENDING_SHARE of the series, is
 * left out. */
#define CPW_LEAK_ENDING_S 2.0
#define CPW_LEAK_ENDING_SHARE 0.1
enum cpw_leak_kind cpw_leak_detect_ended(const struct cpw_rss_series *s, const struct cpw_leak_limits *lim,
					 struct cpw_leak *out);

#endif
