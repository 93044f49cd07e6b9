#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of the `opengpa` command: what a user types, what they see.

usage: test_cli.py OPENGPA
"""
import json
import subprocess
import sys

from cli_harness import OPENGPA, check, finish, run


# Everything below counts through the perf backend on the real kernel.
# qemu-user does not pass perf_event_open through (ENOSYS): say so and skip
# (meson's 77); test_cli_devices.py covers the command on virtual devices.
r = run(["list", "--backend", "perf"])
if r.returncode != 0 and "ENOSYS" in r.stderr:
    print("SKIP: no perf_event_open here: %s" % r.stderr.strip())
    sys.exit(77)

r = run(["list"])
check("list exits 0", r.returncode == 0, r.stderr)
check("list shows TaskClock", "TaskClock" in r.stdout, r.stdout[:300])

r = run(["list", "-x", "|"])
rows = [line.split("|") for line in r.stdout.splitlines()]
check("list -x has five fields", rows and all(len(x) == 5 for x in rows), r.stdout[:300])

r = run(["stat", "-x", ",", "-e", "PageFaults,TaskClock", "--", "true"])
lines = r.stdout.splitlines()
check("stat -x prints one line per counter", len(lines) == 2, r.stdout)
check("stat -x fields", all(len(x.split(",")) == 4 for x in lines), r.stdout)

r = run(["stat", "-e", "PageFaults", "--", "sh", "-c", "exit 7"])
check("exit status kept", r.returncode == 7, "got %d" % r.returncode)

r = run(["stat", "-e", "PageFaults", "--", "/nonexistent/command"])
check("missing command exits 127", r.returncode == 127, "got %d" % r.returncode)
check("missing command: one line", len(r.stderr.strip().splitlines()) == 1, r.stderr)

r = run(["stat", "-e", "NoSuchCounter", "--", "true"])
check("unknown counter fails", r.returncode != 0)
check("unknown counter: one line naming it",
      len(r.stderr.strip().splitlines()) == 1 and "NoSuchCounter" in r.stderr, r.stderr)

r = run(["stat", "--json", "-e", "PageFaults,CPUUtilization", "--", "true"])
try:
    doc = json.loads(r.stdout)
    names = [c["name"] for c in doc["counters"]]
    check("json lists the enabled counters", names == ["PageFaults", "CPUUtilization"], names)
    check("json page faults counted", doc["counters"][0]["value"] > 0, doc)
except (ValueError, KeyError) as err:
    check("json parses", False, "%s: %r" % (err, r.stdout[:300]))

# The child, not opengpa, is counted: touching 2000 fresh pages shows up.
script = "import mmap; m = mmap.mmap(-1, 2000 * 4096); [m.__setitem__(i * 4096, 1) for i in range(2000)]"
r = run(["stat", "-x", ",", "-e", "PageFaults", "--", sys.executable, "-c", script])
try:
    faults = int(r.stdout.split(",")[0])
    check("child's page faults counted", faults >= 2000, r.stdout)
except ValueError:
    check("child's page faults counted", False, r.stdout + r.stderr)

# -p: an existing process, all its threads, for --duration seconds.
toucher = subprocess.Popen([sys.executable, "-c",
                            "import mmap, sys, time\n"
                            "sys.stdin.readline()\n"
                            "m = mmap.mmap(-1, 1000 * 4096)\n"
                            "for i in range(1000): m[i * 4096] = 1\n"
                            "time.sleep(5)\n"],
                           stdin=subprocess.PIPE, text=True)
try:
    stat = subprocess.Popen(OPENGPA + ["stat", "-p", str(toucher.pid), "--duration", "1.5",
                             "-x", ",", "-e", "PageFaults"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import time
    time.sleep(0.5)  # the pass has begun (opening takes milliseconds)
    toucher.stdin.write("go\n")
    toucher.stdin.flush()
    out, err = stat.communicate(timeout=30)
    faults = int(out.split(",")[0]) if out else -1
    check("-p counts the running process", stat.returncode == 0 and faults >= 1000, out + err)
finally:
    toucher.kill()
    toucher.wait()

r = run(["stat", "-t", "notanumber", "--", "true"])
check("-t with a bad id is a usage error", r.returncode == 2, r.stderr)
r = run(["stat", "-a", "-p", "1", "--", "true"])
check("-a and -p together are refused", r.returncode == 2 and "give one" in r.stderr, r.stderr)
r = run(["stat", "-e", "PageFaults", "--duration", "1", "--", "true"])
check("--duration with a command is refused", r.returncode == 2, r.stderr)
r = run(["stat", "-a", "-x", ",", "-e", "CPUClock", "--", "sleep", "0.2"])
if r.returncode == 0:
    ms = float(r.stdout.split(",")[0])
    check("-a counts every CPU's clock", ms > 150, r.stdout)
else:
    check("-a refused with the paranoid fix", "perf_event_paranoid" in r.stderr, r.stderr)

r = run(["stat", "-M", "--json", "-e", "TaskClock,PageFaults", "--", "true"])
try:
    doc = json.loads(r.stdout)
    check("--multiplex: one pass, coverage reported", doc["passes"] == 1 and
          0 < doc["coverage"] <= 1, r.stdout)
except (ValueError, KeyError) as err:
    check("--multiplex json parses", False, "%s: %r" % (err, r.stdout[:300] + r.stderr))

r = run(["list"], env={"OPENGPA_BACKEND": "nosuch"})
check("unknown backend: one clear line", r.returncode == 1 and
      len(r.stderr.strip().splitlines()) == 1 and "nosuch" in r.stderr, r.stderr)

r = run(["bogus"])
check("unknown subcommand exits 2", r.returncode == 2)

finish()
