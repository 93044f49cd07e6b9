#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`opengpa stat --per-core` on the virtual Mali (issue 25's "done when"):
on a Mali-G720 (CSF UK 1.23) and a Mali-G78 (JM UK 11.41, a core mask with
holes), each shader core's and L2 slice's rows follow their counter, named by
the cores' bits in the mask, and add up to the counter's total in -x, --json,
the -I lines and the CSV file (and the G78 on panfrost in -x); the
workload's imbalance shows (the script
gives each core more warps than the core before it); a counter that is not
counted per instance gets no rows; and through a user's counter file, which
counters get copies and what a BLOCK#N source reads.

usage: test_percore.py OPENGPA VMALI_PRELOAD
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from cli_harness import OPENGPA as opengpa, check, finish

vmali = sys.argv[2] if len(sys.argv) > 2 else ""


if not vmali:
    print("no virtual Mali in this build: skipped")
    sys.exit(77)

tmp = tempfile.mkdtemp()
SC = ["NonFragmentWarps", "FragmentWarps"]
L2 = ["ReadLookupRequests", "OutputExternalReadBytes"]
EVENTS = ",".join(SC + L2 + ["GPUActiveCycles"])
GPUS = [  # name, product id, UK, core mask, slices
    ("G720", "0xc000", "1.23", 0xFF, 2),
    ("G78", "0x9002", "11.41", 0x5B, 2),
]


