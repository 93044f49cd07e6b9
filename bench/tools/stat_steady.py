#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""opengpa stat -I over a long run: its CPU time per interval with and
without an output, and its resident memory sampled every second, which
must stay flat (results and the command in docs/performance.md,
"Timelines").

usage: stat_steady.py OPENGPA SECONDS PERIOD_MS [OUTPUT_OPTION ...]

Runs `opengpa stat -I PERIOD_MS --backend mali --hardware -M all
[OUTPUT_OPTION ...] -- sleep SECONDS` and, alternating with it, the same
without the outputs (-I lines to /dev/null both times), in the
environment it is given (the virtual Mali's preload and VMALI_GPU_ID, say).
Prints the CPU time (user + system, from /proc/PID/stat) per interval of
each and their difference, and VmRSS each second of both runs: the
library keeps the latest 4096 intervals for opengpa's reader
(OpenGPA_SetPeriodicWindow), so memory grows for 4096 periods, then stays
flat; what the outputs add must not grow at all.
Linux only; not run by meson test."""
import os
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def run(cmd, seconds):
    # -I's lines go to stderr, as perf's: to a file, so a full pipe never
    # stops opengpa.
    errf = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, text=True)
    rss, cpu = [], 0.0
    t0 = time.monotonic()
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss.append((time.monotonic() - t0, int(line.split()[1])))
            with open("/proc/%d/stat" % p.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
                # utime, stime, and those of waited-for children (the sleep)
                cpu = (int(fields[11]) + int(fields[12])) / TICK
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
        time.sleep(1.0)
    errf.seek(0)
    err = errf.read()
    errf.close()
    if p.returncode != 0:
        sys.exit("opengpa stat failed (%d): %s" % (p.returncode, err[-2000:]))
    return cpu, rss


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    opengpa, seconds, period = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    outputs = sys.argv[4:]
    base = [opengpa, "stat", "-I", str(period), "--backend", "mali", "--hardware", "-M", "all"]
    tail = ["--", "sleep", str(seconds)]
    intervals = seconds * 1000.0 / period
    with_cpu, rss = run(base + outputs + tail, seconds)
    without_cpu, rss_without = run(base + tail, seconds)
    print("%d intervals of %d ms, %s" % (intervals, period, " ".join(outputs) or "no output"))
    print("CPU per interval: %.1f us with the outputs, %.1f us without; %.1f us added"
          % (with_cpu / intervals * 1e6, without_cpu / intervals * 1e6,
             (with_cpu - without_cpu) / intervals * 1e6))
    print("(CPU sampled each second: the last second before exit is not seen, on both sides)")
    print("VmRSS (KiB) each second: " + " ".join("%d" % kb for _, kb in rss))
    print("the same without the outputs: " + " ".join("%d" % kb for _, kb in rss_without))
    if len(rss) > 4:
        early = rss[2][1]
        late = max(kb for _, kb in rss[2:])
        print("after 2 s: %d KiB; the most after that: %d KiB (%+d KiB)" % (early, late, late - early))


main()
