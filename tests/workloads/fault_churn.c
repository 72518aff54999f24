/*
 * fault_churn: page-fault churn. Maps anonymous memory, writes one byte per page, unmaps,
 * again and again: every touch is a minor fault whose page the kernel must zero, so the
 * run is dominated by system time spent in the fault path. Ground truth for
 * "memory-bound" (page-fault dominated) on a machine without hardware counters.
 *
 *   fault_churn [SECONDS=1.5] [CHUNK_MB=32]
 */
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	static const char usage[] = "fault_churn [SECONDS] [CHUNK_MB]";
	double secs = wl_arg_double(argc, argv, 1, 1.5, usage);
	size_t chunk = (size_t)wl_arg_long(argc, argv, 2, 32, usage) << 20;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	double deadline = wl_now() + secs;

	do {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("fault_churn: mmap");
			return 1;
		}
		/* Transparent huge pages would turn 512 faults into one: keep them 4 KiB. */
		madvise(p, chunk, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < chunk; off += page)
			p[off] = 1;
		munmap(p, chunk);
	} while (wl_now() < deadline);
	return 0;
}
