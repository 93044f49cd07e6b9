# SPDX-License-Identifier: MIT
"""Counters for Prometheus: `python3 -m opengpa.exporter --listen ADDR:PORT
-I MS -- COMMAND` runs `opengpa stat -I MS --opengpa-json -- COMMAND` and
serves its latest interval and running totals over HTTP (`/metrics`): in the
OpenMetrics text format to clients that ask for it (Prometheus does), in the
Prometheus text format 0.0.4 to others (promtool, curl); `--openmetrics FILE`
also writes them in the 0.0.4 format, which node exporter's textfile
collector reads, atomically each interval.  docs/python.md, "Prometheus";
`opengpa stat --listen` does the same in the command (docs/farm.md)."""
from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ._measure import _command

# A counter's per-instance copy (`opengpa stat --per-core`):
# "ShaderCore3:FragmentActiveCycles" is served as a sample of
# opengpa_fragment_active_cycles labelled block="ShaderCore3" (`instance` is
# Prometheus's own label; docs/farm.md, "Per core and per slice").
BLOCK_LABEL = "block"
_INSTANCE = re.compile(r"^([A-Za-z0-9]*[0-9]):(.+)$")

CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Usages whose values are not summed over intervals (GPA's usage types).
GAUGE_USAGES = {"percentage", "ratio"}


def metric_name(counter: str) -> str:
    """`GPUActiveCycles` -> `opengpa_gpu_active_cycles`: OpenMetrics'
    [a-zA-Z_:][a-zA-Z0-9_:]*, words split at case changes."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", counter)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_").lower()
    return "opengpa_" + (s or "counter")


def split_instance(name: str) -> Tuple[str, str]:
    """("ShaderCore3", "FragmentActiveCycles") for an instance's copy,
    ("", name) for any other counter (perf's "cycles:u" included)."""
    m = _INSTANCE.match(name)
    return (m.group(1), m.group(2)) if m else ("", name)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _help(value: str, openmetrics: bool) -> str:
    """HELP text: 0.0.4 escapes only backslash and line feed (a `\\"` there
    is an error to its parser); OpenMetrics the double quote too."""
    if openmetrics:
        return _label(value)
    return value.replace("\\", "\\\\").replace("\n", "\\n")


def _number(v: float) -> str:
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v)) if not float(v).is_integer() or abs(v) >= 1e15 else "%d" % v


class Metrics:
    """The latest interval and the running totals of one `opengpa stat -I`
    run, rendered as OpenMetrics text.  Thread-safe: the reader of stat's
    output updates it, the HTTP server's threads render it."""

    def __init__(self, labels: Mapping[str, str],
                 meta: Optional[Mapping[str, Tuple[str, str, str]]] = None) -> None:
        self.labels = dict(labels)
        self.meta = dict(meta or {})        # name -> (group, usage, description)
        self.lock = threading.Lock()
        self.latest: Dict[str, Tuple[float, str]] = {}
        self.totals: Dict[str, float] = {}
        self.order: List[str] = []
        self.intervals = 0

    def add_interval(self, obj: Mapping) -> None:
        with self.lock:
            self.intervals += 1
            for c in obj.get("counters", []):
                name, value = c.get("name"), c.get("value")
                if not isinstance(name, str) or not isinstance(value, (int, float)):
                    continue
                if name not in self.latest:
                    self.order.append(name)
                self.latest[name] = (float(value), c.get("unit") or "")
                self.totals[name] = self.totals.get(name, 0.0) + float(value)

    def _meta_of(self, name: str) -> Tuple[str, str, str]:
        """A copy's metadata is its counter's (the context the exporter
        asks is opened without the per-instance copies)."""
        return self.meta.get(name) or self.meta.get(split_instance(name)[1], ("", "", ""))

    def _is_gauge(self, name: str, unit: str) -> bool:
        usage = self._meta_of(name)[1]
        return usage in GAUGE_USAGES or (not usage and unit == "%")

    def render(self, openmetrics: bool = True) -> str:
        """OpenMetrics text, or with openmetrics=False the 0.0.4 text format
        (a counter's TYPE on its `_total` sample, no UNIT, no `# EOF`).
        A family's samples are written together: the counter's own, then
        its copies' (block="ShaderCore3"), in the order they came."""
        out = []
        total = "" if openmetrics else "_total"
        with self.lock:
            families: Dict[Tuple[str, bool], List[str]] = {}
            for name in self.order:
                value, unit = self.latest[name]
                key = (metric_name(split_instance(name)[1]), self._is_gauge(name, unit))
                families.setdefault(key, []).append(name)
            for (base, gauge), members in families.items():
                # Metadata from the counter itself where it came, else a copy.
                lead = next((n for n in members if not split_instance(n)[0]), members[0])
                _, unit = self.latest[lead]
                counter = split_instance(lead)[1]
                desc = self._meta_of(lead)[2]
                help_text = _help((desc or counter) + (" (%s)" % unit if unit else ""),
                                  openmetrics)
                labs = []
                for name in members:
                    block, counter = split_instance(name)
                    labels = dict(self.labels, group=self._meta_of(name)[0], counter=counter)
                    if block:
                        labels[BLOCK_LABEL] = block
                    labs.append((name, ",".join('%s="%s"' % (k, _label(v))
                                                for k, v in sorted(labels.items()))))
                if gauge:
                    out += ["# TYPE %s gauge" % base, "# HELP %s %s" % (base, help_text)]
                    out += ["%s{%s} %s" % (base, lab, _number(self.latest[n][0]))
                            for n, lab in labs]
                    continue
                out += ["# TYPE %s%s counter" % (base, total),
                        "# HELP %s%s %s" % (base, total, help_text)]
                out += ["%s_total{%s} %s" % (base, lab, _number(self.totals[n]))
                        for n, lab in labs]
                last = base + "_last_interval"
                out += ["# TYPE %s gauge" % last,
                        "# HELP %s %s over the latest interval" % (last, help_text)]
                out += ["%s{%s} %s" % (last, lab, _number(self.latest[n][0]))
                        for n, lab in labs]
            lab = ",".join('%s="%s"' % (k, _label(v)) for k, v in sorted(self.labels.items()))
            out += ["# TYPE opengpa_intervals%s counter" % total,
                    "# HELP opengpa_intervals%s intervals counted since the start" % total,
                    "opengpa_intervals_total{%s} %d" % (lab, self.intervals)]
        if openmetrics:
            out.append("# EOF")
        return "\n".join(out) + "\n"


