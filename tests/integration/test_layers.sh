#!/bin/sh
# test_layers.sh: the layering rule of doc/HACKING.md holds in the sources: no file
# includes a header from a layer above its own, and no two modules include each other's
# headers (tests/integration/check_layers.py says which file breaks it).
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 1
[ -x /usr/bin/python3 ] || missing_all "layers" python3
check "calls and includes only go down the layers (doc/HACKING.md)" \
	/usr/bin/python3 "$CPW_SRCDIR/tests/integration/check_layers.py" "$CPW_SRCDIR/src"
done_testing
