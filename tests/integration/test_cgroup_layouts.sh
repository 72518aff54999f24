#!/bin/sh
# test_cgroup_layouts.sh: the command's own cgroup on the layouts other hosts have, made
# here by unmounting hierarchies in a private mount namespace (the host's mounts are not
# touched): only a v1 cpuacct hierarchy, only a v1 memory hierarchy, only cgroup v2. In
# each, the command and its children run inside the group cperfwatch made, the report says
# what is missing, and no group is left behind. Needs root, unshare and the hierarchy the
# layout keeps; each case skips, saying why, where they are missing.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 9

# mounts TYPE: the mount points of cgroup (v1) or cgroup2 filesystems, "mountpoint options"
# a line each (from /proc/self/mountinfo: field 5 is the mount point, the super options
# follow the filesystem type and source after the "-").
mounts() {
	awk -v t="$1" '{ for (i = 7; i <= NF; i++) if ($i == "-") break
		if ($(i + 1) == t) print $5, $(i + 3) }' /proc/self/mountinfo
}
# v1_mount CONTROLLER: the mount point of the v1 hierarchy with that controller.
v1_mount() {
	mounts cgroup | awk -v c="$1" '{ n = split($2, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) { print $1; exit } }'
}

# layout NAME KEEP_V1 KEEP_V2: runs a two-level command under cperfwatch with every cgroup
# mount unmounted but the v1 hierarchy of controller KEEP_V1 ("" for none) and, when
# KEEP_V2 is yes, the v2 one; then checks membership, notes and clean-up (3 tests).
layout() {
	name=$1 keep_v1=$2 keep_v2=$3
	why=""
	is_root || why="needs root (to unmount in a private mount namespace and make groups)"
	[ -z "$why" ] && ! command -v unshare >/dev/null 2>&1 && why="unshare is not installed (util-linux)"
	[ -z "$why" ] && ! unshare --mount --propagation private true 2>/dev/null &&
		why="no private mount namespace allowed here (a container without CAP_SYS_ADMIN?)"
	keep=""
	if [ -z "$why" ] && [ -n "$keep_v1" ]; then
		keep=$(v1_mount "$keep_v1")
		[ -n "$keep" ] || why="no v1 $keep_v1 hierarchy mounted here"
		# Co-mounted with memory (or cpuacct), it would not be the layout named.
		[ -n "$keep" ] && [ "$keep_v1" = cpuacct ] && v1_mount memory | grep -qx "$keep" &&
			why="cpuacct is co-mounted with memory here"
	fi
	v2=$(mounts cgroup2 | awk '{ print $1; exit }')
	if [ -z "$why" ] && [ "$keep_v2" = yes ]; then
		[ -n "$v2" ] || why="no cgroup v2 hierarchy mounted here"
		keep="$keep $v2"
	fi
	if [ -z "$why" ] && [ "$keep_v2" = yes ] && [ "$v2" = /sys/fs/cgroup ] && [ -n "$(mounts cgroup)" ]; then
		why="v1 hierarchies are mounted below the v2 one: they cannot go alone"
	fi
	if [ -n "$why" ]; then
		skip "$name: the command and its child run in cperfwatch's group" "$why"
		skip "$name: the report says what the layout lacks" "$why"
		skip "$name: no group is left behind" "$why"
		return
	fi
	gone=$( (mounts cgroup; mounts cgroup2) | awk '{ print $1 }' | while read -r m; do
		case " $keep " in *" $m "*) ;; *) echo "$m" ;; esac
	done | sort -r | tr '\n' ' ')
	out="$SCRATCH/$name"
	mkdir -p "$out"
	# The command prints its own groups and a child's; cperfwatch's pid names the group.
	# shellcheck disable=SC2016
	CPW="$CPW" OUT="$out" GONE="$gone" unshare --mount --propagation private sh -c '
		for m in $GONE; do umount "$m" || exit 99; done
		echo $$ >"$OUT/pid"
		exec "$CPW" --json -o "$OUT/r.json" -- sh -c "cat /proc/self/cgroup >\"$OUT/self\"; sh -c \"cat /proc/self/cgroup\" >\"$OUT/child\""
	' 2>"$out/err"
	rc=$?
	pid=$(cat "$out/pid" 2>/dev/null)
	why=""
	[ $rc = 99 ] && why="cannot unmount $gone here"
	# cperfwatch could not make a group in the layout (a read-only cgroupfs): its notes say
	# so, and the layout is not tested.
	[ -z "$why" ] && grep -q 'not run in a cgroup of its own' "$out/r.json" 2>/dev/null &&
		why="cperfwatch cannot make a group here: $(sed -n 's/.*\(not run in a cgroup of its own[^"]*\).*/\1/p' "$out/r.json" | head -1)"
	if [ -n "$why" ]; then
		skip "$name: the command and its child run in cperfwatch's group" "$why"
		skip "$name: the report says what the layout lacks" "$why"
		skip "$name: no group is left behind" "$why"
		return
	fi
	# The line of the kept hierarchy: "N:controllers:path", v2's is "0::path".
	if [ -n "$keep_v1" ]; then
		pattern="^[0-9]*:([^:]*,)?$keep_v1(,[^:]*)?:.*/cperfwatch-$pid\$"
	else
		pattern="^0::.*/cperfwatch-$pid\$"
	fi
	check "$name: the command and its child run in cperfwatch's group (rc $rc, pid ${pid:-?})" \
		sh -c "test $rc = 0 && grep -Eq '$pattern' '$out/self' && grep -Eq '$pattern' '$out/child'"
	notes=$(/usr/bin/python3 -c 'import json,sys; print(" | ".join(json.load(open(sys.argv[1]))["notes"]))' "$out/r.json" 2>/dev/null)
	case "$name" in
	v1-cpuacct) want="no memory controller available to our cgroup" ;;
	v1-memory) want="no cgroup v2 hierarchy" ;;
	*) want="" ;;
	esac
	if [ -n "$want" ]; then
		check "$name: the report says what the layout lacks ('$want')" sh -c "printf '%s' \"\$1\" | grep -q \"\$2\"" sh "$notes" "$want"
	else
		# v2 alone: the group is made whatever its controllers, and a note says of a missing
		# memory controller only where it is missing.
		has_mem=no
		grep -qw memory "$v2/cgroup.controllers" 2>/dev/null && has_mem=yes
		if [ $has_mem = no ]; then
			check "$name: the report says what the layout lacks (no memory controller)" \
				sh -c "printf '%s' \"\$1\" | grep -q 'no memory controller'" sh "$notes"
		else
			check "$name: a v2 group with memory needs no note about it" \
				sh -c "! printf '%s' \"\$1\" | grep -q 'no memory controller'" sh "$notes"
		fi
	fi
	left=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "cperfwatch-${pid:-?}" 2>/dev/null)
	check "$name: no group is left behind (${left:-none}; pid ${pid:-?})" sh -c "test -n '$pid' && test -z '$left'"
}

layout v1-cpuacct cpuacct no
layout v1-memory memory no
layout v2-only "" yes
done_testing
