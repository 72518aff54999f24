#!/bin/sh
# test_waits.sh: the wait analysis on the real binary, end to end:
#
#   a TCP client and a slow local server (python3, both started here; the server binds a
#   port of 127.0.0.1 that the kernel picks and writes it to a file)
#                                    waiting, on the network, on TCP 127.0.0.1:PORT, with
#                                    the network advice
#   three python3 threads, one lock  the lock kind and advice
#   sleep 1.5                        the timer kind and advice
#   sh -c 'spin 2 | cat'             the finding names spin, cpu-bound, as the pipeline's
#                                    bottleneck; the pipe target names spin and its pid
#   direct_read (O_DIRECT)           io-bound, naming the file (on a block device only)
#   urllib with timeout=30, 8 threads, against a slow local HTTP server (python3, port
#   picked by the kernel)            a poll on one socket: network on TCP 127.0.0.1:PORT,
#                                    not event-loop, with the network advice
#   a poll on 20 pipes               still an event loop: "poll on 20 fds"
#   multiprocessing.Pool(2) computing
#                                    no pipeline finding (the result pipe is a queue), the
#                                    pool's handler threads idle by design, apart, cpu-bound
#
# The network case's JSON report is validated against the schema where the validator exists.

. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SERVER_PID=
IO_DIR=

SOCK="cpw-waits-$$"
. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"

cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
	[ -n "$IO_DIR" ] && rm -rf "$IO_DIR"
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

plan 28

# Prints one thing of a report: class, evidence text, findings, advice, the waits' targets.
cat >"$SCRATCH/get.py" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[2]))
v = doc.get("verdict") or {}
what = sys.argv[1]
if what == "class":
    print(v.get("class", ""))
elif what == "evidence":
    for e in v.get("evidence") or []:
        print("%s: %s" % (e.get("metric"), e.get("text")))
elif what == "findings":
    print("\n".join(v.get("findings") or []))
elif what == "advice":
    print(v.get("advice") or "")
elif what == "targets":
    for kind, k in ((doc.get("waits") or {}).get("kinds") or {}).items():
        for t in k.get("targets") or []:
            print("%s %s peer=%s" % (kind, t.get("target"), t.get("peer_pid")))
EOF
get() { "$PY" "$SCRATCH/get.py" "$@"; }
# has LABEL FILE WHAT TEXT: TEXT is among WHAT of the report.
has() {
	if get "$3" "$2" | grep -qF -- "$4"; then
		ok "$1"
	else
		not_ok "$1" "no '$4' in $3:
$(get "$3" "$2")
$(get evidence "$2")"
	fi
}
valid() {
	if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		check "$1" validate_json "$2"
	else
		missing "$1" python3-jsonschema
	fi
}

# --- a TCP client waiting on a slow server ------------------------------------------------
cat >"$SCRATCH/server.py" <<'EOF'
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
s.settimeout(30)  # bounded: gone after 30 s without a client
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    c.settimeout(10)
    try:
        while c.recv(100):
            time.sleep(0.2)  # slow: each answer takes 200 ms
            c.sendall(b"ok\n")
    except OSError:
        pass
    c.close()
EOF
cat >"$SCRATCH/client.py" <<'EOF'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for _ in range(int(sys.argv[2])):  # one request at a time: blocked in recv
    c.sendall(b"ping\n")
    if not c.recv(100):
        break
EOF
# start_server SCRIPT: starts a test server (SERVER_PID) and sets PORT to the port it wrote
# (empty when it did not within 2 s).
start_server() {
	"$PY" "$1" "$1.port" &
	SERVER_PID=$!
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ -s "$1.port" ] && break
		sleep 0.1
	done
	PORT=$(cat "$1.port" 2>/dev/null)
}
start_server "$SCRATCH/server.py"
if [ -z "$PORT" ]; then
	for t in "network: class" "network: kind" "network: target" "network: advice" \
		"network: text Waits section" "network: JSON valid" "network: live view"; do
		not_ok "$t" "the test server did not start"
	done
