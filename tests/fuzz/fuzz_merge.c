/*
 * fuzz_merge.c: fuzz target for cpw_job_read_report (source/reports/job_read.h), the
 * reader of the rank reports `cperfwatch --merge` is given. The input is one report's
 * text, given to the reader exactly as long as it is (no NUL after it).
 *
 * Whatever a file holds: a report taken has every figure unknown or finite, never
 * negative and within the reader's bounds, a rank of -1 or more, an exit status or a
 * signal (never both) in range, a host and class that end within their buffers; a refusal
 * is one line without a control byte, naming the file (whose own control bytes are
 * escaped); nothing else happens.
 */
#include "config.h"
#include "fuzz.h"

#include <math.h>

#include "source/reports/job_read.h"

/* A file name with an escape sequence in it: the refusal must not pass it on. */
#define NAME "r\033]2;x\a.json"

static int figure_ok(double v, double max)
{
	return isnan(v) || (isfinite(v) && v >= 0 && v <= max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size, 0);
	char why[768];
	struct cpw_rank_report r;
	memset(why, 'x', sizeof(why));
	why[sizeof(why) - 1] = '\0';

	enum cpw_job_read rc = cpw_job_read_report(NAME, text, size, &r, why, sizeof(why));
	FUZZ_ASSERT(rc == CPW_JOB_READ_OK || rc == CPW_JOB_READ_CUT_SHORT || rc == CPW_JOB_READ_REFUSED);
	FUZZ_ASSERT(r.file == (const char *)NAME || rc == CPW_JOB_READ_REFUSED);
	if (rc == CPW_JOB_READ_REFUSED) {
		FUZZ_ASSERT(memchr(why, '\0', sizeof(why)) != NULL);
		FUZZ_ASSERT(strncmp(why, "r\\x1b]2;x\\x07.json", 18) == 0);
		FUZZ_ASSERT(fuzz_valid_utf8(why, 1)); /* no control byte: no newline either */
	}
	if (rc == CPW_JOB_READ_OK) {
		FUZZ_ASSERT(memchr(r.host, '\0', sizeof(r.host)) != NULL);
		FUZZ_ASSERT(memchr(r.cls, '\0', sizeof(r.cls)) != NULL);
		FUZZ_ASSERT(r.rank >= -1);
		FUZZ_ASSERT(figure_ok(r.wall_s, CPW_JOB_READ_SECONDS_MAX));
		FUZZ_ASSERT(figure_ok(r.user_s, CPW_JOB_READ_SECONDS_MAX));
		FUZZ_ASSERT(figure_ok(r.sys_s, CPW_JOB_READ_SECONDS_MAX));
		FUZZ_ASSERT(figure_ok(r.cpu_s, 2 * CPW_JOB_READ_SECONDS_MAX));
		FUZZ_ASSERT(isnan(r.cpu_s) == (isnan(r.user_s) || isnan(r.sys_s)));
		FUZZ_ASSERT(figure_ok(r.peak_kib, CPW_JOB_READ_KIB_MAX));
		FUZZ_ASSERT(r.exit_code >= -1 && r.exit_code <= 255);
		FUZZ_ASSERT(r.exit_signal >= 0 && r.exit_signal <= 127);
		FUZZ_ASSERT(r.exit_code < 0 || r.exit_signal == 0);
	}
	free(text);
	return 0;
}
