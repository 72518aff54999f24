#!/bin/sh
# test_layers.sh: the layering rule of doc/HACKING.md holds: no file includes a header from
# a layer above its own, no two modules include each other's headers (check_layers.py, on
# the sources), and no two files of the built program call each other (check_calls.py, on
# its objects). Each says which files break the rule.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 2
[ -x /usr/bin/python3 ] || missing_all "layers" python3
check "calls and includes only go down the layers (doc/HACKING.md)" \
	/usr/bin/python3 "$CPW_SRCDIR/tests/integration/check_layers.py" "$CPW_SRCDIR/src"
command -v nm >/dev/null 2>&1 || missing_all "layers" binutils
check "no two files call each other" \
	/usr/bin/python3 "$CPW_SRCDIR/tests/integration/check_calls.py" "$CPW_BUILDDIR"
done_testing
