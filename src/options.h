/*
 * options.h: everything the command line decides, in one struct.
 *
 * cli.c fills it; every other module reads it and none writes it.
 */
#ifndef CPW_OPTIONS_H
#define CPW_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum cpw_mode { CPW_MODE_RUN, CPW_MODE_ATTACH, CPW_MODE_LIST_EVENTS, CPW_MODE_MERGE };

enum cpw_format { CPW_FORMAT_TEXT, CPW_FORMAT_JSON, CPW_FORMAT_OPENMETRICS, CPW_FORMAT_PROMETHEUS };

#define CPW_LABELS_MAX 16
#define CPW_LABEL_VALUE_MAX 100 /* bytes of a --label value */
#define CPW_PATH_LEN 4096

/* Default and smallest sampling intervals. The floor is the kernel's accounting
 * resolution: utime/stime in /proc move in clock ticks (USER_HZ = 100, so 10 ms). */
#define CPW_INTERVAL_DEFAULT_MS 100u
#define CPW_INTERVAL_MIN_MS 10u
#define CPW_INTERVAL_MAX_MS 3600000u
/* The highest hotspot sampling rate --freq takes (perf's own default is 4000; the kernel
 * caps it at perf_event_max_sample_rate, which it lowers when sampling costs too much). */
#define CPW_SAMPLING_HZ_MAX 10000

struct cpw_config {
	enum cpw_mode mode;
	char **command;          /* run mode: argv of COMMAND, NULL-terminated; merge mode: the files */
	int command_argc;
	pid_t pid;               /* attach mode: the root of the watched tree */
	unsigned interval_ms;    /* sampling interval */
	double duration_s;       /* attach mode: stop after this long; 0 = until the target ends */
	enum cpw_format format;
	const char *output_path; /* -o FILE (its %r, %h... expanded), or NULL for the mode's
				  * default stream; "-" is standard output */
	char output_expanded[CPW_PATH_LEN]; /* where output_path points when it was expanded */
	const char *labels[CPW_LABELS_MAX]; /* --label NAME=VALUE, checked, as given */
	int nlabels;
	const char *host;        /* this machine's short name, for the report; NULL unknown */
	int rank;                /* the job's rank of this process (MPI, Slurm); -1 unknown */
	const char *series_path; /* --series FILE: one JSON line per sample, as it is taken;
				  * NULL for none (opened by main.c before anything runs) */
	const char *plot_path;   /* --plot FILE: the run as an SVG picture; NULL for none (checked
				  * by main.c before anything runs, made when the report is) */
	/* Hotspots (issue 26): on-CPU samples by function. */
	bool no_hotspots;        /* --no-hotspots: no sampling */
	int sampling_hz;         /* --freq, or CPERFWATCH_SAMPLING_HZ (tests); 0: the default rate */
	const char *folded_path; /* --folded FILE: collapsed stacks; NULL for none (checked by
				  * main.c before anything runs, made when the report is) */
	const char *flame_path;  /* --flame FILE: the stacks as an SVG flame graph; NULL for none
				  * (checked and made as --folded's) */
	bool wait_all;           /* run mode: wait for every descendant, orphans included */
	bool tui;                /* live view (attach mode on a terminal by default) */
	bool tui_forced;         /* --tui given explicitly */
	bool no_tui;             /* --no-tui given */
	bool no_cgroup;          /* do not launch COMMAND in a cgroup of its own */
	const char *events;      /* -e LIST, or NULL for the default set */
	const char *proc_root;   /* where /proc is; tests point this at fixtures */
	const char *cgroup_root; /* where the cgroup file systems are mounted (/sys/fs/cgroup) */
	const char *nvml_library; /* CPERFWATCH_NVML: NVML's path; NULL: libnvidia-ml.so.1 where a
				   * device node says there is an NVIDIA driver (source/gpu/nvml.c) */

	/* CI budgets: 0 means no limit. */
	double max_wall_s;
	double max_cpu_s;
	uint64_t max_rss_kib;
	unsigned fail_on_mask;   /* bit (1u << enum cpw_class) per class named by --fail-on */
	/* Run mode: stop COMMAND's tree after timeout_s (SIGTERM, then SIGKILL kill_after_s
	 * later), as timeout(1) does; 0 = never. A budget too ("timeout"). */
	double timeout_s;
	double kill_after_s;
};

/* --kill-after's default: the grace between SIGTERM and SIGKILL of a --timeout. */
#define CPW_KILL_AFTER_DEFAULT_S 5.0

void cpw_options_defaults(struct cpw_config *cfg);

#endif
