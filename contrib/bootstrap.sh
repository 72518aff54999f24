#!/bin/sh
# contrib/bootstrap.sh: the README's two command lines, for a fresh Debian 12 machine (root).
#
#   sh contrib/bootstrap.sh run     install what is missing, build, run the bundled example
#   sh contrib/bootstrap.sh check   install what is missing, build, run every test: the plain
#                                   build's suite and the same suite under ASan+UBSan, then
#                                   make distcheck (the release tarball builds and passes its
#                                   own suite); ends with "N passed, N failed, N skipped"
#
# Idempotent: packages already installed are not installed again, builds are incremental.
# Builds happen out of tree in build/ and build-asan/.
set -u
cd "$(dirname "$0")/.." || exit 125
top=$(pwd)

# Build dependencies; the Debian package names are the ones configure names when missing.
BUILD_PKGS="build-essential autoconf automake pkg-config libproc2-dev libpfm4-dev libjson-c-dev libncurses-dev libcunit1-dev python3 man-db"
# Test tools: git (test_dist compares the tarball with what git tracks), GNU time (reference
# figures), htop (benchmark reference), tmux (live view tests), python3-jsonschema (schema
# validation), groff/man-db (man page check), clang + compiler-rt (libFuzzer targets),
# valgrind, strace (no shell is run), util-linux (taskset, setpriv), procps (ps), linux-perf
# (detects a PMU where there is one), jq and python3-yaml (the CI examples), python3-prometheus-client
# (OpenMetrics parsers), bc (test_signals' arithmetic), mount (private mounts in test_counters),
# libxml2-utils (xmllint: the --plot SVG is well-formed), librsvg2-bin (rsvg-convert: it renders),
# and the engines --format prometheus, -o %r and --merge are tested against (all in bookworm):
# prometheus (promtool check metrics), prometheus-node-exporter (its textfile collector),
# prometheus-pushgateway, curl (to push to and scrape them on 127.0.0.1), openmpi-bin (mpirun
# runs cperfwatch per rank in test_mpi_merge), slurm-wlm and munge (test_slurm_merge starts a
# one-node Slurm, munged + slurmctld + slurmd, configured in its scratch directory, and srun
# runs cperfwatch per task), libdw1 (elfutils: test_hotspot_lines reads source file:line
# through it; cperfwatch opens it with dlopen only when a sampled file has debug information,
# an optional runtime dependency that building does not need). Their services are not started by the packages' install in a
# chroot (policy-rc.d where there is one; in .ci/run's bare root, invoke-rc.d says "No init
# system and policy-rc.d missing! Defaulting to block."); the tests start their own on free
# ports of 127.0.0.1, with their own configuration and keys.
# In CI (CI=true) a test whose tool is missing fails rather than skips: add it here.
TEST_PKGS="git time htop tmux python3-jsonschema python3-prometheus-client python3-yaml jq groff-base man-db clang libclang-rt-14-dev valgrind strace util-linux mount procps bc linux-perf bash-completion prometheus prometheus-node-exporter prometheus-pushgateway curl openmpi-bin slurm-wlm munge libxml2-utils librsvg2-bin libdw1"

began=$(date +%s)
say() { printf 'bootstrap: %s (%d s)\n' "$*" $(($(date +%s) - began)) >&2; }

install_missing() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		say "missing packages:$missing (run as root, or install them: apt-get install$missing)"
		return 1
	fi
	say "installing:$missing"
	apt-get update -q >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
}

# The options every plain build is configured with, by either line: `run` then `check`
# must not leave check with a build configured otherwise.
PLAIN_OPTS="--enable-werror"
ASAN_OPTS="--enable-werror --enable-asan"

configure_in() { # DIR [configure options]
	dir=$1; shift
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
		autoreconf -fi >&2 || return 1
	fi
	mkdir -p "$dir"
	# The options it was configured with, as config.status --config prints them (quoted
	# only where needed, as ours never are; -q is not recorded).
	want="$*"
	have=$( [ -x "$dir/config.status" ] && "$dir/config.status" --config 2>/dev/null | tr -d "'")
	# Configure again when the build was configured with other options (by hand, or by an
	# older bootstrap), or when configure changed.
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/config.status" ] || [ "$have" != "$want" ]; then
		again=no
		[ -f "$dir/Makefile" ] && [ "$have" != "$want" ] && again=yes
		[ $again = yes ] && say "$dir: configuring again (was: ${have:-nothing}; now: $want)"
		(cd "$dir" && "$top/configure" -q "$@") >&2 || return 1
		# Other flags: make would keep the objects built with the old ones.
		[ $again = no ] || make -C "$dir" -s clean >&2
	fi
}

build_in() { # DIR
	make -C "$1" -j"$(nproc)" >&2
}

# The ten tests that took longest under DIR, from their results' times (they run one after
# another): where CI's minutes go.
show_slowest() { # DIR
	find "$1" -name '*.trs' -printf '%T@ %p\n' 2>/dev/null | sort -n |
		awk 'NR > 1 { printf "%7.1f s  %s\n", $1 - last, $2 } { last = $1 }' | sort -rn | head -n 10 |
		sed 's/^/    /' >&2
}

# The diagnostics around each failure in the test logs under DIR (a verdict test prints its
# figures before it).
show_failures() { # DIR
	for f in $(find "$1" -name '*.log' 2>/dev/null); do
		grep -q '^not ok' "$f" && { say "failures in $f:"; grep -B6 -A10 '^not ok' "$f" | sed 's/^/    /' >&2; }
	done
}


case "${1:-}" in
run)
	install_missing $BUILD_PKGS || exit 125
	configure_in build $PLAIN_OPTS && build_in build || exit 125
	# Installed (/usr/local), so that cperfwatch is on PATH and `man cperfwatch` finds its page.
	make -C build -s install >&2 || exit 125
	exec cperfwatch -- /usr/bin/python3 contrib/examples/busy.py
	;;
