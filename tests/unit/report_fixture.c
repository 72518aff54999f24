/*
 * report_fixture.c: the fixed report of report_fixture.h, as test_report always built it:
 * every figure is set here, none read from the machine or the clock.
 */
#include "config.h"

#include "report_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char arg0[] = "prog", arg1[] = "arg\x1b[31m";
static char *command[] = { arg0, arg1, NULL };

void report_fixture_build(struct cpw_report *r, struct cpw_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cgroup_mem_peak_kib = NAN;
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = CPW_MODE_RUN;
	cfg->interval_ms = 100;
	cfg->command = command;
	cfg->command_argc = 2;
	cfg->host = "node1";
	cfg->rank = 2;
	r->cfg = cfg;
	r->mode = CPW_MODE_RUN;
	r->pid = 4321;
	r->exit_known = true;
	r->exit_code = 3;
	r->rusage_known = true;
	r->ru.ru_utime.tv_sec = 1;
	r->ru.ru_utime.tv_usec = 500000;
	r->ru.ru_stime.tv_usec = 250000;
	r->ru.ru_maxrss = 2048;
	r->ru.ru_minflt = 77;
	r->page_size = 4096;
	cpw_metrics_init(&r->metrics);
	r->metrics.wall_s = 2.0;
	r->metrics.user_s = 1.5;
	r->metrics.sys_s = 0.25;
	r->metrics.samples = 10;
	r->metrics.thread_samples = 10;
	r->metrics.st_running = 8;
	r->metrics.st_sleeping = 2;
	r->metrics.oncpu_s = 1.5;
	r->metrics.runq_wait_s = 0.5;
	r->verdict.cls = CPW_CLASS_CPU_BOUND;
	r->verdict.confidence = 0.9;
	r->verdict.secondary = CPW_CLASS_NONE;
	r->verdict.nevidence = 1;
	snprintf(r->verdict.evidence[0].metric, 48, "cpu_share");
	r->verdict.evidence[0].value = 0.875;
	r->verdict.evidence[0].threshold = 0.8;
	snprintf(r->verdict.evidence[0].source, 64, "wait4 rusage");
	snprintf(r->verdict.evidence[0].text, 160, "bad \xff byte");
	snprintf(r->verdict.advice, sizeof(r->verdict.advice), "think");
	cpw_report_note(r, "a note %d", 1);
}

struct cpw_tree *report_fixture_tree(void)
{
	struct cpw_tree *tree = cpw_tree_new(false);
	if (!tree)
		return NULL;
	cpw_tree_record_exit(tree, 100, 1, "first", 0.5, 0.25, 10, 1, 2048, 0.1);
	cpw_tree_record_exit(tree, 101, 100, "a \"q\"\nname", 0, 0, 1, 0, 512, 0.2);
	cpw_tree_record_exit(tree, 102, 100, "@cperfwatch-processes@", 0, 0, 1, 0, 512, 0.3);
	return tree;
}
