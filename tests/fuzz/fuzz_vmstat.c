/*
 * fuzz_vmstat.c: fuzz target for cpw_vmstat_parse (/proc/vmstat, memory.stat).
 */
#include "config.h"
#include "fuzz.h"

#include "source/kernel/vmstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_vmstat v;
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_vmstat_parse(buf, size, &v);
	FUZZ_ASSERT(memchr(v.reason, '\0', sizeof v.reason) != NULL);
	if (rc == 0)
		FUZZ_ASSERT(v.has_refaults || v.has_pgmajfault);
	else
		FUZZ_ASSERT(!v.has_refaults && !v.has_pgmajfault && v.reason[0]);
	free(buf);
	return 0;
}
