#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `opengpa stat` costs beside `perf stat`, in CPU time (issue 29).

usage: bench/light/stat_cost.py [--interval[=S]] [--steady] [--fork] BUILD_DIR [BUILD_DIR...] [ROUNDS]

Every side runs once per round, the sides alternating, so a baseline build
and this one (and perf stat) see the same machine; CPU time is user + system
of the command and everything it waits for, from wait4's rusage.

Each command is started with posix_spawn, not fork + exec: a forked child
of this Python process copies-on-write the interpreter's pages it touches
before its exec, about 1.4 ms of CPU on the CI VM that wait4 charges to
the command measured, the same for every side; that is neither tool's cost,
and it pulled every ratio towards 1 (perf stat -- true is ~9 ms, opengpa
stat -- true ~3 ms).  --fork starts them the old way, to compare with the
figures taken before (issue 29, round 7).

  * `stat -- true`: opengpa stat against perf stat and `true` alone (the
    floor: starting a process), each round's ratio to perf stat's, then the
    cheapest round, the median and the range of the ratios.
  * with --interval, `stat -I 10 -- sleep S`, both tools: the CPU time of an
    S s run less that of a 1 s run, over the (S - 1) * 100 intervals between
    them, so starting and ending the tool cancel out and what is left is the
    cost of an interval; per round, then median and range.  S is 11 unless
    given (--interval=S): 1000 intervals.  With 200 (S = 3, the old default)
    a tool's start and end, which vary by a millisecond or two on a busy
    machine, weighed as much as the intervals: perf stat's own figure came
    out negative in a round.  Nothing in CI runs this file, so the longer
    default costs no CI time (a round of two sides is about 25 s).

  * with --steady, `stat -I 10` per interval in the steady state: each
    tool's own threads' CPU time read from /proc while it runs, 1000
    intervals apart, start and end left out (interval_steady says how).

light.py runs the first part as its `stat` section; this file runs either
alone.
"""
import os
import shutil
import statistics
import sys
import time


FORK = False  # --fork: start each command the old way (see above)


def spawn(argv):
    """argv started with its output to /dev/null; its pid."""
    if FORK:
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        return pid
    fd = os.open(os.devnull, os.O_WRONLY)
    try:
        return os.posix_spawnp(argv[0], argv, os.environ,
                               file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1),
                                             (os.POSIX_SPAWN_DUP2, fd, 2)])
    finally:
        os.close(fd)


def run_cpu(argv):
    """CPU seconds (user + system) that argv and its children took."""
    _, status, ru = os.wait4(spawn(argv), 0)
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
    how = "fork + exec" if FORK else "posix_spawn"
    print(f"stat -- true, CPU time ({rounds} alternating rounds, started by {how}): perf stat best "
          f"{best['perf'] * 1e3:.2f} ms ({spread(times['perf'], 1e3)} ms), true alone best "
          f"{best['true'] * 1e3:.2f} ms")
    for b in builds:
        ratios = [o / p for o, p in zip(times[b], times["perf"])]
        print(f"  {b}: opengpa stat best {best[b] * 1e3:.2f} ms "
              f"({spread(times[b], 1e3)} ms) = {best[b] / best['perf']:.2f}x perf stat's best; "
              f"per-round ratio {spread(ratios)}")
        print(f"    per-round ratios: {' '.join(f'{r:.2f}' for r in ratios)}")


def report_interval(what, builds, per):
    """Per-interval seconds of each side (per["perf"], per[build]), per round."""
    print(f"{what}: perf stat {spread(per['perf'], 1e6, '{:.1f}')} us")
    for b in builds:
        ratios = [o / p if p > 0 else float("inf") for o, p in zip(per[b], per["perf"])]
        print(f"  {b}: opengpa stat {spread(per[b], 1e6, '{:.1f}')} us; per-round ratio to "
              f"perf stat {spread(ratios)}")
        print(f"    per-round: {' '.join(f'{o * 1e6:.1f}/{p * 1e6:.1f}' for o, p in zip(per[b], per['perf']))} us")


def interval(builds, rounds, perf, long=11):
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
    report_interval(f"stat -I 10 -- sleep {long} less sleep {short}, CPU time per interval "
                    f"({rounds} alternating rounds, {n} intervals)", builds, per)


def task_cpu_ns(pid):
    """CPU time so far of every thread of pid, in ns (schedstat's run time)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended between the listing and the read
    return total


def interval_steady(builds, rounds, perf, span=10.0, settle=1.5):
    """stat -I 10: CPU time per interval in the steady state.

    Each tool runs `-I 10 -- sleep` for settle + span + 1 s; its threads' CPU
    time (/proc/PID/task/*/schedstat, ns) is read once it has settled and
    again span seconds later, so neither its start nor its end is in the
    figure at all (the difference method above keeps both, and their noise
    on this VM is as large as a few hundred intervals).  What is counted is
    the tool's own threads: the command it runs (sleep) does nothing between
    the two readings.  Per interval = CPU between the readings / (wall time
    between them / 10 ms)."""
    sides = {"perf": [perf, "stat", "-I", "10", "--"]}
    for b in builds:
        sides[b] = [opengpa(b), "stat", "-I", "10", "--"]
    per = {k: [] for k in sides}
    sleep_s = str(int(settle + span + 1.5))
    for _ in range(rounds):
        # Every side at once, read at the same moments: they see the same
        # machine (how busy the host is moves both by up to 2x between
        # rounds taken one after the other); each needs well under 1 % of
        # a CPU, so on two CPUs they do not queue behind one another.
        pids = {k: spawn(argv + ["sleep", sleep_s]) for k, argv in sides.items()}
        time.sleep(settle)
        c0 = {k: task_cpu_ns(pid) for k, pid in pids.items()}
        w0 = time.monotonic()
        time.sleep(span)
        c1 = {k: task_cpu_ns(pid) for k, pid in pids.items()}
        w1 = time.monotonic()
        for k, pid in pids.items():
            _, status, _ = os.wait4(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"stat_cost.py: {' '.join(sides[k])} failed ({status}); run it by hand")
            per[k].append((c1[k] - c0[k]) * 1e-9 / ((w1 - w0) / 0.010))
    report_interval(f"stat -I 10, steady state: CPU time per interval of the tool's threads "
                    f"over {span:.0f} s ({span * 100:.0f} intervals) after {settle} s, "
                    f"{rounds} rounds, the sides side by side", builds, per)


def main():
    global FORK
    args = sys.argv[1:]
    with_interval = False
    long = 11
    FORK = "--fork" in args
    steady = "--steady" in args
    args = [a for a in args if a not in ("--fork", "--steady")]
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
    if steady:
        interval_steady(args, max(3, rounds // 6), perf)


if __name__ == "__main__":
    main()
