#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of the `opengpa` command: what a user types, what they see.

usage: test_cli.py OPENGPA
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

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

# Lists as data: RFC 4180 CSV with a header, and JSON, with the same fields.
fields = ["name", "group", "usage", "type", "backend", "availability", "description", "reason",
          "aliases", "instances"]
for sep in (",", "|", "::"):
    r = run(["list", "--all", "-x", sep])
    text = r.stdout.replace(sep, "\x1f") if len(sep) > 1 else r.stdout
    rows = list(csv.reader(io.StringIO(text), delimiter="\x1f" if len(sep) > 1 else sep,
                           strict=True))
    check("list -x %s: header and ten fields" % sep, r.returncode == 0 and rows[0] == fields
          and len(rows) > 2 and all(len(x) == 10 for x in rows), r.stdout[:300])
    check("list -x %s: TaskClock's description whole" % sep, any(
          x[0] == "TaskClock" and x[5] == "available" and "," in x[6] for x in rows), r.stdout[:300])
r = run(["list", "--all", "-j"])
try:
    doc = json.loads(r.stdout)
    c = {x["name"]: x for x in doc["counters"]}
    check("list -j fields", doc["backend"] == "perf" and c["TaskClock"]["available"] and
          c["TaskClock"]["usage"] == "milliseconds" and c["TaskClock"]["type"] == "float64" and
          c["TaskClock"]["group"] == "CPU" and c["TaskClock"]["backend"] == "perf" and
          all(set(x) >= {"name", "group", "usage", "type", "backend", "available", "description",
                         "aliases", "instances"}
              for x in doc["counters"]) and
          all(x["reason"] for x in doc["counters"] if not x["available"]), r.stdout[:300])
except (ValueError, KeyError) as err:
    check("list -j parses", False, "%s: %r" % (err, r.stdout[:300]))
r = run(["list", "-x", ",", "-j"])
check("list -x and -j exclude each other", r.returncode == 2, r.stderr)

# The backends compiled in, and why each is or is not usable here.
r = run(["list", "--backends"])
check("list --backends", r.returncode == 0 and "perf" in r.stdout and "usable here" in r.stdout
      and "not usable here: mali:" in r.stdout, r.stdout + r.stderr)
r = run(["list", "--backends", "-j"])
try:
    b = {x["name"]: x for x in json.loads(r.stdout)["backends"]}
    check("list --backends -j", set(b) >= {"perf", "mali", "panfrost", "mips"} and
          b["perf"]["usable"] and b["perf"]["counters"] > 0 and not b["mali"]["usable"] and
          "/dev/mali0" in b["mali"]["reason"] and sum(x["auto"] for x in b.values()) == 1,
          r.stdout)
except (ValueError, KeyError) as err:
    check("list --backends -j parses", False, "%s: %r" % (err, r.stdout[:300]))
r = run(["list", "--backends", "-x", ","])
rows = list(csv.reader(io.StringIO(r.stdout)))
check("list --backends -x", rows[0] == ["name", "usable", "summary", "detail"] and
      all(len(x) == 4 for x in rows), r.stdout)

r = run(["--version"])
check("--version names the command's and the library's", r.returncode == 0 and
      re.fullmatch(r"opengpa \d+\.\d+\.\d+ \(library \d+\.\d+\.\d+\)\n", r.stdout), r.stdout)

# perf stat's contract: -x and --json go to stderr unless -o names a file.
r = run(["stat", "-x", ",", "-e", "PageFaults,TaskClock", "--", "true"])
check("stat -x leaves stdout to the command", r.stdout == "", r.stdout)
lines = r.stderr.splitlines()
check("stat -x prints one line per counter", len(lines) == 2, r.stderr)
check("stat -x: perf's seven fields", all(len(x.split(",")) == 7 for x in lines), r.stderr)

r = run(["stat", "-e", "PageFaults", "--", "sh", "-c", "exit 7"])
check("exit status kept", r.returncode == 7, "got %d" % r.returncode)

r = run(["stat", "-e", "PageFaults", "--", "/nonexistent/command"])
check("missing command exits 127", r.returncode == 127, "got %d" % r.returncode)
check("missing command: one line", len(r.stderr.strip().splitlines()) == 1, r.stderr)

