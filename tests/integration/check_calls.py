#!/usr/bin/env python3
"""check_calls.py: no two object files of the program call each other (doc/HACKING.md).

Reads the symbols each member of BUILDDIR/libcperfwatch.a defines and uses (nm: the
archive holds exactly the program's current objects, where a reused build tree may keep
objects of files since moved) and prints each pair of files that call each other; exits 1
when there is any.

    check_calls.py BUILDDIR
"""
import collections
import subprocess
import sys


def archive_symbols(archive):
    """{member: (defined, used)} for every member of the archive."""
    members = {}
    out = subprocess.run(["nm", archive], capture_output=True, text=True, check=True).stdout
    current = None
    for line in out.splitlines():
        if line.endswith(".o:"):
            current = line[:-1]
            members[current] = (set(), set())
            continue
        parts = line.split()
        if current is None:
            continue
        if len(parts) == 3 and parts[1] in "TDBR":
            members[current][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            members[current][1].add(parts[1])
    return members


def main():
    members = archive_symbols(sys.argv[1] + "/libcperfwatch.a")
    if not members:
        print("no objects in " + sys.argv[1] + "/libcperfwatch.a")
        return 1
    defs = {m: d for m, (d, _) in members.items()}
    uses = {m: u for m, (_, u) in members.items()}
    owner = {s: o for o, d in defs.items() for s in d}
    calls = collections.defaultdict(set)
    for o, used in uses.items():
        for s in used:
            if owner.get(s, o) != o:
                calls[o].add(owner[s])
    bad = 0
    for a in sorted(calls):
        for b in sorted(calls[a]):
            if a < b and a in calls[b]:
                print(f"{a} and {b} call each other")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
