/*
 * cuda_users.c: the processes that map the CUDA driver (source/gpu/cuda_users.h).
 */
#include "config.h"
#include "source/gpu/cuda_users.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/kernel/kfile.h"

/* Whether the maps line [s, le) maps a file whose name starts "libcuda.so": the path is
 * the last field, its file name after the last '/'. */
static bool line_maps_cuda(const char *s, const char *le)
{
	const char *slash = NULL;
	for (const char *c = s; c < le; c++)
		if (*c == '/')
			slash = c;
	return slash && (size_t)(le - slash - 1) >= 10 && memcmp(slash + 1, "libcuda.so", 10) == 0;
}

bool cpw_cuda_users_maps_have_cuda(const char *maps, size_t len)
{
	const char *end = maps + len;

	for (const char *s = maps; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		if (line_maps_cuda(s, le))
			return true;
		s = le + 1;
	}
	return false;
}

bool cpw_cuda_users_driver_text(const char *maps, size_t len, uint64_t *lo, uint64_t *hi)
{
	const char *end = maps + len;
	bool found = false;

	*lo = *hi = 0;
	for (const char *s = maps; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		/* "start-end perms offset dev inode path", perms like "r-xp" */
		char line[128];
		size_t n = (size_t)(le - s) < sizeof(line) - 1 ? (size_t)(le - s) : sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		unsigned long long a, b;
		char perms[8];
		if (line_maps_cuda(s, le) && sscanf(line, "%llx-%llx %7s", &a, &b, perms) == 3 && a < b &&
		    strlen(perms) >= 3 && perms[2] == 'x') {
			if (!found || a < *lo)
				*lo = a;
			if (!found || b > *hi)
				*hi = b;
			found = true;
		}
		s = le + 1;
	}
	return found;
}

bool cpw_cuda_users_read_driver_text(const char *proc_root, pid_t pid, uint64_t *lo, uint64_t *hi)
{
	char path[300];
	char *maps;

	*lo = *hi = 0;
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root ? proc_root : "/proc", (int)pid);
	ssize_t len = cpw_kfile_read_alloc(path, &maps);
	if (len < 0)
		return false;
	bool found = cpw_cuda_users_driver_text(maps, (size_t)len, lo, hi);
	free(maps);
	return found;
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

/* Whether one of pid's threads is CUDA's event thread. */
static bool has_event_thread(const char *proc_root, pid_t pid)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	const struct dirent *de;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char comm[32];
		snprintf(path, sizeof(path), "%s/%d/task/%.20s/comm", proc_root, (int)pid, de->d_name);
		ssize_t len = cpw_kfile_read(path, comm, sizeof(comm));
		if (len <= 0)
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		found = strcmp(comm, "cuda-EvtHandlr") == 0;
	}
	closedir(d);
	return found;
}

size_t cpw_cuda_users_with_event_thread(const char *proc_root, const pid_t *pids, size_t n, pid_t *out,
					size_t out_max)
{
	size_t found = 0;

	for (size_t i = 0; i < n && found < out_max; i++)
		if (has_event_thread(proc_root ? proc_root : "/proc", pids[i]))
			out[found++] = pids[i];
	return found;
}
