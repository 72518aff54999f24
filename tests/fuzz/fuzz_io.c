/*
 * fuzz_io.c: fuzz target for cpw_proc_parse_io (/proc/PID/io, any bytes).
 */
#include "config.h"
#include "fuzz.h"

#include "source/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_io_fields io;
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_proc_parse_io(buf, size, &io);
	FUZZ_ASSERT(rc == 0 || rc == -22);
	free(buf);
	return 0;
}
