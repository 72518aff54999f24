#!/bin/sh
# test_hotspot_lines.sh: native functions named with their source "file:line" from DWARF
# (libdw, opened with dlopen): a C program with two noinline functions built -g -O2 shows
# each with the line its definition starts on (grepped from the source); a stripped copy
# keeps its file's name and offsets; the stripped copy with its debug file under
# /usr/lib/debug/.build-id (a private tmpfs there) gets names and lines back; with libdw
# unloadable (an empty libdw.so.1 first in the library path) the report is whole, the
# functions keep their file's name and a note says why. A process in a container of its own
# (a mount namespace, pivot_root into a tmpfs) gets its lines though it has ended when they
# are read (its root is held open), also where cperfwatch itself runs in a chroot (as in CI's
# fresh root). And the vDSO, which no file holds:
# a loop on clock_gettime shows it by name, read from the process's memory.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 10
J() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

cat >"$SCRATCH/lines.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;

__attribute__((noinline)) static void work_heavy(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	sink = x;
}

__attribute__((noinline)) static void work_light(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + (i ^ 7);
	sink = x;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2);
	while (now() < end) {
		work_heavy(70000);
		work_light(30000);
	}
	return 0;
}
C
cd "$SCRATCH" || exit 1
if ! cc -g -O2 -o lines lines.c; then
	skip_all "no C compiler"
fi
heavy_line=$(grep -n 'static void work_heavy' lines.c | cut -d: -f1)
light_line=$(grep -n 'static void work_light' lines.c | cut -d: -f1)
# FILE NAME-PREFIX: the file the report gives the first function whose name starts so.
file_of() { J "$1" "next((f['file'] for f in d['hotspots']['functions'] if f['name'].startswith('$2')), None)"; }
has_libdw() { /sbin/ldconfig -p 2>/dev/null | grep -q 'libdw\.so\.1 '; }

# --- debug information in the binary itself ---
if has_libdw; then
	"$CPW" -j -o lines.json -- ./lines 1.5
	"$CPW" -o lines.txt -- ./lines 1.5
	check "work_heavy at lines.c:$heavy_line, work_light at lines.c:$light_line (JSON)" \
		test "$(file_of lines.json work_heavy) $(file_of lines.json work_light)" = "lines.c:$heavy_line lines.c:$light_line"
	check "the text report's Hotspots: 'work_heavy...  lines.c:$heavy_line'" \
		grep -Eq "work_heavy[^ ]* +lines\.c:$heavy_line " lines.txt
else
	missing "work_heavy at its declaration line (JSON)" libdw1
	missing "the text report's Hotspots show file:line" libdw1
fi

