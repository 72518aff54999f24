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

/* The code symbols in the lines of text: counted (k->sym NULL), or stored (k->sym room
 * for lines, k->names for bytes); adds to *lines and *bytes. */
static void take_lines(const char *text, size_t len, struct cpw_kallsyms *k, size_t *lines, size_t *bytes,
		       size_t max_lines, size_t max_bytes)
{
	const char *end = text + len, *name;
	size_t nlen;
	uint64_t addr;

	for (const char *s = text; s < end;) {
		if (!next_code(&s, end, &addr, &name, &nlen))
			continue;
		if (k->sym) {
			if (*lines >= max_lines || *bytes + nlen + 1 > max_bytes)
				return; /* the file grew between the passes (a module loaded) */
			k->sym[*lines].addr = addr;
			k->sym[*lines].name = (uint32_t)*bytes;
			memcpy(k->names + *bytes, name, nlen);
			k->names[*bytes + nlen] = '\0';
			k->n++;
		}
		(*lines)++;
		*bytes += nlen + 1;
	}
}

/* Room for the symbols counted, or -ENOMEM (k empty). */
static int make_room(struct cpw_kallsyms *k, size_t lines, size_t bytes)
{
	if (lines > UINT32_MAX || bytes > UINT32_MAX)
		return -ENOMEM;
	k->sym = malloc(lines * sizeof(*k->sym));
	k->names = malloc(bytes);
	if (!k->sym || !k->names) {
		cpw_kallsyms_free(k);
		return -ENOMEM;
	}
	return 0;
}

/* One pass over the text at (text, len), or where text is NULL over the file path. */
static int pass(const char *path, const char *text, size_t len, struct cpw_kallsyms *k, size_t *lines,
		size_t *bytes, size_t max_lines, size_t max_bytes);

/* Counts, makes room, stores, sorts: the text given, else the file at path. */
static int read_table(const char *path, const char *text, size_t len, struct cpw_kallsyms *k)
{
	size_t lines = 0, bytes = 0;

	memset(k, 0, sizeof(*k));
	int rc = pass(path, text, len, k, &lines, &bytes, 0, 0); /* count */
	if (rc < 0 || lines == 0)
		return rc; /* hidden (all 0), or nothing to name: an empty table */
	if ((rc = make_room(k, lines, bytes)) < 0)
		return rc;
	size_t max_lines = lines, max_bytes = bytes;
	lines = bytes = 0;
	rc = pass(path, text, len, k, &lines, &bytes, max_lines, max_bytes); /* store */
	if (rc < 0) {
		cpw_kallsyms_free(k);
		return rc;
	}
	/* Modules' symbols follow the core's, not in order. */
	qsort(k->sym, k->n, sizeof(*k->sym), by_addr);
	return 0;
}

int cpw_kallsyms_parse(const char *text, size_t len, struct cpw_kallsyms *k)
{
	return read_table(NULL, text, len, k);
}

/* The file is ~8 MB: it is read in pieces of whole lines, never held whole. */
static int pass(const char *path, const char *text, size_t len, struct cpw_kallsyms *k, size_t *lines,
		size_t *bytes, size_t max_lines, size_t max_bytes)
{
	if (text) {
		take_lines(text, len, k, lines, bytes, max_lines, max_bytes);
		return 0;
	}
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
		take_lines(buf, whole, k, lines, bytes, max_lines, max_bytes);
		memmove(buf, buf + whole, have - whole);
		have -= whole;
		if (got == 0)
			break;
	}
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	return rc;
}

int cpw_kallsyms_load(const char *proc_root, struct cpw_kallsyms *k)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/kallsyms", proc_root ? proc_root : "/proc");
	return read_table(path, NULL, 0, k);
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
