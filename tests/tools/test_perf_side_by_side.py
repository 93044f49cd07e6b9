#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`opengpa stat` beside the real `perf stat` (Debian's linux-perf) on the
same software events: the machine formats line by line, field counts, field
order, units and parseability.  The numbers are two runs' and need not be
equal.  Skips (77) where perf is missing or cannot count here.

usage: test_perf_side_by_side.py OPENGPA
"""
import json
import os
import re
import shutil
import subprocess
import sys

from cli_harness import OPENGPA, check, finish, run

EVENTS = "task-clock,page-faults,context-switches"
JSON_KEYS = ["counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value",
             "metric-unit"]

perf = shutil.which("perf")
if not perf:
    print("SKIP: no perf here (apt-get install linux-perf)")
    sys.exit(77)
probe = subprocess.run([perf, "stat", "-x,", "-e", "task-clock", "--", "true"],
                       capture_output=True, text=True, timeout=60)
if probe.returncode != 0 or ",task-clock," not in probe.stderr:
    print("SKIP: perf stat cannot count here: %s" % probe.stderr.strip()[:300])
    sys.exit(77)
if run(["stat", "-x,", "-e", "task-clock", "--", "true"]).returncode != 0:
    print("SKIP: opengpa stat cannot count here (no perf_event_open)")
    sys.exit(77)


def both(args, command=("true",)):
    p = subprocess.run([perf, "stat"] + args + ["--"] + list(command), capture_output=True,
                       text=True, timeout=60)
    o = run(["stat"] + args + ["--"] + list(command))
    return p, o


def number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def x_shape(line, interval, repeat):
    """A -x line's fields as kinds: what must be the same in both."""
    f = line.split(",")
    shape = []
    if interval:
        shape.append("time" if re.fullmatch(r" *\d+\.\d{9}", f[0]) else "?" + f[0])
        f = f[1:]
    value = f[0]
    shape.append("value" if number(value) or value in ("<not counted>", "<not supported>")
                 else "?" + value)
    shape += [("unit", f[1]), ("event", f[2])]
    rest = f[3:]
    if repeat:
        shape.append("variance" if re.fullmatch(r"\d+\.\d\d%", rest[0]) else "?" + rest[0])
        rest = rest[1:]
    shape.append("runtime" if re.fullmatch(r"\d+", rest[0]) else "?" + rest[0])
    shape.append("pcnt" if re.fullmatch(r"\d+\.\d\d", rest[1]) else "?" + rest[1])
    shape.append("metric" if rest[2] == "" or number(rest[2]) else "?" + rest[2])
    # The metric: CPUs utilized for the task clock, a rate per task-clock
    # second for the other software events (its scale, K or not, follows
    # the two runs' numbers), none on a <not counted> line.
    shape.append(("metric-unit", metric_kind(rest[3]) if rest[2] != "" else ""))
    return shape, len(line.split(","))


def metric_kind(unit):
    """perf's metric unit with the rate's scale left out; perf 6.1's --json
    writes a missing one as "(null)" (a NULL pointer through printf),
    opengpa as ""."""
    if unit == "(null)":
        return ""
    return re.sub(r"^[KMG]?/sec$", "/sec", unit)


def compare_x(name, args, interval=False, repeat=False, command=("true",), words=False):
    """words: the values' words (<not counted>) must be perf's too."""
    p, o = both(args, command)
    check(name + ": both exit 0", p.returncode == 0 and o.returncode == 0, o.stderr)
    plines = [l for l in p.stderr.splitlines() if l.strip()]
    olines = [l for l in o.stderr.splitlines() if l.strip()]
    if interval:
        # The intervals' number depends on timing, and so whether the
        # command ran in one (<not counted> where it slept all along, in
        # both): compare each event's first counted line, and that both
        # print <not counted> lines the same way where they have any.
        def shapes(lines):
            counted, idle = {}, {}
            for l in lines:
                shape = x_shape(l, True, False)
                into = idle if l.split(",")[1] == "<not counted>" else counted
                into.setdefault(shape[0][3][1], shape)
            return counted, idle
        pshapes, pidle = shapes(plines)
        oshapes, oidle = shapes(olines)
        for event in set(pidle) & set(oidle):
            check("%s: %s <not counted> line like perf's" % (name, event),
                  pidle[event] == oidle[event], (pidle[event], oidle[event]))
        check(name + ": same events", sorted(pshapes) == sorted(oshapes), (pshapes, oshapes))
        for event in pshapes:
            check("%s: %s line like perf's" % (name, event),
                  pshapes[event] == oshapes.get(event), (pshapes[event], oshapes.get(event)))
        return
    check(name + ": as many lines as perf", len(plines) == len(olines), (plines, olines))
    for pl, ol in zip(plines, olines):
        ps, os_ = x_shape(pl, interval, repeat), x_shape(ol, interval, repeat)
        check("%s: %r shaped as perf's %r" % (name, ol, pl), ps == os_, (ps, os_))
        if words:
            check("%s: %r says what perf's %r says" % (name, ol, pl),
                  ol.split(",")[0] == pl.split(",")[0] or
                  not pl.startswith("<") and not ol.startswith("<"), (pl, ol))