# --- stripped: its file's name, no line, no crash ---
strip -o lines_stripped lines
"$CPW" -j -o s.json -- ./lines_stripped 1.5
rc=$?
check "a stripped copy: exit 0, its code one row [lines_stripped] in file lines_stripped, no line" sh -c "test $rc = 0 &&
	/usr/bin/python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))[\"hotspots\"][\"functions\"]; \
	mine=[x for x in f if x[\"file\"].startswith(\"lines_stripped\")]; \
	sys.exit(len(mine) != 1 or mine[0][\"name\"] != \"[lines_stripped]\" or mine[0][\"file\"] != \"lines_stripped\")' s.json"

# --- the stripped copy with its debug file in /usr/lib/debug/.build-id ---
bid=$(readelf -n lines_stripped 2>/dev/null | awk '/Build ID:/ { print $3 }')
if ! is_root || ! command -v unshare >/dev/null 2>&1 || ! [ -d /usr/lib/debug ] || [ -z "$bid" ]; then
	skip "a stripped copy with its /usr/lib/debug/.build-id file: names and lines" \
		"needs root, unshare, /usr/lib/debug and a build-id (a private tmpfs is mounted there)"
elif ! has_libdw; then
	missing "a stripped copy with its /usr/lib/debug/.build-id file: names and lines" libdw1
else
	objcopy --only-keep-debug lines lines.debug
	dir=$(echo "$bid" | cut -c1-2)
	rest=$(echo "$bid" | cut -c3-)
	unshare -m --propagation private sh -c "mount -t tmpfs cpw-test /usr/lib/debug &&
		mkdir -p /usr/lib/debug/.build-id/$dir && cp lines.debug /usr/lib/debug/.build-id/$dir/$rest.debug &&
		\"$CPW\" -j -o d.json -- ./lines_stripped 1.5"
	check "a stripped copy with its /usr/lib/debug/.build-id file: work_heavy named, at lines.c:$heavy_line" \
		test "$(file_of d.json work_heavy)" = "lines.c:$heavy_line"
fi

# --- libdw that cannot be loaded: an empty libdw.so.1 found first ---
mkdir nolibdw && : >nolibdw/libdw.so.1
LD_LIBRARY_PATH="$SCRATCH/nolibdw" "$CPW" -j -o n.json -- ./lines 1.5
rc=$?
check "libdw unloadable: exit 0, work_heavy named, in file lines (no line)" \
	test "$rc $(file_of n.json work_heavy)" = "0 lines"
check "libdw unloadable: one note says source lines were not read and why" \
	test "$(J n.json "sum(1 for n in d['notes'] if n.startswith('hotspots: source lines not read: libdw.so.1 could not be loaded') and 'install libdw1' in n)")" = 1
check "the JSON document is valid against the schema" validate_json n.json

# --- a container: its files are reached through its root, held open after it ended ---
# container_case LABEL OUT [chroot]: the program in a container; with "chroot", cperfwatch
# itself runs in a chroot (a bind of / in a mount namespace of its own), as CI's fresh root
# is entered: the kernel then writes the container's root and its files' paths from
# cperfwatch's side of the chroot ("/ROOT/lines"), and the rest of the path is the file.
container_case() {
	label="$1 (pivot_root): work_heavy at lines.c:$heavy_line, read after it ended"
	out=$2 how=${3:-}
	if ! is_root || ! command -v unshare >/dev/null 2>&1 || ! command -v pivot_root >/dev/null 2>&1; then
		skip "$label" "needs root, unshare and pivot_root"
		return
	elif ! [ -e lines_static ] && ! cc -g -O2 -static -o lines_static lines.c 2>/dev/null; then
		skip "$label" "no static C library (libc.a)"
		return
	elif ! has_libdw; then
		missing "$label" libdw1
		return
	fi
	rm -rf ctr && mkdir ctr
	# The program runs in a tmpfs that only its mount namespace has: once it ends, no path
	# of cperfwatch's leads to it.
	set -- "$CPW" -j -o "$SCRATCH/$out" -- unshare -m --propagation private sh -c "mount -t tmpfs cpw-test '$SCRATCH/ctr' &&
		cp '$SCRATCH/lines_static' '$SCRATCH/ctr/lines' && mkdir '$SCRATCH/ctr/old' && cd '$SCRATCH/ctr' &&
		pivot_root . old && exec /lines 1.5"
	if [ "$how" = chroot ]; then
		mkdir -p rt
		unshare -m --propagation private sh -c 'mount --rbind / "$0" && exec chroot "$0" "$@"' "$SCRATCH/rt" "$@" 2>ctr.err
	else
		"$@" 2>ctr.err
	fi
	rc=$?
	if [ "$rc" != 0 ] && grep -q "pivot_root" ctr.err; then
		# pivot_root refuses where the current root is not a mount point of this namespace
		# as the kernel sees it (a chroot of a plain directory): no container here.
		skip "$label" "pivot_root refused here: $(grep pivot_root ctr.err | head -n 1)"
		return
	fi
	check "$label" test "$(file_of "$out" work_heavy)" = "lines.c:$heavy_line"
	[ "$(file_of "$out" work_heavy)" = "lines.c:$heavy_line" ] ||
		echo "# exit $rc; work_heavy in $(file_of "$out" work_heavy); stderr: $(head -c 300 ctr.err)"
}
container_case "a container's program" c.json
container_case "a container's program, cperfwatch in a chroot" cr.json chroot

# --- the vDSO: an ELF image the kernel maps into every process, read from its memory ---
cat >vdso.c <<'C'
#include <time.h>
int main(void)
{
	struct timespec t, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 2;
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (t.tv_sec < end.tv_sec || (t.tv_sec == end.tv_sec && t.tv_nsec < end.tv_nsec));
	return 0;
}
C
cc -O2 -o vdso vdso.c
"$CPW" -j -o v.json -- ./vdso
vdso=$(J v.json "sorted(f['name'] for f in d['hotspots']['functions'] if f['file'] == '[vdso]')")
case "$vdso" in
"[]") skip "a loop on clock_gettime: the vDSO's function named" \
	"no sample in the vDSO (clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) is not read there)" ;;
*) check "a loop on clock_gettime: the vDSO's function named, never [vdso] alone ($vdso)" \
	/usr/bin/python3 -c 'import sys; n = eval(sys.argv[1]); sys.exit(not n or not all("clock_gettime" in x for x in n))' "$vdso" ;;
esac
done_testing
