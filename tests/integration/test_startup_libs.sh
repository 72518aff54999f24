#!/bin/sh
# test_startup_libs.sh: the start-up and memory choices that configure and procps.c make
# (issue 7). libproc2 is not a load-time dependency: it is opened when the first process
# is identified, and it then names the process's user. With the static libpfm4 link (the
# default where libpfm.a exists) the binary needs no libpfm.so and is position-dependent,
# so libpfm4's event tables need no relocation at start-up. libm is not needed at all.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 6

command -v readelf >/dev/null 2>&1 || skip_all "library check" "readelf missing (apt-get install binutils)"
readelf -dW "$CPW" >"$SCRATCH/dynamic" 2>&1
readelf -hW "$CPW" >"$SCRATCH/header" 2>&1

if grep -q 'NEEDED.*libproc2' "$SCRATCH/dynamic"; then
	not_ok "libproc2 is not loaded at start-up" "$(grep NEEDED "$SCRATCH/dynamic")"
else
	ok "libproc2 is not loaded at start-up"
fi

# round.h replaced the only libm calls; --as-needed leaves libm off the binary.
if grep -q 'NEEDED.*libm\.' "$SCRATCH/dynamic"; then
	not_ok "libm is not loaded" "$(grep NEEDED "$SCRATCH/dynamic")"
else
	ok "libm is not loaded"
fi

if [ "${CPW_STATIC_LIBPFM:-no}" = yes ]; then
	if grep -q 'NEEDED.*libpfm' "$SCRATCH/dynamic"; then
		not_ok "libpfm4 is linked in, not loaded" "$(grep NEEDED "$SCRATCH/dynamic")"
	else
		ok "libpfm4 is linked in, not loaded"
	fi
	check "the binary is position-dependent (no relocation of libpfm4's tables)" \
		grep -q 'Type:[[:space:]]*EXEC' "$SCRATCH/header"
else
	skip "libpfm4 is linked in, not loaded" "configured with --disable-static-libpfm or without libpfm.a"
	skip "the binary is position-dependent" "configured with --disable-static-libpfm or without libpfm.a"
fi

# The command reads cperfwatch's own mappings after the first samples (0.1 s interval):
# libproc2 must be there by then, since the command was identified through it.
"$CPW" --no-cgroup -i 0.1 --json -o "$SCRATCH/r.json" -- \
	sh -c 'sleep 0.5; grep -c "libproc2" /proc/$PPID/maps' >"$SCRATCH/maps.count" 2>"$SCRATCH/err"
n=$(cat "$SCRATCH/maps.count")
check "libproc2 is mapped once a process has been identified (mappings: ${n:-none})" test "${n:-0}" -ge 1
# sh and sleep lived through several samples (grep may end before it is identified).
user=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(sorted(set(str(p.get("user")) for p in d["processes"] if p["command"] in ("sh", "sleep")))))' "$SCRATCH/r.json" 2>>"$SCRATCH/err")
check "and it named the user of sh and sleep ($user)" test "$user" = "$(id -un)"
done_testing
