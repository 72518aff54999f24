/*
 * fuzz_taskstats.c: fuzz target for cpw_taskstats_parse (a generic netlink datagram of the
 * TASKSTATS family). The first byte picks how many records fit in the output array, which
 * is heap-allocated to exactly that size.
 */
#include "config.h"
#include "fuzz.h"

#include "source/kernel/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t max = data[0] & 7u;
	data++, size--;
	char *buf = fuzz_copy(data, size, 0);
	struct cpw_taskstats_rec *recs = malloc((max ? max : 1) * sizeof *recs);
	FUZZ_ASSERT(recs != NULL);
	int n = cpw_taskstats_parse(buf, size, recs, max);
	FUZZ_ASSERT(n >= -4095);
	for (int i = 0; i < n && (size_t)i < max; i++)
		FUZZ_ASSERT(memchr(recs[i].comm, '\0', sizeof recs[i].comm) != NULL);
	free(recs);
	free(buf);
	return 0;
}
