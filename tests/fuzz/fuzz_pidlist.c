/*
 * fuzz_pidlist.c: fuzz target for cpw_proc_parse_pid_list (task/TID/children) and
 * cpw_proc_parse_cmdline (/proc/PID/cmdline).
 *
 * The first byte picks the output sizes, so the parsers write into heap buffers of exactly
 * that many elements and any write past them is caught.
 */
#include "config.h"
#include "fuzz.h"

#include <sys/types.h>

#include "source/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t max = data[0] & 0x0f;         /* 0..15 pids */
	size_t outlen = (data[0] >> 4) * 5u; /* 0..75 bytes of cmdline */
	data++, size--;

	char *buf = fuzz_copy(data, size, 0);
	pid_t *pids = malloc((max ? max : 1) * sizeof *pids);
	size_t more = 0;
	FUZZ_ASSERT(pids != NULL);
	int n = cpw_proc_parse_pid_list(buf, size, pids, max, &more);
	FUZZ_ASSERT(n == -22 || (n >= 0 && (size_t)n <= max));
	if (n > 0) {
		for (int i = 0; i < n; i++)
			FUZZ_ASSERT(pids[i] > 0);
		FUZZ_ASSERT((size_t)n == max || more == 0);
	}
	(void)cpw_proc_parse_pid_list(buf, size, pids, max, NULL);
	free(pids);

	char *out = malloc(outlen ? outlen : 1);
	FUZZ_ASSERT(out != NULL);
	cpw_proc_parse_cmdline(buf, size, out, outlen);
	if (outlen) {
		FUZZ_ASSERT(memchr(out, '\0', outlen) != NULL);
		/* The joined line is the argv with NULs as spaces, never longer than the input. */
		FUZZ_ASSERT(strlen(out) <= size);
	}
	free(out);
	free(buf);
	return 0;
}
