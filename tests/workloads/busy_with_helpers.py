#!/usr/bin/python3
# busy_with_helpers.py: a process whose main thread computes all along beside two helper
# threads that wake every 20 ms and wait again, never long enough to be idle by design.
#
#   busy_with_helpers.py [SECONDS=2]
#       one helper on a timed lock (a queue's feeder thread), one polling a socket (a
#       listener), as in a PyTorch DataLoader worker: the process verdict is cpu-bound,
#       its helpers' waits done beside its work
#   busy_with_helpers.py SECONDS cuda
#       both helpers poll a socket under the names the CUDA driver gives its own threads
#       (cuda-EvtHandlr, cuda00001400006): with a fake NVML naming python3 on an idle GPU,
#       starved by the host, and never "waiting on communication" (a real H100 showed it)
import ctypes
import select
import socket
import sys
import threading
import time

PR_SET_NAME = 15
done = threading.Event()


def feeder(name, _sock):
    ready = threading.Condition()
    with ready:
        while not done.is_set():
            ready.wait(0.02)


def listener(name, sock):
    if name:
        ctypes.CDLL(None).prctl(PR_SET_NAME, name.encode(), 0, 0, 0)
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    while not done.is_set():
        poller.poll(20)


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    cuda = len(sys.argv) > 2 and sys.argv[2] == "cuda"
    pairs = [socket.socketpair(socket.AF_UNIX) for _ in range(2)]
    if cuda:
        roles = [(listener, "cuda-EvtHandlr"), (listener, "cuda00001400006")]
    else:
        roles = [(feeder, ""), (listener, "")]
    helpers = [threading.Thread(target=fn, args=(name, pair[0]))
               for (fn, name), pair in zip(roles, pairs)]
    for t in helpers:
        t.start()
    end = time.monotonic() + secs
    acc = 0
    while time.monotonic() < end:
        for j in range(10000):
            acc += j * j
    done.set()
    for t in helpers:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
