#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What one `with session.sample(): pass` costs from Python against the same
GPA calls from C (issue 27), in CPU µs per sample.

usage: bench/python/sample_cost.py [--baseline-python DIR] BUILD_DIR [ROUNDS] [SAMPLES]

For each backend — perf (software counters TaskClock, PageFaults) and the
virtual Mali-G71 (GPUActiveCycles, FragmentQueueActiveCycles; BUILD_DIR's
preload under LD_PRELOAD, as the python-vmali tests run) — every round runs
both sides once, alternating, each a fresh process over BUILD_DIR's library:

  * python: SAMPLES samples `with s.sample(): pass` in one session, timed
    with time.thread_time() around the loop (the package's own calls:
    GPA_SelectContext + GPA_BeginSample, GPA_SelectContext + GPA_EndSample,
    through ctypes, under the package's lock);
    then the same four calls straight through ctypes' function objects
    ("ctypes alone": no lock, no status check, no context manager), the
    floor under any binding;
  * C: build/bench/python/bench-sample, the same calls in a loop ("same")
    and Begin/End alone ("bare"), CLOCK_THREAD_CPUTIME_ID.

With --baseline-python DIR (another checkout's python/, e.g. main's), a
third side runs the same Python loop over that package, in the same rounds.

Prints per round the µs per sample of each, then per backend the median and
range over the rounds of each side, and of Python less C (same calls):
what the Python package adds to one sample.  Not run by meson test; results
in docs/performance.md ("Python: one sample").
"""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_SRC = os.path.join(HERE, "..", "..", "python")

BACKENDS = {
    "perf": ["TaskClock", "PageFaults"],
    "mali": ["GPUActiveCycles", "FragmentQueueActiveCycles"],
}


def python_side(n, counters):
    """In the child: SAMPLES empty samples; prints CPU µs per sample."""
    import time
    import opengpa
    with opengpa.open() as ctx:
        with ctx.session(counters) as s:
            for _ in range(100):  # warm: first calls bind ctypes' functions
                with s.sample():
                    pass
            t0 = time.thread_time()
            for _ in range(n):
                with s.sample():
                    pass
            t1 = time.thread_time()
            # The floor under it: the same four calls straight through
            # ctypes' function objects, no lock, no status check, no
            # context manager (what no Python binding can go below).
            dll, key = ctx._lib.dll, ctx._key
            sel, begin, end = dll.GPA_SelectContext, dll.GPA_BeginSample, dll.GPA_EndSample
            i = s._next_sample
            t2 = time.thread_time()
            for i in range(i, i + n):
                sel(key)
                begin(i)
                sel(key)
                end()
            t3 = time.thread_time()
    print("python %.3f ctypes %.3f" % ((t1 - t0) * 1e6 / n, (t3 - t2) * 1e6 / n))


def env_for(build, backend, python_src=PYTHON_SRC):
    env = dict(os.environ)
    env.update({
        "OPENGPA_LIBRARY": os.path.join(build, "lib", "libopengpa.so.1"),
        "PYTHONPATH": python_src,
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENGPA_BACKEND": backend,
    })
    env.pop("OPENGPA_LOG", None)
    if backend == "mali":
        env["LD_PRELOAD"] = os.path.join(build, "tests", "virtual-devices", "mali",
                                         "libopengpa-vmali.so")
    return env


def run(argv, env):
    out = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if out.returncode != 0:
        sys.exit("sample_cost.py: %s failed (%d): %s" % (" ".join(argv), out.returncode,
                                                          out.stderr.strip()))
    words = out.stdout.split()
    return {words[i]: float(words[i + 1]) for i in range(0, len(words) - 1, 2)}


def spread(v):
    v = sorted(v)
    return "median %.2f, range %.2f-%.2f" % (statistics.median(v), v[0], v[-1])


def main(argv):
    if len(argv) >= 2 and argv[1] == "--side":
        python_side(int(argv[2]), argv[3:])
        return 0
    baseline = None
    if len(argv) > 2 and argv[1] == "--baseline-python":
        baseline = os.path.abspath(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(argv[1])
    rounds = int(argv[2]) if len(argv) > 2 else 5
    n = int(argv[3]) if len(argv) > 3 else 5000
    n -= n % 100
    c_bin = os.path.join(build, "bench", "python", "bench-sample")
    for backend, counters in BACKENDS.items():
        env = env_for(build, backend)
        if backend == "mali" and not os.path.exists(env["LD_PRELOAD"]):
            print("%s: no virtual Mali preload in %s, left out" % (backend, build))
            continue
        py, raw, same, bare, base = [], [], [], [], []
        side = [sys.executable, os.path.abspath(__file__), "--side", str(n)] + counters
        for r in range(rounds):
            # Alternate which side goes first, so neither always runs second.
            sides = [(side, env), ([c_bin, str(n)] + counters, env)]
            if baseline:
                sides.append((side, env_for(build, backend, baseline)))
            if r % 2:
                sides.reverse()
            got = {}
            for cmd, e in sides:
                out = run(cmd, e)
                if e is not env:
                    base.append(out["python"])
                else:
                    got.update(out)
            py.append(got["python"])
            raw.append(got["ctypes"])
            same.append(got["same"])
            bare.append(got["bare"])
            print("%s round %d: python %.2f us, ctypes alone %.2f us, C same calls %.2f us, "
                  "C bare %.2f us%s" % (backend, r + 1, py[-1], raw[-1], same[-1], bare[-1],
                                        ", python baseline %.2f us" % base[-1] if base else ""),
                  flush=True)
        print("%s (%d samples a round, %d rounds), CPU us per sample:" % (backend, n, rounds))
        print("  python          %s" % spread(py))
        print("  ctypes alone    %s" % spread(raw))
        print("  C, same calls   %s" % spread(same))
        print("  C, bare         %s" % spread(bare))
        if base:
            print("  python, baseline %s" % spread(base))
            print("  baseline / python %s" % spread([b / p for b, p in zip(base, py)]))
        print("  python - C same %s" % spread([p - c for p, c in zip(py, same)]))
        print("  python / C same %s" % spread([p / c for p, c in zip(py, same)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
