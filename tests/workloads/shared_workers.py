#!/usr/bin/python3
# shared_workers.py: a parent fills memory, then forks workers that only read it: the
# pages are shared (copy-on-write, never copied), so the tree holds them once while each
# process's RSS counts them all. The case of a Python data loader that forks its pool.
# Each worker also fills PRIVATE MiB of its own, which counts in full.
#
#   shared_workers.py [MIB=200] [WORKERS=3] [SECONDS=1.5] [PRIVATE=0]
import os
import sys
import time


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 1.5
    private = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    data = bytearray(mib << 20)
    for i in range(0, len(data), 4096):  # touch every page
        data[i] = 1
    pids = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:
            own = bytearray(private << 20)
            for i in range(0, len(own), 4096):  # its own pages, not shared
                own[i] = 1
            deadline = time.monotonic() + secs
            total = 0
            while time.monotonic() < deadline:
                total += sum(data[::4096])  # reads every page, writes none
                time.sleep(0.05)
            os._exit(0 if total > 0 else 1)
        pids.append(pid)
    status = 0
    for pid in pids:
        _, st = os.waitpid(pid, 0)
        status |= st
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