r = run(["stat", "-e", "NoSuchCounter", "--", "true"])
check("unknown counter fails", r.returncode != 0)
check("unknown counter: a line naming it and pointing to opengpa list",
      "NoSuchCounter" in r.stderr and "opengpa list" in r.stderr and
      "GPA_" not in r.stderr, r.stderr)
# A typo gets the names it was probably meant to be, perf's spelling too.
for typo, meant in (("PageFault", "PageFaults"), ("TaskClok", "TaskClock"),
                    ("task-clok", "task-clock")):
    r = run(["stat", "-e", typo, "--", "true"])
    check("typo %s: did you mean %s" % (typo, meant), r.returncode != 0 and
          re.search(r"Did you mean [^?]*\b%s\b" % re.escape(meant), r.stderr) and
          "opengpa list" in r.stderr, r.stderr)
r = run(["stat", "-e", "GPUActiveCycles", "--", "true"])
check("a Mali counter on the CPU: says which backend has it",
      r.returncode != 0 and "mali backend" in r.stderr, r.stderr)
# perf's spellings: perf's name, unit and metric in every format.
r = run(["stat", "-x", ",", "-e", "task-clock,page-faults,cs", "--", "true"])
rows = [x.split(",") for x in r.stderr.splitlines()]
check("perf spellings: perf's names and units",
      r.returncode == 0 and [(x[1], x[2]) for x in rows] ==
      [("msec", "task-clock"), ("", "page-faults"), ("", "cs")] and
      rows[0][6] == "CPUs utilized", r.stderr)
r = run(["stat", "-x", ",", "-e", "{task-clock,page-faults}", "--", "true"])
check("-e '{a,b}': a group", r.returncode == 0 and len(r.stderr.splitlines()) == 2, r.stderr)

r = run(["stat", "--json", "-e", "PageFaults,CPUUtilization", "--", "true"])
try:
    objs = [json.loads(x) for x in r.stderr.splitlines()]
    check("--json: perf's lines", [o["event"] for o in objs] == ["PageFaults", "CPUUtilization"]
          and all(list(o) == ["counter-value", "unit", "event", "event-runtime", "pcnt-running",
                              "metric-value", "metric-unit"] for o in objs) and
          float(objs[0]["counter-value"]) > 0, r.stderr)
except (ValueError, KeyError) as err:
    check("--json lines parse", False, "%s: %r" % (err, r.stderr[:300]))
r = run(["stat", "--opengpa-json", "-e", "PageFaults,CPUUtilization", "--", "true"])
try:
    doc = json.loads(r.stderr)
    names = [c["name"] for c in doc["counters"]]
    check("json lists the enabled counters", names == ["PageFaults", "CPUUtilization"], names)
    check("json page faults counted", doc["counters"][0]["value"] > 0, doc)
except (ValueError, KeyError) as err:
    check("json parses", False, "%s: %r" % (err, r.stderr[:300]))

# The child, not opengpa, is counted: touching 2000 fresh pages shows up.
script = "import mmap; m = mmap.mmap(-1, 2000 * 4096); [m.__setitem__(i * 4096, 1) for i in range(2000)]"
r = run(["stat", "-x", ",", "-e", "PageFaults", "--", sys.executable, "-c", script])
try:
    faults = int(r.stderr.split(",")[0])
    check("child's page faults counted", faults >= 2000, r.stderr)
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
    faults = int(err.split(",")[0]) if err else -1
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
    ms = float(r.stderr.split(",")[0])
    check("-a counts every CPU's clock", ms > 150, r.stderr)
else:
    check("-a refused with the paranoid fix", "perf_event_paranoid" in r.stderr, r.stderr)

r = run(["stat", "--multiplex", "--opengpa-json", "-e", "TaskClock,PageFaults", "--", "true"])
try:
    doc = json.loads(r.stderr)
    check("--multiplex: one pass, coverage reported", doc["passes"] == 1 and
          0 < doc["coverage"] <= 1, r.stdout)
except (ValueError, KeyError) as err:
    check("--multiplex json parses", False, "%s: %r" % (err, r.stdout[:300] + r.stderr))

r = run(["list"], env={"OPENGPA_BACKEND": "nosuch"})
check("unknown backend: one clear line", r.returncode == 1 and
      len(r.stderr.strip().splitlines()) == 1 and "nosuch" in r.stderr, r.stderr)

