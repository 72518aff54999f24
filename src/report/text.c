/*
 * text.c: the human report. Run mode opens with every line of GNU `time --verbose`, same
 * labels, same order, same sources (wait4 rusage), so people and scripts that know that
 * format read it unchanged; then the sections only cperfwatch has: the tree, thread states,
 * pressure, counters, the phases and a compact timeline, the verdict with its evidence, and
 * notes.
 */
#include "config.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "classify/thresholds.h"
#include "report/counters_report.h"
#include "report/phases_report.h"
#include "report/waits_report.h"
#include "report/hotspots_report.h"
#include "report/process_report.h"
#include "report/gpu_report.h" /* gpu */
#include "report/process_table.h"

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

/* GNU time's "h:mm:ss or m:ss" elapsed format. */
static void format_elapsed(double s, char *buf, size_t len)
{
	if (!cpw_known(s)) {
		snprintf(buf, len, "N/A");
		return;
	}
	long total = (long)s;
	if (total >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", total / 3600, (total % 3600) / 60, total % 60);
	else
		snprintf(buf, len, "%ld:%02ld.%02ld", total / 60, total % 60,
			 (long)((s - (double)total) * 100) % 100);
}

static void print_command(const struct cpw_report *r, FILE *out)
{
	char esc[512];
	fputs("\tCommand being timed: \"", out);
	for (int i = 0; i < r->cfg->command_argc; i++) {
		cpw_escape_for_terminal(r->cfg->command[i], esc, sizeof(esc));
		fprintf(out, "%s%s", i ? " " : "", esc);
	}
	fputs("\"\n", out);
}

static void write_time_section(const struct cpw_report *r, FILE *out)
{
	const struct rusage *ru = &r->ru;
	const struct cpw_metrics *m = &r->metrics;
	char elapsed[32];

	if (r->exit_known && r->exit_signal)
		fprintf(out, "Command terminated by signal %d\n", r->exit_signal);
	else if (r->exit_known && r->exit_code)
		fprintf(out, "Command exited with non-zero status %d\n", r->exit_code);
	print_command(r, out);
	fprintf(out, "\tUser time (seconds): %.2f\n", tv_seconds(ru->ru_utime));
	fprintf(out, "\tSystem time (seconds): %.2f\n", tv_seconds(ru->ru_stime));
	double cpu = tv_seconds(ru->ru_utime) + tv_seconds(ru->ru_stime);
	if (cpw_known(m->wall_s) && m->wall_s > 0)
		fprintf(out, "\tPercent of CPU this job got: %.0f%%\n", floor(100 * cpu / m->wall_s));
	else
		fputs("\tPercent of CPU this job got: ?%\n", out);
	format_elapsed(m->wall_s, elapsed, sizeof(elapsed));
	fprintf(out, "\tElapsed (wall clock) time (h:mm:ss or m:ss): %s\n", elapsed);
	fprintf(out, "\tAverage shared text size (kbytes): %ld\n", ru->ru_ixrss);
	fprintf(out, "\tAverage unshared data size (kbytes): %ld\n", ru->ru_idrss);
	fprintf(out, "\tAverage stack size (kbytes): %ld\n", ru->ru_isrss);
	fprintf(out, "\tAverage total size (kbytes): %ld\n", ru->ru_ixrss + ru->ru_idrss + ru->ru_isrss);
	fprintf(out, "\tMaximum resident set size (kbytes): %ld\n", ru->ru_maxrss);
	fprintf(out, "\tAverage resident set size (kbytes): %ld\n", 0L);
	fprintf(out, "\tMajor (requiring I/O) page faults: %ld\n", ru->ru_majflt);
	fprintf(out, "\tMinor (reclaiming a frame) page faults: %ld\n", ru->ru_minflt);
	fprintf(out, "\tVoluntary context switches: %ld\n", ru->ru_nvcsw);
	fprintf(out, "\tInvoluntary context switches: %ld\n", ru->ru_nivcsw);
	fprintf(out, "\tSwaps: %ld\n", ru->ru_nswap);
	fprintf(out, "\tFile system inputs: %ld\n", ru->ru_inblock);
	fprintf(out, "\tFile system outputs: %ld\n", ru->ru_oublock);
	fprintf(out, "\tSocket messages sent: %ld\n", ru->ru_msgsnd);
	fprintf(out, "\tSocket messages received: %ld\n", ru->ru_msgrcv);
	fprintf(out, "\tSignals delivered: %ld\n", ru->ru_nsignals);
	fprintf(out, "\tPage size (bytes): %ld\n", r->page_size);
	fprintf(out, "\tExit status: %d\n", r->exit_signal ? 128 + r->exit_signal : r->exit_code);
}

/* A figure with its decimals, or N/A; percent appends a % sign. */
static void print_value(FILE *out, const char *label, double v, int decimals, bool percent)
{
	fprintf(out, "\t%s: ", label);
	if (cpw_known(v))
		fprintf(out, "%.*f%s", decimals, v, percent ? "%" : "");
	else
		fputs("N/A", out);
	fputc('\n', out);
}

static void write_attach_header(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	const struct cpw_proc *root = r->tree ? cpw_tree_find(r->tree, r->pid) : NULL;
	char esc[CPW_CMDLINE_MAX * 4];
	char elapsed[32];

	cpw_escape_for_terminal(root ? (root->cmdline[0] ? root->cmdline : root->comm) : "?", esc,
				sizeof(esc));
	fprintf(out, "\tProcess watched: %d \"%s\"\n", (int)r->pid, esc);
	fputs("\tFigures cover the time watched, not the process's life before it.\n", out);
	print_value(out, "User time (seconds)", m->user_s, 2, false);
	print_value(out, "System time (seconds)", m->sys_s, 2, false);
	print_value(out, "Percent of CPU this job got",
		    cpw_known(m->wall_s) && m->wall_s > 0 ? floor(100 * (m->user_s + m->sys_s) / m->wall_s) : NAN,
		    0, true);
	format_elapsed(m->wall_s, elapsed, sizeof(elapsed));
	fprintf(out, "\tElapsed (wall clock) time watched (h:mm:ss or m:ss): %s\n", elapsed);
	print_value(out, "Maximum resident set size (kbytes)", m->max_rss_kib, 0, false);
	fprintf(out, "\tMajor (requiring I/O) page faults: %llu\n", (unsigned long long)m->major_faults);
	fprintf(out, "\tMinor (reclaiming a frame) page faults: %llu\n", (unsigned long long)m->minor_faults);
	fprintf(out, "\tVoluntary context switches: %llu\n", (unsigned long long)m->vol_ctxsw);
	fprintf(out, "\tInvoluntary context switches: %llu\n", (unsigned long long)m->invol_ctxsw);
	if (r->exit_known)
		fprintf(out, "\tThe process ended while watched.\n");
}

/* A size as people read it: "512 B", "4.0 KiB", "13.3 MiB", "3.0 GiB"; N/A when unknown. */
static void size_text(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = bytes;
	size_t u = 0;

	if (!cpw_known(bytes) || bytes < 0) {
		snprintf(buf, len, "N/A");
		return;
	}
	if (bytes < 1024) {
		snprintf(buf, len, "%.0f B", bytes);
		return;
	}
	v /= 1024;
	while (v >= 1023.95 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
}

static void kib_text(double kib, char *buf, size_t len)
{
	size_text(cpw_known(kib) ? kib * 1024.0 : NAN, buf, len);
}

/* The larger of two figures of one quantity, either of which may be unknown: a sampled
 * one misses what happened between samples, an exact one what it does not cover. */
static double larger(double a, double b)
{
	if (!cpw_known(a))
		return b;
	return cpw_known(b) && b > a ? b : a;
}

static void print_cores(const struct cpw_metrics *m, FILE *out)
{
	if (cpw_known(m->cores_used))
		fprintf(out, "%.2f", m->cores_used);
	else
		fputs("N/A", out);
	if (cpw_known(m->cores_usable)) {
		/* 2, 1.5 or 2.75 cores (a quota), 128 on a big host: never 1.3e+02. */
		char cores[32];
		snprintf(cores, sizeof(cores), "%.2f", m->cores_usable);
		char *end = cores + strlen(cores);
		while (end[-1] == '0')
			*--end = '\0';
		if (end[-1] == '.')
			end[-1] = '\0';
		fprintf(out, " of %s usable", cores);
	} else {
		fputs(" of N/A usable", out);
	}
}

/* The processes of a tree, with their arguments, times and peaks (report/process_table.c). */
static void write_process_table(const struct cpw_report *r, FILE *out)
{
	/* One process: the time -v lines above are its figures. */
	if (!r->tree || cpw_tree_size(r->tree) <= 1)
		return;
	cpw_process_table_write(r->tree, out); /* report/process_table.c */
}

/* One process has no table, and so no PYTHON column: a Python one's version ends the Tree
 * line ("; Python 3.11"), where its executable's name says it. */
static void write_lone_python(const struct cpw_report *r, FILE *out)
{
	if (!r->tree || cpw_tree_size(r->tree) != 1)
		return;
	const struct cpw_proc *p = cpw_tree_proc(r->tree, 0);
	if (p->python_exe != 1 || !p->python[0])
		return;
	char py[sizeof p->python];
	cpw_escape_for_terminal(p->python, py, sizeof py);
	fprintf(out, "; Python %s", py);
}

/* Storage bytes: /proc/PID/io, or the rusage blocks (512 bytes each) where those say more:
 * a reaped child's /proc/PID/io is gone, its blocks are not. */
static double storage_bytes(double proc_io, uint64_t blocks)
{
	return larger(proc_io, blocks > 0 ? (double)blocks * 512.0 : NAN);
}

/* The tree, its memory (every figure said once, with what it is) and its storage. */
static void write_tree_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	char a[24], b[24];

	fprintf(out, "Tree: %u process%s seen", m->nprocs, m->nprocs == 1 ? "" : "es");
	if (r->mode == CPW_MODE_RUN)
		fprintf(out, ", %u still running at the end", r->descendants_running);
	fputs("; cores used: ", out);
	print_cores(m, out);
	write_lone_python(r, out);
	fputc('\n', out);
	write_process_table(r, out);

	fputs("Memory (peaks over the run):\n", out);
	kib_text(m->max_rss_kib, a, sizeof a);
	fprintf(out, "\tLargest process, resident (its maximum resident set size): %s\n", a);
	if (m->nprocs != 1 && cpw_known(m->tree_peak_rss_kib)) {
		/* One process: its own peak above. Sampled, so at least the largest exact peak. */
		kib_text(larger(m->tree_peak_rss_kib, m->max_rss_kib), a, sizeof a);
		fprintf(out, "\tTree, resident, shared pages counted in each process (sampled): %s\n", a);
	}
	kib_text(m->tree_peak_kib, a, sizeof a);
	if (strcmp(m->tree_peak_source, "cgroup") == 0)
		fprintf(out, "\tTree, shared pages counted once: %s (the command's own cgroup: what the "
			"run brought into memory, page cache included)\n", a);
	else if (strcmp(m->tree_peak_source, "pss") == 0)
		fprintf(out, "\tTree, shared pages counted once: %s (the processes' proportional set "
			"sizes, sampled)\n", a);
	else if (cpw_known(m->tree_peak_kib))
		fprintf(out, "\tTree, shared pages counted once: %s\n", a);

	size_text(storage_bytes(m->read_bytes, m->fs_inputs), a, sizeof a);
	size_text(storage_bytes(m->write_bytes, m->fs_outputs), b, sizeof b);
	fprintf(out, "Storage: %s read, %s written\n", a, b);
}

/* One share in a list: "running 60.0%"; nothing for a zero share. */
static void list_share(FILE *out, bool *first, const char *label, double v)
{
	if (!cpw_known(v) || v <= 0)
		return;
	fprintf(out, "%s%s %.1f%%", *first ? " " : ", ", label, 100 * v);
	*first = false;
}

static void write_threads_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	struct cpw_thread_shares s;
	bool first = true;

	cpw_metrics_thread_shares(m, &s);
	fprintf(out, "Thread states (%llu samples every %u ms, %llu thread samples):",
		(unsigned long long)m->samples, r->cfg->interval_ms,
		(unsigned long long)m->thread_samples);
	list_share(out, &first, "running", s.running);
	list_share(out, &first, "runnable (waiting for a CPU)", s.runnable);
	list_share(out, &first, "disk wait (D, storage)", s.disk_wait);
	list_share(out, &first, "uninterruptible, not storage (D)", s.d_other);
	list_share(out, &first, "sleeping (S)", s.sleeping);
	list_share(out, &first, "other (stopped, zombie)", s.other);
	fputs(first ? " N/A\n" : "\n", out);
	if (cpw_known(m->oncpu_s) || cpw_known(m->runq_wait_s)) {
		char oncpu[32] = "N/A", runq[32] = "N/A";
		if (cpw_known(m->oncpu_s))
			snprintf(oncpu, sizeof oncpu, "%.3f s", m->oncpu_s);
		if (cpw_known(m->runq_wait_s))
			snprintf(runq, sizeof runq, "%.3f s", m->runq_wait_s);
		fprintf(out, "\tOn CPU %s, run-queue wait %s (schedstat, thread-seconds)\n", oncpu, runq);
	}
	if (m->delayacct_on) {
		print_value(out, "Block IO delay (seconds)", m->blkio_delay_s, 3, false);
		print_value(out, "Swap-in delay (seconds)", m->swapin_delay_s, 3, false);
		print_value(out, "Thrashing delay (seconds)", m->thrashing_delay_s, 3, false);
		print_value(out, "Reclaim delay (seconds)", m->reclaim_delay_s, 3, false);
	}
}

