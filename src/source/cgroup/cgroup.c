/*
 * cgroup.c: create (or open) the command's cgroups, move processes in, list members, and
 * remove the groups again without leaving directories behind.
 *
 * Where the hierarchies are is cgroup_path.c's job; the figures are cgroup_read.c's.
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "source/cgroup/cgroup_private.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* v1 "unlimited" is 2^63-1 rounded down to pages; anything this large means no limit. */
#define CPW_V1_NO_LIMIT (UINT64_C(1) << 60)

/* The directory whose cgroup.procs lists the members. */
static const struct cpw_cg_dir *membership_dir(const struct cpw_cgroup *cg)
{
	if (cg->v2.path[0])
		return &cg->v2;
	if (cg->mem1.path[0])
		return &cg->mem1;
	if (cg->cpuacct1.path[0])
		return &cg->cpuacct1;
	return NULL;
}

/* Appends "text; " to buf. */
static void append(char *buf, size_t size, const char *text)
{
	size_t len = strlen(buf);
	if (len < size)
		snprintf(buf + len, size - len, "%s; ", text);
}

/* Cuts the "; " that append() leaves after the last item. */
static void end_list(char *buf)
{
	size_t len = strlen(buf);
	if (len >= 2 && buf[len - 2] == ';')
		buf[len - 2] = '\0';
}

static const char *mkdir_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return " (not root, and the cgroup is not delegated to us)";
	case EROFS:
		return " (cgroupfs is mounted read-only, as in most containers)";
	default:
		return "";
	}
}

/* v1 with memory.use_hierarchy=0 (kernels before 5.x could have it) does not let the
 * parent's limit bind the child: copy the effective limit so a limit set on us still holds. */
static void inherit_v1_limit(const struct cpw_cg_dir *d)
{
	char path[CPW_CG_PATH_MAX], text[8192];
	uint64_t hier = 1, limit;
	if (cpw_kfile_pathf(path, sizeof path, "%s/memory.use_hierarchy", d->parent) < 0 ||
	    cpw_kfile_read_u64(path, &hier) < 0 || hier != 0)
		return;
	if (cpw_kfile_pathf(path, sizeof path, "%s/memory.stat", d->parent) < 0)
		return;
	ssize_t n = cpw_kfile_read(path, text, sizeof text);
	if (n < 0 || cpw_kfile_find_u64(text, (size_t)n, "hierarchical_memory_limit", &limit) < 0 ||
	    limit >= CPW_V1_NO_LIMIT)
		return;
	char num[32];
	snprintf(num, sizeof num, "%" PRIu64, limit);
	if (cpw_kfile_pathf(path, sizeof path, "%s/memory.limit_in_bytes", d->path) == 0)
		cpw_kfile_write(path, num);
}