else
	R=$SCRATCH/net.json
	"$CPW" --json -o "$R" -- "$PY" "$SCRATCH/client.py" "$PORT" 8
	has "network: verdict is waiting" "$R" class waiting
	has "network: the evidence names the kind" "$R" evidence "was on network"
	has "network: the evidence names TCP 127.0.0.1:$PORT" "$R" evidence "on TCP 127.0.0.1:$PORT"
	has "network: the advice is the network's" "$R" advice "make the requests concurrent"
	"$CPW" -o "$SCRATCH/net.txt" -- "$PY" "$SCRATCH/client.py" "$PORT" 5
	if sed -n '/^Waits/,/^Verdict/p' "$SCRATCH/net.txt" | grep -qF "TCP 127.0.0.1:$PORT"; then
		ok "network: the text Waits section lists the target"
	else
		not_ok "network: the text Waits section lists the target" "$(cat "$SCRATCH/net.txt")"
	fi
	valid "network: JSON report is valid" "$R"
	# The live view: the client's WAIT column says network, the header's verdict line the
	# target, the advice line the network's advice.
	if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
		missing "network: the live view names the wait, its target and the advice" tmux
	else
		T new-session -d -s net -x 120 -y 30 \
			"NO_COLOR=1 '$CPW' --tui -- '$PY' '$SCRATCH/client.py' '$PORT' 40; sleep 30"
		if wait_for net "^ *[0-9]+ S network " 10 &&
		   wait_for net "^verdict: waiting .*on TCP 127\.0\.0\.1:$PORT" 10 &&
		   wait_for net "^advice: Waiting on the network .*make the requests concurrent" 10; then
			ok "network: the live view names the wait, its target and the advice"
		else
			not_ok "network: the live view names the wait, its target and the advice" "$(show)"
		fi
		T kill-session -t net 2>/dev/null
	fi
fi
kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
SERVER_PID=

# --- urllib with a timeout: a poll on one socket is a wait on that socket --------------------
cat >"$SCRATCH/http_server.py" <<'EOF'
import http.server, os, sys, threading, time
class Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(0.8)  # slow: each answer takes 800 ms
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
srv.daemon_threads = True
threading.Timer(60, srv.shutdown).start()  # bounded: gone after 60 s in any case
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
EOF
cat >"$SCRATCH/urllib_client.py" <<'EOF'
import concurrent.futures, sys, urllib.request
url = "http://127.0.0.1:%s/" % sys.argv[1]
def fetch(_):
    return urllib.request.urlopen(url, timeout=30).read()  # a timeout: poll, then recv
with concurrent.futures.ThreadPoolExecutor(8) as pool:  # 8 threads, 3 requests each
    list(pool.map(fetch, range(24)))
EOF
start_server "$SCRATCH/http_server.py"
if [ -z "$PORT" ]; then
	for t in "urllib timeout: kind" "urllib timeout: target" "urllib timeout: advice"; do
		not_ok "$t" "the test HTTP server did not start"
	done
else
	R=$SCRATCH/urllib.json
	"$CPW" --json -o "$R" -- "$PY" "$SCRATCH/urllib_client.py" "$PORT"
	# The kinds by thread-seconds, most first: network, and event-loop nowhere near it.
	KINDS=$("$PY" -c 'import json, sys
k = (json.load(open(sys.argv[1])).get("waits") or {}).get("kinds") or {}
print(" ".join("%s=%.2f" % (n, v["thread_s"]) for n, v in sorted(k.items(), key=lambda x: -x[1]["thread_s"])))' "$R")
	case "$KINDS" in
	network=*) case "$KINDS" in
		*event-loop=*) not_ok "urllib timeout: the waits are network, not event-loop" "$KINDS" ;;
		*) ok "urllib timeout: the waits are network, not event-loop" ;;
		esac ;;
	*) not_ok "urllib timeout: the waits are network, not event-loop" "$KINDS" ;;
	esac
	has "urllib timeout: the Waits name TCP 127.0.0.1:$PORT" "$R" targets "network TCP 127.0.0.1:$PORT"
	if [ "$(get class "$R")" = waiting ]; then
		has "urllib timeout: the advice is the network's" "$R" advice "make the requests concurrent"
	else
		# Other load took the CPUs: starved, the waits' advice in second place.
		ok "urllib timeout: the advice is the network's # busy host: $(get class "$R")"
	fi
fi
kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
SERVER_PID=

# --- a poll on many descriptors is an event loop ---------------------------------------------
cat >"$SCRATCH/poll20.py" <<'EOF'
import os, select
p = select.poll()
pipes = [os.pipe() for _ in range(20)]
for r, _ in pipes:
    p.register(r, select.POLLIN)
for _ in range(3):
    p.poll(600)  # nothing is ever written: 1.8 s waiting on 20 fds
