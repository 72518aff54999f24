#!/bin/sh
# test_startup_libs.sh: the start-up, memory and hardening choices that configure,
# pfm_load.c and procps.c make. The binary is hardened as Debian builds its packages
# (position-independent, full RELRO, stack protector, _FORTIFY_SOURCE). libproc2 and
# libpfm4 are not load-time dependencies: libproc2 is opened when the first process is
# identified (it then names the process's user), libpfm4 when counters are first encoded,
# so a start that arms none does not relocate its ~1 MB of event tables. json-c and
# ncurses are linked statically (the default where the archives exist). libm is not needed
# at all. A report loads no locale; the live view loads only its character set.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 16

command -v readelf >/dev/null 2>&1 || missing_all "library check" binutils
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

# configure links json-c and ncurses statically where their archives link (CPW_STATIC_LIBS
# lists which); such a library must not be loaded at start-up. libpfm4 never is.
if grep -q 'NEEDED.*libpfm' "$SCRATCH/dynamic"; then
	not_ok "libpfm4 is not loaded at start-up" "$(grep NEEDED "$SCRATCH/dynamic")"
else
	ok "libpfm4 is not loaded at start-up"
fi
for lib in json-c:libjson-c ncurses:libncurses; do
	name=${lib%%:*} soname=${lib#*:}
	case " ${CPW_STATIC_LIBS:-} " in
	*" $name "*)
		if grep -q "NEEDED.*$soname" "$SCRATCH/dynamic"; then
			not_ok "$name is linked in, not loaded" "$(grep NEEDED "$SCRATCH/dynamic")"
		else
			ok "$name is linked in, not loaded"
		fi ;;
	*) skip "$name is linked in, not loaded" "configured with --disable-static-libs or without its .a" ;;
	esac
done

# Hardening, as hardening-check (devscripts) reads it off the binary.
# harden WHAT FLAG CHECK...: runs CHECK where configure used FLAG.
harden() {
	_what=$1 _flag=$2; shift 2
	case " ${CPW_HARDEN_FLAGS:-} " in
	*" $_flag "*) check "hardened: $_what" "$@" ;;
	*) skip "hardened: $_what" "configured without $_flag (--disable-hardening, or an ASan build)" ;;
	esac
}
readelf -lW "$CPW" >"$SCRATCH/segments" 2>&1
readelf --dyn-syms -W "$CPW" >"$SCRATCH/dynsyms" 2>&1
harden "position-independent executable (ELF type DYN)" -pie grep -q 'Type:[[:space:]]*DYN' "$SCRATCH/header"
harden "read-only relocations (GNU_RELRO)" -Wl,-z,relro grep -q 'GNU_RELRO' "$SCRATCH/segments"
harden "immediate binding (BIND_NOW)" -Wl,-z,now grep -Eq 'BIND_NOW|FLAGS_1.*NOW' "$SCRATCH/dynamic"
harden "stack protector (__stack_chk_fail)" -fstack-protector-strong grep -q '__stack_chk_fail' "$SCRATCH/dynsyms"
harden "_FORTIFY_SOURCE (*_chk functions)" -D_FORTIFY_SOURCE=2 grep -Eq '__[a-z]+_chk@' "$SCRATCH/dynsyms"

# The locale: a report needs none of it (names are escaped by hand, numbers stay in the C
# locale) and loading it costs ~0.15 ms of start-up; the live view loads the character
# set for ncurses, and no other category (tui.c). Seen in cperfwatch's mappings while it
# watches; needs a UTF-8 locale installed as files (C.utf8 on Debian), and tmux.

