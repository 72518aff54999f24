/*
 * elf_symbols.c: the pure ELF reader (elf_symbols.h): function symbols of .symtab and
 * .dynsym, the GNU build-id note, the executable PT_LOAD segments.
 *
 * Every header, table and string is checked against the buffer before it is read, with
 * overflow-safe arithmetic: the input may be truncated, replaced or hostile.
 */
#include "config.h"
#include "source/elf/elf_symbols.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Whether [off, off + n) lies inside a buffer of len bytes. */
static bool in_bounds(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* Growing symbol and name arrays. */
struct builder {
	struct cpw_elf_sym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int add_name(struct builder *b, const char *s, size_t maxlen, uint32_t *off)
{
	size_t n = strnlen(s, maxlen < CPW_ELF_NAME_MAX ? maxlen : CPW_ELF_NAME_MAX);
	if (b->names_len + n + 1 > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap * 2 : 4096;
		while (cap < b->names_len + n + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		char *p = realloc(b->names, cap);
		if (!p)
			return -ENOMEM;
		b->names = p;
		b->names_cap = cap;
	}
	memcpy(b->names + b->names_len, s, n);
	b->names[b->names_len + n] = '\0';
	*off = (uint32_t)b->names_len;
	b->names_len += n + 1;
	return 0;
}

static int add_sym(struct builder *b, uint64_t value, uint64_t size, const char *name, size_t maxlen)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		struct cpw_elf_sym *p = realloc(b->syms, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->syms = p;
		b->cap = cap;
	}
	struct cpw_elf_sym *s = &b->syms[b->n];
	s->value = value;
	s->size = size;
	if (add_name(b, name, maxlen, &s->name) < 0)
		return -ENOMEM;
	b->n++;
	return 0;
}

/* The function symbols of one symbol table section (its string table is sh_link). */
static int read_symtab(const uint8_t *buf, size_t len, const Elf64_Shdr *sh, const Elf64_Shdr *shdrs,
		       uint16_t shnum, struct builder *b)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_bounds(len, sh->sh_offset, sh->sh_size) ||
	    sh->sh_link >= shnum)
		return 0; /* a table out of bounds is skipped: the other may still be good */
	const Elf64_Shdr *strs = &shdrs[sh->sh_link];
	if (strs->sh_type != SHT_STRTAB || !in_bounds(len, strs->sh_offset, strs->sh_size))
		return 0;
	const char *str = (const char *)buf + strs->sh_offset;
	size_t nsym = sh->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < nsym; i++) {
		Elf64_Sym sym;
		memcpy(&sym, buf + sh->sh_offset + i * sizeof(Elf64_Sym), sizeof(sym));
		int type = ELF64_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_size == 0 ||
		    sym.st_shndx == SHN_UNDEF || sym.st_name >= strs->sh_size)
			continue;
		const char *name = str + sym.st_name;
		size_t maxlen = strs->sh_size - sym.st_name;
		if (name[0] == '\0')
			continue;
		if (add_sym(b, sym.st_value, sym.st_size, name, maxlen) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The ELF header, checked: a 64-bit file of this machine's byte order whose program headers
 * lie inside the buffer. */
static int read_ehdr(const uint8_t *buf, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh))
		return -EINVAL;
	memcpy(eh, buf, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return -EINVAL;
#else
	if (eh->e_ident[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
#endif
	if (eh->e_phnum && (eh->e_phentsize != sizeof(Elf64_Phdr) ||
			    !in_bounds(len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))))
		return -EINVAL;
	return 0;
}

/* The wanted symbols of one symbol table section: how many were found. */
static int find_in_symtab(const uint8_t *buf, size_t len, const Elf64_Shdr *sh, const Elf64_Shdr *shdrs,
			  uint16_t shnum, struct cpw_elf_wanted *w, size_t n)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_bounds(len, sh->sh_offset, sh->sh_size) ||
	    sh->sh_link >= shnum)
		return 0;
	const Elf64_Shdr *strs = &shdrs[sh->sh_link];
	if (strs->sh_type != SHT_STRTAB || !in_bounds(len, strs->sh_offset, strs->sh_size))
		return 0;
	const char *str = (const char *)buf + strs->sh_offset;
	size_t nsym = sh->sh_size / sizeof(Elf64_Sym);
	int found = 0;
	for (size_t i = 0; i < nsym; i++) {
		Elf64_Sym sym;
		memcpy(&sym, buf + sh->sh_offset + i * sizeof(Elf64_Sym), sizeof(sym));
		if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strs->sh_size)
			continue;
		const char *name = str + sym.st_name;
		size_t maxlen = strs->sh_size - sym.st_name;
		for (size_t k = 0; k < n; k++) {
			if (w[k].found)
				continue;
			size_t wl = strlen(w[k].name);
			if (wl < maxlen && memcmp(name, w[k].name, wl + 1) == 0) {
				w[k].value = sym.st_value;
				w[k].found = true;
				found++;
			}
		}
	}
	return found;
}

