#!/bin/sh
# test_hotspots.sh: the Hotspots section on the real binary, with workloads whose truth is
# known by construction: a C program whose two noinline functions split its work 70/30,
# built -O2 -fomit-frame-pointer (each share within 5 points, and perf record + perf report
# agree within 3 points); the same program stripped ([FILE], never a wrong name); a
# JIT that writes a perf map with garbage lines; a command that execs, processes that exit
# between two reads, a fork storm (nothing crashes, the counts stay sane); --folded loadable
# by flamegraph.pl's format; --no-hotspots.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 16
J() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

cat >"$SCRATCH/split.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work_heavy(unsigned long n)
{ unsigned long x = sink; for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005ul + i; sink = x; }
__attribute__((noinline)) static void work_light(unsigned long n)
{ unsigned long x = sink; for (unsigned long i = 0; i < n; i++) x = x * 2862933555777941757ul + (i ^ 7); sink = x; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv)
{ double end = now() + (argc > 1 ? atof(argv[1]) : 2); while (now() < end) { work_heavy(70000); work_light(30000); } return 0; }
C
cat >"$SCRATCH/jit.c" <<'C'
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static char path[64];
/* The map goes before the end (as a JIT may remove it): the last one read still names the
 * code. It goes once the sampler has read it (inotify: closed after a read), or after 10 s;
 * a fixed wait lost that race on a loaded machine (CI's runs at 0.7 s and at 1.5 s). */
static void *remove_map(void *arg)
{
	int in = *(int *)arg;
	struct pollfd pf = { .fd = in, .events = POLLIN };
	struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
	int got = in >= 0 ? poll(&pf, 1, 10000) : -1;
	if (got != 1) usleep(1500000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "jit: map %s after %.2f s, then removed\n", got == 1 ? "read" : "not seen read",
		(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	unlink(path);
	usleep(1500000);
	_exit(0);
}
int main(void)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) return 1;
	memcpy(code + 64, "\xeb\xfe", 2); /* jmp . */
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	fprintf(f, "garbage\n%lx 40 jitted_spin\nzz 10 more garbage\n%lx\n", (unsigned long)(code + 32), (unsigned long)code);
	fclose(f);
	static int in;
	in = inotify_init1(IN_CLOEXEC);
	if (in >= 0) inotify_add_watch(in, path, IN_CLOSE_NOWRITE);
	/* The JIT code runs on the main thread. With it on a second thread, CI's ASan run once
	 * had sampling armed at 0.507 s and 0 samples in 11.5 s of that thread's spinning: a
	 * thread the arming missed, begun after the tree's listing that arming was given (later
	 * listings now arm such a thread: tests/unit/test_sampler_live.c). This test is about
	 * the map, so it keeps clear of that. */
	pthread_t t; pthread_create(&t, NULL, remove_map, &in);
	((void (*)(void))(code + 64))();
	return 0;
}
C
if ! cc -O2 -fomit-frame-pointer -o "$SCRATCH/split" "$SCRATCH/split.c" ||
	! cc -O2 -pthread -o "$SCRATCH/jit" "$SCRATCH/jit.c"; then
	skip_all "no C compiler"
fi
share() { # FILE NAME-PREFIX: the self share (%) of the first function whose name starts so
	J "$1" "next((round(f['self_share']*100,1) for f in d['hotspots']['functions'] if f['name'].startswith('$2')), -1)"
}
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# --- 70/30, frame pointers omitted; perf record samples the same run (its split process) ---
PERF=$(command -v perf || true)
# Both at 999 Hz for 6 s (~6,000 samples each): the two shares then differ by chance by
# about 1 point, well within the 3 the test allows. On a machine shared with other load
# the two samplers' views of one run can part further (seen once at load 40: 5 points):
# a second run is taken then, and both are printed; a real fault misses in both.
perf_run() {
	if [ -n "$PERF" ] && CPERFWATCH_SAMPLING_HZ=999 "$PERF" record -q -e cpu-clock -F 999 -o "$SCRATCH/perf.data" -- \
		"$CPW" -j -o "$SCRATCH/r.json" --folded "$SCRATCH/f.txt" -- "$SCRATCH/split" 6 >/dev/null 2>&1; then
		"$PERF" report -q -i "$SCRATCH/perf.data" --comm split --stdio --sort sym 2>/dev/null >"$SCRATCH/perf.txt"
	else
		rm -f "$SCRATCH/perf.txt"
		"$CPW" -j -o "$SCRATCH/r.json" --folded "$SCRATCH/f.txt" -- "$SCRATCH/split" 6
	fi
}
# The heavy function's share of the two functions' samples, by perf and by cperfwatch.
split_of() {
	ph=$(awk '/work_heavy/ { sub("%", "", $1); print $1; exit }' "$SCRATCH/perf.txt" 2>/dev/null)
	pl=$(awk '/work_light/ { sub("%", "", $1); print $1; exit }' "$SCRATCH/perf.txt" 2>/dev/null)
	p70=$(awk -v h="${ph:-0}" -v l="${pl:-0}" 'BEGIN { print (h + l > 0 ? 100 * h / (h + l) : -1) }')
	h=$(share "$SCRATCH/r.json" work_heavy); l=$(share "$SCRATCH/r.json" work_light)
	h70=$(awk -v h="$h" -v l="$l" 'BEGIN { print (h + l > 0 ? 100 * h / (h + l) : -1) }')
}
perf_run
split_of
if [ -s "$SCRATCH/perf.txt" ] && ! near "$p70" "$h70" 3; then
	echo "# first run: perf $p70%, cperfwatch $h70% of the two functions; a second run"
	perf_run
	split_of