/* One stall figure in the pressure line: "CPU some 2.338 s", or N/A. */
static void list_stall(FILE *out, const char *sep, const char *label, double v)
{
	if (cpw_known(v))
		fprintf(out, "%s%s %.3f s", sep, label, v);
	else
		fprintf(out, "%s%s N/A", sep, label);
}

static void write_pressure_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;

	if (!cpw_known(m->psi_cpu_some_s) && !cpw_known(m->psi_io_some_s) && !cpw_known(m->psi_io_full_s) &&
	    !cpw_known(m->psi_mem_some_s) && !cpw_known(m->psi_mem_full_s)) {
		fputs("Pressure: N/A (no pressure stall information)", out);
	} else {
		fprintf(out, "Pressure (%s, stall time over the run):",
			m->psi_from_cgroup ? "the command's cgroup" : "system-wide");
		list_stall(out, " ", "CPU some", m->psi_cpu_some_s);
		list_stall(out, ", ", "IO some", m->psi_io_some_s);
		list_stall(out, ", ", "IO full", m->psi_io_full_s);
		list_stall(out, ", ", "memory some", m->psi_mem_some_s);
		list_stall(out, ", ", "memory full", m->psi_mem_full_s);
	}
	if (cpw_known(m->refaults))
		fprintf(out, "; workingset refaults %.0f page%s", m->refaults, m->refaults == 1 ? "" : "s");
	fputc('\n', out);
}

