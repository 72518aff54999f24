/*
 * fuzz_psi.c: fuzz target for cpw_psi_parse (/proc/pressure/ *, <cgroup>/ *.pressure).
 */
#include "config.h"
#include "fuzz.h"

#include "source/kernel/psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_psi_resource r;
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_psi_parse(buf, size, &r);
	FUZZ_ASSERT(rc == 0 ? r.has_some : (rc == -22 && !r.has_some));
	if (!r.has_full)
		FUZZ_ASSERT(r.full_total_us == 0);
	free(buf);
	return 0;
}
