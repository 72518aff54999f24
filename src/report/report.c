/*
 * report.c: what every report writer shares: notes, thread-state shares, budgets, the
 * output stream, and the choice of writer.
 */
#include "config.h"
#include "cperfwatch/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

void cpw_report_note(struct cpw_report *r, const char *fmt, ...)
{
	va_list ap;
	if (r->nnotes >= CPW_NOTES_MAX)
		return;
	char *note = r->notes[r->nnotes++];
	va_start(ap, fmt);
	int n = vsnprintf(note, CPW_NOTE_LEN, fmt, ap);
	va_end(ap);
	if (n >= CPW_NOTE_LEN)
		memcpy(note + CPW_NOTE_LEN - 4, "...", 4);
}

void cpw_thread_shares(const struct cpw_metrics *m, struct cpw_thread_shares *s)
{
	double n = (double)m->thread_samples;
	if (m->thread_samples == 0) {
		s->running = s->runnable = s->disk_wait = s->d_other = s->sleeping = s->other = NAN;
		return;
	}
	double r = (double)m->st_running / n;
	double split = 1; /* all of R is running unless schedstat says otherwise */
	if (cpw_known(m->oncpu_s) && cpw_known(m->runq_wait_s) && m->oncpu_s + m->runq_wait_s > 0)
		split = m->oncpu_s / (m->oncpu_s + m->runq_wait_s);
	s->running = r * split;
	s->runnable = r * (1 - split);
	s->disk_wait = (double)m->st_disk_wait / n;
	s->d_other = (double)m->st_d_other / n;
	s->sleeping = (double)m->st_sleeping / n;
	s->other = (double)m->st_other / n;
}

FILE *cpw_report_open(const struct cpw_config *cfg)
{
	if (!cfg->output_path)
		return cfg->mode == CPW_MODE_RUN ? stderr : stdout;
	/* O_NOFOLLOW: a symlink planted where the report goes is refused, not followed. */
	int fd = open(cfg->output_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

/* unit "s": seconds with 3 decimals for the value; "K": whole KiB. */
static void add_budget(struct cpw_report *r, const char *name, bool broken, const char *unit,
		       double limit, double value)
{
	if (r->nbudgets >= CPW_BUDGETS_MAX)
		return;
	struct cpw_budget_result *b = &r->budgets[r->nbudgets++];
	bool secs = strcmp(unit, "s") == 0;
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(b->limit, sizeof(b->limit), "%.*f%s", secs ? 3 : 0, limit, unit);
	if (isnan(value))
		snprintf(b->value, sizeof(b->value), "N/A");
	else
		snprintf(b->value, sizeof(b->value), "%.*f%s", secs ? 3 : 0, value, unit);
	b->broken = broken;
}

bool cpw_report_check_budgets(struct cpw_report *r)
{
	const struct cpw_config *cfg = r->cfg;
	const struct cpw_metrics *m = &r->metrics;
	bool broken = false;

	r->nbudgets = 0;
	if (cfg->max_wall_s > 0) {
		bool b = cpw_known(m->wall_s) && m->wall_s > cfg->max_wall_s;
		add_budget(r, "max-wall", b, "s", cfg->max_wall_s, m->wall_s);
		broken |= b;
	}
	if (cfg->max_cpu_s > 0) {
		double cpu = m->user_s + m->sys_s;
		bool b = cpw_known(cpu) && cpu > cfg->max_cpu_s;
		add_budget(r, "max-cpu", b, "s", cfg->max_cpu_s, cpu);
		broken |= b;
	}
	if (cfg->max_rss_kib > 0) {
		/* The tree's peak at one moment, falling back to the largest process. */
		double rss = cpw_known(m->tree_peak_rss_kib) ? m->tree_peak_rss_kib : m->max_rss_kib;
		if (cpw_known(m->max_rss_kib) && (!cpw_known(rss) || m->max_rss_kib > rss))
			rss = m->max_rss_kib;
		bool b = cpw_known(rss) && rss > (double)cfg->max_rss_kib;
		add_budget(r, "max-rss", b, "K", (double)cfg->max_rss_kib, rss);
		broken |= b;
	}
	if (cfg->fail_on_mask) {
		char limit[48] = "";
		for (int c = 0; c < CPW_CLASS_COUNT; c++)
			if (cfg->fail_on_mask & (1u << c)) {
				size_t used = strlen(limit);
				snprintf(limit + used, sizeof(limit) - used, "%s%s", used ? "," : "",
					 cpw_class_name((enum cpw_class)c));
			}
		bool b = (cfg->fail_on_mask & (1u << r->verdict.cls)) != 0;
		if (r->nbudgets < CPW_BUDGETS_MAX) {
			struct cpw_budget_result *res = &r->budgets[r->nbudgets++];
			snprintf(res->name, sizeof(res->name), "fail-on");
			snprintf(res->limit, sizeof(res->limit), "%s", limit);
			snprintf(res->value, sizeof(res->value), "%s", cpw_class_name(r->verdict.cls));
			res->broken = b;
		}
		broken |= b;
	}
	return broken;
}

int cpw_report_write(const struct cpw_report *r, FILE *out)
{
	int rc;

	errno = 0;
	switch (r->cfg->format) {
	case CPW_FORMAT_JSON:
		rc = cpw_report_write_json(r, out);
		break;
	case CPW_FORMAT_OPENMETRICS:
		rc = cpw_report_write_openmetrics(r, out);
		break;
	default:
		rc = cpw_report_write_text(r, out);
		break;
	}
	if (rc == 0 && fflush(out) != 0)
		rc = -errno;
	if (rc == 0 && ferror(out))
		rc = -EIO;
	return rc;
}
