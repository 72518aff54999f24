#!/usr/bin/python3
# gil_threads.py: N pure-Python CPU threads. They take turns on the global interpreter lock
# (GIL), so together they use about one core however many are free: ground truth for the
# serialisation finding and its advice (processes, or code that releases the GIL).
#
#   gil_threads.py [N=4] [SECONDS=1.5]
import sys
import threading
import time


def spin(deadline, out, i):
    acc = 0
    while time.monotonic() < deadline:
        for j in range(10000):
            acc += j * j
    out[i] = acc


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
    deadline = time.monotonic() + secs
    out = [0] * n
    threads = [threading.Thread(target=spin, args=(deadline, out, i)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0 if all(x >= 0 for x in out) else 1


if __name__ == "__main__":
    sys.exit(main())