r = run(["bogus"])
check("unknown subcommand exits 2", r.returncode == 2)

# Numbers are checked whole, with overflow (issue #13).
for args, what in ((["-p", "99999999999999999999"], "process id"),
                   (["-t", "4294967297"], "thread id"),
                   (["-p", "-1"], "process id"),
                   (["-p", "12x"], "process id"),
                   (["-C", "0,x"], "CPU list")):
    r = run(["stat"] + args + ["-e", "PageFaults"])
    check("stat %s refused" % " ".join(args), r.returncode == 2 and what in r.stderr and
          len(r.stderr.strip().splitlines()) == 1, r.stderr)
r = run(["stat", "--duration", "1e999", "-a"])
check("--duration overflow refused", r.returncode == 2 and "seconds" in r.stderr, r.stderr)

# An empty separator would glue the fields together (issue #13).
for cmd in (["stat", "-e", "PageFaults", "-x", "", "--", "true"], ["list", "-x", ""]):
    r = run(cmd)
    check("%s -x '' refused" % cmd[0], r.returncode == 2 and "empty separator" in r.stderr,
          r.stderr)

# perf's short flags keep perf's meaning: -d (detailed) is not opengpa's
# --duration, and -M is perf's metric groups (tested below).
for flag in ("-d", "-b"):
    r = run(["stat", flag, "1", "--", "true"])
    check("stat %s is not an opengpa option" % flag, r.returncode == 2 and
          "unknown option " + flag in r.stderr, r.stderr)

# -o is opened before the command runs: a bad path costs no run.
with tempfile.TemporaryDirectory() as tmp:
    marker = os.path.join(tmp, "ran")
    r = run(["stat", "-o", os.path.join(tmp, "no", "such", "dir"), "-e", "PageFaults", "--",
             "touch", marker])
    check("-o bad path fails before the command", r.returncode == 1 and
          not os.path.exists(marker) and "cannot open" in r.stderr, r.stderr)
    # ...and the command does not inherit it (close-on-exec).
    out = os.path.join(tmp, "report.txt")
    r = run(["stat", "-o", out, "-x", ",", "-e", "PageFaults", "--",
             "sh", "-c", "for f in /proc/$$/fd/*; do readlink $f; done"])
    with open(out) as f:
        report = f.read()
    check("-o file not inherited by the command", out not in r.stdout, r.stdout)
    check("-o gets the report, stderr stays empty", report.count(",PageFaults,") == 1 and
          r.stderr == "", report + r.stderr)

# Every command's --help exits 0 on stdout; bad options are usage errors.
for cmd in ([], ["list"], ["stat"], ["pc_sweep"], ["spe"]):
    r = run(cmd + ["--help"])
    check("opengpa %s --help" % " ".join(cmd), r.returncode == 0 and r.stdout.startswith("usage:")
          and r.stderr == "", r.stderr)
    r = run(cmd + ["--no-such-option"])
    check("opengpa %s --no-such-option" % " ".join(cmd), r.returncode == 2 and
          "unknown option --no-such-option" in r.stderr and
          len(r.stderr.strip().splitlines()) == 1, r.stderr)

# perf stat's <not supported>: a counter the sets declare but this machine
# cannot count does not stop the others (issue #16's first audit case).
r = run(["list", "--all", "-x", ","])
missing = [x for x in csv.reader(io.StringIO(r.stdout)) if x[5] == "unavailable"]
if missing:
    name, reason = missing[0][0], missing[0][7]
    with tempfile.TemporaryDirectory() as tmp:
        marker = os.path.join(tmp, "ran")
        r = run(["stat", "-e", name + ",PageFaults", "--", "sh", "-c", "touch %s; exit 3" % marker])
        check("<not supported> counts the rest and runs the command",
              r.returncode == 3 and os.path.exists(marker) and "<not supported>" in r.stderr and
              re.search(r"\b\d+\s+PageFaults", r.stderr) is not None, r.stderr)
    r = run(["stat", "-v", "-e", name, "--", "true"])
    check("-v gives the reason", r.returncode == 0 and reason in r.stderr, r.stderr)
    r = run(["stat", "-e", name, "--", "true"])
    check("the reason only under -v", r.returncode == 0 and reason not in r.stderr, r.stderr)
    r = run(["stat", "--opengpa-json", "-e", "PageFaults," + name, "--", "true"])
    try:
        doc = json.loads(r.stderr)
        c = doc["counters"]
        check("json <not supported>", [x["supported"] for x in c] == [True, False] and
              c[1]["value"] is None and c[1]["reason"], r.stderr)
    except (ValueError, KeyError) as err:
        check("json <not supported> parses", False, "%s: %r" % (err, r.stderr[:300]))
