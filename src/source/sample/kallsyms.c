/*
 * kallsyms.c: the kernel's code symbols from /proc/kallsyms (source/sample/kallsyms.h).
 */
#include "config.h"
#include "source/sample/kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A symbol this far below an address does not hold it: kernel functions are far shorter,
 * and what lies past the last one listed (BPF programs, unlisted module code) is not its. */
#define KALLSYMS_SPAN_MAX (256u * 1024u)

static bool is_code(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* One line at s (up to end): its address, type and name (not terminated). */
static bool parse_line(const char *s, const char *end, uint64_t *addr, const char **name, size_t *name_len,
		       char *type)
{
	uint64_t a = 0;
	int digits = 0;

	for (; s < end && isxdigit((unsigned char)*s); s++) {
		if (++digits > 16)
			return false;
		a = a << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
	}
	if (digits == 0 || s + 3 > end || s[0] != ' ' || s[2] != ' ')
		return false;
	*type = s[1];
	s += 3;
	const char *n = s;
	while (s < end && *s != '\t' && *s != ' ' && *s != '\n' && *s != '\0')
		s++;
	if (s == n)
		return false;
	*addr = a;
	*name = n;
	*name_len = (size_t)(s - n);
	return true;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct cpw_kallsyms_sym *)a)->addr, y = ((const struct cpw_kallsyms_sym *)b)->addr;
	return (x > y) - (x < y);
}

