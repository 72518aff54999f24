/*
 * fixture_root.c: a writable copy of a fake /proc root (fixture_root.h).
 */
#include "config.h"
#include "fixture_root.h"

#include <stdio.h>
#include <stdlib.h>

int cpw_fixture_copy(const char *name, char *root, size_t rootlen)
{
	char cmd[1200];
	const char *fixtures = getenv("CPW_FIXTURES");
	snprintf(root, rootlen, "%s/cpw-fixture-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!fixtures || !mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -R '%s/%s/.' '%s/'", fixtures, name, root);
	return system(cmd) == 0 ? 0 : -1;
}

int cpw_fixture_remove(const char *root)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

int cpw_fixture_write(const char *root, const char *rel, const char *text)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}
