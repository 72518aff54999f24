/*
 * kallsyms.h: the kernel's function names, from /proc/kallsyms (source/sample/kallsyms.c),
 * so that a sample in the kernel is named where it ran ("clear_user_erms") and not only
 * "[kernel]", as perf report does.
 *
 * Only code symbols are kept (t, T, w, W: text and weak text), sorted by address; the
 * padding before a function X (__pfx_X) is named X, its name stored once. Where
 * the kernel hides the addresses (kptr_restrict, or a reader without CAP_SYSLOG), every
 * line reads 0: the table is empty and the samples stay "[kernel]". The parser is pure.
 */
#ifndef CPW_SOURCE_SAMPLE_KALLSYMS_H
#define CPW_SOURCE_SAMPLE_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* Packed: 12 bytes, not 16, for each of ~64,000 entries (a 6.x kernel's functions). */
struct cpw_kallsyms_sym {
	uint64_t addr;
	uint32_t name;    /* offset into names */
} __attribute__((packed));

struct cpw_kallsyms {
	struct cpw_kallsyms_sym *sym; /* ascending by address */
	char *names;      /* NUL-terminated names, one after another */
	size_t n;
};

/* Parses the text of /proc/kallsyms ("ADDR TYPE NAME[\t[MODULE]]" lines; others are
 * skipped) into k (zeroed first). 0, or -ENOMEM (k then empty). */
int cpw_kallsyms_parse(const char *text, size_t len, struct cpw_kallsyms *k);

/* Reads PROC_ROOT/kallsyms and parses it: 0 with a table (empty where the addresses are
 * hidden), or -errno where it cannot be read. */
int cpw_kallsyms_load(const char *proc_root, struct cpw_kallsyms *k);

/* The code symbol that holds addr (the last one at or below it), NULL below the first. */
const char *cpw_kallsyms_lookup(const struct cpw_kallsyms *k, uint64_t addr);

void cpw_kallsyms_free(struct cpw_kallsyms *k);

#endif
