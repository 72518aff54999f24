/*
 * fuzz_status.c: fuzz target for cpw_parse_status (/proc/PID/status, any bytes).
 */
#include "config.h"
#include "fuzz.h"

#include "source/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_status_fields sf;
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_parse_status(buf, size, &sf);
	FUZZ_ASSERT(rc == 0 || rc == -22);
	/* Absent lines leave their figures at 0, never at stale values. */
	if (!sf.has_hwm)
		FUZZ_ASSERT(sf.vm_hwm_kib == 0);
	free(buf);
	return 0;
}