check)
	install_missing $BUILD_PKGS $TEST_PKGS || { echo "0 passed, 1 failed"; exit 1; }
	broken=0
	logs=""
	# A variant configured and built, with its test programs (built in parallel; a build
	# failure is a failure, not zero tests: it used to end in "0 passed, 0 failed" and
	# exit 0). Returns 1 where either failed.
	prepare() { # VARIANT
		opts=$PLAIN_OPTS
		[ "$1" = build-asan ] && opts=$ASAN_OPTS
		if ! { configure_in "$1" $opts && build_in "$1"; }; then
			say "$1: the build failed"
			return 1
		fi
		say "$1: make check"
		if ! make -C "$1" -j"$(nproc)" check TESTS= >&2; then
			say "$1: the tests did not build"
			return 1
		fi
	}
	# One part of a variant's suite: together, the tests that measure no CPU share and
	# time nothing, side by side (Makefile.am's TOGETHER_TESTS: fuzzing, the layers, the
	# tarball...); solo, the rest one at a time (SOLO_TESTS): the verdict tests measure CPU
	# shares and must not compete with each other, or with anything, for the two cores.
	# The ASan suite runs as a fresh Debian console would (no locale: the C locale,
	# TERM=linux), the plain one in the caller's environment (CI: C.UTF-8, TERM=dumb): both
	# are real users' environments.
	suite() { # VARIANT together|solo
		if [ "$1" = build-asan ]; then
			set -- "$1" "$2" env -u LANG -u LANGUAGE -u LC_ALL -u LC_CTYPE TERM=linux
		else
			set -- "$1" "$2" env
		fi
		variant=$1 part=$2
		shift 2
		if [ "$part" = together ]; then
			rm -f "$variant/together-suite.log" "$variant/test-suite.log"
			"$@" make -C "$variant" -j"$(nproc)" check 'TESTS=$(TOGETHER_TESTS)' \
				TEST_SUITE_LOG=together-suite.log >&2 || true
			say "$variant: the side-by-side part done"
		else
			"$@" make -C "$variant" check 'TESTS=$(SOLO_TESTS)' >&2 || true
			for f in together-suite.log test-suite.log; do
				[ -f "$variant/$f" ] && logs="$logs $variant/$f"
			done
			say "$variant: the slowest tests"
			show_slowest "$variant/tests"
			show_failures "$variant/tests"
		fi
	}
	# What measures nothing runs beside what measures nothing: the ASan build beside the
	# plain suite's first part, the release (make distcheck) beside the ASan suite's; each
	# solo part has the machine to itself. One at a time, CI took 21-22 minutes.
	plain=no asan=no
	if prepare build; then plain=yes; else broken=$((broken + 1)); fi
	prepare build-asan >"$top/build-asan.out" 2>&1 &
	asan_pid=$!
	[ $plain = yes ] && suite build together
	if wait $asan_pid; then asan=yes; else broken=$((broken + 1)); fi
	cat "$top/build-asan.out" >&2
	rm -f "$top/build-asan.out"
	[ $plain = yes ] && suite build solo
	# The release: make distcheck makes the tarball, unpacks it read-only, builds it out of
	# tree (--enable-werror), runs its suite (its tests are the unit suites and five that
	# do not measure shares, in parallel), installs and uninstalls it, and checks that
	# distclean leaves nothing. Its suite's counts are not added to the summary (the same
	# tests ran above); a distcheck that fails is one failure.
	if [ $plain = yes ]; then
		say "build: make distcheck, beside the ASan suite's first part"
		make -C build -j"$(nproc)" distcheck 'TESTS=$(DISTCHECK_TESTS)' >"$top/distcheck.out" 2>&1 &
		dist_pid=$!
	fi
	[ $asan = yes ] && suite build-asan together
	if [ $plain = yes ]; then
		if wait $dist_pid; then dist=passed; else dist=failed; fi
		cat "$top/distcheck.out" >&2
		rm -f "$top/distcheck.out"
		say "build: make distcheck $dist"
		if [ $dist = failed ]; then
			broken=$((broken + 1))
			# Its build tree stays after a failure, with the suite's logs.
			for d in build/cperfwatch-*/_build; do show_failures "$d"; done
		fi
	fi
	[ $asan = yes ] && suite build-asan solo
	# The failures once more, last: CI's page shows the end of the log.
	fails=$(for d in build/tests build-asan/tests; do
		find "$d" -name '*.log' 2>/dev/null | xargs -r grep -l '^not ok' 2>/dev/null
	done)
	if [ -n "$fails" ]; then
		say "the failures, again:"
		for f in $fails; do grep -h -A8 '^not ok' "$f" | grep -v '^[A-Z]*: ' | sed "s|^|    ${f%%/*} ${f##*/}: |"; done |
			head -n 30 >&2
	fi
	summary=$(awk -v extra="$broken" '
		/^# PASS:/ { pass += $3 } /^# XFAIL:/ { pass += $3 }
		/^# FAIL:/ { fail += $3 } /^# XPASS:/ { fail += $3 } /^# ERROR:/ { fail += $3 }
		/^# SKIP:/ { skip += $3 }
		END { if (pass + fail + skip == 0) extra++  # no test ran at all: never a pass
		      printf "%d passed, %d failed, %d skipped\n", pass, fail + extra, skip }' $logs /dev/null)
	echo "$summary"
	case "$summary" in *" 0 failed"*) exit 0 ;; *) exit 1 ;; esac
	;;
*)
	echo "usage: sh contrib/bootstrap.sh run|check" >&2
	exit 125
	;;
esac
