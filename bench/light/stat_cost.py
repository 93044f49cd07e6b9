#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `opengpa stat` costs beside `perf stat`, in CPU time (issue 29).

usage: bench/light/stat_cost.py [--interval[=S]] BUILD_DIR [BUILD_DIR...] [ROUNDS]

Every side runs once per round, the sides alternating, so a baseline build
and this one (and perf stat) see the same machine; CPU time is user + system
of the command and everything it waits for, from wait4's rusage.

  * `stat -- true`: opengpa stat against perf stat and `true` alone (the
    floor: starting a process), each round's ratio to perf stat's, then the
    cheapest round, the median and the range of the ratios.
  * with --interval, `stat -I 10 -- sleep S`, both tools: the CPU time of a
    3 s run less that of a 1 s run, over the 200 intervals between them, so
    starting and ending the tool cancel out and what is left is the cost of
    an interval; per round, then median and range.  --interval=S makes the
    long run S seconds (more intervals, less noise from a busy machine).

light.py runs the first part as its `stat` section; this file runs either
alone.
"""
import os
import shutil
import statistics
import sys


def run_cpu(argv):
    """CPU seconds (user + system) that argv and its children took."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"stat_cost.py: {' '.join(argv)} failed ({status}); run it by hand to see why")
    return ru.ru_utime + ru.ru_stime


def opengpa(build):
    return os.path.join(build, "tools", "opengpa", "opengpa")


def spread(values, scale=1.0, fmt="{:.2f}"):
    v = sorted(x * scale for x in values)
    return (f"median {fmt.format(statistics.median(v))}, range "
            f"{fmt.format(v[0])}-{fmt.format(v[-1])}")


def stat_true(builds, rounds, perf):
    """opengpa stat -- true against perf stat -- true and true alone."""
    sides = {"perf": [perf, "stat", "--", "true"], "true": ["true"]}
    for b in builds:
        sides[b] = [opengpa(b), "stat", "--", "true"]
    times = {k: [] for k in sides}
    for _ in range(rounds):
        for k, argv in sides.items():
            times[k].append(run_cpu(argv))
    best = {k: min(v) for k, v in times.items()}
    print(f"stat -- true, CPU time ({rounds} alternating rounds): perf stat best "
          f"{best['perf'] * 1e3:.2f} ms ({spread(times['perf'], 1e3)} ms), true alone best "
          f"{best['true'] * 1e3:.2f} ms")
    for b in builds:
        ratios = [o / p for o, p in zip(times[b], times["perf"])]
        print(f"  {b}: opengpa stat best {best[b] * 1e3:.2f} ms "
              f"({spread(times[b], 1e3)} ms) = {best[b] / best['perf']:.2f}x perf stat's best; "
              f"per-round ratio {spread(ratios)}")
        print(f"    per-round ratios: {' '.join(f'{r:.2f}' for r in ratios)}")


def interval(builds, rounds, perf, long=3):
    """stat -I 10: CPU time per interval, the long run less the 1 s run."""
    short = 1
    n = (long - short) * 100  # 10 ms intervals between the two runs
    sides = {"perf": [perf, "stat", "-I", "10", "--"]}
    for b in builds:
        sides[b] = [opengpa(b), "stat", "-I", "10", "--"]
    per = {k: [] for k in sides}
    for _ in range(rounds):
        for k, argv in sides.items():
            a = run_cpu(argv + ["sleep", str(short)])
            z = run_cpu(argv + ["sleep", str(long)])
            per[k].append((z - a) / n)
    print(f"stat -I 10 -- sleep {long} less sleep {short}, CPU time per interval "
          f"({rounds} alternating rounds, {n} intervals): perf stat "
          f"{spread(per['perf'], 1e6, '{:.1f}')} us")
    for b in builds:
        ratios = [o / p if p > 0 else float("inf") for o, p in zip(per[b], per["perf"])]
        print(f"  {b}: opengpa stat {spread(per[b], 1e6, '{:.1f}')} us; per-round ratio to "
              f"perf stat {spread(ratios)}")
        print(f"    per-round: {' '.join(f'{o * 1e6:.1f}/{p * 1e6:.1f}' for o, p in zip(per[b], per['perf']))} us")


def main():
    args = sys.argv[1:]
    with_interval = False
    long = 3
    for a in args:
        if a == "--interval" or a.startswith("--interval="):
            with_interval = True
            if "=" in a:
                long = int(a.split("=", 1)[1])
                if long < 2:
                    sys.exit("stat_cost.py: --interval=S needs S of 2 s or more")
    args = [a for a in args if not a.startswith("--interval")]
    rounds = 30
    if args and args[-1].isdigit():
        rounds = int(args.pop())
    if not args:
        sys.exit(__doc__)
    perf = shutil.which("perf")
    if not perf:
        print("stat: skipped (no perf here: install linux-perf to compare with)")
        return
    stat_true(args, rounds, perf)
    if with_interval:
        interval(args, max(3, rounds // 6), perf, long)


if __name__ == "__main__":
    main()
