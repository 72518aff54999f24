/*
 * fuzz_perfmap.c: fuzz target for the JIT perf-map parser (cpw_elf_symbols_perf_map_parse,
 * cpw_elf_symbols_perf_map_lookup), the /proc/PID/maps line parser (cpw_sample_maps_parse_line)
 * and the /proc/kallsyms parser (cpw_kallsyms_parse, cpw_kallsyms_lookup): symbol tables of
 * the same shape, "ADDRESS ... NAME" lines.
 *
 * The map is written by the watched program while it runs: any bytes at all. Invariants:
 * every kept entry has a size and a name inside the names buffer, entries are sorted, and
 * a lookup returns only an entry that holds the address.
 */
#include "config.h"
#include "fuzz.h"

#include <errno.h>

#include "source/elf/elf_symbols.h"
#include "source/sample/kallsyms.h"
#include "source/sample/sample_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size, 0);
	struct cpw_perf_map m;
	int rc = cpw_elf_symbols_perf_map_parse(buf, size, 1000, &m);
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM);
	if (rc == 0) {
		FUZZ_ASSERT(m.nsyms <= 1000);
		for (size_t i = 0; i < m.nsyms; i++) {
			FUZZ_ASSERT(m.syms[i].size > 0);
			FUZZ_ASSERT(m.syms[i].name < m.names_len);
			FUZZ_ASSERT(m.names[m.syms[i].name] != '\0');
			FUZZ_ASSERT(i == 0 || m.syms[i].start >= m.syms[i - 1].start);
			uint64_t a = m.syms[i].start + m.syms[i].size - 1;
			const struct cpw_jit_sym *s = cpw_elf_symbols_perf_map_lookup(&m, a);
			FUZZ_ASSERT(!s || a - s->start < s->size);
		}
		cpw_elf_symbols_perf_map_free(&m);
	}
	free(buf);
	char *line = fuzz_copy(data, size, 1);
	struct cpw_maps_line ml;
	if (cpw_sample_maps_parse_line(line, &ml))
		FUZZ_ASSERT(ml.end > ml.start && ml.path >= line && ml.path <= line + size);
	free(line);
	char *text = fuzz_copy(data, size, 0);
	struct cpw_kallsyms k;
	rc = cpw_kallsyms_parse(text, size, &k);
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM);
	for (size_t i = 0; rc == 0 && i < k.n; i++) {
		FUZZ_ASSERT(k.sym[i].addr != 0);
		FUZZ_ASSERT(i == 0 || k.sym[i].addr >= k.sym[i - 1].addr);
		FUZZ_ASSERT(k.names[k.sym[i].name] != '\0');
		FUZZ_ASSERT(cpw_kallsyms_lookup(&k, k.sym[i].addr) != NULL);
	}
	cpw_kallsyms_free(&k);
	free(text);
	return 0;
}
