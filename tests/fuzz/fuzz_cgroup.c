/*
 * fuzz_cgroup.c: fuzz target for cpw_cgroup_self_path (/proc/PID/cgroup) and
 * cpw_cgroup_parse_limit_kib (memory.limit_in_bytes, memory.max).
 *
 * The first byte picks the controller asked for and the sizes of the output buffers,
 * which are heap-allocated to exactly those sizes.
 */
#include "config.h"
#include "fuzz.h"

#include <errno.h>
#include <math.h>

#include "source/cgroup/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const controllers[] = { NULL, "memory", "cpuacct", "cpu", "pids", "" };
	if (size == 0)
		return 0;
	const char *controller = controllers[(data[0] & 7u) % 6];
	size_t pathlen = 1 + ((data[0] >> 3) & 3u) * 20; /* 1, 21, 41, 61 */
	size_t ctlen = 1 + (data[0] >> 5) * 4;           /* 1..29 */
	data++, size--;

	char *buf = fuzz_copy(data, size, 0);
	char *path = malloc(pathlen), *ctl = malloc(ctlen);
	FUZZ_ASSERT(path && ctl);
	int rc = cpw_cgroup_self_path(buf, size, controller, path, pathlen, ctl, ctlen);
	FUZZ_ASSERT(rc == 0 || rc == -ENOENT || rc == -ENAMETOOLONG);
	if (rc == 0) {
		FUZZ_ASSERT(memchr(path, '\0', pathlen) != NULL);
		FUZZ_ASSERT(memchr(ctl, '\0', ctlen) != NULL);
	}
	rc = cpw_cgroup_self_path(buf, size, controller, path, pathlen, NULL, 0);
	FUZZ_ASSERT(rc == 0 || rc == -ENOENT || rc == -ENAMETOOLONG);
	free(path);
	free(ctl);
	free(buf);

	char *text = fuzz_copy(data, size, 1);
	double kib = cpw_cgroup_parse_limit_kib(text);
	FUZZ_ASSERT(isnan(kib) || (kib >= 0 && isfinite(kib)));
	free(text);
	return 0;
}