else:
    print("SKIP: every counter is countable here; no <not supported> case")

# -r N: mean and relative standard deviation, as perf stat -r prints them.
r = run(["stat", "-r", "3", "--opengpa-json", "-e", "PageFaults,TaskClock", "--", "true"])
try:
    doc = json.loads(r.stderr)
    check("-r 3 runs three times", doc["runs"] == 3 and doc["repeats"] == 3 and
          all("rel_stddev_percent" in c for c in doc["counters"]), r.stderr)
except (ValueError, KeyError) as err:
    check("-r json parses", False, "%s: %r" % (err, r.stderr[:300]))
r = run(["stat", "-r", "4", "-e", "TaskClock", "--", "true"])
check("-r table: runs and elapsed spread", "4 runs" in r.stderr and
      re.search(r"\+- [0-9.]+ seconds time elapsed\s+\( \+-\s*[0-9.]+% \)", r.stderr), r.stderr)
r = run(["stat", "-r", "2", "-x", ";", "-e", "PageFaults", "--", "true"])
check("-r -x: the spread after the event, as perf's", re.fullmatch(
      r"\d+;;PageFaults;[0-9.]+%;\d+;100\.00;;\n", r.stderr), r.stderr)
r = run(["stat", "-r", "0", "--", "true"])
check("-r 0 refused", r.returncode == 2, r.stderr)
with tempfile.TemporaryDirectory() as tmp:
    counter = os.path.join(tmp, "n")
    r = run(["stat", "-r", "3", "-e", "PageFaults", "--", "sh", "-c",
             "echo x >> %s; test $(wc -l < %s) -eq 2 && exit 4; exit 0" % (counter, counter)])
    check("-r: run 2's failure reported and returned", r.returncode == 4 and
          "run 2 of 3 exited with status 4, run 1 with 0" in r.stderr and
          open(counter).read().count("x") == 3, r.stderr)

# perf's other options: --timeout, -M groups, -B; list PATTERN and --groups.
import time as _time
t0 = _time.monotonic()
r = run(["stat", "--timeout", "300", "-x", ",", "-e", "task-clock", "--", "sleep", "10"])
took = _time.monotonic() - t0
check("--timeout ends the command and reports", took < 5 and r.returncode == 143 and
      ",task-clock," in r.stderr, (took, r.returncode, r.stderr))
# The headline default: perf stat's default events (those this machine
# counts), far fewer than -M all; list --headline names the same set.
r = run(["stat", "--backend", "perf", "-x", ",", "--", "true"])
default = [x.split(",")[2] for x in r.stderr.splitlines()]
check("default is the headline set", r.returncode == 0 and "TaskClock" in default and
      "PageFaults" in default and "CPUClock" not in default and "MinorFaults" not in default,
      r.stderr)
r = run(["stat", "--backend", "perf", "-M", "all", "-x", ",", "--", "true"])
every = [x.split(",")[2] for x in r.stderr.splitlines()]
check("-M all counts every counter", r.returncode == 0 and "CPUClock" in every and
      "MinorFaults" in every and set(default) < set(every), r.stderr)
r = run(["stat", "--backend", "perf", "-M", "headline", "-x", ",", "--", "true"])
check("-M headline is the default set", r.returncode == 0 and
      [x.split(",")[2] for x in r.stderr.splitlines()] == default, r.stderr)
r = run(["list", "--backend", "perf", "--headline", "-x", ","])
check("list --headline names the default set", r.returncode == 0 and
      [x.split(",")[0] for x in r.stdout.splitlines()[1:]] == default, r.stdout)

