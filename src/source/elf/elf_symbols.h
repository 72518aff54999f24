/*
 * elf_symbols.h: a pure reader of an ELF file's function symbols (.symtab and .dynsym),
 * its build-id and its executable segments, fed the file's bytes (elf_symbols.c); and a
 * pure parser of JIT perf maps (/tmp/perf-PID.map, perf_map.c).
 *
 * An address belongs to a symbol only inside [value, value + size): anything else has no
 * name here, and the caller reports it as file+0xoffset. The nearest symbol before an
 * address is never taken for it (that is how profilers name the wrong function in a
 * stripped binary). Nothing here trusts the file: every offset and count is checked
 * against the buffer (tests/fuzz/fuzz_elf.c).
 */
#ifndef CPW_SOURCE_ELF_ELF_SYMBOLS_H
#define CPW_SOURCE_ELF_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPW_ELF_BUILD_ID_MAX 20
#define CPW_ELF_LOAD_MAX 8
/* Names longer than this are cut (C++ templates): the rest says nothing more in a table. */
#define CPW_ELF_NAME_MAX 200

struct cpw_elf_sym {
	uint64_t value;
	uint64_t size;
	uint32_t name; /* offset of the name in cpw_elf_info.names */
};

struct cpw_elf_segment {
	uint64_t offset, vaddr, filesz; /* an executable PT_LOAD */
};

struct cpw_elf_info {
	struct cpw_elf_sym *syms; /* function symbols with a size, sorted by value */
	size_t nsyms;
	char *names;              /* their names, NUL-terminated, owned */
	size_t names_len;
	uint8_t build_id[CPW_ELF_BUILD_ID_MAX];
	size_t build_id_len;      /* 0: the file has none */
	struct cpw_elf_segment seg[CPW_ELF_LOAD_MAX];
	int nseg;
	bool has_symtab;          /* false: stripped (.dynsym only, or nothing) */
	bool has_debug_info;      /* a .debug_info (or .zdebug_info) section with contents */
};

/* Reads buf (len bytes, a whole ELF file). Returns 0, -EINVAL when it is not a 64-bit ELF
 * file of this machine's byte order or its headers are out of bounds (a truncated file),
 * or -ENOMEM. Symbol tables that are themselves out of bounds are skipped, not fatal. */
int cpw_elf_symbols_parse(const void *buf, size_t len, struct cpw_elf_info *out);
void cpw_elf_symbols_info_free(struct cpw_elf_info *info);
/* The function symbol whose [value, value + size) holds vaddr, or NULL. */
const struct cpw_elf_sym *cpw_elf_symbols_lookup(const struct cpw_elf_info *info, uint64_t vaddr);
static inline const char *cpw_elf_sym_name(const struct cpw_elf_info *info, const struct cpw_elf_sym *s)
{
	return info->names + s->name;
}
/* The virtual address (as symbols give it) of a file offset inside an executable segment.
 * False when no executable segment holds the offset. */
bool cpw_elf_offset_to_vaddr(const struct cpw_elf_info *info, uint64_t offset, uint64_t *vaddr);

/* Symbols wanted by name, of any type (data too: the Python reader's _PyRuntime). */
struct cpw_elf_wanted {
	const char *name;
	uint64_t value;
	bool found;
};
/* Fills each wanted symbol defined in .symtab or .dynsym of buf (len bytes, a whole ELF
 * file), and *load0, the virtual address of the PT_LOAD at file offset 0 (the load bias is
 * where the process maps offset 0, less it). Returns how many were found, or -EINVAL as
 * cpw_elf_symbols_parse does. */
int cpw_elf_symbols_find(const void *buf, size_t len, struct cpw_elf_wanted *w, size_t n, uint64_t *load0);
/* The part of it that looks the wanted symbols up in .gnu.hash, as the dynamic linker does
 * (the exported ones only; those found before are passed over): how many it found, or
 * -EINVAL, -ENOMEM. cpw_elf_symbols_find() scans the symbol tables only for the rest. */
int cpw_elf_symbols_find_exported(const void *buf, size_t len, struct cpw_elf_wanted *w, size_t n);

/* In an array of n structs of size bytes, sorted by the uint64_t at offset: how many hold a
 * value at or below key (the index of the first above it). The lookups' binary search. */
size_t cpw_elf_symbols_sorted_upper(const void *base, size_t n, size_t size, size_t offset, uint64_t key);

/* ---- JIT perf maps: one "START SIZE NAME" line per function, hex, 0x optional ---- */

struct cpw_jit_sym {
	uint64_t start, size;
	uint32_t name; /* offset in cpw_perf_map.names */
};

struct cpw_perf_map {
	struct cpw_jit_sym *syms; /* sorted by start */
	size_t nsyms;
	char *names;
	size_t names_len;
	size_t bad_lines;         /* lines that were not START SIZE NAME: skipped */
};

/* Parses text (len bytes, not NUL-terminated). At most max_syms are kept (the first). Returns
 * 0 or -ENOMEM. */
int cpw_elf_symbols_perf_map_parse(const char *text, size_t len, size_t max_syms, struct cpw_perf_map *out);
void cpw_elf_symbols_perf_map_free(struct cpw_perf_map *map);
/* The JIT function whose [start, start + size) holds addr, or NULL. */
const struct cpw_jit_sym *cpw_elf_symbols_perf_map_lookup(const struct cpw_perf_map *map, uint64_t addr);

#endif