/* The wanted symbols not found yet, looked up in a .gnu.hash section (whose sh_link is its
 * .dynsym, whose sh_link is the strings) as the dynamic linker looks them up: a few pages
 * read where the whole scan of python3.11's 360 KB .dynsym and its strings took 100 us
 * warm and ~250 us at a run's first look. How many were found. */
static int find_in_gnu_hash(const uint8_t *buf, size_t len, const Elf64_Shdr *hs, const Elf64_Shdr *shdrs,
			    uint16_t shnum, struct cpw_elf_wanted *w, size_t n)
{
	if (hs->sh_link >= shnum || !in_bounds(len, hs->sh_offset, hs->sh_size) || hs->sh_size < 16)
		return 0;
	const Elf64_Shdr *dyn = &shdrs[hs->sh_link];
	if (dyn->sh_type != SHT_DYNSYM || dyn->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_bounds(len, dyn->sh_offset, dyn->sh_size) || dyn->sh_link >= shnum)
		return 0;
	const Elf64_Shdr *strs = &shdrs[dyn->sh_link];
	if (strs->sh_type != SHT_STRTAB || !in_bounds(len, strs->sh_offset, strs->sh_size))
		return 0;
	uint32_t head[4]; /* nbuckets, symoffset, bloom words, bloom shift */
	memcpy(head, buf + hs->sh_offset, sizeof(head));
	uint64_t nbuckets = head[0], symoffset = head[1], nbloom = head[2];
	uint64_t buckets_at = 16 + nbloom * 8, chain_at = buckets_at + nbuckets * 4;
	if (nbuckets == 0 || nbloom > hs->sh_size / 8 || chain_at > hs->sh_size)
		return 0;
	uint64_t nchain = (hs->sh_size - chain_at) / 4, nsym = dyn->sh_size / sizeof(Elf64_Sym);
	const uint8_t *table = buf + hs->sh_offset;
	const char *str = (const char *)buf + strs->sh_offset;
	int found = 0;
	for (size_t k = 0; k < n; k++) {
		if (w[k].found)
			continue;
		uint32_t h = 5381;
		for (const unsigned char *c = (const unsigned char *)w[k].name; *c; c++)
			h = h * 33 + *c;
		uint32_t idx;
		memcpy(&idx, table + buckets_at + (h % nbuckets) * 4, sizeof(idx));
		size_t wl = strlen(w[k].name);
		/* A chain runs from the bucket's first symbol to the entry with its low bit set. */
		for (; idx >= symoffset && idx < nsym && idx - symoffset < nchain; idx++) {
			uint32_t ch;
			memcpy(&ch, table + chain_at + (uint64_t)(idx - symoffset) * 4, sizeof(ch));
			Elf64_Sym sym;
			memcpy(&sym, buf + dyn->sh_offset + (uint64_t)idx * sizeof(sym), sizeof(sym));
			if ((ch | 1) == (h | 1) && sym.st_shndx != SHN_UNDEF && sym.st_name < strs->sh_size &&
			    wl < strs->sh_size - sym.st_name && memcmp(str + sym.st_name, w[k].name, wl + 1) == 0) {
				w[k].value = sym.st_value;
				w[k].found = true;
				found++;
				break;
			}
			if (ch & 1)
				break;
		}
	}
	return found;
}

