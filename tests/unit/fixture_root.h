/*
 * fixture_root.h: a writable copy of a fake /proc root from tests/fixtures/ (fixture_root.c),
 * for the unit tests that change files between two samples.
 */
#ifndef CPW_TEST_FIXTURE_ROOT_H
#define CPW_TEST_FIXTURE_ROOT_H

#include <stddef.h>

/* Copies tests/fixtures/NAME (found through $CPW_FIXTURES) into a new directory under
 * $TMPDIR or /tmp, whose path goes into root. Returns 0, or -1. */
int cpw_fixture_copy(const char *name, char *root, size_t rootlen);
/* Removes the copy. Returns 0, or -1. */
int cpw_fixture_remove(const char *root);
/* Writes text into root/rel in place (a kept descriptor reads the new text, as on /proc).
 * Returns 0, or -1. */
int cpw_fixture_write(const char *root, const char *rel, const char *text);

#endif
