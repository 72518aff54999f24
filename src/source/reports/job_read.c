/*
 * job_read.c: a rank's cperfwatch/1 JSON report read for merge mode (see job_read.h).
 *
 * A report is taken only when it is what cperfwatch writes: one strict JSON document
 * (json-c's own extensions, comments and trailing commas refused; nothing but white space
 * after it), the schema cperfwatch/1, the keys the merge reads present and of their type
 * (a figure a number or null, never negative, never past what can be measured). Anything
 * else is refused with one line naming the file and the key: a report taken at face value
 * would turn the job's totals and its straggler into nonsense. A document that ends early
 * is not refused but left out: a rank killed while it wrote does not sink the job.
 */
#include "config.h"
#include "source/reports/job_read.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

/* json-c says when it ran out of memory from 0.17 on; before, that reads as bad JSON. */
#if JSON_C_VERSION_NUM >= ((0 << 16) | (17 << 8))
#define TOKENER_OUT_OF_MEMORY(err) ((err) == json_tokener_error_memory)
#else
#define TOKENER_OUT_OF_MEMORY(err) false
#endif

/* Where the reading is, for the refusal's line. */
struct reader {
	const char *name;
	char *why;
	size_t whylen;
};

/* Writes "NAME: what" into why, NAME with its control bytes escaped; returns false. */
static bool refuse(const struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(const struct reader *rd, const char *fmt, ...)
{
	char name[512];
	cpw_escape_for_terminal(rd->name, name, sizeof(name));
	int n = snprintf(rd->why, rd->whylen, "%s", name);
	if (n >= 0 && (size_t)n < rd->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rd->why + n, rd->whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* Member key of o (what its full name is in messages) into *v, NULL for JSON null. False,
 * after the refusal, where it is required and absent. */
static bool member(const struct reader *rd, json_object *o, const char *path, const char *key,
		   json_object **v)
{
	if (json_object_object_get_ex(o, key, v))
		return true;
	return refuse(rd, ": no %s: not a whole cperfwatch/1 report", path);
}

/* The object at key (required; JSON null allowed where null_ok). */
static bool object_at(const struct reader *rd, json_object *o, const char *key, bool null_ok,
		      json_object **v)
{
	if (!member(rd, o, key, key, v))
		return false;
	if ((*v == NULL && null_ok) || json_object_is_type(*v, json_type_object))
		return true;
	return refuse(rd, ": %s is %s, not an object", key, *v ? json_type_to_name(json_object_get_type(*v)) : "null");
}

/* A string member into buf (at most max bytes; NUL bytes refused), "" for JSON null. */
static bool string_at(const struct reader *rd, json_object *o, const char *path, const char *key,
		      bool null_ok, char *buf, size_t max)
{
	json_object *v;
	if (!member(rd, o, path, key, &v))
		return false;
	buf[0] = '\0';
	if (v == NULL && null_ok)
		return true;
	if (!v || !json_object_is_type(v, json_type_string))
		return refuse(rd, ": %s is %s, not a string", path, v ? json_type_to_name(json_object_get_type(v)) : "null");
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	if (strlen(s) != len)
		return refuse(rd, ": %s holds a NUL byte", path);
	if (len > max)
		return refuse(rd, ": %s is %zu bytes long, past the %zu a report writes", path, len, max);
	memcpy(buf, s, len + 1);
	return true;
}

/* A number member (required where required) into *out: NAN for JSON null or where absent;
 * refused where not a finite number in [0, max]. */
static bool figure_at(const struct reader *rd, json_object *o, const char *path, const char *key,
		      bool required, double max, double *out)
{
	json_object *v = NULL;
	*out = NAN;
	if (!json_object_object_get_ex(o, key, &v) && required)
		return refuse(rd, ": no %s: not a whole cperfwatch/1 report", path);
	if (v == NULL)
		return true;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return refuse(rd, ": %s is %s, not a number", path, json_type_to_name(json_object_get_type(v)));
	double d = json_object_get_double(v);
	if (!isfinite(d))
		return refuse(rd, ": %s is %s, not a finite number", path, json_object_to_json_string(v));
	if (d < 0)
		return refuse(rd, ": %s is %.15g: a figure that is never negative", path, d);
	if (d > max)
		return refuse(rd, ": %s is %.15g: past anything measured (at most %g)", path, d, max);
	*out = d;
	return true;
}

/* A whole number in [lo, hi] or null (-1) into *out. */
static bool whole_at(const struct reader *rd, json_object *o, const char *path, const char *key,
		     double lo, double hi, int *out)
{
	double d;
	*out = -1;
	if (!figure_at(rd, o, path, key, true, INFINITY, &d))
		return false;
	if (isnan(d))
		return true;
	if (d < lo || d > hi || d != floor(d))
		return refuse(rd, ": %s is %.15g: not a whole number from %.15g to %.15g", path, d, lo, hi);
	*out = (int)d;
	return true;
}

static bool read_time(const struct reader *rd, json_object *doc, struct cpw_rank_report *r)
{
	json_object *t;
	if (!object_at(rd, doc, "time", false, &t) ||
	    !figure_at(rd, t, "time.wall_s", "wall_s", true, CPW_JOB_READ_SECONDS_MAX, &r->wall_s) ||
	    !figure_at(rd, t, "time.user_s", "user_s", true, CPW_JOB_READ_SECONDS_MAX, &r->user_s) ||
	    !figure_at(rd, t, "time.sys_s", "sys_s", true, CPW_JOB_READ_SECONDS_MAX, &r->sys_s))
		return false;
	r->cpu_s = isnan(r->user_s) || isnan(r->sys_s) ? NAN : r->user_s + r->sys_s;
	return true;
}

/* The rank's memory with shared pages counted once where the report has it; the RSS sum
 * (a page shared by forked workers in each of them), or the largest process, of older
 * reports. */
static bool read_memory(const struct reader *rd, json_object *doc, struct cpw_rank_report *r)
{
	json_object *m;
	double peak, rss_sum, largest;
	if (!object_at(rd, doc, "memory", false, &m) ||
	    !figure_at(rd, m, "memory.tree_peak_kib", "tree_peak_kib", false, CPW_JOB_READ_KIB_MAX, &peak) ||
	    !figure_at(rd, m, "memory.tree_peak_rss_kib", "tree_peak_rss_kib", false, CPW_JOB_READ_KIB_MAX, &rss_sum) ||
	    !figure_at(rd, m, "memory.max_rss_kib", "max_rss_kib", false, CPW_JOB_READ_KIB_MAX, &largest))
		return false;
	r->peak_kib = !isnan(peak) ? peak : !isnan(rss_sum) ? rss_sum : largest;
	return true;
}

/* How the command ended: a status (0..255) or a signal (1..127), or null where unknown. */
static bool read_exit(const struct reader *rd, json_object *doc, struct cpw_rank_report *r)
{
	json_object *e;
	r->exit_code = -1;
	r->exit_signal = 0;
	if (!object_at(rd, doc, "exit", true, &e))
		return false;
	if (!e)
		return true;
	int sig;
	if (!whole_at(rd, e, "exit.code", "code", 0, 255, &r->exit_code) ||
	    !whole_at(rd, e, "exit.signal", "signal", 1, 127, &sig))
		return false;
	if (r->exit_code >= 0 && sig > 0)
		return refuse(rd, ": exit.code and exit.signal are both set: a command ends one way");
	r->exit_signal = sig > 0 ? sig : 0;
	return true;
}

static bool read_rank(const struct reader *rd, json_object *doc, struct cpw_rank_report *r)
{
	json_object *v;
	return string_at(rd, doc, "host", "host", true, r->host, CPW_JOB_READ_HOST_MAX) &&
	       whole_at(rd, doc, "rank", "rank", 0, INT_MAX, &r->rank) && read_exit(rd, doc, r) &&
	       read_time(rd, doc, r) && read_memory(rd, doc, r) && object_at(rd, doc, "verdict", false, &v) &&
	       string_at(rd, v, "verdict.class", "class", false, r->cls, CPW_JOB_READ_CLASS_MAX);
}

/* The schema: cperfwatch/1, or a refusal that says what the file is. */
static bool check_schema(const struct reader *rd, json_object *doc)
{
	json_object *v;
	const char *schema = NULL;
	size_t len = 0;
	if (json_object_is_type(doc, json_type_object) && json_object_object_get_ex(doc, "schema", &v) &&
	    json_object_is_type(v, json_type_string)) {
		schema = json_object_get_string(v);
		len = (size_t)json_object_get_string_len(v);
	}
	if (!schema || len < 11 || memcmp(schema, "cperfwatch/", 11) != 0)
		return refuse(rd, " is not a cperfwatch JSON report (write them with --json)");
	if (len != strlen("cperfwatch/1") || strcmp(schema, "cperfwatch/1") != 0) {
		char cut[41], safe[4 * sizeof(cut)];
		/* NUL bytes inside it end the copy: they are shown as the cut they make. */
		snprintf(cut, sizeof(cut), "%s", schema);
		cpw_escape_for_terminal(cut, safe, sizeof(safe));
		return refuse(rd, " has schema '%s%s', which this cperfwatch does not know (it reads cperfwatch/1)",
			      safe, len > strlen(cut) ? "..." : "");
	}
	return true;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

enum cpw_job_read cpw_job_read_report(const char *name, const char *text, size_t len,
				      struct cpw_rank_report *out, char *why, size_t whylen)
{
	const struct reader rd = { name, why, whylen };
	memset(out, 0, sizeof(*out));
	out->file = name;
	if (len > CPW_JOB_READ_BYTES_MAX) {
		refuse(&rd, ": %zu bytes, more than a report (at most %u)", len, CPW_JOB_READ_BYTES_MAX);
		return CPW_JOB_READ_REFUSED;
	}
	if (len == 0)
		return CPW_JOB_READ_CUT_SHORT;
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		refuse(&rd, ": out of memory");
		return CPW_JOB_READ_REFUSED;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	json_object *doc = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error err = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	if (!doc && err == json_tokener_continue) {
		/* The end of the input ends a value that has no end of its own (a bare number,
		 * null); whatever else is still open was cut short. */
		doc = json_tokener_parse_ex(tok, "", 1);
		err = json_tokener_get_error(tok);
		end = len;
		if (!doc && err != json_tokener_success && !TOKENER_OUT_OF_MEMORY(err)) {
			json_tokener_free(tok);
			return CPW_JOB_READ_CUT_SHORT;
		}
	}
	json_tokener_free(tok);
	if (!doc && err != json_tokener_success) { /* (JSON's null is a document: no report) */
		if (TOKENER_OUT_OF_MEMORY(err))
			refuse(&rd, ": out of memory");
		else
			refuse(&rd, " is not a cperfwatch JSON report (write them with --json): not JSON, %s at byte %zu",
			       json_tokener_error_desc(err), end);
		return CPW_JOB_READ_REFUSED;
	}
	while (end < len && is_space(text[end]))
		end++;
	bool ok;
	if (end < len)
		ok = refuse(&rd, ": more follows the JSON document at byte %zu (a second document, or stray "
			    "bytes): not one report", end);
	else
		ok = check_schema(&rd, doc) && read_rank(&rd, doc, out);
	json_object_put(doc);
	return ok ? CPW_JOB_READ_OK : CPW_JOB_READ_REFUSED;
}

int cpw_job_read_file(const char *path, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	FILE *in = fopen(path, "rb");
	if (!in)
		return -errno;
	FILE *mem = open_memstream(text, len);
	char chunk[65536];
	size_t n;
	int rc = 0;
	if (!mem) {
		rc = -errno;
		fclose(in);
		return rc;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0) {
		if (fwrite(chunk, 1, n, mem) != n) {
			rc = -ENOMEM;
			break;
		}
		if (ftell(mem) > (long)CPW_JOB_READ_BYTES_MAX) {
			rc = -EFBIG;
			break;
		}
	}
	if (rc == 0 && ferror(in))
		rc = -EIO;
	fclose(in);
	if (fclose(mem) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return rc;
}
