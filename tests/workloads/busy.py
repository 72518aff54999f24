#!/usr/bin/python3
# busy.py: a pure-Python CPU-bound loop, the interpreter's own kind of "cpu-bound".
# Run it with /usr/bin/python3 (a pyenv shim on PATH would add process levels).
#
#   busy.py [SECONDS=1.5]
import sys
import time


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    deadline = time.monotonic() + secs
    acc = 0
    while time.monotonic() < deadline:
        for i in range(10000):
            acc += i * i
    return 0 if acc >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
