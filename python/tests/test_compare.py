# SPDX-License-Identifier: MIT
"""opengpa compare and opengpa.compare(): Welch's t-test held to SciPy's,
planted regressions flagged and unchanged counters not, --fail-on's exit
status, bad documents refused with a message, and the time of 400 counters."""
import json
import math
import os
import subprocess
import time

import pytest

import opengpa

COMMAND = os.environ.get("OPENGPA_COMMAND") or "opengpa"



def scipy_stats():
    """SciPy's statistics, the reference the results are held to; skipped in
    the sanitizer build, whose libopengpa.so brings the ASan runtime into this
    interpreter, where SciPy's uninstrumented extensions abort on import."""
    with open("/proc/self/maps") as maps:
        if any("libclang_rt.asan" in line or "libasan" in line for line in maps):
            pytest.skip("SciPy in a process with the AddressSanitizer runtime "
                        "(scripts/sanitize.sh's build)")
    return pytest.importorskip("scipy.stats")

def doc(counters, repeats=5):
    """A document as `opengpa stat -r N --opengpa-json` writes it:
    counters is {name: (mean, rel_stddev_percent)}."""
    return {"command": ["x"], "backend": "perf", "device": "test", "runs": repeats,
            "repeats": repeats, "passes": 1, "seconds_per_run": 0.1, "coverage": 1.0,
            "exit_status": 0,
            "counters": [{"name": n, "group": "G", "usage": "items", "supported": True,
                          "value": m, "rel_stddev_percent": r} for n, (m, r) in counters.items()]}


def write(tmp_path, name, d):
    p = tmp_path / name
    p.write_text(json.dumps(d) if not isinstance(d, str) else d)
    return str(p)