static void write_verdict_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_verdict *v = &r->verdict;
	fprintf(out, "Verdict: %s (confidence %.0f%%)", cpw_verdict_class_name(v->cls), 100 * v->confidence);
	if (v->secondary != CPW_CLASS_NONE)
		fprintf(out, ", then %s", cpw_verdict_class_name(v->secondary));
	fputc('\n', out);
	/* Evidence and findings may quote a command name: escape everything. */
	char esc[sizeof(v->advice) * 4];
	/* Evidence that neither supports the verdict nor nearly changes it stays in JSON. */
	for (int i = 0; i < v->nevidence; i++) {
		if (v->evidence[i].aside)
			continue;
		cpw_escape_for_terminal(v->evidence[i].text, esc, sizeof(esc));
		fprintf(out, "\tEvidence: %s  [%s]\n", esc, v->evidence[i].source);
	}
	for (int i = 0; i < v->nfindings; i++) {
		cpw_escape_for_terminal(v->findings[i], esc, sizeof(esc));
		fprintf(out, "\tFinding: %s\n", esc);
	}
	if (v->advice[0]) {
		cpw_escape_for_terminal(v->advice, esc, sizeof(esc));
		fprintf(out, "\tAdvice: %s\n", esc);
	}
}

static void write_budgets_and_notes(const struct cpw_report *r, FILE *out)
{
	if (r->nbudgets) {
		fputs("Budgets:\n", out);
		for (int i = 0; i < r->nbudgets; i++)
			fprintf(out, "\t%s: %s (limit %s, measured %s)\n", r->budgets[i].name,
				r->budgets[i].broken ? "BROKEN" : "ok", r->budgets[i].limit,
				r->budgets[i].value);
	}
	if (r->nnotes) {
		fputs("Notes:\n", out);
		char esc[CPW_NOTE_LEN * 4];
		for (int i = 0; i < r->nnotes; i++) {
			cpw_escape_for_terminal(r->notes[i], esc, sizeof(esc));
			fprintf(out, "\t%s\n", esc);
		}
	}
}

