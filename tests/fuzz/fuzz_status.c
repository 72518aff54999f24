/*
 * fuzz_status.c: fuzz target for cpw_proc_parse_status (/proc/PID/status, any bytes), and for
 * the Cpus_allowed_list line and CPU lists in it (cpw_proc_parse_cpus_allowed,
 * cpw_proc_parse_cpu_list, cpw_proc_parse_cpuset_format).
 */
#include "config.h"
#include "fuzz.h"

#include <string.h>

#include "source/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_status_fields sf;
	struct cpw_cpuset set, again;
	char list[64];
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_proc_parse_status(buf, size, &sf);
	FUZZ_ASSERT(rc == 0 || rc == -22);
	/* Absent lines leave their figures at 0, never at stale values. */
	if (!sf.has_hwm)
		FUZZ_ASSERT(sf.vm_hwm_kib == 0);

	int n = cpw_proc_parse_cpus_allowed(buf, size, &set);
	FUZZ_ASSERT(n == -22 || (n >= 0 && n == cpw_proc_parse_cpuset_count(&set)));
	n = cpw_proc_parse_cpu_list(buf, size, &set);
	FUZZ_ASSERT(n == -22 || (n >= 0 && n <= CPW_CPUSET_MAX));
	if (n >= 0) {
		/* What it prints, it reads back the same, unless cut short. */
		cpw_proc_parse_cpuset_format(&set, list, sizeof(list));
		FUZZ_ASSERT(strlen(list) < sizeof(list));
		if (strstr(list, "...") == NULL) {
			FUZZ_ASSERT(cpw_proc_parse_cpu_list(list, strlen(list), &again) == n);
			FUZZ_ASSERT(memcmp(&set, &again, sizeof(set)) == 0);
		}
	}
	free(buf);
	return 0;
}