fi
heavy=$(share "$SCRATCH/r.json" work_heavy); light=$(share "$SCRATCH/r.json" work_light)
samples=$(J "$SCRATCH/r.json" "d['hotspots']['samples']")
# Of the two functions' samples: the loop's clock_gettime and the kernel take a few.
both=$(awk -v h="$heavy" -v l="$light" 'BEGIN { print h + l }')
h70=$(awk -v h="$heavy" -v b="$both" 'BEGIN { print (b > 0 ? 100 * h / b : -1) }')
check "work_heavy ~70% of the two ($h70%, $samples samples)" near "$h70" 70 5
check "work_light ~30% of the two ($(awk -v h="$h70" 'BEGIN { print 100 - h }')%)" near "$(awk -v h="$h70" 'BEGIN { print 100 - h }')" 30 5
check "the JSON document is valid against the schema" validate_json "$SCRATCH/r.json"
check "--folded: 'comm;frames COUNT' lines, rooted at the process, summing to the samples" \
	awk -v n="$samples" '!/^split(;[^;]+)+ [0-9]+$/ { bad = 1 } { s += $NF } END { exit bad || s != n }' "$SCRATCH/f.txt"
if [ -s "$SCRATCH/perf.txt" ]; then
	# perf's shares are of the split process's samples, ours of the tree's (split alone);
	# the kernel's part differs between the two (each sampler's interrupts land in the
	# process), so each function is compared as its share of the two functions' samples.
	check "perf report, same run: the same top function within 3 points (perf $p70%, ours $h70% of the two)" near "$p70" "$h70" 3
	check "perf report, same run: the second within 3 points (perf $(awk -v p="$p70" 'BEGIN { print 100 - p }')%, ours $(awk -v h="$h70" 'BEGIN { print 100 - h }')%)" \
		near "$(awk -v p="$p70" 'BEGIN { print 100 - p }')" "$(awk -v h="$h70" 'BEGIN { print 100 - h }')" 3
else
	missing "perf record -e cpu-clock (linux-perf)"
	missing "perf record -e cpu-clock (linux-perf)"
fi

# --- stripped: offsets, never a wrong name ---
strip -o "$SCRATCH/split_stripped" "$SCRATCH/split"
"$CPW" -j -o "$SCRATCH/s.json" -- "$SCRATCH/split_stripped" 2
check "a stripped binary: its code is one row, [split_stripped], never a nearby name" sh -c "
	$(command -v python3) -c 'import json,sys; f=json.load(open(sys.argv[1]))[\"hotspots\"][\"functions\"]; \
	mine=[x for x in f if x[\"file\"]==\"split_stripped\"]; \
	sys.exit(len(mine) != 1 or mine[0][\"name\"] != \"[split_stripped]\")' '$SCRATCH/s.json'"

# --- a JIT's perf map with garbage lines, removed while the JIT still runs ---
# A miss says what the JIT saw (when its map was read), the report's first functions, when
# sampling was armed, and the notes.
jit_evidence() {
	grep '^jit:' "$SCRATCH/j.err"
	J "$SCRATCH/j.json" "[(f['name'], f['kind'], f['self_samples']) for f in d['hotspots']['functions'][:4]], d['hotspots']['samples'], d['hotspots'].get('armed_at_s'), d['hotspots'].get('reason')" 2>&1
	J "$SCRATCH/j.json" "d.get('notes', [])[:8]" 2>&1
}
jit_named() {
	"$CPW" -j -o "$SCRATCH/j.json" -- "$SCRATCH/jit" 2>"$SCRATCH/j.err"
	test "$(J "$SCRATCH/j.json" "[(f['name'], f['kind']) for f in d['hotspots']['functions']][0]" 2>&1)" = "('jitted_spin', 'jit')"
}
if jit_named; then
	ok "a JIT's perf map (garbage lines skipped): its function named, kind jit"
