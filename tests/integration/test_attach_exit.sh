#!/bin/sh
# test_attach_exit.sh: attach mode keeps the last interval of a process that ends while
# watched (issue 19, item 9). Its parent reaps it at once, so its final figures come from
# its exit record: as root, the taskstats totals minus what it had at attach. Without
# root, a note says how much may be missing.
#
# A 2 s spin under GNU time (which reports its exact total), attached after 0.3 s with a
# 0.5 s interval: the spin ends about 0.2 s after the watch's last sample, the share
# that was lost before.

. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
plan 5

json_get() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

if ! /usr/bin/time -f %U true >/dev/null 2>&1; then
	missing_all "attach exit" time
fi

# The child of pid, once it has one (within 2 s); 0 if none.
child_of() {
	_n=0
	while [ $_n -lt 200 ]; do
		_kid=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		[ -n "$_kid" ] && { echo $_kid; return; }
		_n=$((_n + 1))
		sleep 0.01
	done
	echo 0
}

# CPU seconds of pid so far (utime + stime of its stat).
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

if is_root; then
	/usr/bin/time -f '%U %S' -o "$SCRATCH/time.txt" "$W/spin" 2 &
	timer=$!
	spin=$(child_of "$timer")
	sleep 0.3
	before=$(cpu_of "$spin")
	"$CPW" --pid "$spin" --interval 0.5 --json -o "$SCRATCH/root.json"
	wait "$timer"
	total=$(awk '{ print $1 + $2 }' "$SCRATCH/time.txt")
	got=$(json_get "$SCRATCH/root.json" 'd["time"]["user_s"] + d["time"]["sys_s"]')
	want=$(awk -v t="$total" -v b="$before" 'BEGIN { print t - b }')
	echo "# spin: $total s in all, $before s before the watch: want $want s, got $got s"
	# The watch's first sample comes a few ms after "before" was read: a little less is right.
	if awk -v g="$got" -v w="$want" 'BEGIN { exit !(g <= w + 0.03 && g >= w - 0.08) }'; then
		ok "as root: the last interval counts (the exit record minus the figures at attach)"
	else
		not_ok "as root: the last interval counts (the exit record minus the figures at attach)" \
			"want $want s, got $got s"
	fi
	if json_get "$SCRATCH/root.json" 'any("without an exit record" in n for n in d["notes"])' | grep -q False; then
		ok "as root: no note of missing figures"
	else
		not_ok "as root: no note of missing figures" "$(json_get "$SCRATCH/root.json" 'd["notes"]')"
	fi
else
	skip "as root: the last interval counts" "needs root (taskstats exit records)"
	skip "as root: no note of missing figures" "needs root"
fi

if ! is_root; then
	skip "unprivileged: a note says what may be missing" "needs root to switch to an unprivileged user"
	skip "unprivileged: the note names the interval" "needs root to switch to an unprivileged user"
elif ! command -v setpriv >/dev/null 2>&1; then
	missing "unprivileged: a note says what may be missing" util-linux
	missing "unprivileged: the note names the interval" util-linux
else
	pub=$(public_copy "$CPW" "$W/spin")
	mkdir "$pub/nb" && chmod 1777 "$pub/nb"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$pub/spin" 1 &
	spin=$!
	sleep 0.2
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		"$pub/cperfwatch" --pid "$spin" --interval 0.2 --json -o "$pub/nb/nobody.json" 2>"$SCRATCH/nobody.err"
	wait "$spin"
	note=$(json_get "$pub/nb/nobody.json" '[n for n in d["notes"] if "without an exit record" in n]' 2>/dev/null)
	echo "# $note"
	case "$note" in
	*"1 process(es) ended while watched without an exit record (exit records need root)"*)
		ok "unprivileged: a note says what may be missing" ;;
	*) not_ok "unprivileged: a note says what may be missing" "$(cat "$SCRATCH/nobody.err")" ;;
	esac
	case "$note" in
	*"up to one interval (200 ms)"*) ok "unprivileged: the note names the interval" ;;
	*) not_ok "unprivileged: the note names the interval" "$note" ;;
	esac