EOF
R=$SCRATCH/poll20.json
"$CPW" --json -o "$R" -- "$PY" "$SCRATCH/poll20.py"
has "poll on 20 fds: the evidence says event-loop" "$R" evidence "was on event-loop"
has "poll on 20 fds: the target says how many" "$R" targets "event-loop poll on 20 fds"

# --- a multiprocessing pool computing ----------------------------------------------------------
cat >"$SCRATCH/pool.py" <<'EOF'
import multiprocessing as mp
def work(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
if __name__ == "__main__":
    with mp.Pool(2) as pool:  # 4 long chunks of pure computing over 2 workers: the
        print(sum(pool.map(work, [6_000_000] * 4)))  # handler threads sleep between them
EOF
R=$SCRATCH/pool.json
"$CPW" --json -o "$R" -- "$PY" "$SCRATCH/pool.py" >/dev/null
if get findings "$R" | grep -qF "pipeline's bottleneck"; then
	not_ok "pool: no pipeline finding about its result pipe" "$(get findings "$R")"
else
	ok "pool: no pipeline finding about its result pipe"
fi
case $(get class "$R") in
cpu-bound) ok "pool: verdict is cpu-bound" ;;
# On a busy host the workers also wait for a CPU: starved, still not waiting.
cpu-starved) ok "pool: verdict is cpu-bound # busy host: cpu-starved" ;;
*) not_ok "pool: verdict is cpu-bound" "$(get class "$R"): $(get evidence "$R")" ;;
esac
# The parent waits for its workers (its main thread on the result's event, its result
# handler on their pipes): not a process "waiting" of its own.
if "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(any((p.get("verdict") or {}).get("class") == "waiting" for p in d["processes"]))' "$R"; then
	ok "pool: the parent, which waits for its workers, is not called waiting"
else
	not_ok "pool: the parent, which waits for its workers, is not called waiting" "$(get advice "$R")"
fi
cat >"$SCRATCH/idle.py" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1])).get("waits") or {}
idle = w.get("idle_by_design") or {}
lock = ((w.get("kinds") or {}).get("lock") or {}).get("thread_s", 0)
print(idle.get("threads", 0), idle.get("thread_s", 0), lock)
EOF
set -- $("$PY" "$SCRATCH/idle.py" "$R")
# The pool's handler threads (the task handler on a queue's lock, the worker handler polling
# the workers' sentinels, the result handler on the result queue) do not run while the
# workers compute.
# The task handler waits on a lock as long as the main thread does: with it apart, the
# idle time is at least half the lock waits left (the main thread's).
if [ "${1:-0}" -ge 1 ] && "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) >= 0.5 * float(sys.argv[2]))" "$2" "$3"; then
	ok "pool: its handler threads are idle by design, apart from the lock waits"
else
	not_ok "pool: its handler threads are idle by design, apart from the lock waits" \
		"idle threads ${1:-?}, idle ${2:-?} s, lock ${3:-?} s"
fi
# A run of its own (text): which handler threads sleep long enough to count as idle depends
# on when the workers finish their chunks; up to three runs, the first that shows them.
idle_line() { sed -n '/^Waits/,/^Verdict/p' "$SCRATCH/pool.txt" | grep -Eq "^	idle by design +[0-9.]+ s in [0-9]+ helper threads? "; }
for try in 1 2 3; do
	"$CPW" -o "$SCRATCH/pool.txt" -- "$PY" "$SCRATCH/pool.py" >/dev/null
	idle_line && break
	echo "# text run $try: no idle helper thread this time"
done
if idle_line; then
	ok "pool: the text Waits section shows the idle threads apart"
else
	not_ok "pool: the text Waits section shows the idle threads apart" "$(sed -n '/^Waits/,/^Phases/p' "$SCRATCH/pool.txt")"
fi

# --- a pipeline whose producer is CPU-bound -----------------------------------------------
R=$SCRATCH/pipe.json
"$CPW" --json -o "$R" -- sh -c "'$W/spin' 2 | cat >/dev/null"
has "pipeline: the finding names the producer as the bottleneck" "$R" findings \
	"is cpu-bound"
has "pipeline: the finding names cat waiting on spin" "$R" findings "cat waits on a pipe fed by spin"
has "pipeline: the pipe target names spin" "$R" targets "pipe pipe from spin (pid"

# --- threads taking turns on one lock; a plain sleep ---------------------------------------
cat >"$SCRATCH/lock.py" <<'EOF'
import threading, time
lock = threading.Lock()
def worker():
    for _ in range(5):
        with lock:  # held while sleeping: the others wait on the lock (a futex)
            time.sleep(0.1)
