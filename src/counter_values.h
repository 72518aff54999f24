/*
 * counter_values.h: what the perf_event counters measured, as values: the language between
 * the counters source (source/perf/), which fills it, and the report writers, which print
 * it. A base header, so that neither side includes the other's: the report is handed this
 * snapshot, never the live counters handle.
 */
#ifndef CPW_COUNTER_VALUES_H
#define CPW_COUNTER_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#define CPW_COUNTER_VALUES_MAX 64 /* as many as a counters set holds */
#define CPW_PARANOID_UNKNOWN (-100)

enum cpw_counter_status {
	CPW_COUNTER_COUNTED,
	CPW_COUNTER_NOT_SUPPORTED,
	CPW_COUNTER_NOT_PERMITTED,
	CPW_COUNTER_MULTIPLEXED
};

/* Roles the derived figures and the classifier's metrics look up. */
enum cpw_counter_role {
	CPW_ROLE_NONE,
	CPW_ROLE_TASK_CLOCK,
	CPW_ROLE_CYCLES,
	CPW_ROLE_INSTRUCTIONS,
	CPW_ROLE_CACHE_REFERENCES,
	CPW_ROLE_CACHE_MISSES,
	CPW_ROLE_LLC_LOAD_MISSES,
	CPW_ROLE_BRANCHES,
	CPW_ROLE_BRANCH_MISSES,
	CPW_ROLE_STALLED_FRONTEND,
	CPW_ROLE_STALLED_BACKEND,
	CPW_ROLE_TD_SLOTS,
	CPW_ROLE_TD_RETIRING,
	CPW_ROLE_TD_BAD_SPEC,
	CPW_ROLE_TD_FE_BOUND,
	CPW_ROLE_TD_BE_BOUND,
	CPW_ROLE_TD_MEM_BOUND,
	CPW_ROLE_TD_STALLS_MEM,   /* CYCLE_ACTIVITY:STALLS_MEM_ANY, older Intel cores */
	CPW_ROLE_TD_STALLS_TOTAL, /* CYCLE_ACTIVITY:STALLS_TOTAL */
	CPW_ROLE_COUNT
};

/* Derived figures, NAN where an input is missing or the divisor is 0. */
struct cpw_counters_derived {
	double ipc;                /* instructions / cycles */
	double cache_miss_ratio;   /* cache-misses / cache-references, 0..1 */
	double llc_mpki;           /* LLC-load-misses per 1000 instructions */
	double branch_mpki;        /* branch-misses per 1000 instructions */
	double branch_miss_ratio;  /* branch-misses / branches, where branches was counted */
	double stalled_frontend_share; /* stalled-cycles-frontend / cycles */
	double stalled_backend_share;  /* stalled-cycles-backend / cycles */
	double topdown_retiring;   /* top-down level 1, shares of slots */
	double topdown_bad_spec;
	double topdown_frontend_bound;
	double topdown_backend_bound;
	double topdown_memory_bound; /* level 2 under backend bound */
};

/* One event at the end of the run. */
struct cpw_counter_reading {
	char name[96];         /* the name the user gave or the default set's name */
	char unit[16];         /* "msec", "" ... as perf stat prints */
	double value;          /* NAN unless counted or multiplexed */
	enum cpw_counter_status status;
	double running_fraction; /* time_running / time_enabled, 1 when not multiplexed */
	char reason[160];      /* why not counted; empty when counted */
	enum cpw_counter_role role;
	bool user_only;        /* counted in user space only (exclude_kernel) */
};

/* Every event, the figures derived from them, and what decided what could be counted. */
struct cpw_counter_values {
	size_t n;
	struct cpw_counter_reading ev[CPW_COUNTER_VALUES_MAX];
	struct cpw_counters_derived derived;
	int paranoid; /* kernel.perf_event_paranoid; CPW_PARANOID_UNKNOWN where unreadable */
};

#endif
