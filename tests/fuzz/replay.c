/*
 * replay.c: a plain main() for the fuzz targets, so their corpora (seeds and the inputs
 * libFuzzer once found) are replayed by `make check` with the normal compiler, even where
 * clang and libFuzzer are missing. Linked once per target.
 *
 *   replay_TARGET FILE|DIR...   feeds each file (each file of each DIR, recursively) to
 *                               the target; prints how many; a broken invariant aborts.
 */
#include "config.h"
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int replay_file(const char *path, unsigned long *count)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size, used = 0;
	uint8_t *data = malloc(size ? size : 1);
	if (!data) {
		close(fd);
		return -1;
	}
	while (used < size) {
		ssize_t n = read(fd, data + used, size - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(data, used);
	free(data);
	(*count)++;
	return 0;
}

static int replay_path(const char *path, unsigned long *count)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub)
			continue;
		if (replay_path(sub, count) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) < 0)
			rc = 1;
	printf("%lu inputs replayed\n", count);
	return rc;
}
