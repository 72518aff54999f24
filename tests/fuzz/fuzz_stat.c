/*
 * fuzz_stat.c: fuzz target for cpw_proc_parse_stat (/proc/PID/stat).
 *
 * Two checks per input: the raw bytes as a stat file (no crash, no read past the end, comm
 * always NUL-terminated), and the bytes as a hostile command name inside an otherwise
 * well-formed stat line, which must parse to exactly the fields written around it
 * (whatever comm holds: spaces, parentheses, newlines, digits, invalid UTF-8).
 */
#include "config.h"
#include "fuzz.h"

#include "source/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_stat_fields st;
	char *buf = fuzz_copy(data, size, 0);
	if (cpw_proc_parse_stat(buf, size, &st) == 0) {
		FUZZ_ASSERT(memchr(st.comm, '\0', sizeof st.comm) != NULL);
	}
	free(buf);

	/* The kernel's comm is at most 15 bytes and never holds a NUL; take up to 63 here so
	 * the parser's own limit is exercised too. */
	size_t clen = 0;
	while (clen < size && clen < sizeof st.comm - 1 && data[clen] != '\0')
		clen++;
	char line[512];
	int head = snprintf(line, sizeof line, "4242 (");
	memcpy(line + head, data, clen);
	int tail = snprintf(line + head + clen, sizeof line - (size_t)head - clen,
			    ") R 77 4242 4242 0 -1 4194560 11 0 3 0 250 75 0 0 20 0 5 0 9999 "
			    "10000 321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 "
			    "6 0 0 0 0 0 0 0 0 0 0\n");
	size_t len = (size_t)head + clen + (size_t)tail;
	buf = fuzz_copy((const uint8_t *)line, len, 0);
	FUZZ_ASSERT(cpw_proc_parse_stat(buf, len, &st) == 0);
	FUZZ_ASSERT(strlen(st.comm) == clen && memcmp(st.comm, data, clen) == 0);
	FUZZ_ASSERT(st.state == 'R');
	FUZZ_ASSERT(st.ppid == 77);
	FUZZ_ASSERT(st.minflt == 11 && st.majflt == 3);
	FUZZ_ASSERT(st.utime_ticks == 250 && st.stime_ticks == 75);
	FUZZ_ASSERT(st.num_threads == 5 && st.starttime_ticks == 9999 && st.rss_pages == 321);
	FUZZ_ASSERT(st.has_blkio && st.blkio_ticks == 6);
	free(buf);
	return 0;
}
