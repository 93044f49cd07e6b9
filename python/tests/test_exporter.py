# SPDX-License-Identifier: MIT
"""python3 -m opengpa.exporter: `opengpa stat -I` intervals served as
OpenMetrics on 127.0.0.1 (a port the kernel picks), scraped while the
command runs, and the textfile written atomically; promtool checks the text
where Debian's prometheus is installed."""
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import COUNTERS

OM_ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-z_]+="(\\.|[^"\\])*",?)*\})? '
                    r'(-?[0-9.e+-]+|NaN|[+-]Inf)$')


def check_openmetrics(text):
    """The parts of the OpenMetrics text format the exporter uses: each
    family's TYPE before its samples, a counter's samples named _total,
    samples well formed, `# EOF` last.  Returns {sample name: [values]}."""
    lines = text.split("\n")
    assert lines[-1] == "" and lines[-2] == "# EOF", text[-200:]
    types, samples, done = {}, {}, set()
    current = None
    for line in lines[:-2]:
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name not in types, "family %s twice" % name
            types[name] = kind
        elif line.startswith("# HELP "):
            assert line.split(" ")[2] in types
        else:
            m = SAMPLE.match(line)
            assert m, "not a sample: %r" % line
            name = m.group(1)
            family = name[:-len("_total")] if name.endswith("_total") else name
            assert family in types, "sample %s before its TYPE" % name
            if family != current:  # a family's samples together
                assert family not in done, "family %s's samples apart" % family
                done.add(family)
                current = family
            if types[family] == "counter":
                assert name.endswith("_total")
            samples.setdefault(name, []).append(float(m.group(5)))
    return samples


def test_metric_names_and_rendering():
    from opengpa.exporter import Metrics, metric_name
    assert metric_name("GPUActiveCycles") == "opengpa_gpu_active_cycles"
    assert metric_name("TaskClock") == "opengpa_task_clock"
    assert metric_name("Mali-G71 x") == "opengpa_mali_g71_x"
    m = Metrics({"instance": 'a"b\\c\nd', "backend": "perf", "device": "d"},
                {"Busy": ("GPU", "percentage", "busy")})
    m.add_interval({"counters": [{"name": "Busy", "unit": "%", "value": 40.0},
                                 {"name": "Cycles", "unit": "", "value": 10}]})
    m.add_interval({"counters": [{"name": "Busy", "unit": "%", "value": 60.0},
                                 {"name": "Cycles", "unit": "", "value": 5}]})
    text = m.render()
    s = check_openmetrics(text)
    assert s["opengpa_busy"] == [60.0]            # a ratio: the latest, a gauge
    assert s["opengpa_cycles_total"] == [15.0]    # a count: the running total
    assert s["opengpa_cycles_last_interval"] == [5.0]
    assert s["opengpa_intervals_total"] == [2.0]
    assert 'instance="a\\"b\\\\c\\nd"' in text
    plain = m.render(openmetrics=False)
    assert "# EOF" not in plain and "# TYPE opengpa_cycles_total counter" in plain
    assert "# TYPE opengpa_busy gauge" in plain
    assert plain.startswith(text[:text.index("# TYPE opengpa_cycles")])  # gauges alike


def test_per_core_copies_are_labels():
    """`--per-core`'s "ShaderCore1:X" is a sample of X's family labelled
    block="ShaderCore1", as opengpa stat --listen serves it."""
    from opengpa.exporter import Metrics, split_instance
    assert split_instance("ShaderCore3:FragmentActiveCycles") == (
        "ShaderCore3", "FragmentActiveCycles")
    assert split_instance("cycles:u") == ("", "cycles:u")
    m = Metrics({"backend": "mali"}, {"Cycles": ("G", "cycles", "c"),
                                      "Busy": ("G", "percentage", "b")})
    for k in (1, 2):
        m.add_interval({"counters": [
            {"name": "ShaderCore1:Cycles", "unit": "cycles", "value": 1 * k},
            {"name": "Busy", "unit": "%", "value": 50.0},
            {"name": "Cycles", "unit": "cycles", "value": 10 * k},
            {"name": "ShaderCore1:Busy", "unit": "%", "value": 40.0},
            {"name": "ShaderCore0:Cycles", "unit": "cycles", "value": 2 * k}]})
    text = m.render()
    s = check_openmetrics(text)
    assert s["opengpa_cycles_total"] == [3.0, 30.0, 6.0]
    assert s["opengpa_busy"] == [50.0, 40.0]
    assert text.count("# TYPE opengpa_cycles counter") == 1
    assert ('opengpa_cycles_total{backend="mali",block="ShaderCore1",counter="Cycles",'
            'group="G"} 3') in text
    assert 'opengpa_cycles_total{backend="mali",counter="Cycles",group="G"} 30' in text
    assert "shader_core" not in text
    assert "# HELP opengpa_cycles c (cycles)" in text  # the counter's own, not a copy's
    promtool(m.render(openmetrics=False))