/* Turns d into its child <d->path>/<name>, not made yet. Returns 0 or -ENAMETOOLONG with why. */
static int name_child(struct cpw_cg_dir *d, const char *name, char *why, size_t whylen)
{
	memcpy(d->parent, d->path, sizeof d->parent);
	if (cpw_kfile_pathf(d->path, sizeof d->path, "%s/%s", d->parent, name) < 0) {
		snprintf(why, whylen, "cgroup path too long below %s", d->parent);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* mkdir of a group. Returns 0 or -errno. */
static int make_dir(const char *path)
{
	int err = mkdir(path, 0755) == 0 ? 0 : -errno;
	/* A stale group of a crashed earlier run with the same pid: empty ones can go. */
	if (err == -EEXIST && rmdir(path) == 0)
		err = mkdir(path, 0755) == 0 ? 0 : -errno;
	return err;
}

static void cannot_create(const char *path, int err, char *why, size_t whylen)
{
	snprintf(why, whylen, "cannot create %s: %s%s", path, strerror(-err), mkdir_hint(-err));
}

/* Makes d's child directory <d->path>/<name>. Returns 0 or -errno with why. */
static int make_child(struct cpw_cg_dir *d, const char *name, char *why, size_t whylen)
{
	int err = name_child(d, name, why, whylen);
	if (err == 0)
		err = make_dir(d->path);
	if (err < 0) {
		if (err != -ENAMETOOLONG)
			cannot_create(d->path, err, why, whylen);
		return err;
	}
	d->created = true;
	return 0;
}

static int setup(struct cpw_cgroup **out, const char *cgroup_root, const char *self_path,
		 bool create, char *why, size_t whylen)
{
	*out = NULL;
	if (whylen)
		why[0] = '\0';
	struct cpw_cgroup *cg = calloc(1, sizeof *cg);
	if (!cg) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	cg->placement.v2_dir_fd = -1;
	char text[4096];
	long n = cpw_cgroup_read_self(self_path, text, sizeof text);
	if (n < 0) {
		snprintf(why, whylen, "cannot read %s: %s", self_path, strerror((int)-n));
		free(cg);
		return (int)n;
	}
	int err = cpw_cgroup_locate(cgroup_root, text, (size_t)n, cg, why, whylen);
	if (err < 0) {
		free(cg);
		return err;
	}

	int first_err = 0;
	char first_why[512] = "";
	if (create) {
		char name[64];
		snprintf(name, sizeof name, "cperfwatch-%ld", (long)getpid());
		struct cpw_cg_dir *dirs[3] = { &cg->v2, &cg->mem1, &cg->cpuacct1 };
		for (int i = 0; i < 3; i++) {
			/* The group's CPU time is never read (wait4 gives the tree's exactly): a v1
			 * cpuacct group only holds the membership where nothing else can, and
			 * elsewhere would cost a mkdir, a join and an rmdir. */
			if (dirs[i] == &cg->cpuacct1 && (cg->v2.path[0] || cg->mem1.path[0]))
				cg->cpuacct1.mount[0] = cg->cpuacct1.path[0] = '\0';
			if (!dirs[i]->path[0])
				continue;
			char w[512];
			int e;
			if (dirs[i] != &cg->v2 && cg->v2.created) {
				/* The v2 group holds the membership: the child makes this one. */
				e = name_child(dirs[i], name, w, sizeof w);
				dirs[i]->deferred = e == 0;
			} else {
				e = make_child(dirs[i], name, w, sizeof w);
			}
			if (e < 0) {
				dirs[i]->path[0] = '\0';
				if (!first_err) {
					first_err = e;
					snprintf(first_why, sizeof first_why, "%s", w);
				}
			}
		}
		if (cg->mem1.created && !cg->mem1.deferred)
			inherit_v1_limit(&cg->mem1);
		if (!membership_dir(cg)) {
			snprintf(why, whylen, "%s", first_why);
			free(cg);
			return first_err ? first_err : -ENOENT;
		}
	}

	char probe[CPW_CG_PATH_MAX];
	cg->v2_memory = cg->v2.path[0] &&
			cpw_kfile_pathf(probe, sizeof probe, "%s/memory.current", cg->v2.path) == 0 &&
			cpw_cgroup_exists(probe);

	/* What is missing goes into why as a note; the group is still usable. */
	if (first_err)
		append(why, whylen, first_why);
	if (!cg->v2_memory && !cg->mem1.path[0])
		append(why, whylen, "no memory controller available to our cgroup: "
		       "memory figures of the group are not measured");
	if (!cg->v2.path[0])
		append(why, whylen, "no cgroup v2 hierarchy: no pressure of the group");
	end_list(why);

	snprintf(cg->describe, sizeof cg->describe, "%s%s%s%s%s%s",
		 cg->v2.path[0] ? "v2 " : "", cg->v2.path,
		 cg->mem1.path[0] ? " v1-memory " : "", cg->mem1.path,
		 cg->cpuacct1.path[0] ? " v1-cpuacct " : "", cg->cpuacct1.path);
	*out = cg;
	return 0;
}

int cpw_cgroup_create(struct cpw_cgroup **out, const char *cgroup_root, char *why, size_t whylen)
{
	return setup(out, cgroup_root, "/proc/self/cgroup", true, why, whylen);
}

int cpw_cgroup_open(struct cpw_cgroup **out, const char *cgroup_root,
		    const char *proc_cgroup_path, char *why, size_t whylen)
{
	return setup(out, cgroup_root, proc_cgroup_path, false, why, whylen);
}

const char *cpw_cgroup_describe(const struct cpw_cgroup *cg)
{
	return cg->describe;
}

static int write_pid(const char *dir, pid_t pid)
{
	char path[CPW_CG_PATH_MAX], num[32];
	if (cpw_kfile_pathf(path, sizeof path, "%s/cgroup.procs", dir) < 0)
		return -ENAMETOOLONG;
	snprintf(num, sizeof num, "%ld", (long)pid);
	return cpw_kfile_write(path, num);
}

static void close_placement(struct cpw_cgroup_placement *pl)
{
	if (pl->v2_dir_fd >= 0)
		close(pl->v2_dir_fd);
	pl->v2_dir_fd = -1;
}

/* The v1 directories, in the order of the placement's v1 slots. */
static struct cpw_cg_dir *v1_dir(struct cpw_cgroup *cg, int slot)
{
	return slot == 0 ? &cg->mem1 : &cg->cpuacct1;
}

struct cpw_cgroup_placement *cpw_cgroup_placement(struct cpw_cgroup *cg)
{
	if (!cg)
		return NULL;
	struct cpw_cgroup_placement *pl = &cg->placement;
	close_placement(pl);
	pl->v2_done = false;
	pl->v2_wanted = cg->v2.path[0] != '\0';
	if (pl->v2_wanted)
		pl->v2_dir_fd = open(cg->v2.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < CPW_CGROUP_V1_JOINS; i++) {
		pl->v1_done[i] = false;
		pl->v1_group[i] = v1_dir(cg, i)->path[0] ? v1_dir(cg, i) : NULL;
	}
	return pl;
}

bool cpw_cgroup_placement_complete(const struct cpw_cgroup_placement *pl)
{
	if (!pl)
		return true;
	if (pl->v2_wanted && !pl->v2_done)
		return false;
	for (int i = 0; i < CPW_CGROUP_V1_JOINS; i++)
		if (pl->v1_group[i] && !pl->v1_done[i])
			return false;
	return true;
}

int cpw_cgroup_join_v1(const struct cpw_cgroup_placement *pl, int slot)
{
	const struct cpw_cg_dir *d = slot >= 0 && slot < CPW_CGROUP_V1_JOINS ? pl->v1_group[slot] : NULL;
	char path[CPW_CG_PATH_MAX];
	if (!d)
		return -ENOENT;
	if (d->deferred) {
		int err = make_dir(d->path);
		if (err < 0)
			return err;
		if (slot == 0)
			inherit_v1_limit(d);
	}
	if (cpw_kfile_pathf(path, sizeof path, "%s/tasks", d->path) < 0)
		return -ENAMETOOLONG;
	return cpw_kfile_write(path, "0");
}

void cpw_cgroup_ensure_made(struct cpw_cgroup *cg)
{
	for (int i = 0; i < CPW_CGROUP_V1_JOINS; i++) {
		struct cpw_cg_dir *d = v1_dir(cg, i);
		if (!d->deferred)
			continue;
		d->deferred = false;
		if (cg->placement.v1_done[i]) {
			d->created = true; /* the child made it, and is in it */
			continue;
		}
		int err = make_dir(d->path);
		if (err == 0) {
			d->created = true;
			if (d == &cg->mem1)
				inherit_v1_limit(d);
			continue;
		}
		char w[CPW_CG_PATH_MAX + 128];
		cannot_create(d->path, err, w, sizeof w);
		append(cg->late_why, sizeof cg->late_why, w);
		d->path[0] = '\0';
		if (d == &cg->mem1 && !cg->v2_memory)
			append(cg->late_why, sizeof cg->late_why,
			       "no memory controller available to our cgroup: memory figures of the "
			       "group are not measured");
	}
}

int cpw_cgroup_add_pid(struct cpw_cgroup *cg, pid_t pid, char *why, size_t whylen)
{
	cpw_cgroup_ensure_made(cg);
	const struct cpw_cgroup_placement *pl = &cg->placement;
	const struct cpw_cg_dir *dirs[3] = { &cg->v2, &cg->mem1, &cg->cpuacct1 };
	const bool done[3] = { pl->v2_done, pl->v1_done[0], pl->v1_done[1] };
	int first_err = 0;
	char text[1024];
	snprintf(text, sizeof text, "%s", cg->late_why);
	close_placement(&cg->placement);
	for (int i = 0; i < 3; i++) {
		if (!dirs[i]->path[0] || done[i])
			continue;
		int err = write_pid(dirs[i]->path, pid);
		if (err < 0) {
			char w[CPW_CG_PATH_MAX + 64];
			snprintf(w, sizeof w, "cannot move it into %s: %s", dirs[i]->path, strerror(-err));
			append(text, sizeof text, w);
			if (!first_err)
				first_err = err;
		}
	}
	if (!first_err && cg->late_why[0])
		first_err = -ENOENT;
	end_list(text);
	if (whylen)
		snprintf(why, whylen, "%s", text);
	return first_err;
}

/* Parses the pids of a cgroup.procs file. Returns the count (may exceed max) or -errno. */
static int read_procs(const char *dir, pid_t *pids, size_t max)
{
	char path[CPW_CG_PATH_MAX], *buf;
	if (cpw_kfile_pathf(path, sizeof path, "%s/cgroup.procs", dir) < 0)
		return -ENAMETOOLONG;
	ssize_t n = cpw_kfile_read_alloc(path, &buf);
	if (n < 0)
		return (int)n;
	int count = 0;
	char *p = buf;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > 0) {
			if ((size_t)count < max)
				pids[count] = (pid_t)v;
			count++;
		}
		p = end;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	free(buf);
	return count;
}

int cpw_cgroup_pids(struct cpw_cgroup *cg, pid_t *pids, size_t max)
{
	cpw_cgroup_ensure_made(cg);
	const struct cpw_cg_dir *d = membership_dir(cg);
	return d ? read_procs(d->path, pids, max) : -ENOENT;
}

/* Moves every member of d back to its parent. */
static void evacuate(const struct cpw_cg_dir *d)
{
	pid_t pids[256];
	for (int round = 0; round < 8; round++) {
		int n = read_procs(d->path, pids, 256);
		if (n <= 0)
			return;
		for (int i = 0; i < n && i < 256; i++)
			write_pid(d->parent, pids[i]);
	}
}

static void remove_dir(const struct cpw_cg_dir *d)
{
	/* Left to a child and never confirmed (the launch was given up): the child may have
	 * made it, and is gone. A busy one is not known to be ours: it stays. */
	if (d->deferred)
		rmdir(d->path);
	if (!d->created)
		return;
	/* Exiting tasks keep a group busy for a moment: retry for up to about 2 s. An empty
	 * group (the usual end of a run) goes at the first rmdir. */
	for (int tries = 0; tries < 100; tries++) {
		if (tries > 0)
			evacuate(d);
		if (rmdir(d->path) == 0 || errno != EBUSY)
			return; /* gone, or ENOENT: gone already, or nothing more to try */
		if (tries > 0) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
}

void cpw_cgroup_destroy(struct cpw_cgroup *cg)
{
	if (!cg)
		return;
	close_placement(&cg->placement);
	cpw_kfile_held_close(&cg->mem_peak);
	cpw_kfile_held_close(&cg->mem_current);
	cpw_kfile_held_close(&cg->mem_stat);
	cpw_psi_files_close(&cg->psi);
	remove_dir(&cg->v2);
	remove_dir(&cg->mem1);
	remove_dir(&cg->cpuacct1);
	free(cg);
}