else
	not_ok "a JIT's perf map (garbage lines skipped): its function named, kind jit" "$(jit_evidence)"
fi

# --- exec, exits between reads, a fork storm: nothing crashes, counts sane ---
"$CPW" -j -o "$SCRATCH/e.json" -- sh -c "\"$SCRATCH/split\" 1; exec \"$SCRATCH/split\" 1"
check "a command that execs: split's functions found after the exec" \
	test "$(J "$SCRATCH/e.json" "any(f['name'].startswith('work_heavy') for f in d['hotspots']['functions'])")" = True
"$CPW" -j -o "$SCRATCH/x.json" -- sh -c "\"$SCRATCH/split\" 0.6 & for i in 1 2 3 4 5 6 7 8 9 10; do \"$SCRATCH/split\" 0.05 & sleep 0.07; done; wait"
check "processes that exit between two reads: the report is whole" \
	test "$(J "$SCRATCH/x.json" "d['hotspots']['samples'] >= 0 and d['hotspots']['available']")" = True
"$CPW" -j -o "$SCRATCH/storm.json" -- sh -c "\"$SCRATCH/split\" 0.7 & i=0; while [ \$i -lt 300 ]; do /bin/true & i=\$((i+1)); done; wait"
rc=$?
# The seven kinds' shares are each rounded to 4 places in the JSON: their sum may be
# over 1 by 7 x 0.00005 when the whole counts add up exactly.
check "a fork storm of 300 processes: exit 0, shares that add up to at most 100%" sh -c "test $rc = 0 &&
	test \"\$(/usr/bin/python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))[\"hotspots\"]; print(sum(h[\"kinds\"].values()) <= 1.00035)' '$SCRATCH/storm.json')\" = True"

# --- threads past the 1,024 that arming lists are never sampled: the note counts them ---
"$CPW" -j -o "$SCRATCH/herd.json" -- "$CPW_WORKLOADS/sleep_herd" 1100 1.2
# (77 here: 1,101 threads; more where the open-files limit refuses some of the 1,024.)
unsampled=$(J "$SCRATCH/herd.json" "next((int(n.split()[1]) for n in d['notes'] if n.endswith('could not be sampled (ended, or beyond 1024)')), 0)")
check "1,100 threads at arming: the note counts those past the 1,024 listed ($unsampled, at least 77)" \
	test "$unsampled" -ge 77 -a "$unsampled" -le 1101

"$CPW" -j -o "$SCRATCH/n.json" --no-hotspots -- "$SCRATCH/split" 0.7
check "--no-hotspots: hotspots is null" test "$(J "$SCRATCH/n.json" "d['hotspots']")" = None
"$CPW" -j -o "$SCRATCH/q.json" -- true
check "a command shorter than 0.5 s is not sampled (nothing armed)" \
	test "$(J "$SCRATCH/q.json" "(d['hotspots']['available'], d['hotspots']['armed_at_s'])")" = "(False, None)"

# --- the kernel's functions named (/proc/kallsyms), where the kernel shows their addresses ---
if awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms 2>/dev/null; then
	"$CPW" -j -o "$SCRATCH/k.json" -- dd if=/dev/zero of=/dev/null bs=1M count=80000 status=none
	check "a sample in the kernel is named by its function (read_zero for /dev/zero), file [kernel]" \
		test "$(J "$SCRATCH/k.json" "any(f['file'] == '[kernel]' and f['name'] not in ('[kernel]', '') for f in d['hotspots']['functions'])")" = True
	# The first 49 or so are [kernel] (the names are read at the 50th): a note says why, and the
	# advice tells them as the kernel's, not as a function "[kernel] ([kernel])".
	check "the kernel's samples before its names were read: a note says why ($(J "$SCRATCH/k.json" "[n for n in d['notes'] if 'named [kernel]' in n]"))" \
		test "$(J "$SCRATCH/k.json" "any(n.startswith('hotspots: ') and 'sample(s) in the kernel are named [kernel], not by function' in n and 'once 50 of its samples' in n for n in d['notes']) and 'in [kernel] ([kernel])' not in d['verdict']['advice']")" = True
else
	skip "a sample in the kernel is named by its function" \
		"/proc/kallsyms shows no addresses here (kptr_restrict, or not root): kernel samples stay [kernel]"
	skip "the kernel's samples before its names were read: a note says why" \
		"/proc/kallsyms shows no addresses here (kptr_restrict, or not root): kernel samples stay [kernel]"
fi
