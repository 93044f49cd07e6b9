# SPDX-License-Identifier: MIT
"""opengpa.measure(): `opengpa stat --opengpa-json` from Python."""
import sys

import pytest

import opengpa


def test_measure_gives_the_json_document(backend, two_counters):
    doc = opengpa.measure([sys.executable, "-c", "sum(range(200000))"],
                          counters=two_counters, backend=backend)
    for key in ("command", "backend", "device", "runs", "passes", "exit_status", "counters"):
        assert key in doc, (key, sorted(doc))
    assert doc["backend"] == backend
    assert doc["exit_status"] == 0
    assert [c["name"] for c in doc["counters"]] == two_counters
    for c in doc["counters"]:
        assert {"name", "group", "usage", "supported", "value"} <= set(c), c
    if backend == "perf":
        task = doc["counters"][0]
        assert task["supported"] and task["value"] > 0, task


def test_measure_repeats_with_deviation(backend, two_counters):
    doc = opengpa.measure(["true"], counters=two_counters[:1], repeat=3, backend=backend)
    assert doc["repeats"] == 3 or doc["runs"] == 3, doc
    c = doc["counters"][0]
    assert "rel_stddev_percent" in c
    # Each run's value, whose mean is the document's (opengpa compare tests them).
    runs = c["run_values"]
    assert len(runs) == 3 and all(isinstance(v, (int, float)) for v in runs), c
    assert sum(runs) / 3 == pytest.approx(c["value"], rel=1e-12), c


def test_measure_reports_the_commands_exit_status(backend, two_counters):
    doc = opengpa.measure(["false"], counters=two_counters[:1], backend=backend)
    assert doc["exit_status"] == 1


def test_measure_refusals(backend):
    with pytest.raises(opengpa.MeasureError) as e:
        opengpa.measure(["true"], counters=["NoSuchCounterAnywhere"], backend=backend)
    assert e.value.returncode in (1, 2)
    assert "NoSuchCounterAnywhere" in e.value.stderr
    for bad in ("true", [], None):
        with pytest.raises(opengpa.OpenGPAError):
            opengpa.measure(bad)
    with pytest.raises(opengpa.OpenGPAError):
        opengpa.measure(["true"], repeat=0)
    with pytest.raises(opengpa.OpenGPAError):
        opengpa.measure(["true"], counters="TaskClock")
    with pytest.raises(opengpa.OpenGPAError):
        opengpa.measure(["true"], counters=["a,b"])
    with pytest.raises(opengpa.OpenGPAError) as e:
        opengpa.measure(["true"], command="/nonexistent/opengpa")
