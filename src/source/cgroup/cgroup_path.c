/*
 * cgroup_path.c: find which cgroup hierarchies are mounted below a cgroup root and where a
 * process's groups are in them, from the /proc/PID/cgroup text.
 *
 * /proc/PID/cgroup lines are "hierarchy-id:controller-list:path"; the v2 line is "0::path".
 * v1 controllers are mounted at <root>/<controller> (systemd adds symlinks such as
 * cpuacct -> cpu,cpuacct), or at <root>/<controller-list>.
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "source/cgroup/cgroup_private.h"
#include "source/kernel/kfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool cpw_cgroup_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

bool cpw_cgroup_up(char *dir, const char *mount)
{
	size_t mlen = strlen(mount);
	size_t len = strlen(dir);
	if (len <= mlen)
		return false;
	char *slash = strrchr(dir + mlen, '/');
	if (!slash)
		return false;
	/* Keep the mount itself when the group sits right below it. */
	if (slash == dir + mlen)
		dir[mlen] = '\0';
	else
		*slash = '\0';
	return true;
}

long cpw_cgroup_read_self(const char *proc_cgroup_path, char *buf, size_t size)
{
	return (long)cpw_kfile_read(proc_cgroup_path, buf, size);
}

/* True when the comma-separated list holds name. */
static bool list_has(const char *list, size_t len, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = list, *end = list + len;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		if ((size_t)(e - p) == nlen && memcmp(p, name, nlen) == 0)
			return true;
		p = e + 1;
	}
	return false;
}

int cpw_cgroup_self_path(const char *text, size_t len, const char *controller,
			 char *path, size_t pathlen, char *controllers, size_t ctlen)
{
	const char *end = text + len;
	const char *line = text;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		const char *c1 = memchr(line, ':', (size_t)(eol - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		if (c2) {
			const char *list = c1 + 1;
			size_t list_len = (size_t)(c2 - list);
			bool match = controller ? list_has(list, list_len, controller)
						: (list_len == 0 && c1 - line == 1 && line[0] == '0');
			if (match) {
				size_t plen = (size_t)(eol - c2 - 1);
				if (plen + 1 > pathlen || (controllers && list_len + 1 > ctlen))
					return -ENAMETOOLONG;
				memcpy(path, c2 + 1, plen);
				path[plen] = '\0';
				if (controllers) {
					memcpy(controllers, list, list_len);
					controllers[list_len] = '\0';
				}
				return 0;
			}
		}
		line = eol + 1;
	}
	return -ENOENT;
}

int cpw_cgroup_locate_v1(const char *root, const char *text, size_t len, const char *controller,
		     const char *probe_file, struct cpw_cg_dir *d)
{
	char rel[CPW_CG_PATH_MAX], list[256], probe[CPW_CG_PATH_MAX];
	int err = cpw_cgroup_self_path(text, len, controller, rel, sizeof rel, list, sizeof list);
	if (err < 0)
		return err;
	const char *names[2] = { controller, list };
	for (int i = 0; i < 2; i++) {
		if (cpw_kfile_pathf(d->mount, sizeof d->mount, "%s/%s", root, names[i]) < 0 ||
		    cpw_kfile_pathf(probe, sizeof probe, "%s/%s", d->mount, probe_file) < 0)
			continue;
		if (!cpw_cgroup_exists(probe))
			continue;
		/* "/" is the root group: the mount itself. */
		if (cpw_kfile_pathf(d->path, sizeof d->path, "%s%s", d->mount,
				 strcmp(rel, "/") == 0 ? "" : rel) < 0) {
			err = -ENAMETOOLONG;
			break;
		}
		return 0;
	}
	d->mount[0] = d->path[0] = '\0';
	return err == -ENAMETOOLONG ? err : -ENOENT;
}

int cpw_cgroup_locate_v2(const char *root, const char *text, size_t len, struct cpw_cg_dir *d)
{
	char rel[CPW_CG_PATH_MAX], probe[CPW_CG_PATH_MAX];
	int err = cpw_cgroup_self_path(text, len, NULL, rel, sizeof rel, NULL, 0);
	if (err < 0)
		return err;
	/* Pure v2 has cgroup.controllers at the root; hybrid systems mount it at unified/. */
	static const char *const subs[2] = { "", "/unified" };
	for (int i = 0; i < 2; i++) {
		if (cpw_kfile_pathf(d->mount, sizeof d->mount, "%s%s", root, subs[i]) < 0 ||
		    cpw_kfile_pathf(probe, sizeof probe, "%s/cgroup.controllers", d->mount) < 0)
			continue;
		if (!cpw_cgroup_exists(probe))
			continue;
		if (cpw_kfile_pathf(d->path, sizeof d->path, "%s%s", d->mount,
				 strcmp(rel, "/") == 0 ? "" : rel) < 0) {
			err = -ENAMETOOLONG;
			break;
		}
		return 0;
	}
	d->mount[0] = d->path[0] = '\0';
	return err == -ENAMETOOLONG ? err : -ENOENT;
}

int cpw_cgroup_locate(const char *cgroup_root, const char *self_text, size_t len,
		  struct cpw_cgroup *cg, char *why, size_t whylen)
{
	bool too_long = cpw_cgroup_locate_v2(cgroup_root, self_text, len, &cg->v2) == -ENAMETOOLONG;
	too_long |= cpw_cgroup_locate_v1(cgroup_root, self_text, len, "memory", "memory.usage_in_bytes",
				     &cg->mem1) == -ENAMETOOLONG;
	too_long |= cpw_cgroup_locate_v1(cgroup_root, self_text, len, "cpuacct", "cpuacct.usage",
				     &cg->cpuacct1) == -ENAMETOOLONG;
	if (!cg->v2.mount[0] && !cg->mem1.mount[0] && !cg->cpuacct1.mount[0]) {
		if (too_long) {
			snprintf(why, whylen, "the path of our cgroup is longer than the %d bytes "
				 "cperfwatch handles", CPW_CG_PATH_MAX - 1);
			return -ENAMETOOLONG;
		}
		snprintf(why, whylen, "no cgroup hierarchy of ours is mounted below %s", cgroup_root);
		return -ENOENT;
	}
	return 0;
}