# -D: the command's first MS run uncounted.  The workload burns CPU for
# 0.3 s of wall time, then sleeps 1.5 s: counted from its start, its task
# clock holds the burn; after -D 1000 only the sleep.
burn = ("import time\nt = time.monotonic() + 0.3\nwhile time.monotonic() < t: pass\n"
        "time.sleep(1.5)\n")
def task_clock_ms(extra):
    r = run(["stat", "--backend", "perf", "-x", ",", "-e", "task-clock"] + extra +
            ["--", sys.executable, "-c", burn])
    rows = [x.split(",") for x in r.stderr.splitlines() if ",task-clock," in x]
    return r, float(rows[0][0]) if r.returncode == 0 and rows else None
r0, whole = task_clock_ms([])
r1, delayed = task_clock_ms(["-D", "1000"])
check("-D: the delay is not counted", whole is not None and delayed is not None and
      whole > 50 and delayed < whole / 3, (whole, delayed, r0.stderr, r1.stderr))
r = run(["stat", "-D", "500", "-e", "task-clock", "--", "true"])
check("-D: a command that ends within the delay is said", r.returncode == 1 and
      "within the -D delay of 500 ms" in r.stderr, r.stderr)
t0 = _time.monotonic()
r = run(["stat", "-D", "200", "--timeout", "500", "-x", ",", "-e", "task-clock", "--",
         "sleep", "10"])
took = _time.monotonic() - t0
check("-D with --timeout: the timeout counts from the start", took < 5 and
      r.returncode == 143 and ",task-clock," in r.stderr, (took, r.returncode, r.stderr))
for args, why in ((["-D", "100", "-a"], "give a command"),
                  (["-D", "500", "--timeout", "500", "--", "true"], "make the delay shorter"),
                  (["-D", "0", "--", "true"], "not a number of milliseconds")):
    r = run(["stat"] + args)
    check("-D refused: %s" % why, r.returncode == 2 and why in r.stderr, r.stderr)

r = run(["stat", "-M", "memory", "-x", ",", "--", "true"])
events = [x.split(",")[2] for x in r.stderr.splitlines()]
check("-M GROUP: the group's counters", r.returncode == 0 and "PageFaults" in events and
      "TaskClock" not in events, r.stderr)
r = run(["stat", "-M", "NoSuchGroup", "--", "true"])
check("-M unknown group: points to list --groups", r.returncode == 1 and
      "opengpa list --groups" in r.stderr, r.stderr)
r = run(["stat", "-B", "--no-big-num", "-x", ",", "-e", "PageFaults", "--", "true"])
check("-B and --no-big-num accepted", r.returncode == 0, r.stderr)
r = run(["list", "--groups", "-x", ","])
check("list --groups", r.returncode == 0 and r.stdout.startswith("group,counters\n") and
      "\nMemory," in r.stdout, r.stdout)
r = run(["list", "-x", ",", "*fault*"])
names = [x.split(",")[0] for x in r.stdout.splitlines()[1:]]
check("list GLOB", r.returncode == 0 and "PageFaults" in names and "TaskClock" not in names,
      r.stdout)
r = run(["list", "--backend", "perf", "-x", ",", "task-clock"])
check("list PATTERN finds perf's spelling, an alias",
      r.returncode == 0 and [x.split(",")[0] for x in r.stdout.splitlines()[1:]] ==
      ["TaskClock"], r.stdout)

# -o with --append; --append alone is refused.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "counts.csv")
    for _ in range(2):
        r = run(["stat", "-o", out, "--append", "-x", ",", "-e", "PageFaults", "--", "true"])
    check("--append appends", open(out).read().count(",PageFaults,") == 2, open(out).read())
r = run(["stat", "--append", "-e", "PageFaults", "--", "true"])
check("--append without -o refused", r.returncode == 2, r.stderr)

# CPU events by name or code on the perf backend (docs/backends/perf.md):
# what this machine's PMU and libpfm4 can do decides the outcome, and each
# outcome has its own message.
with tempfile.TemporaryDirectory() as tmp:
    r = run(["stat", "--backend", "perf", "-x", ",", "-e", "r11,TaskClock", "--", "true"],
            env={"TMPDIR": tmp})
    check("stat -e code exits 0", r.returncode == 0, r.stderr)
    check("stat -e code: counted or said why", "r11 is not counted: " in r.stderr or
          re.search(r"^\d+,,r11", r.stderr, re.M), r.stderr)
    check("stat -e code: the rest is counted", ",TaskClock," in r.stderr, r.stderr)
    check("stat -e: the events file is removed", os.listdir(tmp) == [], os.listdir(tmp))
