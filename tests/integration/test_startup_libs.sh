#!/bin/sh
# test_startup_libs.sh: the start-up and memory choices that configure and procps.c make
# (issue 7). libproc2 is not a load-time dependency: it is opened when the first process
# is identified, and it then names the process's user. With the static links (the default
# where the archives exist) the binary needs no libpfm.so, libjson-c.so or libncursesw.so
# and is position-dependent, so libpfm4's event tables need no relocation at start-up.
# libm is not needed at all. A report loads no locale; the live view loads only its
# character set.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 12

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

# configure links libpfm4, json-c and ncurses statically where their archives link
# (CPW_STATIC_LIBS lists which); such a library must not be loaded at start-up.
for lib in libpfm4:libpfm json-c:libjson-c ncurses:libncurses; do
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
if [ -n "${CPW_STATIC_LIBS:-}" ]; then
	check "the binary is position-dependent (no relocation of the static libraries)" \
		grep -q 'Type:[[:space:]]*EXEC' "$SCRATCH/header"
else
	skip "the binary is position-dependent" "configured with --disable-static-libs or without any .a"
fi

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
# Attach mode runs libpfm4 in a helper process (perf_transfer.c): its PMU tables, ~300 KiB
# of the binary's writable data once pfm_initialize has walked them, stay out of the
# watching process. Run mode encodes in-process: the same binary's writable data resident
# there is the yardstick (an ASan build has much more of its own). From /proc/PID/smaps.
# task-clock is named in both: without a PMU the default set starts no libpfm4 at all.
case " ${CPW_STATIC_LIBS:-} " in
*" libpfm4 "*)
	bin=$(readlink -f "$CPW")
	rw_of='/^[0-9a-f]+-/ { perm = $2; name = $6 } /^Rss:/ { if (name == b && perm == "rw-p") kb += $2 } END { print kb + 0 }'
	sleep 5 &
	sp=$!
	"$CPW" --pid "$sp" --duration 1.5 --no-tui -e task-clock -o /dev/null &
	cp=$!
	sleep 1
	rw_attach=$(awk -v b="$bin" "$rw_of" "/proc/$cp/smaps" 2>/dev/null)
	wait "$cp"
	kill "$sp" 2>/dev/null
	rw_run=$("$CPW" --no-cgroup -e task-clock -o /dev/null -- sh -c 'sleep 0.3; awk -v b="$1" "$2" /proc/$PPID/smaps' sh "$bin" "$rw_of" 2>/dev/null)
	check "attach mode keeps libpfm4's tables out of its memory (writable data resident: ${rw_attach:-?} KiB, run mode ${rw_run:-?} KiB)" \
		test "${rw_attach:-999999}" -le "$(( ${rw_run:-0} - 200 ))" ;;
*) skip "attach mode keeps libpfm4's tables out of its memory" "libpfm4 is a shared library in this build" ;;
esac
done_testing
