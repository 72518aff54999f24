/*
 * cgroup_stale.c: removes the empty groups that earlier runs left behind.
 *
 * A cperfwatch killed with SIGKILL cannot remove its cperfwatch-PID groups: the command
 * runs on in them, and they stay, empty, after it ends. Each run sweeps the directory its
 * own groups are made in and removes siblings named cperfwatch-PID whose PID is gone.
 * rmdir(2) refuses a cgroup that still holds a process or a group (EBUSY), so a group in
 * use is never touched; the age test keeps away from a group that a cperfwatch in another
 * PID namespace (whose PID we cannot see) has just made and not yet moved its command into.
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "source/cgroup/cgroup_private.h"
#include "source/kernel/kfile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The PID in a name "cperfwatch-PID", or 0 when the name is not exactly that. */
static pid_t stale_name_pid(const char *name)
{
	static const char prefix[] = "cperfwatch-";
	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return 0;
	const char *digits = name + sizeof prefix - 1;
	if (*digits < '1' || *digits > '9')
		return 0;
	char *end;
	errno = 0;
	long pid = strtol(digits, &end, 10);
	if (errno || *end || pid <= 0 || (pid_t)pid != pid)
		return 0;
	return (pid_t)pid;
}

static bool pid_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* A time of a file, in seconds since the epoch. */
static double stat_time(const struct timespec *t)
{
	return (double)t->tv_sec + t->tv_nsec / 1e9;
}

int cpw_cgroup_remove_stale_in(const char *parent, pid_t self, double made_before)
{
	DIR *dir = opendir(parent);
	if (!dir)
		return -errno;
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		pid_t pid = stale_name_pid(e->d_name);
		if (!pid || pid == self || !pid_gone(pid))
			continue;
		char path[CPW_CG_PATH_MAX];
		struct stat st;
		if (cpw_kfile_pathf(path, sizeof path, "%s/%s", parent, e->d_name) < 0 ||
		    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    stat_time(&st.st_mtim) >= made_before || stat_time(&st.st_ctim) >= made_before)
			continue;
		if (rmdir(path) == 0)
			removed++;
	}
	closedir(dir);
	return removed;
}

int cpw_cgroup_remove_stale(const struct cpw_cgroup *cg)
{
	if (!cg)
		return 0;
	const struct cpw_cg_dir *dirs[3] = { &cg->v2, &cg->mem1, &cg->cpuacct1 };
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double made_before = stat_time(&now) - CPW_CG_STALE_MIN_AGE_S;
	int removed = 0;
	for (int i = 0; i < 3; i++) {
		/* Only where ours is made: that is where our earlier runs made theirs. */
		if (!dirs[i]->path[0] || !(dirs[i]->created || dirs[i]->deferred))
			continue;
		int n = cpw_cgroup_remove_stale_in(dirs[i]->parent, getpid(), made_before);
		if (n > 0)
			removed += n;
	}
	return removed;
}