r = run(["stat", "--backend", "perf", "-e", "NO_SUCH_EVENT_ANYWHERE,TaskClock", "--", "true"])
check("stat -e unknown event fails", r.returncode != 0, r.stderr)
check("stat -e unknown event: the names it may be, then where it was looked for",
      len(r.stderr.strip().splitlines()) == 2 and "NO_SUCH_EVENT_ANYWHERE" in r.stderr and
      "opengpa list" in r.stderr and "sysfs" in r.stderr, r.stderr)
# A plain stat never loads libpfm4 (issue 29); list --all asks for its events.
r = run(["stat", "--backend", "perf", "--", "true"], env={"OPENGPA_LOG": "trace"})
check("stat -- true does not load libpfm4", r.returncode == 0 and "libpfm4" not in r.stderr,
      r.stderr)
r = run(["list", "--backend", "perf", "--all"], env={"OPENGPA_LOG": "trace"})
m = re.search(r"libpfm4 names this CPU's events \(PMU (\S+)\)", r.stderr)
if m:
    # list --all shows libpfm4's events: countable ones with libpfm4's
    # description, the others with the reason and the description.
    r = run(["list", "--backend", "perf", "--all", "-x", "|"])
    rows = list(csv.DictReader(r.stdout.splitlines(), delimiter="|"))
    native = [x for x in rows if x.get("group") == "Hardware" and
              not x["name"].startswith(("sysfs_", "Hw", "Sw", "Time"))]
    check("list --all lists the CPU's native events", len(native) > 20, r.stdout[-400:])
    check("list --all: native events have libpfm4's description",
          all(len(x["description"]) > 3 for x in native), native[:3])
    name = native[0]["name"]
    r = run(["stat", "--backend", "perf", "-x", ",", "-e", name.lower(), "--", "true"])
    check("stat -e takes a native event in any case", r.returncode == 0 and
          (name in r.stderr or name.upper() in r.stderr), r.stderr)
    # Looked up by name (libpfm4's spelling, then the catalogue's), and a
    # name given twice in two spellings is one counter.
    r = run(["stat", "--backend", "perf", "-x", ",", "-e", f"{name},TaskClock,{name.lower()}",
             "--", "true"], env={"OPENGPA_LOG": "trace"})
    check("stat -e native: libpfm4 asked by name", r.returncode == 0 and
          "libpfm4 names this CPU's events" in r.stderr and
          len(re.findall(rf"^[^,\n]*,[^,\n]*,{name},", r.stderr, re.M | re.I)) == 1, r.stderr)

# opengpa spe: where the kernel offers no arm_spe PMU (every x86 machine),
# one line saying what to check, and the command does not run unsampled.
spe_pmus = [d for d in os.listdir("/sys/bus/event_source/devices") if d.startswith("arm_spe")] \
    if os.path.isdir("/sys/bus/event_source/devices") else []
with tempfile.TemporaryDirectory() as tmp:
    mark = os.path.join(tmp, "ran")
    r = run(["spe", "--", "touch", mark])
    if not spe_pmus:
        check("spe without an SPE PMU: exit 1, one line", r.returncode == 1 and
              len(r.stderr.strip().splitlines()) == 1 and "no SPE PMU" in r.stderr and
              "CONFIG_ARM_SPE_PMU" in r.stderr, r.stderr)
        check("spe without an SPE PMU: the command did not run", not os.path.exists(mark))
    else:
        check("spe on this machine: a report, or one line why not", (r.returncode == 0 and
              "SPE samples of 'touch'" in r.stderr) or (r.returncode == 1 and
              len(r.stderr.strip().splitlines()) == 1), r.stderr)
r = run(["spe", "--pages", "3", "--", "true"])
check("spe --pages must be a power of two", r.returncode == 2 and "power of two" in r.stderr,
      r.stderr)
r = run(["spe"])
check("spe without a command", r.returncode == 2 and "no command given" in r.stderr, r.stderr)

finish()
