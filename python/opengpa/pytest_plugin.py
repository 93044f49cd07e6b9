# SPDX-License-Identifier: MIT
"""The pytest plugin (entry point `pytest11`: `opengpa`): counts a test's
body and fails a test whose counter exceeds a bound or regresses against a
stored baseline.

    @pytest.mark.opengpa(counters=["TaskClock"], max={"TaskClock": 50.0},
                         regress={"TaskClock": "+10%"})
    def test_fast():
        work()

    def test_counted(opengpa_counts):       # counters from --opengpa-counters
        work()

Options: --opengpa-baseline=DIR (one JSON file per test), --opengpa-save
(write the baselines instead of checking them), --opengpa-counters=A,B,
--opengpa-backend=NAME.  docs/python.md, "pytest plugin", is the guide.

The plugin is loaded by every pytest run once the package is installed, so it
imports the package (and the C library) only when a test asks for counting.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

MARKER = "opengpa"
FIXTURE = "opengpa_counts"
_RULE = re.compile(r"^\s*([+-])\s*([0-9]+(?:\.[0-9]*)?)\s*%?\s*$")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("opengpa", "opengpa performance counters")
    group.addoption("--opengpa-baseline", metavar="DIR", default=None,
                    help="directory of stored baselines (one JSON file per test) that "
                         "@pytest.mark.opengpa(regress=...) compares against")
    group.addoption("--opengpa-save", action="store_true", default=False,
                    help="write each counted test's values as its baseline in "
                         "--opengpa-baseline DIR instead of checking them")
    group.addoption("--opengpa-counters", metavar="A,B", default=None,
                    help="counters for tests that use the opengpa_counts fixture "
                         "without naming counters in the marker")
    group.addoption("--opengpa-backend", metavar="NAME", default=None,
                    help="backend to open (default: OPENGPA_BACKEND, else auto)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "opengpa(counters=None, max=None, regress=None, backend=None, options=None): "
        "count the test's body with opengpa; fail it when a counter exceeds its `max` "
        "bound or regresses past its `regress` rule ('+10%') against --opengpa-baseline")
    if config.getoption("opengpa_save") and not config.getoption("opengpa_baseline"):
        raise pytest.UsageError("--opengpa-save needs --opengpa-baseline=DIR: the directory "
                                "the baselines are written to")
    config.pluginmanager.register(_Plugin(config), "opengpa-state")


# ---- what one test counts ------------------------------------------------

class Counts:
    """What the `opengpa_counts` fixture gives: the counters, and after the
    test's body its values ({name: value}); `context` and `session` are the
    opengpa objects behind them."""

    def __init__(self, context: Any, counters: List[str]) -> None:
        self.context = context
        self.counters = counters
        self.values: Dict[str, Any] = {}
        self.session: Any = None
        self.error: Optional[BaseException] = None

    def _end(self) -> None:
        s, self.session = self.session, None
        if s is not None:
            s.end()


def _marker_args(item: Any) -> Dict[str, Any]:
    m = item.get_closest_marker(MARKER)
    if m is None:
        return {}
    if m.args:
        raise pytest.UsageError("%s: @pytest.mark.opengpa takes keywords only "
                                "(counters=, max=, regress=, backend=, options=)" % item.nodeid)
    unknown = set(m.kwargs) - {"counters", "max", "regress", "backend", "options"}
    if unknown:
        raise pytest.UsageError("%s: @pytest.mark.opengpa has no argument %s"
                                % (item.nodeid, ", ".join(sorted(unknown))))
    return dict(m.kwargs)


def _rules(item: Any, counters: List[str]) -> Tuple[Dict[str, float], Dict[str, Tuple[str, float]]]:
    """The marker's bounds ({name: max}) and regression rules ({name: (sign, percent)})."""
    args = _marker_args(item)
    bounds = args.get("max") or {}
    if not isinstance(bounds, dict):
        raise pytest.UsageError("%s: max= must be a dict {counter: bound}" % item.nodeid)
    regress = args.get("regress")
    if regress is None:
        regress = {}
    elif not isinstance(regress, dict):
        regress = {c: regress for c in counters}  # one rule for every counter
    rules = {}
    for name, rule in regress.items():
        if isinstance(rule, (int, float)) and not isinstance(rule, bool):
            rules[name] = ("+", float(rule))
            continue
        m = _RULE.match(rule) if isinstance(rule, str) else None
        if m is None:
            raise pytest.UsageError("%s: regress rule %r for %s: write '+N%%' (fail above the "
                                    "baseline by more than N%%), '-N%%' (below), or a number "
                                    "(as '+N%%')" % (item.nodeid, rule, name))
        rules[name] = (m.group(1), float(m.group(2)))
    stray = sorted((set(bounds) | set(rules)) - set(counters))
    if stray:
        raise pytest.UsageError("%s: max=/regress= name %s, which the test does not count: "
                                "add it to counters=" % (item.nodeid, ", ".join(stray)))
    return {k: float(v) for k, v in bounds.items()}, rules


def _counters_for(item: Any) -> List[str]:
    args = _marker_args(item)
    counters = args.get("counters")
    if isinstance(counters, str):
        raise pytest.UsageError("%s: counters= must be a list of names, not one string"
                                % item.nodeid)
    if not counters:
        names: List[str] = []
        for key in ("max", "regress"):
            if isinstance(args.get(key), dict):
                names += [n for n in args[key] if n not in names]
        counters = names
    if not counters:
        opt = item.config.getoption("opengpa_counters")
        counters = [c.strip() for c in opt.split(",") if c.strip()] if opt else []
    if not counters:
        raise pytest.UsageError("%s: no counters to count: name them in "
                                "@pytest.mark.opengpa(counters=[...]) or with "
                                "--opengpa-counters=A,B (`opengpa list` shows them)"
                                % item.nodeid)
    return list(counters)


