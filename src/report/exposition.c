/*
 * exposition.c: the Prometheus text exposition formats, OpenMetrics and Prometheus 0.0.4
 * (see exposition.h for how they differ): families, samples, labels and their escaping,
 * and the check of label names given with --label.
 */
#include "config.h"
#include "report/exposition.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "util/escape.h"

const char cpw_exposition_reserved_labels[] = "command mode class budget rank host file le quantile";

void cpw_exposition_init(struct cpw_expo *e, FILE *out, enum cpw_expo_dialect dialect)
{
	e->out = out;
	e->dialect = dialect;
	e->labels[0] = '\0';
}

/* Bytes of the UTF-8 sequence led by c, in text known to be valid UTF-8. */
static size_t utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
}

void cpw_exposition_label_value(const char *src, char *dst, size_t len)
{
	char clean[1024];
	size_t n = 0;

	if (len == 0)
		return;
	/* Invalid UTF-8 and the C1 controls become the text \xNN (util/escape.c); so do the
	 * other control bytes and DEL below, as the text report shows them, so that no escape
	 * sequence reaches whoever reads the exposition in a terminal. Then the format's own
	 * escapes: \\, \" and \n. Cut only between characters. */
	cpw_escape_utf8(src, clean, sizeof(clean));
	for (const char *s = clean; *s;) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		const char *from = esc;
		size_t seq = 1;
		if (c == '\\' || c == '"')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\\\x%02x", c);
		else
			from = s, seq = utf8_len(c);
		size_t out = from == esc ? strlen(esc) : seq;
		if (n + out >= len)
			break;
		memcpy(dst + n, from, out);
		n += out;
		s += seq;
	}
	dst[n] = '\0';
}

void cpw_exposition_add_label(struct cpw_expo *e, const char *name, const char *value)
{
	char esc[1024];
	size_t used = strlen(e->labels);
	cpw_exposition_label_value(value, esc, sizeof(esc));
	snprintf(e->labels + used, sizeof(e->labels) - used, "%s%s=\"%s\"", used ? "," : "", name, esc);
}

void cpw_exposition_add_config_labels(struct cpw_expo *e, const struct cpw_config *cfg)
{
	for (int i = 0; i < cfg->nlabels; i++) {
		const char *eq = strchr(cfg->labels[i], '=');
		char name[128];
		if (!eq || (size_t)(eq - cfg->labels[i]) >= sizeof(name))
			continue; /* cli.c let no such label through */
		memcpy(name, cfg->labels[i], (size_t)(eq - cfg->labels[i]));
		name[eq - cfg->labels[i]] = '\0';
		cpw_exposition_add_label(e, name, eq + 1);
	}
}

void cpw_exposition_family(struct cpw_expo *e, const char *base, bool counter, const char *unit,
		     const char *help)
{
	const char *type = counter ? "counter" : "gauge";
	if (e->dialect == CPW_EXPO_OPENMETRICS) {
		fprintf(e->out, "# TYPE %s %s\n", base, type);
		if (unit)
			fprintf(e->out, "# UNIT %s %s\n", base, unit);
		fprintf(e->out, "# HELP %s %s\n", base, help);
		return;
	}
	/* Prometheus 0.0.4: the family carries the name its samples have. */
	const char *suffix = counter ? "_total" : "";
	fprintf(e->out, "# HELP %s%s %s\n", base, suffix, help);
	fprintf(e->out, "# TYPE %s%s %s\n", base, suffix, type);
}

void cpw_exposition_sample(struct cpw_expo *e, const char *base, bool counter, const char *extra,
		     double v)
{
	char text[64];
	bool has_extra = extra && extra[0];
	cpw_report_number(v, text, sizeof(text));
	if (!e->labels[0] && !has_extra) {
		fprintf(e->out, "%s%s %s\n", base, counter ? "_total" : "", text);
		return;
	}
	fprintf(e->out, "%s%s{%s%s%s} %s\n", base, counter ? "_total" : "", e->labels,
		e->labels[0] && has_extra ? "," : "", has_extra ? extra : "", text);
}

void cpw_exposition_gauge(struct cpw_expo *e, const char *base, const char *unit, const char *help, double v)
{
	if (!cpw_known(v))
		return;
	cpw_exposition_family(e, base, false, unit, help);
	cpw_exposition_sample(e, base, false, NULL, v);
}

void cpw_exposition_counter(struct cpw_expo *e, const char *base, const char *unit, const char *help, double v)
{
	if (!cpw_known(v))
		return;
	cpw_exposition_family(e, base, true, unit, help);
	cpw_exposition_sample(e, base, true, NULL, v);
}

int cpw_exposition_end(struct cpw_expo *e)
{
	if (e->dialect == CPW_EXPO_OPENMETRICS)
		fputs("# EOF\n", e->out);
	return ferror(e->out) ? (errno ? -errno : -EIO) : 0;
}

bool cpw_exposition_label_name_ok(const char *name)
{
	if (!name[0] || (name[0] >= '0' && name[0] <= '9') || strncmp(name, "__", 2) == 0)
		return false;
	for (const char *s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	size_t len = strlen(name);
	for (const char *w = cpw_exposition_reserved_labels; *w;) {
		size_t wl = strcspn(w, " ");
		if (wl == len && strncmp(w, name, len) == 0)
			return false;
		w += wl + (w[wl] == ' ');
	}
	return true;
}
