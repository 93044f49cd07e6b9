#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of the `opengpa` command: what a user types, what they see.

usage: test_cli.py OPENGPA [V34K_PRELOAD [VMALI_PRELOAD]]
"""
import json
import os
import subprocess
import sys

OPENGPA = sys.argv[1]
V34K = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
VMALI = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
failures = []
passed = 0


def run(args, env=None, preload=None):
    e = dict(os.environ)
    e.pop("OPENGPA_BACKEND", None)
    e.pop("OPENGPA_LOG", None)
    if env:
        e.update(env)
    if preload:
        e["LD_PRELOAD"] = preload
    return subprocess.run([OPENGPA] + args, capture_output=True, text=True, env=e, timeout=60)


def check(name, condition, detail=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(name)
        print("FAIL: %s %s" % (name, detail))


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
    stat = subprocess.Popen([OPENGPA, "stat", "-p", str(toucher.pid), "--duration", "1.5",
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

if V34K:
    r = run(["stat", "--backend", "mips", "-uicp", "--", "true"], preload=V34K)
    check("mips pc_sweep report", r.returncode == 0 and "IPC:" in r.stdout and
          "D-$ miss rate:" in r.stdout, r.stdout + r.stderr)

if VMALI:
    counters = "GPUActiveCycles,FragmentQueueUtilization,OutputExternalReadBytes"
    r = run(["stat", "--backend", "mali", "-x", ",", "-e", counters, "--", "true"], preload=VMALI)
    rows = [line.split(",") for line in r.stdout.splitlines()]
    check("mali stat on the virtual G71", r.returncode == 0 and len(rows) == 3 and
          int(rows[0][0]) > 0 and 0 < float(rows[1][0]) <= 100, r.stdout + r.stderr)
    r = run(["list", "--backend", "mali"], preload=VMALI)
    check("mali list names the device", "Mali-G71" in r.stdout, r.stdout[:200] + r.stderr)
    check("mali list shows Arm's machine names", "(also: MaliGPUActiveCy)" in r.stdout,
          r.stdout[:400])
    # Arm's machine name and the database's title find the G71's own counters.
    r = run(["stat", "--backend", "mali", "-x", ",", "-e",
             "maligpuactivecy,OutputExternalReadStallPercentage", "--", "true"], preload=VMALI)
    rows = [line.split(",") for line in r.stdout.splitlines()]
    check("mali stat -e takes aliases", r.returncode == 0 and len(rows) == 2 and
          "GPUActiveCycles" in r.stdout and "OutputExternalReadStallRate" in r.stdout,
          r.stdout + r.stderr)
    r = run(["stat", "--backend", "panfrost", "-x", ",", "-e", counters, "--", "true"],
            env={"VMALI_PANFROST_UNSTABLE": "1"}, preload=VMALI)
    check("panfrost stat on the virtual G71", r.returncode == 0 and
          len(r.stdout.splitlines()) == 3, r.stdout + r.stderr)
    r = run(["list", "--backend", "panfrost"], preload=VMALI)
    check("panfrost ENOSYS says how to turn the ioctls on", r.returncode == 1 and
          "unstable_ioctls" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr)

print("%d passed, %d failed" % (passed, len(failures)))
sys.exit(1 if failures else 0)
