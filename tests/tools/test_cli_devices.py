#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The `opengpa` command on the virtual devices (tests/virtual-devices/),
through LD_PRELOAD as any program would see them.  Needs no PMU and no
perf_event_open, so it runs everywhere the build runs, qemu-user included.

usage: test_cli_devices.py OPENGPA BACKENDS V34K_PRELOAD VMALI_PRELOAD V34K_PMU_PRELOAD
(BACKENDS: the backends this build has, comma-separated; a preload may be ''.)
"""
import json
import os
import re
import sys
import tempfile

from cli_harness import check, finish, run

BACKENDS = sys.argv[2].split(",")
V34K = sys.argv[3] or None
VMALI = sys.argv[4] or None
V34K_PMU = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None

if V34K and "mips" in BACKENDS:
    r = run(["pc_sweep", "-uicp", "--", "true"], preload=V34K)
    check("mips pc_sweep report", r.returncode == 0 and "IPC:" in r.stdout and
          "D-$ miss rate:" in r.stdout, r.stdout + r.stderr)
    # --output is close-on-exec: the measured command does not inherit it (#13).
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sweep.txt")
        r = run(["pc_sweep", "-ui", "--output", out, "--", "sh", "-c",
                 "for f in /proc/$$/fd/*; do readlink $f; done; true"], preload=V34K)
        check("pc_sweep --output not inherited", r.returncode == 0 and out not in r.stdout and
              "PerfCnt[0].Cnt" in open(out).read(), r.stdout + r.stderr)
    r = run(["stat", "--backend", "mips", "-uicp", "--", "true"], preload=V34K)
    check("pc_sweep's letters are not stat's", r.returncode == 2, r.stderr)
    # Passes made explicit (issue #16's second audit case): said before the runs,
    # --passes=once refuses, a run that ends differently is reported and the first
    # failing status returned.
    mips = ["stat", "--backend", "mips", "-e", "IPC,ICacheMissRate,DCacheMissRate"]
    r = run(mips + ["--", "true"], preload=V34K)
    check("passes announced with their counters", r.returncode == 0 and
          "runs 2 times" in r.stderr and "run 1: IPC, ICacheMissRate" in r.stderr and
          "run 2: DCacheMissRate" in r.stderr and
          r.stderr.index("run 2: DCacheMissRate") < r.stderr.index("Counter stats"), r.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "d")
        r = run(mips + ["--passes=once", "--", "mkdir", d], preload=V34K)
        check("--passes=once refuses before running", r.returncode == 1 and
              not os.path.exists(d) and "--passes=once" in r.stderr, r.stderr)
        r = run(mips + ["--", "mkdir", d], preload=V34K)
        check("mkdir d: run 2's failure reported, status 1", r.returncode == 1 and
              "run 2 of 2 exited with status 1, run 1 with 0" in r.stderr and
              "Counter stats" in r.stderr, r.stderr)
        flag = os.path.join(tmp, "f")
        r = run(mips + ["--", "sh", "-c", "test -e %s && exit 0; touch %s; exit 5" % (flag, flag)],
                preload=V34K)
        check("first failing status wins", r.returncode == 5 and "run 1 with 5" in r.stderr,
              r.stderr)

if VMALI and "mali" in BACKENDS:
    counters = "GPUActiveCycles,FragmentQueueUtilization,OutputExternalReadBytes"
    r = run(["stat", "--backend", "mali", "-x", ",", "-e", counters, "--", "true"], preload=VMALI)
    rows = [line.split(",") for line in r.stderr.splitlines()]
    check("mali stat on the virtual G71", r.returncode == 0 and len(rows) == 3 and
          int(rows[0][0]) > 0 and 0 < float(rows[1][0]) <= 100, r.stdout + r.stderr)
    r = run(["list", "--backend", "mali"], preload=VMALI)
    check("mali list names the device", "Mali-G71" in r.stdout, r.stdout[:200] + r.stderr)
    check("mali list shows Arm's machine names", "(also: MaliGPUActiveCy)" in r.stdout,
          r.stdout[:400])
    r = run(["list", "--backends", "-j"], preload=VMALI)
    b = {x["name"]: x for x in json.loads(r.stdout)["backends"]}
    check("--backends on the virtual G71: mali usable, auto's choice",
          b["mali"]["usable"] and b["mali"]["auto"] and "Mali-G71" in b["mali"]["device"] and
          ("panfrost" not in BACKENDS or "unstable_ioctls" in b["panfrost"]["reason"]), r.stdout)
    # Arm's machine name and the database's title find the G71's own counters.
    r = run(["stat", "--backend", "mali", "-x", ",", "-e",
             "maligpuactivecy,OutputExternalReadStallPercentage", "--", "true"], preload=VMALI)
    rows = [line.split(",") for line in r.stderr.splitlines()]
    check("mali stat -e takes aliases", r.returncode == 0 and len(rows) == 2 and
          "GPUActiveCycles" in r.stderr and "OutputExternalReadStallRate" in r.stderr,
          r.stdout + r.stderr)
    # The headline default on a Mali-G720: tens of lines, not ~300; -M all
    # everything; list --headline the same set.
    g720 = {"VMALI_GPU_ID": "0xc000"}
    r = run(["stat", "--backend", "mali", "--", "true"], env=g720, preload=VMALI)
    lines = r.stderr.splitlines()
    check("G720 default: the headline set, under 30 lines", r.returncode == 0 and
          "Mali-G720" in r.stderr and 15 < len(lines) < 30 and "GPUActiveCycles" in r.stderr
          and "MainPhaseQueueUtilization" in r.stderr and "OutputExternalReadBytes" in r.stderr,
          r.stderr)
    r = run(["stat", "--backend", "mali", "-x", ",", "--", "true"], env=g720, preload=VMALI)
    default = [x.split(",")[2] for x in r.stderr.splitlines()]
    r = run(["stat", "--backend", "mali", "-M", "all", "-x", ",", "--", "true"], env=g720,
            preload=VMALI)
    every = [x.split(",")[2] for x in r.stderr.splitlines()]
    check("G720 -M all: every counter", r.returncode == 0 and len(every) > 250 and
          set(default) < set(every), (len(every), r.stderr[-300:]))
    r = run(["list", "--backend", "mali", "--headline", "-x", ","], env=g720, preload=VMALI)
    check("G720 list --headline: the default's counters", r.returncode == 0 and
          [x.split(",")[0] for x in r.stdout.splitlines()[1:]] == default, r.stdout)
    if "panfrost" in BACKENDS:
        r = run(["stat", "--backend", "panfrost", "-x", ",", "-e", counters, "--", "true"],
                env={"VMALI_PANFROST_UNSTABLE": "1"}, preload=VMALI)
        check("panfrost stat on the virtual G71", r.returncode == 0 and
              len(r.stderr.splitlines()) == 3, r.stdout + r.stderr)
        r = run(["list", "--backend", "panfrost"], preload=VMALI)
        check("panfrost ENOSYS says how to turn the ioctls on", r.returncode == 1 and
              "unstable_ioctls" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr)

# A 34K under a mainline kernel: no /proc/perf, the kernel's MIPS PMU through
# perf_event.  `opengpa stat` with no backend named picks the 34K set there.
if V34K_PMU and "perf" in BACKENDS:
    r = run(["list"], preload=V34K_PMU)
    check("list on a mainline 34K: the 34K set through perf",
          r.returncode == 0 and "MIPS 34Kc" in r.stdout and "(perf backend)" in r.stdout and
          "DCacheMissRate" in r.stdout, r.stdout[:300] + r.stderr)
    r = run(["stat", "-x", ",", "-e", "IPC,DCacheMissRate,CoreCycles", "--", "true"],
            preload=V34K_PMU)
    rows = {f[2]: f[0] for f in (line.split(",") for line in r.stderr.splitlines())
            if len(f) >= 3}
    check("stat on a mainline 34K counts the model", r.returncode == 0 and
          rows.get("IPC") == "0.800" and rows.get("DCacheMissRate") == "5.00" and
          rows.get("CoreCycles") == "10000000", r.stderr)
    r = run(["stat", "--", "true"], preload=V34K_PMU)
    check("stat -- true picks the 34K set over perf_event", r.returncode == 0 and
          "perf backend" in r.stderr and "MIPS 34Kc" in r.stderr and
          re.search(r"0\.800\s+IPC", r.stderr), r.stderr[-800:])
    mt = {"V34K_PMU_CPUS": "2", "V34K_PMU_MT_SMP": "1"}
    r = run(["stat", "-x", ",", "-e", "IPC,DCacheMissRate", "--", "true"], env=mt,
            preload=V34K_PMU)
    check("two counters per CPU on an MT_SMP kernel: two runs", r.returncode == 0 and
          "runs 2 times" in r.stderr and ",IPC," in r.stderr, r.stderr)
    r = run(["pc_sweep", "-uicp", "--", "true"], preload=V34K_PMU)
    check("pc_sweep on a mainline 34K", r.returncode == 0 and "IPC:" in r.stdout and
          "0.800" in r.stdout and "D-$ miss rate:" in r.stdout, r.stdout + r.stderr)
    r = run(["pc_sweep", "-ui", "-t", "3", "--", "true"], preload=V34K_PMU)
    check("pc_sweep -t needs /proc/perf", r.returncode == 1 and "/proc/perf" in r.stderr,
          r.stderr)
    # No PMU and (here) no cycle counter: nothing of the set can count, and
    # the one line says which kernel interface refused.
    r = run(["list"], env={"V34K_PMU_NO_PMU": "1"}, preload=V34K_PMU)
    check("no MIPS PMU: the device says the PMU refused", r.returncode == 1 and
          "the MIPS PMU refused" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          r.stderr)

if "panfrost" not in BACKENDS:
    r = run(["list", "--backend", "panfrost"])
    check("a build without panfrost says why", r.returncode == 1 and "left out" in r.stderr and
          "libdrm" in r.stderr, r.stderr)
    r = run(["list", "--backends", "-j"])
    b = {x["name"]: x for x in json.loads(r.stdout)["backends"]}
    check("list --backends names panfrost as left out, and why",
          "panfrost" in b and not b["panfrost"]["usable"] and
          "left out" in b["panfrost"]["summary"] and "libdrm" in b["panfrost"]["reason"],
          r.stdout)

finish()
