/*
 * interp.c: is a process Python (interp.h)? The executable's name first (one readlink),
 * then, for programs that embed the interpreter, a libpython among its mappings.
 */
#include "config.h"
#include "source/proc/interp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* After the prefix: nothing, or a version made of digits and dots followed by at most one
 * ABI letter (d, m, u: python3.13d, python3.7m) or "-c" (PyPy's shared library). */
static bool version_tail(const char *s, const char *end)
{
	bool digits = false;

	while (s < end && ((*s >= '0' && *s <= '9') || *s == '.')) {
		digits |= *s != '.';
		s++;
	}
	if (digits && s < end && (*s == 'd' || *s == 'm' || *s == 'u'))
		s++;
	else if (digits && end - s == 2 && s[0] == '-' && s[1] == 'c')
		s += 2;
	return s == end;
}

static bool name_is(const char *name, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - name) >= n && memcmp(name, prefix, n) == 0 && version_tail(name + n, end);
}

bool cpw_interp_exe_is_python(const char *exe_path)
{
	const char *name, *end;

	if (exe_path == NULL)
		return false;
	name = strrchr(exe_path, '/');
	name = name ? name + 1 : exe_path;
	end = name + strlen(name);
	/* The kernel appends " (deleted)" to an executable replaced since exec (an upgrade). */
	if (end - name > 10 && strcmp(end - 10, " (deleted)") == 0)
		end -= 10;
	return name_is(name, end, "python") || name_is(name, end, "pypy");
}

/* One maps line: "start-end perms offset dev inode   path". */
static bool line_maps_libpython(const char *line, const char *end)
{
	const char *path = NULL, *name, *so;

	for (const char *p = line; p < end; p++)
		if (*p == '/') {
			path = p;
			break;
		}
	if (path == NULL)
		return false;
	name = path;
	for (const char *p = path; p < end; p++)
		if (*p == '/')
			name = p + 1;
	so = NULL;
	for (const char *p = name; p + 3 <= end; p++)
		if (memcmp(p, ".so", 3) == 0 && (p + 3 == end || p[3] == '.')) {
			so = p;
			break;
		}
	if (so == NULL)
		return false;
	return name_is(name, so, "libpython") || name_is(name, so, "libpypy");
}

bool cpw_interp_maps_have_libpython(const char *buf, size_t len)
{
	const char *end;

	if (buf == NULL)
		return false;
	end = buf + len;
	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *lend = nl ? nl : end;

		if (line_maps_libpython(line, lend))
			return true;
		line = nl ? nl + 1 : end;
	}
	return false;
}

/* Scans the maps file in pieces, carrying a partial last line over to the next read. */
static int maps_have_libpython(const char *path)
{
	char buf[16384];
	size_t kept = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + kept, sizeof(buf) - kept);
		char *last_nl;
		size_t whole;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			close(fd);
			return -err;
		}
		if (n == 0) {
			bool found = cpw_interp_maps_have_libpython(buf, kept);
			close(fd);
			return found;
		}
		kept += (size_t)n;
		last_nl = memrchr(buf, '\n', kept);
		if (last_nl == NULL) {
			/* A line longer than the buffer (a path near PATH_MAX): judge what there is. */
			if (kept == sizeof(buf)) {
				if (cpw_interp_maps_have_libpython(buf, kept)) {
					close(fd);
					return 1;
				}
				kept = 0;
			}
			continue;
		}
		whole = (size_t)(last_nl - buf) + 1;
		if (cpw_interp_maps_have_libpython(buf, whole)) {
			close(fd);
			return 1;
		}
		memmove(buf, buf + whole, kept - whole);
		kept -= whole;
	}
}

int cpw_interp_process_is_python(const char *proc_root, pid_t pid)
{
	char path[320], exe[PATH_MAX];
	ssize_t n;
	int maps;

	snprintf(path, sizeof(path), "%s/%d/exe", proc_root, (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (cpw_interp_exe_is_python(exe))
			return 1;
	}
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid);
	maps = maps_have_libpython(path);
	if (maps < 0 && n > 0)
		return 0; /* the executable is known and not python; its mappings are private */
	return maps;
}
