/*
 * sample_parse.c: the pure parser of perf ring-buffer records (sample_private.h): samples
 * laid out as CPW_SAMPLE_TYPE asks, MMAP2, COMM, FORK, EXIT and LOST, each with the
 * sample_id trailer (pid, tid, time, cpu). Every length is checked: a record is copied
 * out of a buffer the kernel writes, and the parser is fuzzed (tests/fuzz/fuzz_sample.c).
 */
#include "config.h"
#include "source/sample/sample_private.h"

#include <errno.h>
#include <string.h>

struct cursor {
	const unsigned char *p, *end;
	bool ok;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->ok = false;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take_u64(c);
	uint32_t w[2];
	memcpy(w, &v, sizeof(w));
	*a = w[0];
	*b = w[1];
}

/* The sample_id trailer at the end of a non-sample record: pid/tid, time, cpu. */
static void take_trailer(const unsigned char *start, const unsigned char *end, struct cpw_rec *out)
{
	if (end - start < 24)
		return;
	struct cursor c = { end - 24, end, true };
	take_u32_pair(&c, &out->pid, &out->tid);
	out->time = take_u64(&c);
}

/* A NUL-terminated string in [p, end), or NULL. */
static const char *take_string(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || !memchr(p, '\0', (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

int cpw_sample_parse(const void *rec, size_t len, struct cpw_rec *out)
{
	memset(out, 0, sizeof(*out));
	struct perf_event_header h;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -EINVAL;
	const unsigned char *base = rec, *end = base + h.size;
	struct cursor c = { base + sizeof(h), end, true };
	out->type = h.type;
	out->misc = h.misc;
	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		out->ip = take_u64(&c);
		take_u32_pair(&c, &out->pid, &out->tid);
		out->time = take_u64(&c);
		take_u64(&c); /* cpu, reserved */
		out->nr = take_u64(&c);
		if (!c.ok || out->nr > (uint64_t)(c.end - c.p) / 8)
			return -EINVAL;
		out->ips = c.p;
		return 0;
	}
	case PERF_RECORD_MMAP2: {
		take_u32_pair(&c, &out->pid, &out->tid);
		out->addr = take_u64(&c);
		out->len = take_u64(&c);
		out->pgoff = take_u64(&c);
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			if (c.end - c.p < 24)
				return -EINVAL;
			out->build_id_len = c.p[0] <= 20 ? c.p[0] : 20;
			memcpy(out->build_id, c.p + 4, 20);
			c.p += 24;
		} else {
			take_u64(&c); /* maj, min */
			out->ino = take_u64(&c);
			take_u64(&c); /* ino generation */
		}
		uint32_t flags;
		take_u32_pair(&c, &out->prot, &flags);
		if (!c.ok)
			return -EINVAL;
		out->filename = take_string(c.p, end);
		if (!out->filename)
			return -EINVAL;
		take_trailer(base, end, out);
		return 0;
	}
	case PERF_RECORD_COMM:
		take_u32_pair(&c, &out->pid, &out->tid);
		out->comm = c.ok ? take_string(c.p, end) : NULL;
		if (!out->comm)
			return -EINVAL;
		take_trailer(base, end, out);
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t ptid;
		take_u32_pair(&c, &out->pid, &out->ppid);
		take_u32_pair(&c, &out->tid, &ptid);
		out->time = take_u64(&c);
		return c.ok ? 0 : -EINVAL;
	}
	case PERF_RECORD_LOST:
		take_u64(&c); /* id */
		out->lost = take_u64(&c);
		if (!c.ok)
			return -EINVAL;
		take_trailer(base, end, out);
		return 0;
	default:
		return 1;
	}
}

uint64_t cpw_sample_rec_ip(const struct cpw_rec *r, uint64_t i)
{
	uint64_t v;
	memcpy(&v, r->ips + i * 8, 8);
	return v;
}
