#!/bin/sh
# test_dist.sh: the release tarball (`make dist`) holds every file git tracks and nothing
# else but what autoreconf makes, and the fixtures' symbolic links stay links in it (a
# fake /proc's exe and fd links, some dangling by design). Only in a git checkout whose
# top is the source tree: an unpacked tarball (make distcheck) has nothing to compare with.
. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 4

command -v git >/dev/null 2>&1 || missing_all "tarball" git
top=$(git -C "$CPW_SRCDIR" rev-parse --show-toplevel 2>/dev/null)
[ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$CPW_SRCDIR" && pwd -P)" ] ||
	skip_all "tarball" "the source tree is not a git checkout (an unpacked tarball?)"

# Never committed, so never shipped.
NOT_SHIPPED='^\.gitignore$'
# Made by autoreconf, shipped so that a user needs only a shell, make and a compiler.
MADE='^(configure|aclocal\.m4|config\.h\.in|(.*/)?Makefile\.in|build-aux/(ar-lib|compile|depcomp|install-sh|missing|test-driver))$'

# The tarball is made under a name of its own in the build tree (make dist writes it
# beside its directory), then moved to the scratch directory.
name=cpw-test-dist.$$
cleanup() { rm -rf "${CPW_BUILDDIR:?}/$name" "$CPW_BUILDDIR/$name.tar.gz"; remove_scratch; }
trap cleanup EXIT
# A make of its own, not a part of the make check that runs this test.
if (unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$CPW_BUILDDIR" dist distdir="$name") \
	>"$SCRATCH/dist.out" 2>&1 && mv "$CPW_BUILDDIR/$name.tar.gz" "$SCRATCH/dist.tar.gz" &&
	tar -tvzf "$SCRATCH/dist.tar.gz" >"$SCRATCH/listing" 2>>"$SCRATCH/dist.out"; then
	ok "make dist makes a tarball"
else
	not_ok "make dist makes a tarball" "$(tail -n 20 "$SCRATCH/dist.out")"
	skip_all "tarball" "no tarball"
fi

# Its files (not directories), named from the top of the source tree, in C order.
tar -tzf "$SCRATCH/dist.tar.gz" | grep -v '/$' | sed "s|^$name/||" | LC_ALL=C sort >"$SCRATCH/shipped"
(cd "$CPW_SRCDIR" && git ls-files) | grep -Ev "$NOT_SHIPPED" | LC_ALL=C sort >"$SCRATCH/tracked"

LC_ALL=C comm -23 "$SCRATCH/tracked" "$SCRATCH/shipped" >"$SCRATCH/left-out"
if [ -s "$SCRATCH/left-out" ]; then
	not_ok "every file git tracks ships" "left out of the tarball (add it to EXTRA_DIST in the folder's .am):
$(head -n 20 "$SCRATCH/left-out")"
else
	ok "every file git tracks ships ($(wc -l <"$SCRATCH/tracked") files)"
fi

LC_ALL=C comm -13 "$SCRATCH/tracked" "$SCRATCH/shipped" | grep -Ev "$MADE" >"$SCRATCH/extra"
if [ -s "$SCRATCH/extra" ]; then
	not_ok "nothing ships that git does not track, but what autoreconf makes" "in the tarball, not in git (a draft, a build product, an editor's file?):
$(head -n 20 "$SCRATCH/extra")"
else
	ok "nothing ships that git does not track, but what autoreconf makes"
fi

# git's mode 120000 is a symbolic link; tar -tv shows one as "lrwxrwxrwx ... NAME -> TARGET".
(cd "$CPW_SRCDIR" && git ls-files -s) | awk '$1 == "120000" { print $4 }' | LC_ALL=C sort >"$SCRATCH/links"
grep '^l' "$SCRATCH/listing" | sed -n "s|^.* $name/\(.*\) -> .*|\1|p" | LC_ALL=C sort >"$SCRATCH/shipped-links"
if ! [ -s "$SCRATCH/links" ]; then
	skip "symbolic links ship as links" "git tracks no symbolic link"
elif LC_ALL=C comm -23 "$SCRATCH/links" "$SCRATCH/shipped-links" >"$SCRATCH/lost" && [ -s "$SCRATCH/lost" ]; then
	not_ok "symbolic links ship as links" "not links in the tarball (followed, or left out):
$(head -n 20 "$SCRATCH/lost")"
else
	ok "symbolic links ship as links ($(wc -l <"$SCRATCH/links"))"
fi
done_testing