def compare_json(name, args, interval=False, command=("true",)):
    p, o = both(args, command)
    check(name + ": both exit 0", p.returncode == 0 and o.returncode == 0, o.stderr)
    try:
        pobjs = [json.loads(l) for l in p.stderr.splitlines() if l.strip()]
        oobjs = [json.loads(l) for l in o.stderr.splitlines() if l.strip()]
    except ValueError as err:
        check(name + ": every line is a JSON object", False, "%s: %r" % (err, o.stderr[:300]))
        return
    keys = (["interval"] if interval else []) + JSON_KEYS
    for objs, who in ((pobjs, "perf"), (oobjs, "opengpa")):
        check("%s: %s's objects have perf's keys in order" % (name, who),
              objs and all(list(x) == keys for x in objs), objs[:2])
    pevents = sorted({x["event"] for x in pobjs})
    oevents = sorted({x["event"] for x in oobjs})
    check(name + ": same events", pevents == oevents, (pevents, oevents))
    for x in oobjs:
        check("%s: %s's value a number as a string" % (name, x["event"]),
              isinstance(x["counter-value"], str) and
              (number(x["counter-value"]) or x["counter-value"].startswith("<")), x)
    units = {x["event"]: x["unit"] for x in pobjs}
    check(name + ": perf's units", all(units.get(x["event"]) == x["unit"] for x in oobjs),
          (units, oobjs[:3]))
    # perf's metrics: which unit each counted event has (CPUs utilized, a
    # rate), and a number; a <not counted> object none.
    metrics = {x["event"]: metric_kind(x["metric-unit"]) for x in pobjs
               if not x["counter-value"].startswith("<")}
    for x in oobjs:
        if x["counter-value"].startswith("<"):
            continue
        check("%s: %s's metric unit %r as perf's %r" % (name, x["event"], x["metric-unit"],
                                                         metrics.get(x["event"])),
              metric_kind(x["metric-unit"]) == metrics.get(x["event"]) and
              isinstance(x["metric-value"], float), x)


def compare_table(name, args):
    p, o = both(args)
    check(name + ": both exit 0", p.returncode == 0 and o.returncode == 0, o.stderr)
    for event, unit in (("task-clock", "msec"), ("page-faults", ""), ("context-switches", "")):
        pattern = r"^\s+[\d.,]+\s+%s\s+%s\b" % (re.escape(unit), re.escape(event))
        for who, text in (("perf", p.stderr), ("opengpa", o.stderr)):
            check("%s: %s's %s line: value, unit, event" % (name, who, event),
                  re.search(pattern, text, re.M), text)
    for who, text in (("perf", p.stderr), ("opengpa", o.stderr)):
        check("%s: %s prints CPUs utilized and the elapsed time" % (name, who),
              "CPUs utilized" in text and "seconds time elapsed" in text, text)
        for event in ("page-faults", "context-switches"):
            check("%s: %s's %s rate per second" % (name, who, event),
                  re.search(r"\b%s\s+#\s+[\d.,]+ [KMG]?/sec" % event, text), text)