fi

# Exit records of other programs (a busy machine) are not kept: their parents are never in
# the tree. They used to wait in a 1.3 MB buffer until it was full (3,000 of them: +900
# KiB; now a few samples of them: about +200 KiB). The first reading waits until what the
# watch opens 0.5 s in (the hotspots, the GPU sources) is open: under ASan that start-up
# alone moved the high-water mark 300-800 KiB past a reading taken at 0.5 s; and the mark
# is reset when the reading is taken, so that a peak of the start-up (the plain build's
# RSS fell 1.2 MB below it by 1.5 s) does not count. A record whose parent is alive and
# above no tree process is dropped at once (session.c, foreign_parent). Quiet, the first
# 3,000 cost +30-60 KiB, beside two CPUs of other load up to +1.1 MB once (the pending
# records stayed under 50: memory made once), so what is checked is that one of two later
# rounds adds little: a kept record costs again in each. Without the hotspots: the first
# samples of the sleeper load its libraries' symbols once (~1 MB here, libc's debug file),
# in whichever round they come, which is not what this measures. CI once saw +5.8 MB in
# the third round that was not reproduced here (quiet, beside load, with 20 more shells
# above the loop, without debug files): each round's anonymous and file-backed resident
# sizes are printed, so that the next such jump says which it was.
if is_root; then
	"$W/sleeper" 30 & # ended below, once measured: a loaded machine's 3,000 execs take long
	target=$!
	"$CPW" --pid "$target" --no-tui --no-hotspots -o "$SCRATCH/busy.txt" &
	cpw=$!
	sleep 1.5
	# The high-water mark starts again from now (clear_refs 5, Linux 4.0): a peak of
	# cperfwatch's own start-up, gone by now, is not what this measures.
	echo 5 >"/proc/$cpw/clear_refs" 2>/dev/null
	rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$cpw/status")
	# Three rounds of 2,000: what is bounded (the exec-arguments ring, the allocator's
	# arenas) is made once, in whichever round it comes (+1 MB, +1.8 MB under ASan); what
	# is kept grows in every round (the records had cost +900 KiB per 3,000).
	round_hwm() {
		i=0
		while [ $i -lt 2000 ]; do /bin/true; i=$((i + 1)); done
		awk '/^VmHWM/ { print $2 }' "/proc/$cpw/status"
		awk '/^(RssAnon|RssFile|RssShmem)/ { printf "%s %s KiB ", $1, $2 }' "/proc/$cpw/status" >>"$SCRATCH/rounds"
		echo >>"$SCRATCH/rounds"
	}
	h1=$(round_hwm)
	h2=$(round_hwm)
	h3=$(round_hwm)
	kill "$target" 2>/dev/null
	wait "$cpw"
	wait "$target"
	echo "# cperfwatch: VmRSS $rss0 KiB before 3 x 2,000 other programs' exits, VmHWM $h1, $h2, $h3 KiB after each"
	sed 's/^/#   after a round: /' "$SCRATCH/rounds"
	if [ -n "$rss0" ] && [ -n "$h1" ] && [ -n "$h2" ] && [ -n "$h3" ] && [ $((h3 - rss0)) -lt 3000 ] &&
		{ [ $((h2 - h1)) -lt 300 ] || [ $((h3 - h2)) -lt 300 ]; }; then
		ok "other programs' exit records are not kept (+$((h1 - rss0)), +$((h2 - h1)), +$((h3 - h2)) KiB)"
	else
		not_ok "other programs' exit records are not kept" "VmRSS $rss0 KiB, then VmHWM $h1, $h2, $h3 KiB"
	fi
else
	skip "other programs' exit records are not kept" "needs root (taskstats exit records)"
fi

done_testing
