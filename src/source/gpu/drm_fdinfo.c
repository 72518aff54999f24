/*
 * drm_fdinfo.c: the DRM fdinfo parser (Documentation/gpu/drm-usage-stats.rst). Pure: no
 * I/O. Lines that are not "key:<blanks>value" with a number where one is due are skipped
 * and counted; unknown keys are ignored (drivers add their own); numbers that overflow
 * saturate.
 */
#include "config.h"
#include "source/gpu/drm_fdinfo.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

static unsigned long long sat_add(unsigned long long a, unsigned long long b)
{
	return a > ULLONG_MAX - b ? ULLONG_MAX : a + b;
}

static unsigned long long sat_mul(unsigned long long a, unsigned long long b)
{
	return b && a > ULLONG_MAX / b ? ULLONG_MAX : a * b;
}

/* A decimal number at *p (leading blanks skipped), saturated; false when none. */
static bool number(const char **p, const char *end, unsigned long long *out)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s < '0' || *s > '9')
		return false;
	unsigned long long v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		v = sat_add(sat_mul(v, 10), (unsigned long long)(*s - '0'));
	*p = s;
	*out = v;
	return true;
}

/* The rest of a value after the number: blanks and an optional unit, nothing else. */
static bool unit(const char *s, const char *end, unsigned long long *mult, bool bytes)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t n = (size_t)(end - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*mult = 1;
	if (n == 0)
		return true;
	if (!bytes)
		return n == 2 && memcmp(s, "ns", 2) == 0;
	if (n == 3 && memcmp(s, "KiB", 3) == 0)
		*mult = 1ULL << 10;
	else if (n == 3 && memcmp(s, "MiB", 3) == 0)
		*mult = 1ULL << 20;
	else if (n == 3 && memcmp(s, "GiB", 3) == 0)
		*mult = 1ULL << 30;
	else
		return false;
	return true;
}

