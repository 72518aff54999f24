/*
 * fuzz_elf.c: fuzz target for the ELF reader (cpw_elf_symbols_parse, cpw_elf_symbols_lookup,
 * cpw_elf_offset_to_vaddr, the lookups by name: cpw_elf_symbols_find and its .gnu.hash part)
 * and the ring-buffer record parser (cpw_sample_parse).
 *
 * The whole input is the file, in a buffer of exactly its size. Invariants: the symbols
 * are sorted and distinct, every name lies in the names buffer, and a lookup returns only
 * a symbol whose [value, value + size) holds the address.
 */
#include "config.h"
#include "fuzz.h"

#include <errno.h>

#include "source/elf/elf_symbols.h"
#include "source/sample/sample_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size, 0);
	struct cpw_elf_info e;
	int rc = cpw_elf_symbols_parse(buf, size, &e);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == 0) {
		FUZZ_ASSERT(e.build_id_len <= CPW_ELF_BUILD_ID_MAX);
		FUZZ_ASSERT(e.nseg >= 0 && e.nseg <= CPW_ELF_LOAD_MAX);
		for (size_t i = 0; i < e.nsyms; i++) {
			FUZZ_ASSERT(e.syms[i].name < e.names_len);
			FUZZ_ASSERT(strlen(e.names + e.syms[i].name) <= CPW_ELF_NAME_MAX);
			FUZZ_ASSERT(i == 0 || e.syms[i].value > e.syms[i - 1].value);
			uint64_t probe[3] = { e.syms[i].value, e.syms[i].value + e.syms[i].size,
					      e.syms[i].value + e.syms[i].size / 2 };
			for (int k = 0; k < 3; k++) {
				const struct cpw_elf_sym *s = cpw_elf_symbols_lookup(&e, probe[k]);
				FUZZ_ASSERT(!s || probe[k] - s->value < s->size);
			}
		}
		uint64_t v;
		for (int i = 0; i < e.nseg; i++)
			(void)cpw_elf_offset_to_vaddr(&e, e.seg[i].offset, &v);
		cpw_elf_symbols_info_free(&e);
	}
	/* The Python reader's lookups by name: through .gnu.hash, then the scan. */
	struct cpw_elf_wanted w[] = { { "_PyRuntime", 0, false }, { "main", 0, false }, { "", 0, false } };
	rc = cpw_elf_symbols_find_exported(buf, size, w, 3);
	FUZZ_ASSERT(rc == -EINVAL || rc == -ENOMEM || (rc >= 0 && rc <= 3));
	uint64_t load0;
	struct cpw_elf_wanted v[] = { { "_PyRuntime", 0, false }, { "main", 0, false } };
	rc = cpw_elf_symbols_find(buf, size, v, 2, &load0);
	FUZZ_ASSERT(rc == -EINVAL || rc == -ENOMEM || (rc >= 0 && rc <= 2));
	/* The same bytes as a perf record. */
	struct cpw_rec r;
	rc = cpw_sample_parse(buf, size, &r);
	FUZZ_ASSERT(rc == 0 || rc == 1 || rc == -EINVAL);
	if (rc == 0 && r.type == PERF_RECORD_SAMPLE)
		for (uint64_t i = 0; i < r.nr; i++)
			(void)cpw_sample_rec_ip(&r, i);
	free(buf);
	return 0;
}
