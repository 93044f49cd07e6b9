#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `--listen` adds to `opengpa stat -I 100` (issue 27): CPU time per
interval of the command without it, with `--listen` scraped every second
as Prometheus does (OpenMetrics asked), and with `--openmetrics FILE`.

usage: bench/listen/listen.py BUILD_DIR [ROUNDS] [SECONDS]

Runs `opengpa stat -I 100 --backend mali -- sleep SECONDS` under the
virtual Mali (BUILD_DIR's preload), the three variants alternating in every
round.  CPU time (user + system of opengpa and what it waits for) from
wait4, divided by the intervals counted (SECONDS / 0.1); per variant the
cheapest round (preemption only ever adds) and the median, and the added
CPU per interval against the plain run of the same round (median of the
per-round differences).  Not run by meson test; results and command in
docs/performance.md.
"""
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scraper(port, stop, got):
    """GET /metrics every second, from the first answer on."""
    while not stop.is_set():
        try:
            req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port,
                                         headers={"Accept": ACCEPT})
            with urllib.request.urlopen(req, timeout=2) as r:
                got.append(len(r.read()))
            stop.wait(1.0)
        except OSError:
            stop.wait(0.05)  # not listening yet


def run(argv, preload, port=None):
    """CPU seconds of argv (and its waited-for children); scrapes when
    port is set.  Returns (cpu, scrapes)."""
    env = dict(os.environ, LD_PRELOAD=preload)
    stop, got = threading.Event(), []
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    t = None
    if port:
        t = threading.Thread(target=scraper, args=(port, stop, got))
        t.start()
    _, status, ru = os.wait4(pid, 0)
    stop.set()
    if t:
        t.join()
    if status != 0:
        sys.exit("%s: exit status %d" % (" ".join(argv), status))
    return ru.ru_utime + ru.ru_stime, len(got)


def main():
    build = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    opengpa = os.path.join(build, "tools", "opengpa", "opengpa")
    preload = os.path.join(build, "tests", "virtual-devices", "mali", "libopengpa-vmali.so")
    intervals = seconds / 0.1
    base = [opengpa, "stat", "-I", "100", "--backend", "mali"]
    tail = ["--", "/bin/sleep", str(seconds)]
    cpu = {"plain": [], "listen": [], "openmetrics": []}
    scrapes = []
    with tempfile.TemporaryDirectory(prefix="opengpa-bench-") as tmp:
        for _ in range(rounds):
            c, _ = run(base + tail, preload)
            cpu["plain"].append(c)
            port = free_port()
            c, n = run(base + ["--listen", "127.0.0.1:%d" % port] + tail, preload, port)
            cpu["listen"].append(c)
            scrapes.append(n)
            c, _ = run(base + ["--openmetrics", os.path.join(tmp, "o.prom")] + tail, preload)
            cpu["openmetrics"].append(c)
    print("opengpa stat -I 100 --backend mali -- sleep %g, virtual Mali, %d rounds "
          "(%d intervals each; --listen scraped %s times per run)"
          % (seconds, rounds, intervals, "/".join(map(str, scrapes))))
    print("%-14s %14s %14s %18s" % ("variant", "cheapest us/iv", "median us/iv",
                                     "added us/iv (med)"))
    for k, v in cpu.items():
        added = [a - b for a, b in zip(v, cpu["plain"])]
        print("%-14s %14.1f %14.1f %18s" % (
            k, min(v) / intervals * 1e6, statistics.median(v) / intervals * 1e6,
            "-" if k == "plain" else "%+.1f" % (statistics.median(added) / intervals * 1e6)))


if __name__ == "__main__":
    main()
