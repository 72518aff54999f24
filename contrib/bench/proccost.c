/*
 * proccost.c: a benchmark helper that prices each /proc read the sampler does, per
 * process, on the processes given, so that the sampler's cost can be split by file.
 *
 *   proccost ROUNDS PID...
 *
 * For each operation it runs ROUNDS passes over every pid and prints the mean CPU time
 * (user+system of this process, not wall time) per process per pass, in microseconds.
 * The processes are expected to be single-threaded sleepers (contrib/bench/proctree), so
 * task/TID is task/PID. "pread" rows keep one descriptor per process open and re-read it
 * from offset 0, which regenerates a seq_file; "libproc2" is procps_pids_select with the
 * items src/source/proc/procps.c asks for (it reads status and stats the directory too). The
 * last rows put together what the sampler reads today and what it could read instead.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef HAVE_LIBPROC2
#include <libproc2/pids.h>
#endif

static pid_t *pids;
static int npids;
static int *fds;

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static long read_path(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	return (long)n;
}

/* /proc/PID/LEAF, or /proc/PID/task/PID/LEAF for the main thread's own file. */
static void make_path(char *path, size_t size, pid_t pid, int task, const char *leaf)
{
	if (task)
		snprintf(path, size, "/proc/%d/task/%d/%s", (int)pid, (int)pid, leaf);
	else
		snprintf(path, size, "/proc/%d/%s", (int)pid, leaf);
}

/* One pass of each operation over every pid. */
static const char *cur_leaf;
static int cur_task;
static void op_cur(void)
{
	char path[128];
	for (int i = 0; i < npids; i++) {
		make_path(path, sizeof(path), pids[i], cur_task, cur_leaf);
		read_path(path);
	}
}

static void op_opendir(void)
{
	char path[128];
	for (int i = 0; i < npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
		DIR *d = opendir(path);
		if (!d)
			continue;
		while (readdir(d))
			;
		closedir(d);
	}
}

static void op_pread(void)
{
	char buf[4096];
	for (int i = 0; i < npids; i++)
		if (fds[i] >= 0 && pread(fds[i], buf, sizeof(buf), 0) < 0)
			fds[i] = -1;
}

#ifdef HAVE_LIBPROC2
static struct pids_info *info;
static void op_libproc2(void)
{
	unsigned chunk[255];
	for (int start = 0; start < npids; start += 255) {
		int count = npids - start < 255 ? npids - start : 255;
		for (int i = 0; i < count; i++)
			chunk[i] = (unsigned)pids[start + i];
		if (!procps_pids_select(info, chunk, count, PIDS_SELECT_PID))
			return;
	}
}
#endif

/* The reads tree.c did (before they moved to source/proc/proc_reader.c) for one single-threaded process, minus
 * libproc2 (measured on its own): the task directory listed twice (discovery, threads),
 * task/T/{children,stat,schedstat,status} and /proc/P/io. */
static void op_current(void)
{
	char path[128];
	for (int i = 0; i < npids; i++) {
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
			DIR *d = opendir(path);
			if (!d)
				continue;
			while (readdir(d))
				;
			closedir(d);
		}
		static const char *const task_leaves[] = { "children", "stat", "schedstat", "status" };
		for (size_t k = 0; k < 4; k++) {
			make_path(path, sizeof(path), pids[i], 1, task_leaves[k]);
			read_path(path);
		}
		make_path(path, sizeof(path), pids[i], 0, "io");
		read_path(path);
	}
}

/* A proposed pass: descriptors kept open per process and re-read with pread (stat,
 * schedstat, io, task/P/children); no task directory listing for a single-threaded
 * process (stat's num_threads says so); status only when schedstat's third field (times
 * scheduled in) moved, since context switch counts cannot change otherwise. */
enum { K_STAT, K_SCHED, K_IO, K_CHILDREN, K_STATUS, K_N };
static int (*kept)[K_N];
static unsigned long long *last_slices;

static void open_kept(void)
{
	static const struct {
		int task;
		const char *leaf;
	} leaves[K_N] = { { 0, "stat" }, { 0, "schedstat" }, { 0, "io" }, { 1, "children" }, { 0, "status" } };
	char path[128];
	for (int i = 0; i < npids; i++)
		for (int k = 0; k < K_N; k++) {
			make_path(path, sizeof(path), pids[i], leaves[k].task, leaves[k].leaf);
			kept[i][k] = open(path, O_RDONLY | O_CLOEXEC);
		}
}

