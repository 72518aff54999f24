#!/usr/bin/env python3
"""mutate.py: applies one mutation of tests/integration/layers/ to a copy of src/.

    mutate.py MUTATION SRCDIR

A mutation is a text file. Its header lines, before the first block, are comments:
"# what: ..." says what it breaks (test_layers.sh's TAP label), each "# expect: REGEX"
a line the checks must print for it (that the clean tree does not print), and
"# expect: none" says the checks must print nothing new. Then blocks, each
"--- append PATH" or "--- create PATH" (PATH relative to src/) followed by the lines to
append to that file (which must exist) or to write as a new file (which must not).
Prints the .c files it changed or made, relative to src/, one per line.
"""
import os
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: mutate.py MUTATION SRCDIR", file=sys.stderr)
        return 2
    mutation, src = sys.argv[1], sys.argv[2]
    blocks = []
    with open(mutation, encoding="utf-8") as f:
        for line in f:
            if line.startswith("--- "):
                parts = line.split()
                if len(parts) != 3 or parts[1] not in ("append", "create"):
                    print(f"{mutation}: a block starts with --- append PATH or --- create PATH: {line.strip()}",
                          file=sys.stderr)
                    return 2
                blocks.append((parts[1], parts[2], []))
            elif blocks:
                blocks[-1][2].append(line)
    if not blocks:
        print(f"{mutation}: no --- append or --- create block", file=sys.stderr)
        return 2
    touched = []
    for verb, rel, lines in blocks:
        path = os.path.join(src, rel)
        if verb == "append" and not os.path.isfile(path):
            print(f"{mutation}: src/{rel} is not there to append to (the tree moved: update the mutation)",
                  file=sys.stderr)
            return 2
        if verb == "create" and os.path.exists(path):
            print(f"{mutation}: src/{rel} is already there", file=sys.stderr)
            return 2
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a" if verb == "append" else "x", encoding="utf-8") as f:
            f.write("\n" if verb == "append" else "")
            f.writelines(lines)
        if rel.endswith(".c") and rel not in touched:
            touched.append(rel)
    for rel in touched:
        print(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