/* The GNU build-id from a note area [off, off + size). */
static void read_notes(const uint8_t *buf, size_t len, uint64_t off, uint64_t size, struct cpw_elf_info *out)
{
	if (!in_bounds(len, off, size))
		return;
	uint64_t p = off, end = off + size;
	while (end - p >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		memcpy(&nh, buf + p, sizeof(nh));
		uint64_t name_sz = ((uint64_t)nh.n_namesz + 3) & ~3ull;
		uint64_t desc_sz = ((uint64_t)nh.n_descsz + 3) & ~3ull;
		uint64_t body = p + sizeof(nh);
		if (name_sz > end - body || desc_sz > end - body - name_sz)
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(buf + body, "GNU", 4) == 0 &&
		    nh.n_descsz > 0) {
			size_t n = nh.n_descsz < CPW_ELF_BUILD_ID_MAX ? nh.n_descsz : CPW_ELF_BUILD_ID_MAX;
			memcpy(out->build_id, buf + body + name_sz, n);
			out->build_id_len = n;
			return;
		}
		p = body + name_sz + desc_sz;
	}
}

/* The order of the table: by value, the larger first among aliases (it is the one kept),
 * then as seen (names are appended as symbols are read, .symtab first): a total order. */
static bool sym_before(const struct cpw_elf_sym *a, const struct cpw_elf_sym *b)
{
	if (a->value != b->value)
		return a->value < b->value;
	if (a->size != b->size)
		return a->size > b->size;
	return a->name < b->name;
}

static void swap_syms(struct cpw_elf_sym *a, struct cpw_elf_sym *b)
{
	struct cpw_elf_sym t = *a;
	*a = *b;
	*b = t;
}

/* Heapsort: the introsort's way out of a partitioning that goes badly (a file made to). */
static void sift_down(struct cpw_elf_sym *s, size_t at, size_t n)
{
	for (size_t child; (child = 2 * at + 1) < n; at = child) {
		if (child + 1 < n && sym_before(&s[child], &s[child + 1]))
			child++;
		if (!sym_before(&s[at], &s[child]))
			return;
		swap_syms(&s[at], &s[child]);
	}
}

static void heap_sort(struct cpw_elf_sym *s, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(s, i, n);
	for (size_t end = n; end-- > 1;) {
		swap_syms(&s[0], &s[end]);
		sift_down(s, 0, end);
	}
}

/* Sorts s[0, n) by sym_before(): an introsort (quicksort on the median of three, heapsort past
 * a depth of 2 log n, insertion sort under 16), the comparison inlined. glibc's qsort moved
 * each 24-byte entry with memcpy through a comparison function: 80 % of reading libc's debug
 * file (10,000 symbols), 1.5 ms of the 2.5 a run paid at its first sample in libc. */
static void sort_syms(struct cpw_elf_sym *s, size_t n, unsigned depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			heap_sort(s, n);
			return;
		}
		struct cpw_elf_sym *a = &s[0], *m = &s[n / 2], *z = &s[n - 1];
		if (sym_before(m, a))
			swap_syms(a, m);
		if (sym_before(z, m)) {
			swap_syms(m, z);
			if (sym_before(m, a))
				swap_syms(a, m);
		}
		/* Hoare's partition around the median's value: s[0, j] before s[j + 1, n), both
		 * parts non-empty (the keys are distinct, the pivot is neither end's). */
		const struct cpw_elf_sym pivot = *m;
		size_t i = 0, j = n - 1;
		for (;;) {
			while (sym_before(&s[i], &pivot))
				i++;
			while (sym_before(&pivot, &s[j]))
				j--;
			if (i >= j)
				break;
			swap_syms(&s[i++], &s[j--]);
		}
		size_t left = j + 1;
		if (left < n - left) { /* the smaller part by recursion: the stack stays log n deep */
			sort_syms(s, left, depth);
			s += left;
			n -= left;
		} else {
			sort_syms(s + left, n - left, depth);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct cpw_elf_sym x = s[i];
		size_t k = i;
		for (; k > 0 && sym_before(&x, &s[k - 1]); k--)
			s[k] = s[k - 1];
		s[k] = x;
	}
}

