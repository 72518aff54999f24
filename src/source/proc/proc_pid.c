/*
 * proc_pid.c: one process's stat and children, read on their own (proc_pid.h).
 */
#include "config.h"
#include "source/proc/proc_pid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int cpw_proc_pid_stat(const char *proc_root, pid_t pid, struct cpw_stat_fields *st)
{
	char path[320], buf[2048];
	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	return cpw_proc_parse_stat(buf, (size_t)len, st) == 0 ? 0 : -EINVAL;
}

int cpw_proc_pid_start_ticks(const char *proc_root, pid_t pid, uint64_t *ticks)
{
	char path[320], buf[2048];
	struct cpw_stat_fields st;
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc_root, (int)pid, (int)pid);
	long len = cpw_proc_parse_read_file(path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	if (cpw_proc_parse_stat(buf, (size_t)len, &st) != 0)
		return -EINVAL;
	*ticks = st.starttime_ticks;
	return 0;
}

int cpw_proc_pid_children(const char *proc_root, pid_t pid, int *fd, pid_t *out, size_t max)
{
	char buf[8192];
	if (*fd < 0) {
		char path[320];
		snprintf(path, sizeof(path), "%s/%d/task/%d/children", proc_root, (int)pid, (int)pid);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return -errno;
	}
	/* Kept open and read again from its start: one pread a sample, not open, two reads
	 * and close (each a /proc path walk, tens of microseconds on a cold CPU). */
	ssize_t len = pread(*fd, buf, sizeof(buf) - 1, 0);
	if (len < 0) {
		int err = errno;
		close(*fd);
		*fd = -1;
		return -err;
	}
	buf[len] = '\0';
	return cpw_proc_parse_pid_list(buf, (size_t)len, out, max, NULL);
}
