/*
 * perf_map.c: the pure parser of JIT perf maps (elf_symbols.h): /tmp/perf-PID.map, written by
 * JITs (V8 --perf-basic-prof, the JVM's perf-map-agent, CPython 3.12's -X perf), one
 * "START SIZE NAME" line per function, START and SIZE in hex with or without 0x.
 *
 * The file is written by the watched program while it runs: a line may be cut short or be
 * anything at all. Such lines are skipped and counted.
 */
#include "config.h"
#include "source/elf/elf_symbols.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Parses a hex number at *p (before end), 0x optional; false when there are no digits or
 * more than 16. */
static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t x = 0;
	int digits = 0;
	for (; s < end; s++, digits++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	if (digits == 0)
		return false;
	*p = s;
	*v = x;
	return true;
}

static int cmp_jit(const void *a, const void *b)
{
	const struct cpw_jit_sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* One line [s, end): a symbol added, or the line counted bad. */
static int parse_line(const char *s, const char *end, struct cpw_perf_map *m, size_t *cap, size_t *names_cap)
{
	uint64_t start, size;
	if (!parse_hex(&s, end, &start) || s == end || *s != ' ')
		goto bad;
	s++;
	if (!parse_hex(&s, end, &size) || s == end || *s != ' ' || size == 0 || start + size < start)
		goto bad;
	s++;
	size_t n = (size_t)(end - s);
	if (n && s[n - 1] == '\r')
		n--;
	if (n == 0 || memchr(s, '\0', n))
		goto bad;
	if (n > CPW_ELF_NAME_MAX)
		n = CPW_ELF_NAME_MAX;
	if (m->nsyms == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct cpw_jit_sym *p = realloc(m->syms, c * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->syms = p;
		*cap = c;
	}
	if (m->names_len + n + 1 > *names_cap) {
		size_t c = *names_cap ? *names_cap * 2 : 1024;
		while (c < m->names_len + n + 1)
			c *= 2;
		char *p = realloc(m->names, c);
		if (!p)
			return -ENOMEM;
		m->names = p;
		*names_cap = c;
	}
	memcpy(m->names + m->names_len, s, n);
	m->names[m->names_len + n] = '\0';
	m->syms[m->nsyms].start = start;
	m->syms[m->nsyms].size = size;
	m->syms[m->nsyms].name = (uint32_t)m->names_len;
	m->names_len += n + 1;
	m->nsyms++;
	return 0;
bad:
	m->bad_lines++;
	return 0;
}

int cpw_elf_symbols_perf_map_parse(const char *text, size_t len, size_t max_syms, struct cpw_perf_map *out)
{
	memset(out, 0, sizeof(*out));
	size_t cap = 0, names_cap = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		if (line_end > p) {
			if (out->nsyms >= max_syms || out->names_len > UINT32_MAX - CPW_ELF_NAME_MAX - 1)
				break;
			if (parse_line(p, line_end, out, &cap, &names_cap) < 0) {
				cpw_elf_symbols_perf_map_free(out);
				return -ENOMEM;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (out->nsyms)
		qsort(out->syms, out->nsyms, sizeof(*out->syms), cmp_jit);
	return 0;
}

void cpw_elf_symbols_perf_map_free(struct cpw_perf_map *map)
{
	if (!map)
		return;
	free(map->syms);
	free(map->names);
	memset(map, 0, sizeof(*map));
}

const struct cpw_jit_sym *cpw_elf_symbols_perf_map_lookup(const struct cpw_perf_map *map, uint64_t addr)
{
	size_t lo = cpw_elf_symbols_sorted_upper(map->syms, map->nsyms, sizeof(*map->syms), offsetof(struct cpw_jit_sym, start),
				     addr);
	/* JITs reuse code space: a later entry may overlap an earlier one; a few are checked. */
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct cpw_jit_sym *s = &map->syms[lo - 1 - k];
		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}
