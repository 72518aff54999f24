/*
 * thrash: random reads through an mmap of a file larger than the memory it may use. Run
 * in a memory cgroup whose limit is below SIZE_MB, every page brought in evicts another
 * that is soon needed again: the working set does not fit. Ground truth for "thrashing"
 * on a machine without swap. Expect high system time, huge file-system input, D states
 * and refaults; major faults stay modest because readahead brings pages in by the batch.
 *
 *   thrash [FILE] [SIZE_MB=256] [SECONDS=2]
 *
 * FILE is created (or grown) to SIZE_MB when it is smaller, and kept; without FILE a
 * temporary file in the current directory is used and removed at exit. SECONDS = 0 only
 * prepares the file, so a test can write it outside the memory limit. The run starts
 * cold: the file's cached pages are dropped first (POSIX_FADV_DONTNEED).
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

#define FILL_CHUNK (1u << 20)

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Makes the file at least size bytes of non-zero data, flushed, so reads hit the disk. */
static int prepare(int fd, size_t size)
{
	struct stat st;
	char *buf;
	size_t off;

	if (fstat(fd, &st) < 0)
		return -1;
	if ((size_t)st.st_size >= size)
		return 0;
	buf = malloc(FILL_CHUNK);
	if (!buf)
		return -1;
	memset(buf, 't', FILL_CHUNK);
	for (off = (size_t)st.st_size / FILL_CHUNK * FILL_CHUNK; off < size; off += FILL_CHUNK) {
		if (pwrite(fd, buf, FILL_CHUNK, (off_t)off) != (ssize_t)FILL_CHUNK) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return fsync(fd);
}

int main(int argc, char **argv)
{
	static const char usage[] = "thrash [FILE] [SIZE_MB] [SECONDS]";
	char tmpl[] = "./cpw-thrash.XXXXXX";
	const char *path = argc > 1 ? argv[1] : NULL;
	size_t size = (size_t)wl_arg_long(argc, argv, 2, 256, usage) << 20;
	double secs = wl_arg_double(argc, argv, 3, 2.0, usage);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = size / page;
	volatile unsigned char sink;
	unsigned char acc = 0;
	double deadline;
	char *map;
	int fd, rc = 0;

	fd = path ? open(path, O_RDWR | O_CREAT, 0600) : mkstemp(tmpl);
	if (fd < 0) {
		perror("thrash: open");
		return 1;
	}
	if (prepare(fd, size) < 0) {
		perror("thrash: preparing the file");
		rc = 1;
		goto out;
	}
	if (secs == 0)
		goto out;
	/* Start cold: drop the file's clean cached pages, so every first touch reads. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("thrash: mmap");
		rc = 1;
		goto out;
	}
	deadline = wl_now() + secs;
	do {
		for (int k = 0; k < 8; k++)
			acc ^= (unsigned char)map[rng_next() % npages * page];
	} while (wl_now() < deadline);
	sink = acc;
	(void)sink;
	munmap(map, size);
out:
	close(fd);
	if (!path)
		unlink(tmpl);
	return rc;
}
