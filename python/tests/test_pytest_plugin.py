# SPDX-License-Identifier: MIT
"""The pytest plugin: registered by its pytest11 entry point, counting a
test's body, failing bounds and regressions, baselines, usage errors.  Each
case runs pytest in a subprocess on a test file written here, so the plugin
is loaded as a user's pytest loads it (from the entry point)."""
import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import COUNTERS

HERE = os.path.dirname(os.path.abspath(__file__))
BACKEND_DIR = os.path.join(os.path.dirname(HERE), "build_backend")

BODY = '''
import time, pytest

def busy(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
'''


def run(pytester, src, *args):
    pytester.makepyfile(test_counted=BODY + src)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", *args)


def test_entry_point_names_the_plugin():
    eps = importlib.metadata.entry_points(group="pytest11")
    assert [(e.name, e.value) for e in eps if e.name == "opengpa"] == \
        [("opengpa", "opengpa.pytest_plugin")], list(eps)


@pytest.mark.skipif(not os.path.isdir(BACKEND_DIR), reason="needs the source tree's python/")
def test_wheel_and_debian_dist_info_carry_the_entry_point(tmp_path):
    sys.path.insert(0, BACKEND_DIR)
    try:
        import opengpa_build
    finally:
        sys.path.remove(BACKEND_DIR)
    wheel = tmp_path / opengpa_build.build_wheel(str(tmp_path))
    with zipfile.ZipFile(wheel) as z:
        eps = z.read("opengpa-%s.dist-info/entry_points.txt" % opengpa_build._project()[1])
        record = z.read("opengpa-%s.dist-info/RECORD" % opengpa_build._project()[1]).decode()
    assert eps == b"[pytest11]\nopengpa = opengpa.pytest_plugin\n"
    assert "dist-info/entry_points.txt,sha256=" in record
    assert "opengpa/pytest_plugin.py,sha256=" in record
    # debian/python3-opengpa.install ships python/opengpa-VERSION.dist-info:
    # it must be what the backend writes now.
    out = tmp_path / "di"
    name = opengpa_build.prepare_metadata_for_build_wheel(str(out), body=False)
    tree = os.path.join(os.path.dirname(HERE), name)
    fix = "regenerate: python3 python/build_backend/opengpa_build.py --dist-info python"
    assert os.path.isdir(tree), fix
    assert sorted(os.listdir(tree)) == sorted(os.listdir(out / name)), fix
    for f in os.listdir(tree):
        with open(os.path.join(tree, f), "rb") as a:
            assert a.read() == (out / name / f).read_bytes(), fix


def test_fixture_counts_only_the_body(pytester, backend, two_counters):
    first = two_counters[0]
    res = run(pytester, '''
@pytest.fixture
def slow_setup():
    busy(0.2)

def test_body(slow_setup, opengpa_counts):
    assert opengpa_counts.counters == %r
    assert opengpa_counts.values == {}
    busy(0.02)
''' % (two_counters,), "--opengpa-counters=" + ",".join(two_counters))
    res.assert_outcomes(passed=1)
    out = res.stdout.str()
    assert "opengpa counters" in out and "test_counted.py::test_body" in out, out
    for c in two_counters:
        assert c in out
    if backend == "perf":
        # The 200 ms of the fixture's setup are not in the body's count.
        line = [l for l in res.stdout.lines if l.strip().startswith(first)][0]
        assert 15.0 < float(line.split()[1]) < 150.0, line


def test_marker_fails_a_bound(pytester, two_counters):
    first = two_counters[0]
    res = run(pytester, '''
@pytest.mark.opengpa(counters=%r, max={%r: -1})
def test_over():
    busy(0.02)

@pytest.mark.opengpa(max={%r: 1e300})
def test_under():
    busy(0.02)
''' % (two_counters, first, first))
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*%s = * exceeds its bound max=-1*" % first])
    res.stdout.fnmatch_lines(["PASSED test_counted.py::test_under*"])
    res.stdout.fnmatch_lines(["FAILED test_counted.py::test_over*"])


def test_baseline_saved_then_regression_flagged(pytester, two_counters):
    first, second = two_counters
    src = '''
@pytest.mark.opengpa(counters=%r, regress={%r: "+5%%", %r: "-5%%"})
def test_it():
    busy(0.02)
''' % (two_counters, first, second)
    res = run(pytester, src, "--opengpa-baseline=base", "--opengpa-save")
    res.assert_outcomes(passed=1)
    path = pytester.path / "base" / "test_counted.py_test_it.json"
    doc = json.loads(path.read_text())
    assert set(doc["values"]) == set(two_counters) and doc["test"] == "test_counted.py::test_it"

    # Unchanged against a generous baseline: passes.
    doc["values"] = {first: 1e300, second: -1e300}
    path.write_text(json.dumps(doc))
    res = run(pytester, src, "--opengpa-baseline=base")
    res.assert_outcomes(passed=1)
    assert "REGRESSED" not in res.stdout.str()

    # A planted regression of the first counter (baseline far below).
    doc["values"] = {first: -1.0, second: -1e300}
    path.write_text(json.dumps(doc))
    res = run(pytester, src, "--opengpa-baseline=base")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*%s = * against baseline -1.0 * crosses the rule +5%%*" % first])
    assert "REGRESSED" in res.stdout.str()
    assert "%s = " % second not in res.stdout.str()

    # No baseline for a test: said, not failed.
    path.unlink()
    res = run(pytester, src, "--opengpa-baseline=base")
    res.assert_outcomes(passed=1)
    assert "no baseline (--opengpa-save writes it)" in res.stdout.str()


def test_bad_use_is_refused(pytester, two_counters):
    res = run(pytester, '''
@pytest.mark.opengpa()
def test_no_counters():
    pass

@pytest.mark.opengpa(counters=%r, max={"NotCounted": 1})
def test_stray_bound():
    pass

@pytest.mark.opengpa(counters=["NoSuchCounterAtAll"])
def test_unknown():
    pass
''' % (two_counters,))
    out = res.stdout.str()
    assert "no counters to count" in out, out
    assert "name NotCounted, which the test does not count" in out, out
    assert "NoSuchCounterAtAll" in out and "opengpa list" in out, out
    assert res.ret != 0
    res = run(pytester, "def test_x():\n    pass\n", "--opengpa-save")
    assert res.ret != 0
    assert "--opengpa-save needs --opengpa-baseline=DIR" in res.stderr.str()


def test_unmarked_tests_are_left_alone(pytester):
    # The plugin loads in every pytest run: without the marker or the
    # fixture it opens nothing (the library is not even needed).
    pytester.makepyfile(test_plain="def test_x():\n"
                                   "    with open('/proc/self/maps') as f:\n"
                                   "        assert 'libopengpa.so' not in f.read()\n")
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)
