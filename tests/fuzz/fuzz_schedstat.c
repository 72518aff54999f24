/*
 * fuzz_schedstat.c: fuzz target for cpw_proc_parse_schedstat (/proc/PID/schedstat).
 *
 * The raw bytes as a schedstat file, then three numbers made from the bytes, printed the
 * way the kernel prints them, which must parse back to the same values.
 */
#include "config.h"
#include "fuzz.h"

#include <inttypes.h>

#include "source/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_schedstat ss;
	char *buf = fuzz_copy(data, size, 0);
	(void)cpw_proc_parse_schedstat(buf, size, &ss);
	free(buf);

	uint64_t v[3] = { 0, 0, 0 };
	for (size_t i = 0; i < size && i < 24; i++)
		v[i / 8] = (v[i / 8] << 8) | data[i];
	char line[80];
	int len = snprintf(line, sizeof line, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", v[0], v[1], v[2]);
	buf = fuzz_copy((const uint8_t *)line, (size_t)len, 0);
	FUZZ_ASSERT(cpw_proc_parse_schedstat(buf, (size_t)len, &ss) == 0);
	FUZZ_ASSERT(ss.oncpu_ns == v[0] && ss.runq_ns == v[1] && ss.slices == v[2]);
	free(buf);
	return 0;
}
