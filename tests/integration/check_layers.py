#!/usr/bin/env python3
"""check_layers.py: the layering rule of doc/HACKING.md, read off the sources.

    check_layers.py SRCDIR

Prints one line per breach and exits 1 when there is any, 0 when there is none:

- an include going up: a file may include headers of its own layer or of the layers
  below it (ORDER, lowest first), never of a layer above;
- a cycle of modules, of any length: module A includes a header of B, ..., and some
  module includes a header of A again (a module is a .c file and its header; a file that
  includes its folder's *_private.h belongs to the module named by that header, so the
  files of one module split over several files are one module here);
- a *_private.h included from another folder (its module's unit tests, under tests/unit,
  may include it: only src/ is read here);
- a string literal outside src/source/ naming a path under /proc or /sys ("/proc/%d/stat",
  "/sys/fs/cgroup"), or a path format under a proc or cgroup root ("%s/%d/stat",
  "%s/memory.max"): only the sources read the kernel (LITERALS_OK lists the exceptions);
- a folder under src/ that is in no layer, and an include of a file that is not there;
- an exported function or variable not named after the header that declares it
  (cpw_<header>_..., the module's name for a *_private.h: cpw_proc_parse_stat in
  source/proc/proc_parse.h, cpw_perf_new in source/perf/perf_private.h's module);
- a header whose include guard is not CPW_<its path under src/> (CPW_SOURCE_PROC_PROC_PARSE_H).

The layer of a file is the first folder of its path under src/ (any folder below
src/source/ is the source layer); options.h, exitcodes.h and counter_values.h at the top
of src/ are base, the other files there (main.c, cli.c, cli.h) main. Includes are written relative to src/.
"""
import fnmatch
import os
import re
import sys

# Lowest first: the options header, then helpers, ..., the modes and main() on top. A
# file may include from its own layer and the layers below, so any layer may use its own
# kind (util helpers each other, report writers the exposition they share).
ORDER = ["base", "util", "source", "model", "classify", "report", "view", "session", "modes", "main"]
RANK = {name: i for i, name in enumerate(ORDER)}
TOP_BASE = ("options.h", "exitcodes.h", "counter_values.h")

# A kernel path in a string literal: one under /proc or /sys, or a format under a proc
# root passed in (a pid's folder, the files at the top of /proc) or under a cgroup's
# folder (its interface files).
ABS_PATH = re.compile(r"^/(proc|sys)(/\S*)?$")
CONV = r"%[-#0 +'0-9.*]*(?:hh|h|ll|l|j|z|t)?[diu]"
PROC_TOP = r"self|thread-self|pressure|sys|net|vmstat|meminfo|stat|loadavg|schedstat|diskstats|mounts|mountinfo|cgroups|kallsyms|modules|cpuinfo|uptime"
CGROUP_FILE = r"(?:cgroup|memory|cpu|cpuset|io|pids|hugetlb|rdma|misc)\.[a-z_.]+"
ROOTED_PATH = re.compile(rf"^%s/(?:(?:{CONV}|{PROC_TOP})(?:/\S*)?|{CGROUP_FILE})$")
# A label that names a kernel interface for a reader ("/proc/PID/task/TID/schedstat"):
# a part in capitals is a placeholder, and no such path can be opened.
PLACEHOLDER = re.compile(r"/[A-Z][A-Z0-9_]*(?=/|$)")

# Literals outside src/source/ that name a kernel path and open nothing, each with why:
# (file under src/, fnmatch pattern; the literal, a regular expression it must match whole).
LITERALS_OK = [
    ("cli.c", r"/proc|/sys/fs/cgroup",
     "the defaults of the proc and cgroup roots (settings): the sources are handed them and alone open under them"),
    ("classify/classify.c", r"/proc/pressure/(cpu|io|memory)",
     "the verdict's label of where its stall figures came from; classify opens nothing (check_calls.py)"),
]


def layer(rel):
    """The layer of a path relative to src/ (also of an object relative to the build's src/)."""
    if "/" in rel:
        return rel.split("/", 1)[0]
    if rel in TOP_BASE:
        return "base"
    return "main"  # main.c, cli.c, cli.h: the entry point and its command line


def stem_module(rel):
    """A file's own module: its path without the extension and without a _private suffix."""
    stem = rel.rsplit(".", 1)[0]
    return stem[: -len("_private")] if stem.endswith("_private") else stem


def strip_comments(text):
    """The text with comments blanked (newlines kept) and the string literals found:
    (text, [(line, literal)]), adjacent literals joined into one as the compiler does."""
    out = []
    literals = []
    i, n, line = 0, len(text), 1
    joining = False  # the last token was a literal: the next one continues it
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            chunk = text[i:j]
            out.append(re.sub(r"[^\n]", " ", chunk))
            line += chunk.count("\n")
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            body = text[i + 1 : min(j, n)]
            out.append(text[i : j + 1])
            if c == '"':
                if joining:
                    literals[-1] = (literals[-1][0], literals[-1][1] + body)
                else:
                    literals.append((line, body))
                joining = True
            else:
                joining = False
            i = j + 1
            continue
        if c == "\n":
            line += 1
        if not c.isspace():
            joining = False
        out.append(c)
        i += 1
    return "".join(out), literals


def kernel_path(literal):
    """Whether a literal's text names a kernel path (see ABS_PATH, ROOTED_PATH)."""
    if PLACEHOLDER.search(literal):
        return False
    return bool(ABS_PATH.match(literal) or ROOTED_PATH.match(literal))