def test_textfile_is_replaced_atomically(tmp_path):
    from opengpa.exporter import write_textfile
    p = tmp_path / "opengpa.prom"
    write_textfile(str(p), "a 1\n# EOF\n")
    write_textfile(str(p), "a 2\n# EOF\n")
    assert p.read_text() == "a 2\n# EOF\n"
    assert os.listdir(tmp_path) == ["opengpa.prom"]  # no temporary left


def test_scrape_while_counting(tmp_path, backend):
    counters = COUNTERS[backend][0]
    # On the Mali, a counter of the shader cores too, with --per-core.
    per_core = ["--per-core"] if backend == "mali" else []
    if per_core:
        counters = counters + ["FragmentActiveCycles"]
    prom = tmp_path / "opengpa.prom"
    work = "import time\ne=time.monotonic()+3\nwhile time.monotonic()<e: pass"
    p = subprocess.Popen([sys.executable, "-m", "opengpa.exporter", "--listen", "127.0.0.1:0",
                          "--openmetrics", str(prom), "-I", "100", "-e", ",".join(counters),
                          "--backend", backend] + per_core + ["--", sys.executable, "-c", work],
                         stderr=subprocess.PIPE, text=True)
    try:
        first = p.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", first)
        assert m, first
        url = "http://127.0.0.1:%s/metrics" % m.group(1)
        deadline, samples, text = time.monotonic() + 20, {}, ""
        while time.monotonic() < deadline:
            req = urllib.request.Request(url, headers={"Accept": OM_ACCEPT})
            with urllib.request.urlopen(req, timeout=5) as r:
                assert r.headers["Content-Type"].startswith("application/openmetrics-text")
                text = r.read().decode()
            samples = check_openmetrics(text)
            if samples.get("opengpa_intervals_total", [0])[0] >= 3:
                break
            time.sleep(0.1)
        assert samples.get("opengpa_intervals_total", [0])[0] >= 3, text
        for c in counters:
            from opengpa.exporter import metric_name
            base = metric_name(c)
            assert base + "_total" in samples or base in samples, (c, text)
        assert 'backend="%s"' % backend in text
        if per_core:
            assert re.search(r'^opengpa_fragment_active_cycles_total\{backend="mali",'
                             r'block="ShaderCore0",counter="FragmentActiveCycles"', text,
                             re.M), text
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url.replace("/metrics", "/nothing"), timeout=5)
        # Without Accept: the 0.0.4 text format, which promtool reads.
        with urllib.request.urlopen(url, timeout=5) as r:
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            plain = r.read().decode()
        assert "# EOF" not in plain and "opengpa_intervals_total counter" in plain
        promtool(plain)
    finally:
        rest = p.communicate(timeout=30)[1]
    assert p.returncode == 0, rest
    textfile = prom.read_text()
    assert "# EOF" not in textfile and "opengpa_intervals_total{" in textfile
    promtool(textfile)


def promtool(text):
    """promtool check metrics, where Debian's prometheus is installed."""
    tool = shutil.which("promtool")
    if tool:
        r = subprocess.run([tool, "check", "metrics"], input=text, text=True,
                           capture_output=True)
        assert r.returncode == 0, r.stdout + r.stderr
