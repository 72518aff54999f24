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

#include "report/counters_report.h"
#include "report/phases_report.h"
#include "report/waits_report.h"
#include "report/hotspots_report.h"

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

static void write_tree_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	char esc[CPW_COMM_MAX * 4];

	fputs("Tree:\n", out);
	fprintf(out, "\tProcesses seen: %u\n", m->nprocs);
	if (r->mode == CPW_MODE_RUN)
		fprintf(out, "\tDescendants still running at the end: %u\n", r->descendants_running);
	print_value(out, "Tree peak memory (kbytes, shared pages counted once)", m->tree_peak_kib, 0, false);
	if (strcmp(m->tree_peak_source, "cgroup") == 0)
		fputs("\tTree peak memory from: the command's own cgroup (what the run brought into memory, "
		      "page cache included)\n", out);
	else if (strcmp(m->tree_peak_source, "pss") == 0)
		fputs("\tTree peak memory from: the processes' proportional set sizes (sampled)\n", out);
	print_value(out, "Tree peak RSS sum (kbytes, shared pages counted in each process)",
		    m->tree_peak_rss_kib, 0, false);
	print_value(out, "Largest single process resident set size (kbytes)", m->max_rss_kib, 0, false);
	print_value(out, "Storage read (bytes)", m->read_bytes, 0, false);
	print_value(out, "Storage written (bytes)", m->write_bytes, 0, false);
	fprintf(out, "\tCores used: ");
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
		fprintf(out, " of %s usable\n", cores);
	}
	else
		fputs(" of N/A usable\n", out);

	if (!r->tree || cpw_tree_size(r->tree) == 0)
		return;
	fprintf(out, "\t%7s %7s %8s %8s %10s %8s %8s  %s\n", "PID", "PPID", "USER_S", "SYS_S",
		"MAXRSS_KB", "MAJFLT", "MINFLT", "COMMAND");
	size_t n = cpw_tree_size(r->tree);
	size_t shown = n > 50 ? 50 : n;
	// cppcheck-suppress knownConditionTrueFalse ; n > 0 here (checked above)
	for (size_t i = 0; i < shown; i++) {
		const struct cpw_proc *p = cpw_tree_proc(r->tree, i);
		cpw_escape_for_terminal(p->comm, esc, sizeof(esc));
		fprintf(out, "\t%7d %7d %8.2f %8.2f %10llu %8llu %8llu  %s%s\n", (int)p->pid,
			(int)p->ppid, p->user_s, p->sys_s, (unsigned long long)p->max_rss_kib,
			(unsigned long long)p->majflt, (unsigned long long)p->minflt, esc,
			p->alive ? "" : " (exited)");
	}
	// cppcheck-suppress knownConditionTrueFalse ; false positive: shown is min(n, 50)
	if (shown < n)
		fprintf(out, "\t... and %zu more (see --json for all)\n", n - shown);
}

static void print_share(FILE *out, const char *label, double v)
{
	if (cpw_known(v))
		fprintf(out, "\t%s: %.1f%%\n", label, 100 * v);
	else
		fprintf(out, "\t%s: N/A\n", label);
}

static void write_threads_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	struct cpw_thread_shares s;

	cpw_metrics_thread_shares(m, &s);
	fprintf(out, "Thread states (%llu samples every %u ms, %llu thread samples):\n",
		(unsigned long long)m->samples, r->cfg->interval_ms,
		(unsigned long long)m->thread_samples);
	print_share(out, "Running", s.running);
	print_share(out, "Runnable, waiting for a CPU", s.runnable);
	print_share(out, "Disk wait (D, storage)", s.disk_wait);
	print_share(out, "Uninterruptible, not storage (D)", s.d_other);
	print_share(out, "Sleeping (S)", s.sleeping);
	print_share(out, "Other (stopped, zombie)", s.other);
	print_value(out, "On CPU, schedstat (seconds)", m->oncpu_s, 3, false);
	print_value(out, "Run-queue wait, schedstat (seconds)", m->runq_wait_s, 3, false);
	if (m->delayacct_on) {
		print_value(out, "Block IO delay (seconds)", m->blkio_delay_s, 3, false);
		print_value(out, "Swap-in delay (seconds)", m->swapin_delay_s, 3, false);
		print_value(out, "Thrashing delay (seconds)", m->thrashing_delay_s, 3, false);
		print_value(out, "Reclaim delay (seconds)", m->reclaim_delay_s, 3, false);
	}
}

static void write_pressure_section(const struct cpw_report *r, FILE *out)
{
	const struct cpw_metrics *m = &r->metrics;
	fprintf(out, "Pressure (%s, stall seconds over the run):\n",
		m->psi_from_cgroup ? "the command's cgroup" : "system-wide");
	print_value(out, "CPU some", m->psi_cpu_some_s, 3, false);
	print_value(out, "IO some", m->psi_io_some_s, 3, false);
	print_value(out, "IO full", m->psi_io_full_s, 3, false);
	print_value(out, "Memory some", m->psi_mem_some_s, 3, false);
	print_value(out, "Memory full", m->psi_mem_full_s, 3, false);
	print_value(out, "Workingset refaults (pages)", m->refaults, 0, false);
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
	for (int i = 0; i < v->nevidence; i++) {
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

int cpw_report_write_text(const struct cpw_report *r, FILE *out)
{
	if (r->mode == CPW_MODE_RUN)
		write_time_section(r, out);
	else
		write_attach_header(r, out);
	write_tree_section(r, out);
	write_threads_section(r, out);
	write_pressure_section(r, out);
	if (r->counters) {
		fputs("Counters:\n", out);
		cpw_counters_report_write_text(r->counters, out);
	}
	cpw_waits_report_write_text(r->waits, out);
	cpw_phases_report_write_text(&r->phases, r->timeline, r->metrics.cores_usable, out);
	cpw_hotspots_report_write_text(r->hotspots, &r->phases, out);
	write_verdict_section(r, out);
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
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