ts = [threading.Thread(target=worker) for _ in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
EOF
R=$SCRATCH/lock.json
"$CPW" --json -o "$R" -- "$PY" "$SCRATCH/lock.py"
has "lock: the evidence names the kind" "$R" evidence "was on lock"
has "lock: the advice is the lock's" "$R" advice "shorten the critical sections"
R=$SCRATCH/sleep.json
"$CPW" --json -o "$R" -- sleep 1.5
has "timer: the evidence names the kind" "$R" evidence "was on timer"
has "timer: the advice is the timer's" "$R" advice "Remove the sleeps"

# --- O_DIRECT reads: io-bound, naming the file ------------------------------------------
if IO_DIR=$(block_dir) && "$W/direct_read" "$IO_DIR" 1 0 4 2>"$SCRATCH/direct.err"; then
	R=$SCRATCH/direct.json
	# 1 MiB blocks: each read blocks long enough for samples to catch it in D.
	"$CPW" --json -o "$R" -- "$W/direct_read" "$IO_DIR" 64 1.5 1024
	case $(get class "$R") in
	io-bound) ok "direct_read: verdict is io-bound" ;;
	# On a busy host the reads also wait for a CPU: mixed or starved, still naming the file.
	mixed | cpu-starved) ok "direct_read: verdict is io-bound # busy host: $(get class "$R")" ;;
	*) not_ok "direct_read: verdict is io-bound" "$(get evidence "$R")" ;;
	esac
	has "direct_read: the report names the file" "$R" targets "disk $IO_DIR/cpw-direct."
else
	skip "direct_read: verdict is io-bound" "no directory on a block device with O_DIRECT: $(cat "$SCRATCH/direct.err" 2>/dev/null)"
	skip "direct_read: the report names the file" "no directory on a block device with O_DIRECT"
fi
# --- a client in a network namespace of its own (a container's) ------------------------
# The peer is looked up in the waiting process's /proc/PID/net: cperfwatch's own /proc/net
# does not have the socket. Needs root and unshare -n.
cat >"$SCRATCH/ns_client.py" <<'EOF'
import fcntl, socket, struct, threading
# A new namespace's loopback is down: up (SIOCSIFFLAGS, IFF_UP), with no tool needed.
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8914, struct.pack("16sH14x", b"lo", 1))
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen()
c = socket.create_connection(srv.getsockname())
conn, _ = srv.accept()
threading.Timer(1.5, lambda: conn.send(b"x")).start()  # the answer comes late
c.recv(1)
EOF
if ! is_root; then
	skip "own network namespace: the target is the TCP peer" "needs root (unshare -n)"
elif ! unshare -n true 2>/dev/null; then
	skip "own network namespace: the target is the TCP peer" "no network namespaces here (unshare -n failed)"
else
	R=$SCRATCH/netns.json
	"$CPW" --json -o "$R" -- unshare -n "$PY" "$SCRATCH/ns_client.py"
	if get targets "$R" | grep -Eq '^network TCP 127\.0\.0\.1:[0-9]+ '; then
		ok "own network namespace: the target is the TCP peer"
	else
		not_ok "own network namespace: the target is the TCP peer" "$(get targets "$R")"
	fi
fi

# A thread that wakes and waits again between every two samples is probed at each: its
# syscall file is opened once and read again through the kept descriptor (one pread, where
# each probe opened, read twice and closed it).
if ! can_strace; then
	skip_strace "a thread probed at every sample: its syscall file opened once"
else
	cat >"$SCRATCH/napper.py" <<'EOF'
import threading, time
def nap():
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        time.sleep(0.03)
t = threading.Thread(target=nap)
t.start()
t.join()
EOF
	strace -e trace=openat -o "$SCRATCH/opens" "$CPW" -o "$SCRATCH/napper.txt" -- "$PY" "$SCRATCH/napper.py"
	opens=$(grep -c '/task/[0-9]*/syscall"' "$SCRATCH/opens")
	if [ "$opens" -ge 1 ] && [ "$opens" -le 3 ] && grep -q 'timer' "$SCRATCH/napper.txt"; then
		ok "a thread probed at every sample: its syscall file opened once ($opens opens for 2 threads)"
	else
		not_ok "a thread probed at every sample: its syscall file opened once" \
			"$opens opens; $(grep -c timer "$SCRATCH/napper.txt") lines naming the timer"
	fi
fi

done_testing
