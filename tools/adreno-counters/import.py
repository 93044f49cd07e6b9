#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Extract the Adreno countable tables (index -> Mesa enum name, per KGSL
group) from the reference sheet into tools/adreno-counters/data/*.tsv.

The sheet (../shared/reference/adreno-kgsl.md, sections 3.3, 3.4 and 3.6)
transcribes Mesa's MIT-licensed freedreno register XML (a5xx.xml, a6xx.xml,
a7xx_perfcntrs.xml); names and values are facts.  Runs of RESERVED_n values,
which the sheet collapses into ranges, are left out: nothing counts there.

usage: import.py [--check [--skip-missing]] [SHEET]   (default: ../shared/reference/adreno-kgsl.md)

With --check nothing is written: each data/*.tsv is compared with what the
sheet gives, the differences are printed and the exit status is 1 if any
file differs (or the sheet is missing).
"""
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
args = sys.argv[1:]
check = "--check" in args
skip_missing = "--skip-missing" in args  # for the test: exit 77 (skipped) without the sheet
args = [a for a in args if a not in ("--check", "--skip-missing")]
sheet = args[0] if args else os.path.join(ROOT, "..", "shared", "reference", "adreno-kgsl.md")
if not os.path.exists(sheet):
    print("import.py: no reference sheet at %s (pass its path as the argument)" % sheet,
          file=sys.stderr)
    sys.exit(77 if skip_missing else 1)
GROUPS = {0x00: "CP", 0x01: "RBBM", 0x02: "PC", 0x03: "VFD", 0x04: "HLSQ", 0x05: "VPC",
          0x06: "TSE", 0x07: "RAS", 0x08: "UCHE", 0x09: "TP", 0x0A: "SP", 0x0B: "RB",
          0x0D: "VBIF", 0x17: "VSC", 0x18: "CCU", 0x19: "LRZ", 0x1A: "CMP", 0x2B: "UFC"}
head = re.compile(r"^#{4,5} (a[4567]xx) (\w+) — .*KGSL group 0x([0-9A-Fa-f]+)")
entry = re.compile(r"^(\d+) ([A-Za-z0-9_]+)$")
tables = {}
cur = None
with open(sheet, encoding="utf-8") as f:
    for line in f:
        m = head.match(line)
        if m:
            gen, gid = m.group(1), int(m.group(3), 16)
            cur = (gen, gid) if gen in ("a5xx", "a6xx", "a7xx") else None
            continue
        if line.startswith("#"):
            cur = None
            continue
        if cur is None or not line.startswith("    "):
            continue
        for item in line.strip().split(" · "):
            e = entry.match(item.strip())
            if not e:
                continue  # a collapsed RESERVED range
            name = e.group(2)
            if name.startswith("A7XX_"):
                name = name[5:]
            tables.setdefault(cur[0], {}).setdefault(cur[1], {})[int(e.group(1))] = name
stale = []
for gen, groups in sorted(tables.items()):
    path = os.path.join(HERE, "data", "adreno-%s.tsv" % gen)
    lines = ["# group_id\tgroup\tcountable\tmesa_name  (from %s, via import.py)\n" % gen]
    for gid in sorted(groups):
        for idx in sorted(groups[gid]):
            lines.append("0x%02X\t%s\t%d\t%s\n" % (gid, GROUPS[gid], idx, groups[gid][idx]))
    text = "".join(lines)
    if check:
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if old != text:
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), lines, path, path + " (from the sheet)", n=1))
        continue
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    print("%s: %d groups, %d countables" % (path, len(groups),
                                             sum(len(g) for g in groups.values())))
if check and len(tables) != 3:
    print("import.py: the sheet gave tables for %s, expected a5xx, a6xx and a7xx"
          % sorted(tables), file=sys.stderr)
    sys.exit(1)
if stale:
    print("out of date (run tools/adreno-counters/import.py):", *stale)
    sys.exit(1)