static void op_proposed(void)
{
	char buf[4096];
	for (int i = 0; i < npids; i++) {
		ssize_t n = pread(kept[i][K_STAT], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue; /* gone: ESRCH */
		n = pread(kept[i][K_SCHED], buf, sizeof(buf) - 1, 0);
		unsigned long long oncpu = 0, wait = 0, slices = 0;
		if (n > 0) {
			buf[n] = '\0';
			sscanf(buf, "%llu %llu %llu", &oncpu, &wait, &slices);
		}
		if (slices != last_slices[i]) {
			last_slices[i] = slices;
			if (pread(kept[i][K_STATUS], buf, sizeof(buf) - 1, 0) < 0)
				continue;
		}
		if (pread(kept[i][K_IO], buf, sizeof(buf) - 1, 0) < 0 ||
		    pread(kept[i][K_CHILDREN], buf, sizeof(buf) - 1, 0) < 0)
			continue;
	}
}

static void measure(const char *name, void (*op)(void), int rounds)
{
	op(); /* warm the dentry cache */
	double t0 = cpu_now();
	for (int r = 0; r < rounds; r++)
		op();
	double us = (cpu_now() - t0) * 1e6 / rounds / npids;
	printf("%-34s %8.2f\n", name, us);
}

static void measure_pread(const char *name, int task, const char *leaf, int rounds)
{
	char path[128];
	for (int i = 0; i < npids; i++) {
		make_path(path, sizeof(path), pids[i], task, leaf);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	measure(name, op_pread, rounds);
	for (int i = 0; i < npids; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: proccost ROUNDS PID...\n");
		return 2;
	}
	int rounds = atoi(argv[1]);
	npids = argc - 2;
	pids = calloc((size_t)npids, sizeof(*pids));
	fds = calloc((size_t)npids, sizeof(*fds));
	if (!pids || !fds || rounds < 1)
		return 2;
	for (int i = 0; i < npids; i++)
		pids[i] = (pid_t)atoi(argv[i + 2]);

	printf("%-34s %8s\n", "operation (per process per sample)", "cpu_us");
	static const struct {
		const char *name;
		int task;
		const char *leaf;
	} files[] = {
		{ "open+read+close /proc/P/stat", 0, "stat" },
		{ "open+read+close /proc/P/status", 0, "status" },
		{ "open+read+close /proc/P/io", 0, "io" },
		{ "open+read+close /proc/P/schedstat", 0, "schedstat" },
		{ "open+read+close /proc/P/statm", 0, "statm" },
		{ "open+read+close task/T/stat", 1, "stat" },
		{ "open+read+close task/T/status", 1, "status" },
		{ "open+read+close task/T/schedstat", 1, "schedstat" },
		{ "open+read+close task/T/children", 1, "children" },
	};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		cur_task = files[f].task;
		cur_leaf = files[f].leaf;
		measure(files[f].name, op_cur, rounds);
	}
	measure("opendir+readdir /proc/P/task", op_opendir, rounds);
	measure_pread("pread kept fd /proc/P/stat", 0, "stat", rounds);
	measure_pread("pread kept fd /proc/P/status", 0, "status", rounds);
	measure_pread("pread kept fd /proc/P/io", 0, "io", rounds);
	measure_pread("pread kept fd /proc/P/schedstat", 0, "schedstat", rounds);
	measure_pread("pread kept fd task/T/children", 1, "children", rounds);
	measure("sampler today, without libproc2", op_current, rounds);
	kept = calloc((size_t)npids, sizeof(*kept));
	last_slices = calloc((size_t)npids, sizeof(*last_slices));
	if (kept && last_slices) {
		open_kept();
		measure("proposed: kept fds, status if moved", op_proposed, rounds);
	}
#ifdef HAVE_LIBPROC2
	enum pids_item items[] = {
		PIDS_ID_PID, PIDS_ID_PPID, PIDS_STATE, PIDS_CMD, PIDS_TICS_USER, PIDS_TICS_SYSTEM,
		PIDS_FLT_MIN, PIDS_FLT_MAJ, PIDS_RSS, PIDS_NLWP, PIDS_TICS_BEGAN,
	};
	if (procps_pids_new(&info, items, (int)(sizeof(items) / sizeof(items[0]))) >= 0) {
		measure("libproc2 procps_pids_select", op_libproc2, rounds);
		procps_pids_unref(&info);
	}
#endif
	return 0;
}
