#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The installed manual and `--help` list the same options for every command.

usage: check_help.py OPENGPA MAN_DIR_FILE (any generated page; its directory
holds them all)
"""
import os
import re
import shlex
import subprocess
import sys

# Cross builds run the command under qemu-user: meson names the wrapper.
opengpa = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [sys.argv[1]]
man_dir = os.path.dirname(sys.argv[2])
failures = 0
checked = 0


def help_terms(args):
    r = subprocess.run(opengpa + args + ["--help"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0 or r.stderr:
        raise SystemExit("opengpa %s --help: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))
    terms = []
    for line in r.stdout.splitlines():
        if line.startswith("  -"):
            terms.append(re.split(r"\s{2,}", line.strip())[0])
    return terms


def man_terms(page):
    with open(os.path.join(man_dir, page), encoding="utf-8") as f:
        lines = f.read().splitlines()
    terms, section = [], None
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
        elif line == ".TP" and section == "OPTIONS" and i + 1 < len(lines):
            t = re.sub(r"\\f[BIR]", "", lines[i + 1]).replace("\\-", "-")
            terms.append(t)
    return terms


for args, page in (([], "opengpa.1"), (["list"], "opengpa-list.1"),
                   (["stat"], "opengpa-stat.1"), (["pc_sweep"], "opengpa-pc_sweep.1"),
                   (["spe"], "opengpa-spe.1"), (["predict"], "opengpa-predict.1"),
                   (["compare"], "opengpa-compare.1")):
    h, m = help_terms(args), man_terms(page)
    checked += 1
    if not h or h != m:
        failures += 1
        print("FAIL: opengpa %s --help and %s differ:\n  help: %s\n  man:  %s"
              % (" ".join(args), page, h, m))
print("%d passed, %d failed" % (checked - failures, failures))
sys.exit(1 if failures else 0)
