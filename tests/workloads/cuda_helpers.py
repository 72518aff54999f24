#!/usr/bin/python3
# cuda_helpers.py: a host that computes on its main thread beside two threads named as the
# CUDA driver names its own helpers (cuda-EvtHandlr, cuda00001400006), which wait all
# their lives on the driver's descriptors and its @cuda-uvmfd socket, waking often. With a
# fake NVML naming python3 on an idle GPU: starved by the host, and the helpers' waits are
# idle by design, not "waiting on communication" (what a real H100 showed before).
#
#   cuda_helpers.py [SECONDS=2]
import ctypes
import select
import socket
import sys
import threading
import time

PR_SET_NAME = 15
libc = ctypes.CDLL(None, use_errno=True)
done = threading.Event()


def helper(name, sock):
    libc.prctl(PR_SET_NAME, name.encode(), 0, 0, 0)
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    while not done.is_set():
        poller.poll(20)  # the driver's helpers wake often, and wait again


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    pairs = [socket.socketpair(socket.AF_UNIX) for _ in range(2)]
    threads = [threading.Thread(target=helper, args=(name, pair[0]))
               for name, pair in zip(("cuda-EvtHandlr", "cuda00001400006"), pairs)]
    for t in threads:
        t.start()
    end = time.monotonic() + secs
    acc = 0
    while time.monotonic() < end:
        for j in range(10000):
            acc += j * j
    done.set()
    for t in threads:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