def stat(gpu, *args, backend="mali", per_core=True, command="stat"):
    _, gid, uk, mask, slices = gpu
    env = dict(os.environ, LD_PRELOAD=vmali, VMALI_GPU_ID=gid, VMALI_UK=uk,
               VMALI_CORE_MASK=hex(mask), VMALI_L2_SLICES=str(slices),
               VMALI_PANFROST_UNSTABLE="1",
               VMALI_WORKLOAD="frame compute_warps=4000 imbalance=1 slice_imbalance=0.5")
    return subprocess.run([*opengpa, command, "--backend", backend,
                           *(["--per-core"] if per_core else []), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def separated(text):
    """-x ';' lines: the events in order and their values."""
    order, values = [], {}
    for line in text.splitlines():
        f = line.split(";")
        if len(f) >= 3 and f[0].replace(".", "").isdigit():
            order.append(f[2])
            values[f[2]] = float(f[0])
    return order, values


def expected(gpu):
    _, _, _, mask, slices = gpu
    cores = ["ShaderCore%d" % b for b in range(64) if mask >> b & 1]
    return {**{c: cores for c in SC}, **{c: ["L2Slice%d" % s for s in range(slices)] for c in L2},
            "GPUActiveCycles": []}


def check_values(label, gpu, values, order):
    """values: name -> number; order: the names as printed."""
    want = expected(gpu)
    for base, labels in want.items():
        check("%s: %s counted" % (label, base), base in values, str(order))
        rows = [n for n in order if n.endswith(":" + base)]
        check("%s: %s's rows" % (label, base), rows == ["%s:%s" % (l, base) for l in labels],
              str(rows))
        if not labels or base not in values:
            continue
        # They follow their counter at once.
        at = order.index(base)
        check("%s: %s's rows follow it" % (label, base),
              order[at + 1:at + 1 + len(labels)] == rows, str(order))
        parts = [values[r] for r in rows]
        check("%s: %s's instances add up to its total" % (label, base),
              abs(sum(parts) - values[base]) <= 1e-6 * max(1.0, values[base]),
              "%s vs %s" % (parts, values[base]))
        check("%s: %s's instances differ (imbalance)" % (label, base),
              parts[-1] > parts[0] > 0, str(parts))


for gpu in GPUS:
    name = gpu[0]
    # -x: perf's fields, value first and the event third.
    r = stat(gpu, "-x", ";", "-e", EVENTS, "--", "true")
    check("%s -x runs" % name, r.returncode == 0, r.stderr)
    order, values = [], {}
    for line in r.stderr.splitlines():
        f = line.split(";")
        if len(f) >= 3 and f[0].replace(".", "").isdigit():
            order.append(f[2])
            values[f[2]] = float(f[0])
    check_values(name + " -x", gpu, values, order)

    # --json: perf's lines.
    r = stat(gpu, "--json", "-e", EVENTS, "--", "true")
    check("%s --json runs" % name, r.returncode == 0, r.stderr)
    order, values = [], {}
    for line in r.stderr.splitlines():
        if line.startswith("{"):
            o = json.loads(line)
            order.append(o["event"])
            values[o["event"]] = float(o["counter-value"])
    check_values(name + " --json", gpu, values, order)

    # -I with a CSV file: every interval's row adds up.
    path = os.path.join(tmp, name + ".csv")
    r = stat(gpu, "-I", "30", "-x", ";", "--csv", path, "-e", EVENTS, "--", "sleep", "0.1")
    check("%s -I runs" % name, r.returncode == 0, r.stderr)
    intervals = {}
    for line in r.stderr.splitlines():
        f = line.split(";")
        if len(f) >= 4 and f[1].replace(".", "").isdigit():
            intervals.setdefault(f[0], ({}, []))
            intervals[f[0]][0][f[3]] = float(f[1])
            intervals[f[0]][1].append(f[3])
    check("%s -I: intervals" % name, len(intervals) >= 2, r.stderr)
    for t, (values, order) in intervals.items():
        check_values("%s -I %s" % (name, t), gpu, values, order)
    with open(path) as f:
        rows = list(csv.reader(f))
    head = [h.split(" (")[0] for h in rows[0]]
    check("%s CSV: a column per instance" % name,
          all("%s:%s" % (l, b) in head for b, ls in expected(gpu).items() for l in ls), str(head))
    for row in rows[1:]:
        values = {h: float(v) for h, v in zip(head, row) if v and h not in ("flags",)
                  and v.replace(".", "").isdigit()}
        check_values("%s CSV sample %s" % (name, row[0]), gpu, values,
                     [h for h in head if h in values])

    # --html: the heat strips (instances x intervals), when a JavaScript
    # engine is there to run the page's script (node; not a CI dependency).
    page = os.path.join(tmp, name + ".html")
    r = stat(gpu, "-I", "30", "--html", page, "-e", EVENTS, "--", "sleep", "0.1")
    check("%s --html runs" % name, r.returncode == 0, r.stderr)
    text = open(page).read() if os.path.exists(page) else ""
    check("%s --html: the strips' section" % name,
          '<section id="percore">' in text and "percore-strips" in text, text[-500:])
    node = shutil.which("node")
    if node and text:
        out = subprocess.run([node, os.path.join(os.path.dirname(__file__), "percore_strip.js"),
                              page], capture_output=True, text=True, timeout=60)
        f = out.stdout.split()
        labels = [l for b, ls in expected(gpu).items() for l in ls]
        ok = (out.returncode == 0 and len(f) == 6 and f[1].split(",") == SC + L2
              and f[5].split(",") == labels and int(f[3]) == len(labels) * text.count("<script>S("))
        check("%s --html: a strip per counter, a cell per instance and interval" % name, ok,
              out.stdout + out.stderr)

# A user's counter file (G78, a mask with holes): a counter over
# shader-core counters gets a copy per core, one that divides by the core
# count gets none, and a raw counter of the user's own with a per-instance
# source (SC#3:4) reads what ShaderCore3's copy reads.
user = os.path.join(tmp, "user.counters")
with open(user, "w") as f:
    f.write("""backend mali

raw Core3FragActive
    source: SC#3:4
    usage: cycles
    description: The core at bit 3's value 4 (FRAG_ACTIVE).

counter PerCoreShare
    group: Test
    usage: cycles
    type: float64
    description: Fragment-active cycles over the core count.
    expression: $MaliHwSC_FRAG_ACTIVE / $MaliConfigCoreCount

counter DoubleFrag
    group: Test
    usage: cycles
    type: uint64
    description: Twice the fragment-active cycles.
    expression: $MaliHwSC_FRAG_ACTIVE * 2

counter Core3Frag
    group: Test
    usage: cycles
    type: uint64
    description: The core at bit 3's fragment-active cycles, from its own source.
    expression: $Core3FragActive
""")
os.environ["OPENGPA_COUNTER_PATH"] = user
r = stat(GPUS[1], "-x", ";", "-e", "Core3Frag,PerCoreShare,DoubleFrag,FragmentActiveCycles",
         "--", "true")
del os.environ["OPENGPA_COUNTER_PATH"]
check("user file: runs", r.returncode == 0, r.stderr)
order, values = [], {}
for line in r.stderr.splitlines():
    f = line.split(";")
    if len(f) >= 3 and f[0].replace(".", "").isdigit():
        order.append(f[2])
        values[f[2]] = float(f[0])
check("user file: no copies of a counter over the core count",
      not [n for n in order if n.endswith(":PerCoreShare")], str(order))
cores = ["ShaderCore%d" % b for b in range(64) if GPUS[1][3] >> b & 1]
check("user file: a copy per core of a counter over shader-core counters",
      [n for n in order if n.endswith(":DoubleFrag")] == [c + ":DoubleFrag" for c in cores],
      str(order))
check("user file: SC#3:4 is ShaderCore3's value",
      values.get("Core3Frag", -1) == values.get("ShaderCore3:FragmentActiveCycles", -2) > 0
      and values.get("ShaderCore3:DoubleFrag") == 2 * values.get("Core3Frag", 0), str(values))

# Copies only when asked for (docs/api.md, "Offered when asked for"): a -e
# name of an instance turns them on without --per-core; a plain list has none.
r = stat(GPUS[1], "-x", ";", "-e", "ShaderCore3:FragmentActiveCycles", "--", "true",
         per_core=False)
order, values = separated(r.stderr)
check("-e of an instance's name alone", r.returncode == 0
      and order == ["ShaderCore3:FragmentActiveCycles"], r.stderr)

# `opengpa list`: each counter once, its instances noted compactly; every
# copy a row of its own with --instances; the same in -x and -j.
def is_copy(name):
    return ":" in name and name.split(":", 1)[0].rstrip("0123456789") in ("ShaderCore", "L2Slice",
                                                                          "CSG")


r = stat(GPUS[0], per_core=False, command="list")
rows = {line.split()[0]: line for line in r.stdout.splitlines()[2:] if line.strip()}
check("list: each counter once, no copies", r.returncode == 0 and "FragmentWarps" in rows
      and not any(is_copy(n) for n in rows) and "(--instances lists them)" in r.stdout,
      r.stdout[:2000] + r.stderr)
check("list: G720 notes its cores and slices",
      rows.get("FragmentWarps", "").endswith("(per instance: ShaderCore0-7)")
      and rows.get("ReadLookupRequests", "").endswith("(per instance: L2Slice0-1)")
      and "per instance" not in rows.get("GPUActiveCycles", "per instance"),
      [rows.get(n) for n in ("FragmentWarps", "ReadLookupRequests", "GPUActiveCycles")])
r = stat(GPUS[0], "-x", ";", per_core=False, command="list")
plain = list(csv.reader(r.stdout.splitlines(), delimiter=";"))
check("list -x: an instances field, the note", r.returncode == 0 and plain[0][-1] == "instances"
      and all(len(x) == 10 for x in plain) and not any(is_copy(x[0]) for x in plain)
      and {x[0]: x[9] for x in plain}.get("FragmentWarps") == "ShaderCore0-7", r.stdout[:600])
r = stat(GPUS[0], "--instances", "-x", ";", per_core=False, command="list")
every = list(csv.reader(r.stdout.splitlines(), delimiter=";"))
copies = [x[0] for x in every if is_copy(x[0])]
check("list --instances -x: the counters, then every copy", r.returncode == 0
      and [x for x in every if not is_copy(x[0])] == plain
      and all("ShaderCore%d:FragmentWarps" % c in copies for c in range(8))
      and "L2Slice1:ReadLookupRequests" in copies and "ShaderCore8:FragmentWarps" not in copies
      and all(x[9] == "" for x in every if is_copy(x[0])), (len(every), copies[:20]))
r = stat(GPUS[0], "--instances", per_core=False, command="list")
check("list --instances: the header counts the copies", r.returncode == 0
      and "with %d per-instance copies" % len(copies) in r.stdout.splitlines()[0], r.stdout[:300])
r = stat(GPUS[0], "-j", per_core=False, command="list")
try:
    doc = {x["name"]: x for x in json.loads(r.stdout)["counters"]}
    check("list -j: instances", doc["FragmentWarps"]["instances"] == "ShaderCore0-7"
          and doc["GPUActiveCycles"]["instances"] == "" and not any(is_copy(n) for n in doc),
          r.stdout[:600])
except (ValueError, KeyError) as err:
    check("list -j parses", False, "%s: %r" % (err, r.stdout[:300]))
r = stat(GPUS[0], "--instances", "-j", "ShaderCore3:*", per_core=False, command="list")
try:
    names = [x["name"] for x in json.loads(r.stdout)["counters"]]
    check("list --instances -j PATTERN: one core's copies", "ShaderCore3:FragmentWarps" in names
          and all(n.startswith("ShaderCore3:") for n in names), names[:20])
except (ValueError, KeyError) as err:
    check("list --instances -j parses", False, "%s: %r" % (err, r.stdout[:300]))
r = stat(GPUS[1], "-x", ";", per_core=False, command="list")
notes = {x[0]: x[9] for x in csv.reader(r.stdout.splitlines(), delimiter=";") if len(x) == 10}
check("list: G78's core mask 0x5B as ranges", notes.get("FragmentWarps") == "ShaderCore0-1,3-4,6",
      notes.get("FragmentWarps"))
r = stat(GPUS[0], "--instances", "--groups", per_core=False, command="list")
check("list --instances --groups refused", r.returncode == 2 and "--instances" in r.stderr,
      r.stderr)

# The same G78 on upstream panfrost (its v5 dumps hold every core and slice).
r = stat(GPUS[1], "-x", ";", "-e", EVENTS, "--", "true", backend="panfrost")
if "'panfrost' is not in this build" in r.stderr or "left out of this build" in r.stderr:
    print("panfrost: not in this build")
else:
    check("G78 panfrost -x runs", r.returncode == 0, r.stderr)
    order, values = separated(r.stderr)
    check_values("G78 panfrost -x", GPUS[1], values, order)

finish()