void cpw_kallsyms_free(struct cpw_kallsyms *k)
{
	free(k->sym);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

/* The line at *s, which then moves past it: whether it is a code symbol with an address. */
static bool next_code(const char **s, const char *end, uint64_t *addr, const char **name, size_t *nlen)
{
	const char *nl = memchr(*s, '\n', (size_t)(end - *s));
	const char *le = nl ? nl : end;
	char type;
	bool code = parse_line(*s, le, addr, name, nlen, &type) && is_code(type) && *addr != 0;

	*s = le + 1;
	return code;
}

/* The table as it is built, in one pass over the file: the file was read twice (count, then
 * store), and the kernel's making of its ~5 MB of text is most of the cost (~50 ms a pass
 * here), with a sort of every entry after it (the core's symbols come in order already;
 * only modules' may not). */
#define PFX "__pfx_"
#define PFX_LEN (sizeof(PFX) - 1)
#define NAME_PENDING UINT32_MAX
struct builder {
	struct cpw_kallsyms *k;
	size_t sym_cap, names_len, names_cap;
	bool sorted, failed;
	/* The padding before a function (__pfx_X, 16 bytes where call-depth tracking keeps its
	 * thunk: ~47% of the symbols of a 6.x kernel) is named X, the function it prepares the
	 * call of: where X comes next (it always does) the two are one entry from the padding
	 * on; otherwise the padding's own entry is named X. */
	size_t pending;   /* the entry of a __pfx_X whose X has not come yet, or SIZE_MAX */
	char pfx_of[128]; /* X */
	size_t pfx_len;
};

static bool add_name(struct builder *b, const char *name, size_t nlen, uint32_t *off)
{
	if (b->names_len + nlen + 1 > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap : 64 * 1024;
		while (cap < b->names_len + nlen + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return false;
		char *more = realloc(b->k->names, cap);
		if (!more)
			return false;
		b->k->names = more;
		b->names_cap = cap;
	}
	*off = (uint32_t)b->names_len;
	memcpy(b->k->names + b->names_len, name, nlen);
	b->k->names[b->names_len + nlen] = '\0';
	b->names_len += nlen + 1;
	return true;
}

/* A __pfx_X whose X did not come next: X stored for it on its own. */
static bool settle_pending(struct builder *b)
{
	if (b->pending == SIZE_MAX)
		return true;
	size_t i = b->pending;
	uint32_t off;
	b->pending = SIZE_MAX;
	if (!add_name(b, b->pfx_of, b->pfx_len, &off))
		return false;
	b->k->sym[i].name = off;
	return true;
}

static void add_symbol(struct builder *b, uint64_t addr, const char *name, size_t nlen)
{
	struct cpw_kallsyms *k = b->k;

	if (b->failed)
		return;
	if (k->n == b->sym_cap) {
		size_t cap = b->sym_cap ? b->sym_cap * 2 : 4096;
		struct cpw_kallsyms_sym *more = realloc(k->sym, cap * sizeof(*more));
		if (!more) {
			b->failed = true;
			return;
		}
		k->sym = more;
		b->sym_cap = cap;
	}
	if (k->n > 0 && addr < k->sym[k->n - 1].addr)
		b->sorted = false;
	struct cpw_kallsyms_sym *e = &k->sym[k->n];
	e->addr = addr;
	bool pfx = nlen > PFX_LEN && nlen - PFX_LEN < sizeof(b->pfx_of) && memcmp(name, PFX, PFX_LEN) == 0;
	if (pfx) {
		if (!settle_pending(b)) {
			b->failed = true;
			return;
		}
		e->name = NAME_PENDING;
		b->pending = k->n;
		b->pfx_len = nlen - PFX_LEN;
		memcpy(b->pfx_of, name + PFX_LEN, b->pfx_len);
	} else {
		uint32_t off;
		if (!add_name(b, name, nlen, &off)) {
			b->failed = true;
			return;
		}
		if (b->pending != SIZE_MAX && b->pfx_len == nlen && memcmp(b->pfx_of, name, nlen) == 0) {
			/* X right after its padding: one entry from the padding on, named X */
			k->sym[b->pending].name = off;
			b->pending = SIZE_MAX;
			return;
		}
		e->name = off;
		if (!settle_pending(b)) {
			b->failed = true;
			return;
		}
	}
	k->n++;
}

/* The code symbols in the lines of text. */
static void take_lines(struct builder *b, const char *text, size_t len)
{
	const char *end = text + len, *name;
	size_t nlen;
	uint64_t addr;

	for (const char *s = text; s < end;)
		if (next_code(&s, end, &addr, &name, &nlen))
			add_symbol(b, addr, name, nlen);
}

/* The lines of the file at path, read in pieces of whole lines: the file is ~5-8 MB, never
 * held whole. */
static int take_file(struct builder *b, const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[64 * 1024];
	size_t have = 0;

	if (!f)
		return -errno;
	for (;;) {
		size_t got = fread(buf + have, 1, sizeof(buf) - have, f);
		have += got;
		char *last_nl = have ? memrchr(buf, '\n', have) : NULL;
		size_t whole = last_nl ? (size_t)(last_nl - buf) + 1 : (got == 0 ? have : 0);
		if (whole == 0 && have == sizeof(buf))
			whole = have; /* a line longer than the buffer: cut */
		take_lines(b, buf, whole);
		memmove(buf, buf + whole, have - whole);
		have -= whole;
		if (got == 0)
			break;
	}
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	return rc;
}

/* The table made from what was taken (rc: the reading's): sorted where it was not in
 * order, its arrays cut to what they hold; or empty, with -errno. */
static int finish(struct builder *b, int rc)
{
	struct cpw_kallsyms *k = b->k;

	if (!b->failed && !settle_pending(b))
		b->failed = true;
	if (rc < 0 || b->failed || k->n == 0) {
		cpw_kallsyms_free(k); /* hidden (all 0), or nothing to name: an empty table */
		return rc < 0 ? rc : b->failed ? -ENOMEM : 0;
	}
	/* Modules' symbols follow the core's, not in order. */
	if (!b->sorted)
		qsort(k->sym, k->n, sizeof(*k->sym), by_addr);
	struct cpw_kallsyms_sym *sym = realloc(k->sym, k->n * sizeof(*sym));
	if (sym)
		k->sym = sym;
	char *names = realloc(k->names, b->names_len);
	if (names)
		k->names = names;
	return 0;
}

int cpw_kallsyms_parse(const char *text, size_t len, struct cpw_kallsyms *k)
{
	struct builder b = { .k = k, .sorted = true, .pending = SIZE_MAX };

	memset(k, 0, sizeof(*k));
	take_lines(&b, text, len);
	return finish(&b, 0);
}

int cpw_kallsyms_load(const char *proc_root, struct cpw_kallsyms *k)
{
	struct builder b = { .k = k, .sorted = true, .pending = SIZE_MAX };
	char path[4096];

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/kallsyms", proc_root ? proc_root : "/proc");
	return finish(&b, take_file(&b, path));
}

const char *cpw_kallsyms_lookup(const struct cpw_kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (k->n == 0 || addr < k->sym[0].addr)
		return NULL;
	while (hi - lo > 1) { /* sym[lo].addr <= addr < sym[hi].addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->sym[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (addr - k->sym[lo].addr > KALLSYMS_SPAN_MAX)
		return NULL;
	return k->names + k->sym[lo].name;
}
