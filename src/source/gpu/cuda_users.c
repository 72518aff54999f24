/*
 * cuda_users.c: the processes that map the CUDA driver (source/gpu/cuda_users.h).
 */
#include "config.h"
#include "source/gpu/cuda_users.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/kernel/kfile.h"

bool cpw_cuda_users_maps_have_cuda(const char *maps, size_t len)
{
	const char *end = maps + len;

	for (const char *s = maps; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		/* The path is the last field; its file name starts after the last '/'. */
		const char *slash = NULL;
		for (const char *c = s; c < le; c++)
			if (*c == '/')
				slash = c;
		if (slash && (size_t)(le - slash - 1) >= 10 && memcmp(slash + 1, "libcuda.so", 10) == 0)
			return true;
		s = le + 1;
	}
	return false;
}

size_t cpw_cuda_users_find(const char *proc_root, const pid_t *pids, size_t n, pid_t *out, size_t out_max)
{
	size_t found = 0;
	char path[300];

	for (size_t i = 0; i < n && found < out_max; i++) {
		char *maps;
		snprintf(path, sizeof(path), "%s/%d/maps", proc_root ? proc_root : "/proc", (int)pids[i]);
		ssize_t len = cpw_kfile_read_alloc(path, &maps);
		if (len < 0)
			continue;
		if (cpw_cuda_users_maps_have_cuda(maps, (size_t)len))
			out[found++] = pids[i];
		free(maps);
	}
	return found;
}
