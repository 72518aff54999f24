/*
 * fuzz_proc_events.c: fuzz target for cpw_proc_events_parse (a datagram of the process
 * events connector). The first byte picks how many events fit in the output array, which
 * is heap-allocated to exactly that size.
 */
#include "config.h"
#include "fuzz.h"

#include "source/kernel/proc_events.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max = data[0] % 8u, len = size - 1;
	char *buf = fuzz_copy(data + 1, len, 0);
	struct cpw_proc_event *ev = calloc(max ? max : 1, sizeof *ev);
	FUZZ_ASSERT(ev != NULL);
	int n = cpw_proc_events_parse(buf, len, ev, max);
	FUZZ_ASSERT(n == -EBADMSG || (n >= 0 && (size_t)n <= max));
	for (int i = 0; i < n; i++)
		FUZZ_ASSERT(ev[i].kind >= CPW_PROC_EVENT_FORK && ev[i].kind <= CPW_PROC_EVENT_OTHER);
	free(ev);
	free(buf);
	return 0;
}
