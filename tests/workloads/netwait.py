#!/usr/bin/python3
# netwait.py: a client that waits on a slow local peer, for the waits by Python function
# (the truth known by construction: which function waits, on what, for how long):
#
#   netwait.py tcp [SECONDS=2]   fetch() waits in recv on TCP 127.0.0.1:PORT (a port the
#                                kernel picks) for the reply a server, a child, sends after
#                                SECONDS
#   netwait.py pipe [SECONDS=2]  drain() waits in read on a pipe that a child writes to after
#                                SECONDS
#   netwait.py file [SECONDS=2] PATH
#                                sync() waits in fsync on the file PATH (made, then removed),
#                                64 KiB written before each, for SECONDS (a disk wait where
#                                PATH is on a block device; none on tmpfs)
import os
import socket
import sys
import time


def fetch(addr):
    with socket.create_connection(addr) as s:
        s.sendall(b"GET\n")
        return s.recv(64)


def drain(fd):
    return os.read(fd, 64)


def sync(f):
    f.write(b"x" * 65536)
    f.flush()
    os.fsync(f.fileno())


def serve_slowly(lst, secs):
    conn, _ = lst.accept()
    conn.recv(64)
    time.sleep(secs)
    conn.sendall(b"done\n")
    conn.close()


def child(fn, *args):
    pid = os.fork()
    if pid == 0:
        try:
            fn(*args)
        finally:
            os._exit(0)
    return pid


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "tcp"
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    if kind == "tcp":
        lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lst.bind(("127.0.0.1", 0))
        lst.listen(1)
        pid = child(serve_slowly, lst, secs)
        got = fetch(lst.getsockname())
        lst.close()
    elif kind == "file":
        end = time.monotonic() + secs
        with open(sys.argv[3], "wb") as f:
            while time.monotonic() < end:
                sync(f)
        os.unlink(sys.argv[3])
        return 0
    else:
        r, w = os.pipe()
        pid = child(lambda: (os.close(r), time.sleep(secs), os.write(w, b"done\n")))
        os.close(w)
        got = drain(r)
    os.waitpid(pid, 0)
    return 0 if got == b"done\n" else 1


if __name__ == "__main__":
    sys.exit(main())
