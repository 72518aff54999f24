#!/usr/bin/env python3
"""check_layers.py: the layering rule of doc/HACKING.md, read off the sources.

Every file under src/ belongs to a layer (its folder; main.c, cli.c and the headers at the
top of src/ are their own). A file may include headers of its own module, of its own
layer, or of the layers below it; never one above. Also, no two modules may include each
other's headers (a module is a .c file and its header: a cycle between two modules). Prints
one line per breach and exits 1 when there is any.

    check_layers.py SRCDIR
"""
import os
import re
import sys

# Lowest first: the options header, then helpers, ..., the modes and main() on top.
ORDER = ["base", "util", "source", "model", "classify", "report", "view", "session", "modes", "main"]
RANK = {name: i for i, name in enumerate(ORDER)}
SAME_LAYER_OK = {"util", "base"}  # helpers that may use each other


def layer(rel):
    """The layer of a path relative to src/."""
    if "/" in rel:
        return rel.split("/", 1)[0]
    if rel in ("options.h", "exitcodes.h", "counter_values.h"):
        return "base"
    return "main"  # main.c, cli.c, cli.h: the entry point and its command line


def module(rel):
    """A file's module: its name without the extension and without a _private suffix."""
    stem = rel.rsplit(".", 1)[0]
    return stem[: -len("_private")] if stem.endswith("_private") else stem


def main():
    src = sys.argv[1]
    breaches = []
    uses = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
                if inc == "config.h":  # autoconf's
                    continue
                if not os.path.exists(os.path.join(src, inc)):
                    breaches.append(f"{rel}: includes {inc}, which is not under src/")
                    continue
                a, b = layer(rel), layer(inc)
                if module(rel) != module(inc):
                    uses.setdefault(module(rel), set()).add(module(inc))
                if RANK[b] > RANK[a]:
                    breaches.append(f"{rel} ({a}) includes {inc} from the layer above ({b})")
    for a, targets in sorted(uses.items()):
        for b in sorted(targets):
            if a < b and a in uses.get(b, ()):
                breaches.append(f"cycle: {a} and {b} include each other's headers")
    for line in breaches:
        print(line)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
