/*
 * fsync_loop: small appends, each followed by fdatasync, the pattern of a careful log
 * writer. The process spends its life in D state waiting for the device to acknowledge
 * each flush. Ground truth for "io-bound". On tmpfs fdatasync is free: give it a
 * directory on a real block device.
 *
 *   fsync_loop [DIR=.] [SECONDS=1.5] [WRITE_KB=4]
 *
 * The file is a fresh temporary one in DIR, removed at exit.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

/* Wrap the appends here so a long run does not fill the disk. */
#define MAX_FILE_BYTES (16u << 20)

int main(int argc, char **argv)
{
	static const char usage[] = "fsync_loop [DIR] [SECONDS] [WRITE_KB]";
	const char *dir = argc > 1 ? argv[1] : ".";
	double secs = wl_arg_double(argc, argv, 2, 1.5, usage);
	size_t len = (size_t)wl_arg_long(argc, argv, 3, 4, usage) << 10;
	double deadline = wl_now() + secs;
	char path[4096];
	off_t off = 0;
	char *buf;
	int fd, rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cpw-fsync.XXXXXX", dir) >= sizeof(path)) {
		fprintf(stderr, "fsync_loop: directory name too long\n");
		return 2;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		perror("fsync_loop: mkstemp");
		return 1;
	}
	buf = malloc(len);
	if (!buf) {
		perror("fsync_loop: malloc");
		rc = 1;
		goto out;
	}
	memset(buf, 'x', len);
	do {
		if (pwrite(fd, buf, len, off) != (ssize_t)len) {
			perror("fsync_loop: pwrite");
			rc = 1;
			break;
		}
		if (fdatasync(fd) < 0) {
			perror("fsync_loop: fdatasync");
			rc = 1;
			break;
		}
		off += (off_t)len;
		if (off + (off_t)len > (off_t)MAX_FILE_BYTES)
			off = 0;
	} while (wl_now() < deadline);
	free(buf);
out:
	close(fd);
	unlink(path);
	return rc;
}