static void copy_text(char *dst, size_t size, const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t n = (size_t)(end - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static struct cpw_drm_engine *engine(struct cpw_drm_client *c, const char *name, size_t len)
{
	if (len == 0 || len >= sizeof(c->engine[0].name))
		return NULL;
	for (size_t i = 0; i < len; i++) /* a name is printable and one word */
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
			return NULL;
	for (int i = 0; i < c->nengines; i++)
		if (strlen(c->engine[i].name) == len && memcmp(c->engine[i].name, name, len) == 0)
			return &c->engine[i];
	if (c->nengines == CPW_DRM_ENGINES_MAX)
		return NULL;
	struct cpw_drm_engine *e = &c->engine[c->nengines++];
	memset(e, 0, sizeof(*e));
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->capacity = 1;
	return e;
}

static bool prefixed(const char *key, size_t klen, const char *prefix, const char **rest, size_t *rlen)
{
	size_t n = strlen(prefix);
	if (klen <= n || memcmp(key, prefix, n) != 0)
		return false;
	*rest = key + n;
	*rlen = klen - n;
	return true;
}

/* One "drm-..." line; false when it is malformed. */
static bool drm_line(struct cpw_drm_client *c, const char *key, size_t klen, const char *val,
		     const char *end, unsigned long long *resident, bool *has_resident,
		     unsigned long long *older)
{
	const char *name;
	size_t nlen;
	unsigned long long v, mult;
	const char *p = val;

	if (klen == 10 && memcmp(key, "drm-driver", 10) == 0) {
		copy_text(c->driver, sizeof(c->driver), val, end);
		return c->driver[0] != '\0';
	}
	if (klen == 8 && memcmp(key, "drm-pdev", 8) == 0) {
		copy_text(c->pdev, sizeof(c->pdev), val, end);
		return true;
	}
	if (klen == 13 && memcmp(key, "drm-client-id", 13) == 0) {
		if (!number(&p, end, &v) || !unit(p, end, &mult, false) || mult != 1)
			return false;
		c->client_id = v;
		c->has_client_id = true;
		return true;
	}
	bool capacity = prefixed(key, klen, "drm-engine-capacity-", &name, &nlen);
	if (capacity || prefixed(key, klen, "drm-engine-", &name, &nlen)) {
		if (!number(&p, end, &v) || !unit(p, end, &mult, false))
			return false;
		struct cpw_drm_engine *e = engine(c, name, nlen);
		if (!e)
			return false;
		if (capacity)
			e->capacity = v >= 1 && v <= 1024 ? (unsigned)v : 1;
		else {
			e->ns = v;
			e->has_ns = true;
		}
		return true;
	}
	bool total = prefixed(key, klen, "drm-total-cycles-", &name, &nlen);
	if (total || prefixed(key, klen, "drm-cycles-", &name, &nlen)) {
		if (!number(&p, end, &v) || !unit(p, end, &mult, false) || mult != 1)
			return false;
		struct cpw_drm_engine *e = engine(c, name, nlen);
		if (!e)
			return false;
		if (total) {
			e->total_cycles = v;
			e->has_total = true;
		} else {
			e->cycles = v;
			e->has_cycles = true;
		}
		return true;
	}
	bool is_resident = prefixed(key, klen, "drm-resident-", &name, &nlen);
	bool is_memory = prefixed(key, klen, "drm-memory-", &name, &nlen);
	bool is_total = prefixed(key, klen, "drm-total-", &name, &nlen);
	if (is_resident || is_memory || is_total) {
		if (!number(&p, end, &v) || !unit(p, end, &mult, true))
			return false;
		v = sat_mul(v, mult);
		if (is_resident) {
			*resident = sat_add(*resident, v);
			*has_resident = true;
		} else if (is_memory) {
			*older = sat_add(*older, v);
			c->has_memory = true;
		} else
			c->total_bytes = sat_add(c->total_bytes, v);
		return true;
	}
	return true; /* drm-shared-*, drm-purgeable-*, drm-active-*, a driver's own: ignored */
}

int cpw_drm_fdinfo_parse(const char *text, size_t len, struct cpw_drm_client *out)
{
	memset(out, 0, sizeof(*out));
	unsigned long long resident = 0, older = 0;
	bool has_resident = false;
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		const char *colon = memchr(s, ':', (size_t)(eol - s));
		if ((size_t)(eol - s) > 4 && memcmp(s, "drm-", 4) == 0) {
			if (!colon || !drm_line(out, s, (size_t)(colon - s), colon + 1, eol, &resident,
						&has_resident, &older))
				out->lines_skipped++;
		}
		s = nl ? nl + 1 : end;
	}
	if (!out->driver[0])
		return -ENOENT;
	if (has_resident) {
		out->memory_bytes = resident;
		out->has_memory = true;
	} else
		out->memory_bytes = older;
	return 0;
}

double cpw_drm_fdinfo_busy_share(const struct cpw_drm_client *prev, const struct cpw_drm_client *cur,
			  double dt_s)
{
	double best = NAN;
	if (!(dt_s > 0))
		return NAN;
	for (int i = 0; i < cur->nengines; i++) {
		const struct cpw_drm_engine *e = &cur->engine[i], *p = NULL;
		for (int j = 0; j < prev->nengines && !p; j++)
			if (strcmp(prev->engine[j].name, e->name) == 0)
				p = &prev->engine[j];
		if (!p)
			continue;
		double share = NAN;
		if (e->has_cycles && e->has_total && p->has_cycles && p->has_total) {
			if (e->cycles >= p->cycles && e->total_cycles > p->total_cycles)
				share = (double)(e->cycles - p->cycles) / (double)(e->total_cycles - p->total_cycles);
		} else if (e->has_ns && p->has_ns && e->ns >= p->ns)
			share = (double)(e->ns - p->ns) / (dt_s * 1e9) / e->capacity;
		if (isnan(share))
			continue;
		if (share > 1)
			share = 1;
		if (isnan(best) || share > best)
			best = share;
	}
	return best;
}
