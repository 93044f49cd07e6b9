#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The `opengpa` command on the virtual devices (tests/virtual-devices/),
through LD_PRELOAD as any program would see them.  Needs no PMU and no
perf_event_open, so it runs everywhere the build runs, qemu-user included.

usage: test_cli_devices.py OPENGPA BACKENDS V34K_PRELOAD VMALI_PRELOAD
(BACKENDS: the backends this build has, comma-separated; a preload may be ''.)
"""
import sys

from cli_harness import check, finish, run

BACKENDS = sys.argv[2].split(",")
V34K = sys.argv[3] or None
VMALI = sys.argv[4] or None

if V34K and "mips" in BACKENDS:
    r = run(["stat", "--backend", "mips", "-uicp", "--", "true"], preload=V34K)
    check("mips pc_sweep report", r.returncode == 0 and "IPC:" in r.stdout and
          "D-$ miss rate:" in r.stdout, r.stdout + r.stderr)

if VMALI and "mali" in BACKENDS:
    counters = "GPUActiveCycles,FragmentQueueUtilization,OutputExternalReadBytes"
    r = run(["stat", "--backend", "mali", "-x", ",", "-e", counters, "--", "true"], preload=VMALI)
    rows = [line.split(",") for line in r.stdout.splitlines()]
    check("mali stat on the virtual G71", r.returncode == 0 and len(rows) == 3 and
          int(rows[0][0]) > 0 and 0 < float(rows[1][0]) <= 100, r.stdout + r.stderr)
    r = run(["list", "--backend", "mali"], preload=VMALI)
    check("mali list names the device", "Mali-G71" in r.stdout, r.stdout[:200] + r.stderr)

if VMALI and "panfrost" in BACKENDS:
    counters = "GPUActiveCycles,FragmentQueueUtilization,OutputExternalReadBytes"
    r = run(["stat", "--backend", "panfrost", "-x", ",", "-e", counters, "--", "true"],
            env={"VMALI_PANFROST_UNSTABLE": "1"}, preload=VMALI)
    check("panfrost stat on the virtual G71", r.returncode == 0 and
          len(r.stdout.splitlines()) == 3, r.stdout + r.stderr)
    r = run(["list", "--backend", "panfrost"], preload=VMALI)
    check("panfrost ENOSYS says how to turn the ioctls on", r.returncode == 1 and
          "unstable_ioctls" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr)

if "panfrost" not in BACKENDS:
    r = run(["list", "--backend", "panfrost"])
    check("a build without panfrost says why", r.returncode == 1 and "left out" in r.stderr and
          "libdrm" in r.stderr, r.stderr)

finish()