def write_textfile(path: str, text: str) -> None:
    """Writes `text` to `path` atomically (a file beside it, then rename), so
    the textfile collector never reads half of it."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".opengpa-", suffix=".prom.tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def serve(metrics: Metrics, host: str, port: int) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?")[0] not in ("/metrics", "/"):
                self.send_error(404, "only /metrics is served")
                return
            om = "application/openmetrics-text" in (self.headers.get("Accept") or "")
            body = metrics.render(openmetrics=om).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE if om else TEXT_CONTENT_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt: str, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _meta(backend: Optional[str], options: Optional[str]
          ) -> Tuple[Dict[str, Tuple[str, str, str]], str, str]:
    """Each counter's group, usage and description, and the backend and
    device, from the library; empty when it cannot be loaded (the labels
    then lack the group until stat's totals say the rest)."""
    try:
        from . import open as og_open
        with og_open(backend=backend, options=options) as ctx:
            return ({c.name: (c.group, c.usage, c.description) for c in ctx.counters()},
                    ctx.backend or "", ctx.device or "")
    except Exception:  # noqa: BLE001 - metadata only, the export goes on without it
        return {}, backend or "", ""


def _address(text: str) -> Tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host or int(port) > 65535:
        raise argparse.ArgumentTypeError("not ADDR:PORT (127.0.0.1:9464): %r" % text)
    return host.strip("[]"), int(port)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m opengpa.exporter",
                                description="Serve `opengpa stat -I` intervals to Prometheus.")
    p.add_argument("--listen", type=_address, help="ADDR:PORT to serve /metrics on "
                   "(port 0: any free one; the address is printed)")
    p.add_argument("--openmetrics", metavar="FILE", help="write the metrics to FILE "
                   "atomically each interval (node exporter's textfile collector)")
    p.add_argument("-I", "--interval", type=int, default=1000, metavar="MS")
    p.add_argument("-e", "--events", help="counters, comma-separated (as opengpa stat -e)")
    p.add_argument("--per-core", action="store_true",
                   help="each counter's per-core and per-slice values too, labelled "
                   "block=\"ShaderCore3\" (as opengpa stat --per-core)")
    p.add_argument("--backend")
    p.add_argument("--options")
    p.add_argument("--instance", default=socket.gethostname(),
                   help="the instance label (default: the host name)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("no command to count: -- COMMAND [ARG...]")
    if not a.listen and not a.openmetrics:
        p.error("nothing to export to: --listen ADDR:PORT and/or --openmetrics FILE")
    args = [_command(None), "stat", "-I", str(a.interval), "--opengpa-json"]
    for opt, val in (("-e", a.events), ("--backend", a.backend), ("--options", a.options)):
        if val:
            args += [opt, val]
    if a.per_core:
        args.append("--per-core")
    args += ["--"] + cmd
    meta, backend, device = _meta(a.backend, a.options)
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    labels = {"instance": a.instance, "backend": backend, "device": device}
    metrics = Metrics(labels, meta)
    server = None
    try:
        if a.listen:
            server = serve(metrics, *a.listen)
            host, port = server.server_address[:2]
            print("opengpa exporter: serving http://%s:%d/metrics" % (host, port),
                  file=sys.stderr, flush=True)
        for line in proc.stderr:
            if line.startswith('{"interval"'):
                metrics.add_interval(json.loads(line))
                if a.openmetrics:
                    write_textfile(a.openmetrics, metrics.render(openmetrics=False))
            elif line.startswith('{"command"'):
                total = json.loads(line)  # the totals: the labels the run had
                with metrics.lock:
                    metrics.labels["device"] = total.get("device", "")
                    metrics.labels["backend"] = total.get("backend", "")
            else:
                sys.stderr.write(line)
        return proc.wait()
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait()
        if server:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    sys.exit(main())
