#!/usr/bin/python3
# socket_holder.py: a process that waits most of its life on a socket that its child feeds
# a byte every 100 ms: a unix-domain socketpair (what a DataLoader's workers hand their
# batches over: the host's own pipeline) or a TCP connection on loopback (communication,
# as between ranks). With a fake NVML naming python3 on an idle GPU, only the TCP one is
# "waiting on communication".
#
#   socket_holder.py unix|tcp [SECONDS=2]
import os
import socket
import sys
import time


def pair(kind):
    if kind == "unix":
        return socket.socketpair(socket.AF_UNIX)
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))  # the kernel picks a free port
    lst.listen(1)
    out = socket.create_connection(lst.getsockname())
    inn, _ = lst.accept()
    lst.close()
    return inn, out


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "unix"
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    inn, out = pair(kind)
    pid = os.fork()
    if pid == 0:
        inn.close()
        end = time.monotonic() + secs
        while time.monotonic() < end:
            time.sleep(0.1)
            out.send(b"x")
        out.close()
        os._exit(0)
    out.close()
    while inn.recv(1):
        pass
    os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
