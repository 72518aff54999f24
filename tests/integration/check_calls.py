#!/usr/bin/env python3
"""check_calls.py: what the program's objects call keeps to doc/HACKING.md's layers.

    check_calls.py BUILDDIR          checks; one line per breach, exit 1 when there is any
    check_calls.py --list BUILDDIR   prints the archive's objects as paths under BUILDDIR
                                     (and on stderr, exit 1, the members it cannot find)

The objects are the members of BUILDDIR/libcperfwatch.a (it holds exactly the program's
current objects, where a reused build tree may keep objects of files since moved), each
found under BUILDDIR/src by its bytes (two members may share a name: model/waits.o and
source/waits.o), and BUILDDIR/src/main.o when it is there. Their layer is that of their
source (check_layers.py's layer()). From their symbols (nm):

- an object outside src/source/ that imports a call reading the kernel (KERNEL_CALLS:
  opening or reading files, directories and links, sockets, raw syscalls), unless ALLOWED
  lets that object make that call, with why;
- an object that calls a function defined in an object of a higher layer (a local extern
  declaration reaches up without including anything);
- objects that call each other around a cycle of any length (two files that call each
  other, or three, ...), even within a module or a layer.
"""
import collections
import fnmatch
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (read-only under distcheck)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import RANK, cycles, layer, shortest_cycle  # noqa: E402  (one list of the layers)

# Calls that read the kernel, by their plain names (base_call() maps the fortified and
# 64-bit variants to these).
KERNEL_CALLS = {
    # opening files and directories
    "open", "openat", "openat2", "creat", "fopen", "freopen", "opendir", "fdopendir",
    "scandir", "scandirat", "name_to_handle_at", "open_by_handle_at",
    # reading them and their links
    "read", "pread", "readv", "preadv", "preadv2", "readlink", "readlinkat", "readdir",
    "getdents",
    # asking after paths and file systems
    "stat", "lstat", "fstatat", "statx", "access", "faccessat", "faccessat2", "statfs",
    "fstatfs", "statvfs", "fstatvfs",
    # sockets, raw system calls, device controls, other processes' memory
    "socket", "syscall", "ioctl", "ptrace", "process_vm_readv",
}
# glibc's older stat entry points.
XSTAT = {"__xstat": "stat", "__lxstat": "lstat", "__fxstatat": "fstatat"}

# The objects outside src/source/ that may make some of those calls, and why. Each entry:
# (object path under the build's src/, an fnmatch pattern; the calls it may import; why).
ALLOWED = [
    ("report/output.o", {"open", "openat", "lstat", "stat", "access"},
     "the report's output file: -o FILE written under a temporary name beside it, never through a symlink"),
    ("report/series.o", {"open", "lstat"},
     "--series FILE: the samples written in place as they are taken, never through a symlink nor into a FIFO"),
    # The pattern follows the terminal's lifecycle when view/tui.c is split (tui_screen.c);
    # the other tui*.o files get no more than these two calls.
    ("view/tui*.o", {"fopen", "open", "ioctl"},
     "the terminal: the view's lifecycle opens /dev/tty and asks its size (TIOCGWINSZ)"),
    ("modes/launch.o", {"access", "stat", "read", "syscall"},
     "launch: finds the command in PATH, clone3 into its cgroup, the child waits at the gate pipe"),
    ("main.o", {"open"},
     "main(): opens /dev/null on whichever of fds 0-2 is closed"),
    ("modes/merge.o", {"fopen"},
     "--merge reads the JSON reports named on its command line: cperfwatch's files, not the kernel's"),
]


def base_call(sym):
    """The plain name of a C library call: __open_2 -> open, __pread64_chk -> pread,
    open64 -> open, __xstat64 -> stat."""
    s = sym.split("@", 1)[0]
    m = re.fullmatch(r"__(\w+?)(?:_chk|_2)", s)
    if m:
        s = m.group(1)
    if s.endswith("64") and (s[:-2] in KERNEL_CALLS or s[:-2] in XSTAT):
        s = s[:-2]
    return XSTAT.get(s, s)


def allowed(obj, call):
    return any(fnmatch.fnmatch(obj, pat) and call in calls for pat, calls, _ in ALLOWED)


def archive_members(path):
    """[(name, bytes)] of an ar archive's members, in order (GNU and thin archives)."""
    with open(path, "rb") as f:
        data = f.read()
    thin = data.startswith(b"!<thin>\n")
    if not thin and not data.startswith(b"!<arch>\n"):
        raise ValueError(f"{path} is not an ar archive")
    members, names, pos = [], b"", 8
    while pos + 60 <= len(data):
        hdr = data[pos : pos + 60]
        name = hdr[:16].decode("ascii", "replace").rstrip()
        size = int(hdr[48:58].decode("ascii").strip() or 0)
        body_at = pos + 60
        if name in ("/", "/SYM64/"):  # the symbol index
            pos = body_at + size + (size & 1)
            continue
        if name == "//":  # long names
            names = data[body_at : body_at + size]
            pos = body_at + size + (size & 1)
            continue
        if re.fullmatch(r"/\d+", name):
            start = int(name[1:])
            end = names.index(b"/\n", start)
            name = names[start:end].decode()
        elif name.endswith("/"):
            name = name[:-1]
        if thin:  # the member's bytes are in the file it names, beside the archive
            with open(os.path.join(os.path.dirname(path), name), "rb") as f:
                members.append((name, f.read()))
            pos = body_at
        else:
            members.append((name, data[body_at : body_at + size]))
            pos = body_at + size + (size & 1)
    return members