compare_table("default", ["-e", EVENTS])
compare_x("-x,", ["-x,", "-e", EVENTS])
compare_x("-x, -r 3", ["-x,", "-r", "3", "-e", EVENTS], repeat=True)
compare_x("-I 100 -x,", ["-I", "100", "-x,", "-e", EVENTS], interval=True,
          command=("sleep", "0.35"))
compare_json("--json", ["--json", "-e", EVENTS])
compare_json("-I 100 --json", ["-I", "100", "--json", "-e", EVENTS], interval=True,
             command=("sleep", "0.35"))
# A process asleep all along (-p): its counters never ran, which perf
# prints as <not counted> with no run time and no metric.
sleeper = subprocess.Popen(["sleep", "30"])
try:
    compare_x("-p of a sleeping process -x,", ["-x,", "-p", str(sleeper.pid), "-e", EVENTS],
              command=("sleep", "0.2"), words=True)
    compare_json("-p of a sleeping process --json",
                 ["--json", "-p", str(sleeper.pid), "-e", EVENTS], command=("sleep", "0.2"))
finally:
    sleeper.kill()
    sleeper.wait()

# --per-thread on a process of three threads: its main thread waits (never
# runs: <not counted>), two others wake every few milliseconds.  Lines are
# sorted by count, which differs between the runs: each event's lines are
# compared as a set of shapes, the thread field as comm-tid.
HELPER = """
import sys, threading, time
stop = threading.Event()
def work():
    while not stop.is_set():
        sum(range(2000))
        time.sleep(0.003)
threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads:
    t.start()
print("ready", flush=True)
sys.stdin.read()
stop.set()
for t in threads:
    t.join()
"""


def per_thread_shapes(lines, tids):
    shapes = {}
    for line in lines:
        thread, rest = line.split(",", 1)
        m = re.fullmatch(r"(.+)-(\d+)", thread)
        kind = "comm-tid" if m and int(m.group(2)) in tids else "?" + thread
        shape, n = x_shape(rest, False, False)
        shapes.setdefault(shape[2][1], []).append((kind, shape, n + 1))
    return {event: sorted(v, key=repr) for event, v in shapes.items()}


helper = subprocess.Popen([sys.executable, "-c", HELPER], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
try:
    helper.stdout.readline()
    tids = {int(t) for t in os.listdir("/proc/%d/task" % helper.pid)}
    check("--per-thread: the helper has three threads", len(tids) == 3, tids)
    args = ["--per-thread", "-p", str(helper.pid), "-e", EVENTS]
    p, o = both(["-x,"] + args, ("sleep", "0.2"))
    check("--per-thread -x,: both exit 0", p.returncode == 0 and o.returncode == 0, o.stderr)
    plines = [l for l in p.stderr.splitlines() if l.strip()]
    olines = [l for l in o.stderr.splitlines() if l.strip()]
    check("--per-thread -x,: a line per thread and event, as perf's",
          len(olines) == len(plines) == 3 * len(EVENTS.split(",")), (plines, olines))
    ps, os_ = per_thread_shapes(plines, tids), per_thread_shapes(olines, tids)
    for event in ps:
        check("--per-thread -x,: %s's lines shaped as perf's" % event,
              ps[event] == os_.get(event), (ps[event], os_.get(event)))
    check("--per-thread -x,: events in perf's order",
          [l.split(",")[3] for l in olines] == [l.split(",")[3] for l in plines],
          (plines, olines))
    p, o = both(["--json"] + args, ("sleep", "0.2"))
    try:
        pobjs = [json.loads(l) for l in p.stderr.splitlines() if l.strip()]
        oobjs = [json.loads(l) for l in o.stderr.splitlines() if l.strip()]
    except ValueError as err:
        pobjs, oobjs = [], []
        check("--per-thread --json: every line is an object", False, err)
    for objs, who in ((pobjs, "perf"), (oobjs, "opengpa")):
        check("--per-thread --json: %s's objects lead with thread" % who,
              objs and all(list(x) == ["thread"] + JSON_KEYS for x in objs), objs[:2])
    check("--per-thread --json: the same threads",
          sorted({x["thread"] for x in pobjs}) == sorted({x["thread"] for x in oobjs}),
          (pobjs[:3], oobjs[:3]))
finally:
    helper.stdin.close()
    helper.wait(timeout=30)
finish()