/* Sorts and drops aliases (the same value twice: .symtab and .dynsym name most functions
 * twice); the first seen of equal value and size is kept, and .symtab is read first. */
static void sort_unique(struct builder *b)
{
	if (b->n == 0)
		return;
	unsigned depth = 0;
	for (size_t n = b->n; n > 1; n >>= 1)
		depth += 2;
	sort_syms(b->syms, b->n, depth);
	size_t w = 1;
	for (size_t i = 1; i < b->n; i++)
		if (b->syms[i].value != b->syms[w - 1].value)
			b->syms[w++] = b->syms[i];
	b->n = w;
}

/* Whether a section named .debug_info (or .zdebug_info, compressed the old way) has
 * contents: the file's own DWARF, which source/elf/dwarf_lines.c can read. */
static bool has_debug_info(const uint8_t *buf, size_t len, const Elf64_Ehdr *eh, const Elf64_Shdr *sh)
{
	if (eh->e_shstrndx >= eh->e_shnum)
		return false;
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];
	if (names->sh_type != SHT_STRTAB || !in_bounds(len, names->sh_offset, names->sh_size))
		return false;
	const char *str = (const char *)buf + names->sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_size == 0 || sh[i].sh_name >= names->sh_size)
			continue;
		const char *name = str + sh[i].sh_name;
		size_t max = names->sh_size - sh[i].sh_name;
		if (strnlen(name, max) < max && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
			return true;
	}
	return false;
}

/* The section table of buf, copied (aligned); NULL with *rc 0 where it has none in bounds,
 * -ENOMEM where it could not be copied. */
