#!/bin/sh
# test_layers.sh: the layering rule of doc/HACKING.md holds, and its checks catch what they
# exist to catch.
#
# 1. The sources (check_layers.py): no include from a layer above, no cycle of modules of
#    any length, no *_private.h included from another folder, no kernel path in a string
#    literal outside src/source/, no folder in no layer. Its diagnostics list every breach.
# 2. The built objects (check_calls.py, nm): nothing outside src/source/ imports a call
#    that reads the kernel but what its allow-list justifies, no call up a layer, no cycle
#    of calls. Its diagnostics list every breach.
# 3. One line per mutation in tests/integration/layers/*.mut: a copy of src/ (and of the
#    objects, with the files the mutation changed compiled with the build's own flags) is
#    broken in one way, and the checks must print a line naming that breach which they do
#    not print for the clean copy (or, for "expect: none", nothing new). In a sanitizer
#    build only 1 and 2 run: the mutations are the plain build's run's.
. "$CPW_SRCDIR/tests/integration/tap.sh"
HERE=$CPW_SRCDIR/tests/integration
MUTATIONS=$(ls "$HERE"/layers/*.mut)
# The mutations check the checks, on copies of the sources and objects: a sanitizer build's
# run would repeat the plain build's (30 s of CI's time, its objects compiled again with
# ASan) and run none of cperfwatch. There the two checks of this build run alone.
if ldd "$CPW" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	MUTATIONS=
	plan 2
else
	plan $((2 + $(printf '%s\n' "$MUTATIONS" | wc -l)))
fi
[ -x /usr/bin/python3 ] || missing_all "layers" python3
PY=/usr/bin/python3

# A check run whose every line is a diagnostic.
check_lines() { # label command...
	_label=$1; shift
	if "$@" >"$SCRATCH/.lines" 2>&1; then ok "$_label"; else not_ok "$_label" "$(cat "$SCRATCH/.lines")"; fi
}
check_lines "includes, module cycles, private headers, kernel paths in the sources (check_layers.py)" \
	$PY "$HERE/check_layers.py" "$CPW_SRCDIR/src"
if ! command -v nm >/dev/null 2>&1 || ! command -v ar >/dev/null 2>&1; then missing_all "layers" binutils; fi
check_lines "kernel calls, calls up a layer, call cycles in the objects (check_calls.py)" \
	$PY "$HERE/check_calls.py" "$CPW_BUILDDIR"

if [ -z "$MUTATIONS" ]; then
	echo "# mutations: the plain build's run of this test makes them"
	done_testing
fi
# The clean copies every mutation starts from: the sources, and the program's objects
# (those in libcperfwatch.a, and main.o) at their paths under a build folder of its own.
CLEAN=$SCRATCH/clean
mkdir -p "$CLEAN/build/src"
cp -R "$CPW_SRCDIR/src" "$CLEAN/src"
chmod -R u+w "$CLEAN/src" # make distcheck's sources are read-only
$PY "$HERE/check_calls.py" --list "$CPW_BUILDDIR" >"$CLEAN/objects" 2>"$CLEAN/why" ||
	skip_all "mutation" "the objects of the build are not its library's: $(cat "$CLEAN/why")"
for o in $(cat "$CLEAN/objects") src/main.o; do
	[ -f "$CPW_BUILDDIR/$o" ] || continue
	mkdir -p "$CLEAN/build/$(dirname "$o")"
	cp "$CPW_BUILDDIR/$o" "$CLEAN/build/$o"
done
# shellcheck disable=SC2046 # one path a line, none with a space
(cd "$CLEAN/build" && ar qc libcperfwatch.a $(cat "$CLEAN/objects"))
{
	$PY "$HERE/check_layers.py" "$CLEAN/src"
	$PY "$HERE/check_calls.py" "$CLEAN/build"
} >"$CLEAN/breaches" 2>&1
# The compiler and the flags the build compiles the library's files with (automake's
# COMPILE, which starts with CC), run from the build folder as make runs them. -o Makefile:
# make must not remake the Makefile (that would run automake in the source tree).
# shellcheck disable=SC2016 # make expands them
CC_LINE=$(printf '%s\n' 'cpw-layers-cc: ; @printf "cc=%s\nflags=%s\n" "$(CC)" "$(COMPILE)"' |
	MAKEFLAGS='' make -s --no-print-directory -C "$CPW_BUILDDIR" -o Makefile -f Makefile -f - cpw-layers-cc 2>&1)
MUT_CC=$(printf '%s\n' "$CC_LINE" | sed -n 's/^cc=//p')
MUT_FLAGS=$(printf '%s\n' "$CC_LINE" | sed -n 's/^flags=//p')
case $MUT_FLAGS in
"$MUT_CC "*) MUT_FLAGS=${MUT_FLAGS#"$MUT_CC"} ;;
*) MUT_CC= ;;
esac

for mut in $MUTATIONS; do
	name=$(basename "$mut" .mut)
	label="mutation $name: $(sed -n 's/^# what: //p' "$mut")"
	m=$SCRATCH/m-$name
	mkdir -p "$m"
	cp -R "$CLEAN/src" "$CLEAN/build" "$m/"
	if ! $PY "$HERE/layers/mutate.py" "$mut" "$m/src" >"$m/touched" 2>"$m/why"; then
		not_ok "$label" "$(cat "$m/why")"
		continue
	fi
	# The files the mutation changed or made, compiled into the copy of the objects.
	failed=
	objects=$(cat "$CLEAN/objects")
	for c in $(cat "$m/touched"); do
		if [ -z "$MUT_CC" ]; then
			failed="no compile command from $CPW_BUILDDIR/Makefile: $CC_LINE"
			break
		fi
		o=src/${c%.c}.o
		mkdir -p "$m/build/$(dirname "$o")"
		# shellcheck disable=SC2086 # the build's flags, split as make splits them
		if ! (cd "$CPW_BUILDDIR" && $MUT_CC -I"$m/src" $MUT_FLAGS -c "$m/src/$c" -o "$m/build/$o") >"$m/why" 2>&1; then
			failed="$c does not compile: $(cat "$m/why")"
			break
		fi
		printf '%s\n' "$objects" | grep -qxF "$o" || objects="$objects $o"
	done
	if [ -n "$failed" ]; then
		not_ok "$label" "$failed"
		continue
	fi
	rm -f "$m/build/libcperfwatch.a"
	# shellcheck disable=SC2086
	(cd "$m/build" && ar qc libcperfwatch.a $objects)
	{
		$PY "$HERE/check_layers.py" "$m/src"; echo "rc $?" >"$m/rc"
		$PY "$HERE/check_calls.py" "$m/build"; echo "rc $?" >>"$m/rc"
	} >"$m/out" 2>&1
	# The lines the clean copy does not print: what the mutation broke.
	grep -vxFf "$CLEAN/breaches" "$m/out" >"$m/new"
	why=
	if grep -q Traceback "$m/out" || grep -qv '^rc [01]$' "$m/rc"; then
		why="a check crashed: $(cat "$m/out")"
	elif grep -qx '# expect: none' "$mut"; then
		[ -s "$m/new" ] && why="new breaches where none were expected: $(cat "$m/new")"
	else
		grep -q '^rc 1$' "$m/rc" || why="both checks passed"
		sed -n 's/^# expect: //p' "$mut" >"$m/expect"
		while IFS= read -r re; do
			grep -qE -e "$re" "$m/new" && continue
			why="${why:+$why
}no new line matches: $re"
		done <"$m/expect"
		[ -n "$why" ] && why="$why
the new lines: $(cat "$m/new")"
	fi
	if [ -z "$why" ]; then ok "$label"; else not_ok "$label" "$why"; fi
done
done_testing