def _baseline_path(directory: str, nodeid: str) -> str:
    # One file per test, named after its node ID (path::name[param]).
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")
    return os.path.join(directory, name + ".json")


def _write_atomically(path: str, doc: Dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


class _Plugin:
    """Per-run state: the contexts opened (one per backend and options),
    and the summary lines."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.contexts: Dict[Tuple[Optional[str], Optional[str]], Any] = {}
        self.rows: List[Dict[str, Any]] = []

    def context(self, backend: Optional[str], options: Optional[str]) -> Any:
        key = (backend, options)
        if key not in self.contexts:
            import opengpa
            self.contexts[key] = opengpa.open(backend=backend, options=options)
        return self.contexts[key]

    def pytest_unconfigure(self, config: Any) -> None:
        for ctx in self.contexts.values():
            ctx.close()
        self.contexts.clear()

    @pytest.fixture
    def opengpa_counts(self, request: Any) -> Iterator[Counts]:
        """Counts the test's body (only the body: not the fixtures' setup or
        teardown); its `values` hold {counter: value} after the body."""
        item = request.node
        args = _marker_args(item)
        backend = args.get("backend") or request.config.getoption("opengpa_backend")
        ctx = self.context(backend, args.get("options"))
        counts = Counts(ctx, _counters_for(item))
        _rules(item, counts.counters)  # refuse a bad rule before the body runs
        counts.session = ctx.session(counters=counts.counters).begin()
        item._opengpa_counts = counts
        try:
            yield counts
        finally:
            item._opengpa_counts = None
            counts._end()

    @pytest.fixture(autouse=True)
    def _opengpa_marked(self, request: Any) -> None:
        # A marked test is counted without naming the fixture.
        if request.node.get_closest_marker(MARKER) is not None:
            request.getfixturevalue(FIXTURE)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        counts = getattr(item, "_opengpa_counts", None)
        if counts is None or counts.session is None:
            yield
            return
        sample = counts.session.sample()
        sample.__enter__()
        try:
            yield
        finally:
            try:
                sample.__exit__(None, None, None)
                s = counts.session
                counts._end()
                counts.values = s.result(0)
            except Exception as e:  # reported as the test's failure
                counts.error = e

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Iterator[None]:
        outcome = yield
        rep = outcome.get_result()
        counts = getattr(item, "_opengpa_counts", None)
        if call.when != "call" or counts is None:
            return
        if counts.error is not None:
            if rep.passed:
                rep.outcome = "failed"
                rep.longrepr = "opengpa could not count the test: %s" % counts.error
            return
        if not rep.passed:
            return
        failures, row = self._check(item, counts)
        rep.user_properties.append(("opengpa", row))
        if failures:
            rep.outcome = "failed"
            rep.longrepr = "\n".join(failures)

    def _check(self, item: Any, counts: Counts) -> Tuple[List[str], Dict[str, Any]]:
        bounds, rules = _rules(item, counts.counters)
        directory = self.config.getoption("opengpa_baseline")
        base: Optional[Dict[str, Any]] = None
        state = "no baseline dir"
        if directory:
            path = _baseline_path(directory, item.nodeid)
            if self.config.getoption("opengpa_save"):
                _write_atomically(path, {"test": item.nodeid, "backend": counts.context.backend,
                                         "device": counts.context.device,
                                         "values": counts.values})
                state = "saved"
            elif os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    base = json.load(f).get("values", {})
                state = "compared"
            else:
                state = "no baseline (--opengpa-save writes it)"
        failures = []
        lines = []
        for name, value in counts.values.items():
            verdict = "ok"
            bound = bounds.get(name)
            if bound is not None and value > bound:
                failures.append("opengpa: %s = %s exceeds its bound max=%s" % (name, value, bound))
                verdict = "over max"
            b = base.get(name) if base is not None else None
            change = None
            if b is not None:
                change = (value - b) / b * 100.0 if b else (0.0 if value == b else float("inf"))
                rule = rules.get(name)
                if rule is not None:
                    sign, pct = rule
                    if sign == "+" and value > b * (1 + pct / 100.0) and value > b:
                        verdict = "regressed"
                    elif sign == "-" and value < b * (1 - pct / 100.0) and value < b:
                        verdict = "regressed"
                    if verdict == "regressed":
                        failures.append("opengpa: %s = %s against baseline %s (%+.1f%%) "
                                        "crosses the rule %s%g%%" % (name, value, b, change,
                                                                     sign, pct))
            lines.append({"counter": name, "value": value, "baseline": b,
                          "change_percent": change, "verdict": verdict})
        return failures, {"test": item.nodeid, "state": state, "counters": lines}

    def pytest_runtest_logreport(self, report: Any) -> None:
        for key, row in getattr(report, "user_properties", []):
            if key == "opengpa" and report.when == "call":
                self.rows.append(dict(row, outcome=report.outcome))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        tr = terminalreporter
        tr.write_sep("=", "opengpa counters")
        for row in self.rows:
            tr.write_line("%s (%s, %s)" % (row["test"], row["outcome"], row["state"]))
            for c in row["counters"]:
                text = "    %-28s %16s" % (c["counter"], _fmt(c["value"]))
                if c["baseline"] is not None:
                    text += "  baseline %16s  %+8.1f%%" % (_fmt(c["baseline"]),
                                                            c["change_percent"])
                if c["verdict"] != "ok":
                    text += "  " + c["verdict"].upper()
                tr.write_line(text)


def _fmt(v: Any) -> str:
    return "%.3f" % v if isinstance(v, float) else str(v)