static Elf64_Shdr *section_table(const uint8_t *buf, size_t len, const Elf64_Ehdr *eh, int *rc)
{
	*rc = 0;
	if (!eh->e_shnum || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_bounds(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return NULL;
	Elf64_Shdr *copy = malloc((size_t)eh->e_shnum * sizeof(*copy));
	if (!copy) {
		*rc = -ENOMEM;
		return NULL;
	}
	memcpy(copy, buf + eh->e_shoff, (size_t)eh->e_shnum * sizeof(*copy));
	return copy;
}

int cpw_elf_symbols_parse(const void *data, size_t len, struct cpw_elf_info *out)
{
	const uint8_t *buf = data;
	memset(out, 0, sizeof(*out));
	Elf64_Ehdr eh;
	if (read_ehdr(buf, len, &eh) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && out->nseg < CPW_ELF_LOAD_MAX) {
			out->seg[out->nseg].offset = ph.p_offset;
			out->seg[out->nseg].vaddr = ph.p_vaddr;
			out->seg[out->nseg].filesz = ph.p_filesz;
			out->nseg++;
		} else if (ph.p_type == PT_NOTE && out->build_id_len == 0) {
			read_notes(buf, len, ph.p_offset, ph.p_filesz, out);
		}
	}
	/* Section headers: the symbol tables (a file cut short has none: no names, no error). */
	struct builder b = { 0 };
	int rc;
	Elf64_Shdr *sh = section_table(buf, len, &eh, &rc);
	if (rc < 0)
		return rc;
	if (sh) {
		for (int pass = 0; pass < 2 && rc == 0; pass++) {
			uint32_t want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
			for (unsigned i = 0; i < eh.e_shnum && rc == 0; i++) {
				if (sh[i].sh_type != want)
					continue;
				size_t before = b.n;
				rc = read_symtab(buf, len, &sh[i], sh, eh.e_shnum, &b);
				if (want == SHT_SYMTAB && b.n > before)
					out->has_symtab = true;
			}
		}
		for (unsigned i = 0; i < eh.e_shnum && out->build_id_len == 0; i++)
			if (sh[i].sh_type == SHT_NOTE)
				read_notes(buf, len, sh[i].sh_offset, sh[i].sh_size, out);
		out->has_debug_info = has_debug_info(buf, len, &eh, sh);
		free(sh);
		if (rc < 0) {
			free(b.syms);
			free(b.names);
			return rc;
		}
	}
	sort_unique(&b);
	out->syms = b.syms;
	out->nsyms = b.n;
	out->names = b.names;
	out->names_len = b.names_len;
	return 0;
}

/* The wanted symbols through each .gnu.hash section of the section table shdrs. */
static int find_in_gnu_hashes(const uint8_t *buf, size_t len, const Elf64_Shdr *shdrs, uint16_t shnum,
			      struct cpw_elf_wanted *w, size_t n)
{
	int found = 0;
	for (unsigned i = 0; i < shnum && found < (int)n; i++)
		if (shdrs[i].sh_type == SHT_GNU_HASH)
			found += find_in_gnu_hash(buf, len, &shdrs[i], shdrs, shnum, w, n);
	return found;
}

int cpw_elf_symbols_find_exported(const void *data, size_t len, struct cpw_elf_wanted *w, size_t n)
{
	const uint8_t *buf = data;
	Elf64_Ehdr eh;
	if (read_ehdr(buf, len, &eh) < 0)
		return -EINVAL;
	int rc;
	Elf64_Shdr *shdrs = section_table(buf, len, &eh, &rc);
	if (!shdrs)
		return rc;
	int found = find_in_gnu_hashes(buf, len, shdrs, eh.e_shnum, w, n);
	free(shdrs);
	return found;
}

int cpw_elf_symbols_find(const void *data, size_t len, struct cpw_elf_wanted *w, size_t n, uint64_t *load0)
{
	const uint8_t *buf = data;
	Elf64_Ehdr eh;
	*load0 = 0;
	if (read_ehdr(buf, len, &eh) < 0)
		return -EINVAL;
	bool have_load0 = false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset == 0 && !have_load0) {
			*load0 = ph.p_vaddr;
			have_load0 = true;
		}
	}
	int rc;
	Elf64_Shdr *shdrs = section_table(buf, len, &eh, &rc);
	if (!shdrs)
		return rc;
	/* The exported ones through the hash table; the rest (and the rest only) by a scan. */
	int found = find_in_gnu_hashes(buf, len, shdrs, eh.e_shnum, w, n);
	for (unsigned i = 0; i < eh.e_shnum && found < (int)n; i++)
		if (shdrs[i].sh_type == SHT_SYMTAB || shdrs[i].sh_type == SHT_DYNSYM)
			found += find_in_symtab(buf, len, &shdrs[i], shdrs, eh.e_shnum, w, n);
	free(shdrs);
	return found;
}

void cpw_elf_symbols_info_free(struct cpw_elf_info *info)
{
	if (!info)
		return;
	free(info->syms);
	free(info->names);
	info->syms = NULL;
	info->names = NULL;
	info->nsyms = info->names_len = 0;
}

/* How many symbols before the last one starting at or below an address are checked for
 * holding it too (a function with a nested label symbol inside it). */
#define CONTAINING_LOOKBACK 4

size_t cpw_elf_symbols_sorted_upper(const void *base, size_t n, size_t size, size_t offset, uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;
		memcpy(&v, p + mid * size + offset, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct cpw_elf_sym *cpw_elf_symbols_lookup(const struct cpw_elf_info *info, uint64_t vaddr)
{
	size_t lo = cpw_elf_symbols_sorted_upper(info->syms, info->nsyms, sizeof(*info->syms),
				     offsetof(struct cpw_elf_sym, value), vaddr);
	for (size_t k = 0; k < CONTAINING_LOOKBACK && lo > k; k++) {
		const struct cpw_elf_sym *s = &info->syms[lo - 1 - k];
		if (vaddr - s->value < s->size)
			return s;
	}
	return NULL;
}

bool cpw_elf_offset_to_vaddr(const struct cpw_elf_info *info, uint64_t offset, uint64_t *vaddr)
{
	for (int i = 0; i < info->nseg; i++) {
		const struct cpw_elf_segment *s = &info->seg[i];
		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = s->vaddr + (offset - s->offset);
			return true;
		}
	}
	return false;
}
