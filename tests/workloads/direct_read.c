/*
 * direct_read: random O_DIRECT reads of a file it creates. O_DIRECT bypasses the page
 * cache, so every read waits for the device: the process lives in D state. Ground truth
 * for "io-bound" (reads). Needs a file system that accepts O_DIRECT (not tmpfs).
 *
 *   direct_read [DIR=.] [SIZE_MB=64] [SECONDS=1.5] [BLOCK_KB=4]
 *
 * The file is written first (also with O_DIRECT, in 1 MiB blocks), then read at random
 * block-aligned offsets for SECONDS; it is removed at exit. Exits 3 with a message when
 * the file system refuses O_DIRECT.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define ALIGN 4096
#define FILL_CHUNK (1u << 20)

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x9e3779b97f4a7c15ULL;
}

/* Writes size bytes of non-zero data, so the reads hit allocated blocks, not holes. */
static int fill(int fd, size_t size, char *buf)
{
	memset(buf, 'd', FILL_CHUNK);
	for (size_t off = 0; off < size; off += FILL_CHUNK) {
		if (pwrite(fd, buf, FILL_CHUNK, (off_t)off) != (ssize_t)FILL_CHUNK)
			return -errno;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const char usage[] = "direct_read [DIR] [SIZE_MB] [SECONDS] [BLOCK_KB]";
	const char *dir = argc > 1 ? argv[1] : ".";
	size_t size = (size_t)wl_arg_long(argc, argv, 2, 64, usage) << 20;
	double secs = wl_arg_double(argc, argv, 3, 1.5, usage);
	size_t block = (size_t)wl_arg_long(argc, argv, 4, 4, usage) << 10;
	char path[4096];
	void *buf = NULL;
	double deadline;
	int fd, err, rc = 0;

	if (block % ALIGN || block > FILL_CHUNK || block > size) {
		fprintf(stderr, "direct_read: BLOCK_KB must be a multiple of 4, at most 1024 and SIZE_MB\n");
		return 2;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/cpw-direct.XXXXXX", dir) >= sizeof(path)) {
		fprintf(stderr, "direct_read: directory name too long\n");
		return 2;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		perror("direct_read: mkstemp");
		return 1;
	}
	/* mkstemp cannot take O_DIRECT; set it afterwards, which is where tmpfs says no. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT) < 0) {
		fprintf(stderr, "direct_read: O_DIRECT refused in %s (%s): use a directory on a block device, not tmpfs\n",
			dir, strerror(errno));
		rc = 3;
		goto out;
	}
	err = posix_memalign(&buf, ALIGN, FILL_CHUNK);
	if (err) {
		fprintf(stderr, "direct_read: posix_memalign: %s\n", strerror(err));
		rc = 1;
		goto out;
	}
	err = fill(fd, size, buf);
	if (err) {
		fprintf(stderr, "direct_read: writing %s: %s\n", path, strerror(-err));
		rc = err == -EINVAL ? 3 : 1;
		goto out;
	}
	deadline = wl_now() + secs;
	do {
		off_t off = (off_t)(rng_next() % (size / block) * block);

		if (pread(fd, buf, block, off) != (ssize_t)block) {
			perror("direct_read: pread");
			rc = errno == EINVAL ? 3 : 1;
			break;
		}
	} while (wl_now() < deadline);
out:
	free(buf);
	close(fd);
	unlink(path);
	return rc;
}