def literal_ok(rel, literal):
    return any(fnmatch.fnmatch(rel, f) and re.fullmatch(p, literal) for f, p, _ in LITERALS_OK)


def read_sources(src):
    """{path relative to src/: text} of every .c and .h file under src/."""
    files = {}
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    files[os.path.relpath(path, src)] = f.read()
    return files


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"]+)"|<([^>]+)>)', re.M)


def includes_of(src, code):
    """The project headers a file includes, relative to src/: "x" always, <x> when src/x is
    a file (AM_CPPFLAGS puts src/ on the include path)."""
    found = []
    for quoted, angled in INCLUDE.findall(code):
        if quoted and quoted != "config.h":  # autoconf's, in the build tree
            found.append(quoted)
        elif angled and os.path.isfile(os.path.join(src, angled)):
            found.append(angled)
    return found


def modules_of(files, includes):
    """{file: module}: its stem's module, or for a .c file that includes a *_private.h of
    its own folder, the module that private header belongs to."""
    mod = {}
    for rel in files:
        mod[rel] = stem_module(rel)
        if rel.endswith(".c"):
            for inc in includes[rel]:
                if inc.endswith("_private.h") and os.path.dirname(inc) == os.path.dirname(rel):
                    mod[rel] = stem_module(inc)
                    break
    return mod


def cycles(graph):
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, parts = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    part.append(w)
                    if w == node:
                        break
                if len(part) > 1:
                    parts.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(parts)


def shortest_cycle(graph, start, part):
    """A shortest path start -> ... -> start inside one strongly connected part."""
    inside = set(part)
    prev = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] if v != start else [start, start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start, start]


# A top-level declaration of an exported function or variable: its name, before "(" or "["
# or ";" (types, struct and enum tags, are not names of the module's exports).
EXPORT = re.compile(r"(?<!struct )(?<!enum )(?<!union )\b(cpw_\w+)\s*(\(|\[|;|=)")


def exported_names(code):
    """The names a header declares at file level (brace depth 0, not typedefs, not static
    inline helpers, not macros)."""
    depth, top = 0, []
    for ch in code:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            top.append(ch)
    text = "\n".join(l for l in "".join(top).split("\n") if not l.lstrip().startswith("#"))
    names = []
    for stmt in text.split(";"):
        s = stmt.strip()
        if not s or s.startswith(("typedef", "static")):
            continue
        m = EXPORT.search(s + ";")
        if m and not re.match(r"(struct|enum|union)\s+\w+\s*$", s):
            names.append(m.group(1))
    return names


def guard_of(rel):
    return "CPW_" + re.sub(r"[^A-Za-z0-9]", "_", rel).upper()


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_layers.py SRCDIR", file=sys.stderr)
        return 2
    src = sys.argv[1]
    files = read_sources(src)
    breaches = []
    code = {}
    literals = {}
    for rel, text in files.items():
        code[rel], literals[rel] = strip_comments(text)
    includes = {rel: includes_of(src, code[rel]) for rel in files}
    mod = modules_of(files, includes)

    for folder in sorted({layer(rel) for rel in files} - set(RANK)):
        breaches.append(f"{folder}/: a folder under src/ in no layer (ORDER in check_layers.py, "
                        "the table of doc/HACKING.md)")

    graph = {}
    evidence = {}
    for rel in sorted(files):
        a = layer(rel)
        for inc in includes[rel]:
            if inc not in files:
                breaches.append(f"{rel}: includes {inc}, which is not under src/")
                continue
            b = layer(inc)
            if a in RANK and b in RANK and RANK[b] > RANK[a]:
                breaches.append(f"{rel} ({a}) includes {inc} from the layer above ({b})")
            if inc.endswith("_private.h") and os.path.dirname(inc) != os.path.dirname(rel):
                breaches.append(f"{rel} includes {inc}, the private header of another folder "
                                f"({os.path.dirname(inc) or 'src'}/)")
            ma, mb = mod[rel], mod.get(inc, stem_module(inc))
            if ma != mb:
                graph.setdefault(ma, set()).add(mb)
                evidence.setdefault((ma, mb), f"{rel} includes {inc}")

    for part in cycles(graph):
        path = shortest_cycle(graph, part[0], part)
        why = "; ".join(evidence[(x, y)] for x, y in zip(path, path[1:]))
        rest = sorted(set(part) - set(path))
        more = f"; the same knot holds {', '.join(rest)}" if rest else ""
        breaches.append(f"cycle of {len(part)} modules: {' -> '.join(path)} ({why}{more})")

    for rel in sorted(files):
        if layer(rel) == "source":
            continue
        for line, lit in literals[rel]:
            if kernel_path(lit) and not literal_ok(rel, lit):
                breaches.append(f'{rel}:{line}: the kernel path "{lit}" outside src/source/ '
                                "(only the sources read the kernel)")

    for rel in sorted(files):
        if not rel.endswith(".h"):
            continue
        prefix = "cpw_" + stem_module(rel).rsplit("/", 1)[-1]
        for name in exported_names(code[rel]):
            if name != prefix and not name.startswith(prefix + "_"):
                breaches.append(f"{rel}: {name} is not named after its header ({prefix}_...)")
        m = re.search(r"^#ifndef (\w+)\n#define \1\b", files[rel], re.M)
        if not m or m.group(1) != guard_of(rel):
            breaches.append(f"{rel}: its include guard is {m.group(1) if m else 'missing'}, "
                            f"not {guard_of(rel)}")

    for line in breaches:
        print(line)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