if [ -f /usr/lib/locale/C.utf8/LC_CTYPE ] && [ -f /usr/lib/locale/C.utf8/LC_NUMERIC ]; then
	LC_ALL= LANG=C.UTF-8 "$CPW" --no-cgroup -i 0.1 -o "$SCRATCH/l.txt" -- \
		sh -c 'sleep 0.3; cat /proc/$PPID/maps' >"$SCRATCH/l.maps" 2>"$SCRATCH/l.err"
	if [ ! -s "$SCRATCH/l.maps" ]; then
		not_ok "a report loads no locale" "no mappings read: $(tail -n 3 "$SCRATCH/l.err")"
	elif grep -q 'C.utf8/' "$SCRATCH/l.maps"; then
		not_ok "a report loads no locale" "$(grep 'C.utf8' "$SCRATCH/l.maps")"
	else
		ok "a report loads no locale"
	fi
	if [ -n "$TMUX_BIN" ] && [ -x "$TMUX_BIN" ]; then
		sock="cpw-libs-$$"
		"$TMUX_BIN" -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
			"LC_ALL= LANG=C.UTF-8 TERM=xterm '$CPW' --no-cgroup --tui -i 0.1 -o '$SCRATCH/t.txt' -- sh -c 'sleep 0.5; cat /proc/\$PPID/maps >\"$SCRATCH/t.part\"; mv \"$SCRATCH/t.part\" \"$SCRATCH/t.maps\"; exec sleep 30'"
		i=0
		while [ ! -s "$SCRATCH/t.maps" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		"$TMUX_BIN" -L "$sock" kill-server >/dev/null 2>&1
		if ! grep -q 'C.utf8/LC_CTYPE' "$SCRATCH/t.maps" 2>/dev/null; then
			not_ok "the live view loads the locale's character set, and nothing else of it" \
				"$(grep 'C.utf8' "$SCRATCH/t.maps" 2>/dev/null || echo "no mappings read")"
		elif grep -q 'C.utf8/LC_\(NUMERIC\|TIME\|MESSAGES\|COLLATE\)' "$SCRATCH/t.maps"; then
			not_ok "the live view loads the locale's character set, and nothing else of it" "$(grep 'C.utf8' "$SCRATCH/t.maps")"
		else
			ok "the live view loads the locale's character set, and nothing else of it"
		fi
	else
		missing "the live view loads the locale's character set" tmux
	fi
else
	skip "a report loads no locale" "no C.utf8 locale files in /usr/lib/locale"
	skip "the live view loads the locale's character set" "no C.utf8 locale files in /usr/lib/locale"
fi

# The command reads cperfwatch's own mappings after the first samples (0.1 s interval):
# libproc2 must be there by then, since the command was identified through it.
"$CPW" --no-cgroup -i 0.1 --json -o "$SCRATCH/r.json" -- \
	sh -c 'sleep 0.5; grep -c "libproc2" /proc/$PPID/maps' >"$SCRATCH/maps.count" 2>"$SCRATCH/err"
n=$(cat "$SCRATCH/maps.count")
check "libproc2 is mapped once a process has been identified (mappings: ${n:-none})" test "${n:-0}" -ge 1
# sh and sleep lived through several samples (grep may end before it is identified).
user=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(sorted(set(str(p.get("user")) for p in d["processes"] if p["command"] in ("sh", "sleep")))))' "$SCRATCH/r.json" 2>>"$SCRATCH/err")
check "and it named the user of sh and sleep ($user)" test "$user" = "$(id -un)"
# Only the JSON report shows users: with the text report libproc2 is never opened.
"$CPW" --no-cgroup -i 0.1 -o "$SCRATCH/r.txt" -- \
	sh -c 'sleep 0.5; grep -c "libproc2" /proc/$PPID/maps' >"$SCRATCH/maps.text" 2>>"$SCRATCH/err"
n=$(cat "$SCRATCH/maps.text")
check "with the text report libproc2 is not loaded (mappings: ${n:-none})" test "${n:-x}" = 0
# libpfm4 is opened only where counters are encoded. Run mode encodes in its own process:
# with -e task-clock it is mapped there. Attach mode encodes in a helper process
# (perf_transfer.c): the watching process never maps it. From /proc/PID/maps.
sleep 5 &
sp=$!
"$CPW" --pid "$sp" --duration 1.5 --no-tui -e task-clock -o /dev/null &
cp=$!
sleep 1
in_attach=$(grep -c 'libpfm' "/proc/$cp/maps" 2>/dev/null)
wait "$cp"
kill "$sp" 2>/dev/null
in_run=$("$CPW" --no-cgroup -e task-clock -o /dev/null -- sh -c 'sleep 0.3; grep -c libpfm /proc/$PPID/maps' 2>/dev/null)
check "libpfm4 is opened where counters are encoded: run mode (${in_run:-?} mappings), not attach mode's watcher (${in_attach:-?})" \
	test "${in_run:-0}" -ge 1 -a "${in_attach:-1}" = 0
done_testing
