/*
 * kallsyms.c: the kernel's code symbols from /proc/kallsyms (source/sample/kallsyms.h).
 */
#include "config.h"
#include "source/sample/kallsyms.h"

#include "source/kernel/kfile.h"

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

int cpw_kallsyms_parse(const char *text, size_t len, struct cpw_kallsyms *k)
{
	const char *end = text + len, *name;
	size_t lines = 0, bytes = 0, nlen, used = 0;
	uint64_t addr;

	memset(k, 0, sizeof(*k));
	for (const char *s = text; s < end;)
		if (next_code(&s, end, &addr, &name, &nlen)) {
			lines++;
			bytes += nlen + 1;
		}
	if (lines == 0)
		return 0; /* hidden (all 0), or nothing to name */
	if (lines > UINT32_MAX || bytes > UINT32_MAX)
		return -ENOMEM;
	k->sym = malloc(lines * sizeof(*k->sym));
	k->names = malloc(bytes);
	if (!k->sym || !k->names) {
		cpw_kallsyms_free(k);
		return -ENOMEM;
	}
	for (const char *s = text; s < end && k->n < lines;)
		if (next_code(&s, end, &addr, &name, &nlen)) {
			k->sym[k->n].addr = addr;
			k->sym[k->n].name = (uint32_t)used;
			memcpy(k->names + used, name, nlen);
			k->names[used + nlen] = '\0';
			used += nlen + 1;
			k->n++;
		}
	/* Modules' symbols follow the core's, not in order. */
	qsort(k->sym, k->n, sizeof(*k->sym), by_addr);
	return 0;
}

int cpw_kallsyms_load(const char *proc_root, struct cpw_kallsyms *k)
{
	char path[4096], *buf;

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/kallsyms", proc_root ? proc_root : "/proc");
	ssize_t len = cpw_kfile_read_alloc(path, &buf);
	if (len < 0)
		return (int)len;
	int rc = cpw_kallsyms_parse(buf, (size_t)len, k);
	free(buf);
	return rc;
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