def run(*args):
    return subprocess.run([COMMAND, "compare"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


CASES = [  # (mean A, rel A %, n A, mean B, rel B %, n B)
    (100.0, 1.0, 5, 110.0, 1.5, 5),
    (100.0, 5.0, 3, 103.0, 0.5, 10),
    (1e9, 0.02, 30, 1.0003e9, 0.04, 30),
    (12.5, 10.0, 2, 11.0, 12.0, 4),
    (5.0, 3.0, 7, 5.0, 3.0, 7),
]


@pytest.mark.parametrize("ma,ra,na,mb,rb,nb", CASES)
def test_welch_matches_scipy(tmp_path, ma, ra, na, mb, rb, nb):
    stats = scipy_stats()
    res = opengpa.compare(doc({"C": (ma, ra)}, na), doc({"C": (mb, rb)}, nb), confidence=90)
    (c,) = res["counters"]
    # the document's spread is the standard error of the mean; SciPy takes
    # the sample standard deviation
    sea, seb = ma * ra / 100, mb * rb / 100
    t, p = stats.ttest_ind_from_stats(ma, sea * math.sqrt(na), na, mb, seb * math.sqrt(nb), nb,
                                      equal_var=False)
    # ttest_ind_from_stats tests a - b; compare reports b - a
    assert c["t"] == pytest.approx(-t, rel=1e-9, abs=1e-12)
    assert c["p"] == pytest.approx(p, rel=1e-8, abs=1e-14)
    df = (sea**2 + seb**2) ** 2 / (sea**4 / (na - 1) + seb**4 / (nb - 1))
    assert c["df"] == pytest.approx(df, rel=1e-12)
    q = stats.t.ppf(0.95, df)
    half = q * math.sqrt(sea**2 + seb**2)
    assert c["ci_low"] == pytest.approx(mb - ma - half, rel=1e-8, abs=1e-9)
    assert c["ci_high"] == pytest.approx(mb - ma + half, rel=1e-8, abs=1e-9)
    assert c["verdict"] == ("n.s." if p >= 0.10 else "higher" if mb > ma else "lower")


def test_t_distribution_tails_match_scipy():
    """Far tails and fractional degrees of freedom, where a continued
    fraction is easiest to get wrong."""
    stats = scipy_stats()
    for df_rel, shift in ((0.01, 0.001), (0.3, 50.0), (2.0, 4.0), (0.5, 1e-6)):
        a, b = doc({"C": (100.0, df_rel)}, 2), doc({"C": (100.0 + shift, df_rel * 3)}, 9)
        (c,) = opengpa.compare(a, b)["counters"]
        p = 2 * stats.t.sf(abs(c["t"]), c["df"])
        assert c["p"] == pytest.approx(p, rel=1e-7, abs=1e-300)


def test_planted_regression_flagged_unchanged_not(tmp_path):
    base = {"Frame": (1000.0, 0.8), "Shader": (5e6, 0.5), "Same": (42.0, 2.0),
            "Noisy": (100.0, 20.0)}
    cand = dict(base, Frame=(1080.0, 0.9), Noisy=(130.0, 25.0))
    a, b = write(tmp_path, "a.json", doc(base)), write(tmp_path, "b.json", doc(cand))
    r = run(a, b, "--json", "--fail-on=Frame:+5%", "--fail-on=Same:1%", "--fail-on=Noisy:+5%")
    assert r.returncode == 3, r.stderr
    out = json.loads(r.stdout)
    by = {c["name"]: c for c in out["counters"]}
    assert by["Frame"]["verdict"] == "higher" and by["Frame"]["crossed"]
    assert by["Same"]["verdict"] == "n.s." and not by["Same"]["crossed"]
    # +30 % but within its noise: not significant, so not a failure
    assert by["Noisy"]["verdict"] == "n.s." and not by["Noisy"]["crossed"]
    assert [c["name"] for c in out["counters"]][0] == "Frame"  # smallest p first
    assert [f["crossed"] for f in out["fail_on"]] == [True, False, False]
    assert "Frame" in r.stderr and "crossed" in r.stderr
    # the same rules against itself: exit 0
    assert run(a, a, "--fail-on=*:0.1%").returncode == 0
    # a decrease rule is not tripped by an increase; the limit is a bound
    assert run(a, b, "--fail-on=Frame:-5%").returncode == 0
    assert run(a, b, "--fail-on=Frame:+9%").returncode == 0
    assert run(a, b, "--fail-on=Frame:+50").returncode == 3  # +80 in its own unit


def test_text_and_separated_forms(tmp_path):
    a = write(tmp_path, "a.json", doc({"Frame": (1000.0, 0.8), "OnlyA": (1.0, 0.0)}))
    b = write(tmp_path, "b.json", doc({"Frame": (1080.0, 0.9), "OnlyB": (1.0, 0.0)}))
    r = run(a, b)
    assert r.returncode == 0
    assert "Welch" in r.stdout and "Frame" in r.stdout and "higher" in r.stdout
    assert "OnlyA" in r.stdout and "OnlyB" in r.stdout  # listed apart
    r = run("-x", ";", a, b)
    fields = r.stdout.splitlines()[0].split(";")
    assert fields[0] == "Frame" and fields[-1] == "higher" and len(fields) == 9
    assert float(fields[4]) == pytest.approx(8.0)


def test_single_runs_are_untested_and_gate_on_the_change(tmp_path):
    a = write(tmp_path, "a.json", doc({"C": (100.0, 0.0)}, 1))
    b = write(tmp_path, "b.json", doc({"C": (120.0, 0.0)}, 1))
    r = run("--json", a, b, "--fail-on=C:+10%")
    assert r.returncode == 3
    (c,) = json.loads(r.stdout)["counters"]
    assert c["verdict"] == "untested" and c["p"] is None


def with_runs(d, runs):
    """d with each counter's run_values (runs: {name: [values]}), its value
    and spread made from them as opengpa stat makes them."""
    for c in d["counters"]:
        v = runs[c["name"]]
        n = len(v)
        m = sum(v) / n
        se = (sum((x - m) ** 2 for x in v) / (n - 1) / n) ** 0.5
        c.update(value=m, rel_stddev_percent=round(100 * se / abs(m), 2), run_values=v)
    d["repeats"] = d["runs"] = len(next(iter(runs.values())))
    return d


RUN_CASES = [
    ([100.0, 103.0, 98.0, 101.0, 99.5], [104.0, 106.5, 103.0, 108.0, 105.0, 104.5]),
    ([1e6, 1e6 + 1, 1e6 + 2, 1e6 + 1], [1e6 + 3, 1e6 + 4, 1e6 + 3, 1e6 + 5]),
    ([7.0, 9.0, 8.0], [8.5, 7.5, 9.5]),
]


@pytest.mark.parametrize("a,b", RUN_CASES)
def test_run_values_match_scipy_ttest_ind(a, b):
    """With run_values, the test is SciPy's ttest_ind on the runs themselves."""
    stats = scipy_stats()
    res = opengpa.compare(with_runs(doc({"C": (0, 0)}), {"C": a}),
                          with_runs(doc({"C": (0, 0)}), {"C": b}))
    (c,) = res["counters"]
    t, p = stats.ttest_ind(a, b, equal_var=False)
    assert c["t"] == pytest.approx(-t, rel=1e-9)
    assert c["p"] == pytest.approx(p, rel=1e-8, abs=1e-14)
    assert c["a"] == pytest.approx(sum(a) / len(a), rel=1e-15)


def test_run_values_beat_the_rounded_spread(tmp_path):
    """A counter of 10^6 moving by 3 (0.0003 %): its spread prints as 0.00 %,
    which the summary must take as 0.005 % (50 counts, n.s.); the runs show
    the move is far above their spread."""
    a = [1e6, 1e6 + 1, 1e6 + 2, 1e6 + 1]
    b = [1e6 + 3, 1e6 + 4, 1e6 + 3, 1e6 + 5]
    da = with_runs(doc({"C": (0, 0)}), {"C": a})
    db = with_runs(doc({"C": (0, 0)}), {"C": b})
    assert da["counters"][0]["rel_stddev_percent"] == 0.0
    assert opengpa.compare(da, db)["counters"][0]["verdict"] == "higher"
    for d in (da, db):
        del d["counters"][0]["run_values"]
    assert opengpa.compare(da, db)["counters"][0]["verdict"] == "n.s."
    # One run per side in run_values: untested, as a single-run profile.
    one = with_runs(doc({"C": (0, 0)}), {"C": [5.0, 6.0]})
    one["counters"][0]["run_values"] = [5.0]
    assert opengpa.compare(one, one)["counters"][0]["verdict"] == "untested"
    bad = doc({"C": (1.0, 1.0)})
    for runs in ("x", [1, "2"], [1, None]):
        bad["counters"][0]["run_values"] = runs
        r = run(write(tmp_path, "bad.json", bad), write(tmp_path, "good.json", da))
        assert r.returncode == 1 and "run_values" in r.stderr, (runs, r.stderr)


def test_bad_input(tmp_path):
    good = write(tmp_path, "good.json", doc({"C": (1.0, 1.0)}))
    for text, what in (("not json", "not JSON"), ('{"event": "x"}', "--opengpa-json"),
                       (json.dumps(dict(doc({}), counters=[{"value": 1}])), "no \"name\"")):
        r = run(write(tmp_path, "bad.json", text), good)
        assert r.returncode == 1 and what in r.stderr, r.stderr
    r = run(str(tmp_path / "missing.json"), good)
    assert r.returncode == 1 and "missing.json" in r.stderr
    r = run(str(tmp_path), good)  # a directory is refused, never read
    assert r.returncode == 1 and "directory" in r.stderr
    assert run(good).returncode == 2
    assert run(good, good, good).returncode == 2
    assert run(good, good, "--fail-on=C").returncode == 2
    assert run(good, good, "--fail-on=C:+x%").returncode == 2
    assert run(good, good, "--confidence=100").returncode == 2
    r = run(good, good, "--fail-on=Typo:+5%")
    assert r.returncode == 1 and "Typo" in r.stderr
    with pytest.raises(opengpa.MeasureError) as e:
        opengpa.compare(good, good, fail_on=["Typo:+5%"])
    assert e.value.returncode == 1 and "Typo" in str(e.value)
    with pytest.raises(TypeError):
        opengpa.compare(good, good, fail_on="C:+5%")
    with pytest.raises(TypeError):
        opengpa.compare(good, 42)


def test_live_profiles_flag_a_planted_slowdown(two_counters, backend):
    """measure() twice on this backend, the second with more work: the
    comparison of the first against itself fails no gate."""
    if backend != "perf":
        pytest.skip("the planted slowdown is CPU time: the perf backend's TaskClock")
    import sys
    work = "import time\ne=time.thread_time()+%s\nwhile time.thread_time()<e: pass"
    a = opengpa.measure([sys.executable, "-c", work % 0.02], counters=["TaskClock"], repeat=5)
    b = opengpa.measure([sys.executable, "-c", work % 0.2], counters=["TaskClock"], repeat=5)
    res = opengpa.compare(a, b, fail_on=["TaskClock:+50%"])
    assert res["failed"], res
    assert res["counters"][0]["verdict"] == "higher"
    assert not opengpa.compare(a, a, fail_on=["TaskClock:+1%"])["failed"]


def test_400_counters(tmp_path):
    """Two profiles of 400 counters x 30 runs compare whole.  Its time
    (issue 27's bound: 100 ms) is printed, not asserted: speed targets live
    in benchmarks (docs/performance.md), never in a timed unit test on a
    shared machine."""
    import random
    rnd = random.Random(27)
    # Each counter's 30 runs in run_values, as opengpa stat -r 30 writes them.
    ra = {"C%03d" % i: [rnd.gauss(m, m * 0.02) for _ in range(30)]
          for i, m in enumerate(rnd.uniform(1, 1e9) for _ in range(400))}
    rb = {k: [x * 1.01 for x in v] for k, v in ra.items()}
    a = write(tmp_path, "a.json", with_runs(doc({k: (0, 0) for k in ra}), ra))
    b = write(tmp_path, "b.json", with_runs(doc({k: (0, 0) for k in rb}), rb))
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        r = run("--json", a, b)
        best = min(best, time.perf_counter() - t0)
        assert r.returncode == 0 and len(json.loads(r.stdout)["counters"]) == 400
    print("opengpa compare, 400 counters x 30 runs: %.1f ms (shortest of 5)" % (best * 1e3))