def program_objects(builddir):
    """([paths relative to BUILDDIR/src of the archive's objects, in order], [breaches])."""
    srcdir = os.path.join(builddir, "src")
    by_name = collections.defaultdict(list)
    for root, dirs, names in os.walk(srcdir):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".o"):
                by_name[name].append(os.path.join(root, name))
    objects, breaches = [], []
    for name, body in archive_members(os.path.join(builddir, "libcperfwatch.a")):
        found = None
        for cand in by_name.get(os.path.basename(name), ()):
            with open(cand, "rb") as f:
                if f.read() == body:
                    found = os.path.relpath(cand, srcdir)
                    break
        if found is None:
            breaches.append(f"libcperfwatch.a: member {name} is no object under {srcdir} (a stale build?)")
        else:
            objects.append(found)
    return objects, breaches


def symbols(srcdir, objects):
    """({object: (defined, used)} from nm, [what nm could not read])."""
    table = {o: (set(), set()) for o in objects}
    nm = subprocess.run(["nm", "-A", "-P"] + objects, cwd=srcdir, capture_output=True, text=True)
    errors = [f"nm in {srcdir}: {line}" for line in nm.stderr.splitlines()] if nm.returncode else []
    if nm.returncode and not errors:
        errors.append(f"nm in {srcdir}: exit status {nm.returncode}")
    for line in nm.stdout.splitlines():
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if obj not in table or len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind in ("U", "w"):
            table[obj][1].add(sym)
        elif kind in "TDBRCGSVWi" and not sym.startswith("."):
            table[obj][0].add(sym)
    return table, errors


def main():
    args = sys.argv[1:]
    listing = args[:1] == ["--list"]
    if listing:
        args = args[1:]
    if len(args) != 1 or not os.path.isfile(os.path.join(args[0], "libcperfwatch.a")):
        print("usage: check_calls.py [--list] BUILDDIR (which holds libcperfwatch.a)", file=sys.stderr)
        return 2
    builddir = args[0]
    srcdir = os.path.join(builddir, "src")
    objects, breaches = program_objects(builddir)
    if listing:
        for o in objects:
            print("src/" + o)
        for line in breaches:
            print(line, file=sys.stderr)
        return 1 if breaches else 0
    if not objects:
        breaches.append(f"no objects in {builddir}/libcperfwatch.a")
    if os.path.isfile(os.path.join(srcdir, "main.o")):
        objects.append("main.o")
    table, errors = symbols(srcdir, objects) if objects else ({}, [])
    breaches += errors
    owner = {}
    for o, (defined, _) in table.items():
        for s in defined:
            owner.setdefault(s, o)

    for folder in sorted({layer(o) for o in objects} - set(RANK)):
        breaches.append(f"{folder}/: objects of a folder under src/ in no layer (ORDER in check_layers.py)")

    calls = collections.defaultdict(set)
    for o in objects:
        defined, used = table[o]
        lo = layer(o)
        if lo != "source":
            imported = {base_call(s) for s in used if s not in defined}
            bad = sorted(c for c in imported & KERNEL_CALLS if not allowed(o, c))
            if bad:
                breaches.append(f"{o} ({lo}) imports {', '.join(bad)}: only src/source/ reads the kernel "
                                "(ALLOWED in check_calls.py)")
        up = collections.defaultdict(set)
        for s in used:
            p = owner.get(s)
            if p is None or p == o:
                continue
            calls[o].add(p)
            lp = layer(p)
            if lo in RANK and lp in RANK and RANK[lp] > RANK[lo]:
                up[p].add(s)
        for p in sorted(up):
            breaches.append(f"{o} ({lo}) calls {', '.join(sorted(up[p]))} of {p} ({layer(p)}), "
                            "a layer above")

    for part in cycles(calls):
        path = shortest_cycle(calls, part[0], part)
        why = "; ".join(f"{x} calls {min(table[x][1] & table[y][0])}" for x, y in zip(path, path[1:]))
        rest = sorted(set(part) - set(path))
        more = f"; the same knot holds {', '.join(rest)}" if rest else ""
        breaches.append(f"call cycle of {len(part)} objects: {' -> '.join(path)} ({why}{more})")

    for line in breaches:
        print(line)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