/* A run too short to judge (a command that fails at once): its time -v figures, how it
 * ended and that nothing more can be said; --json keeps every figure. */
static bool too_short(const struct cpw_report *r)
{
	const struct cpw_metrics *m = &r->metrics;

	return r->verdict.cls == CPW_CLASS_UNKNOWN && cpw_known(m->wall_s) && m->wall_s >= 0 &&
		m->wall_s < cpw_threshold(CPW_T_MIN_WALL_S);
}

static void write_short_verdict(const struct cpw_report *r, FILE *out)
{
	double wall = r->metrics.wall_s;

	fputs("Verdict: unknown: ", out);
	if (r->mode != CPW_MODE_RUN)
		fprintf(out, "watched for %.3f s", wall);
	else if (r->exit_known && r->exit_signal)
		fprintf(out, "the command was killed by signal %d after %.3f s", r->exit_signal, wall);
	else if (r->exit_known && r->exit_code)
		fprintf(out, "the command exited with status %d after %.3f s", r->exit_code, wall);
	else
		fprintf(out, "the command ended after %.3f s", wall);
	fprintf(out, ", too short to judge (under %.2f s)\n", cpw_threshold(CPW_T_MIN_WALL_S));
}

int cpw_report_write_text(const struct cpw_report *r, FILE *out)
{
	if (r->mode == CPW_MODE_RUN)
		write_time_section(r, out);
	else
		write_attach_header(r, out);
	if (too_short(r)) {
		write_short_verdict(r, out);
		write_budgets_and_notes(r, out);
		return ferror(out) ? (errno ? -errno : -EIO) : 0;
	}
	write_tree_section(r, out);
	write_threads_section(r, out);
	write_pressure_section(r, out);
	if (r->counters)
		cpw_counters_report_write_text(r->counters, out); /* with its heading */
	cpw_waits_report_write_text(r->waits, out);
	cpw_phases_report_write_text(&r->phases, r->timeline, r->metrics.cores_usable, out);
	cpw_hotspots_report_write_text(r->hotspots, &r->phases, out);
	cpw_gpu_report_write_text(r->gpu, out); /* gpu */
	cpw_process_report_write_text(r, out); /* a verdict per process (issue 27, 3) */
	write_verdict_section(r, out);
	write_budgets_and_notes(r, out);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
