# SPDX-License-Identifier: MIT
"""`opengpa stat -I MS --listen ADDR:PORT` and `--openmetrics FILE`
(docs/farm.md) on the virtual Mali: the two text formats and their content
types, Debian's real Prometheus server scraping the command and answering a
query for a Mali counter, `promtool check metrics` on what the command
serves and writes, the textfile written whole, and clients that send
garbage, too much, nothing, or leave early.

Usage: test_prometheus.py OPENGPA VMALI_PRELOAD [GRAFANA_JSON [PYTHON_DIR]]
The Prometheus part is skipped, saying so, where Debian's `prometheus`
package is not installed (scripts/install-deps.sh installs it)."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import OPENGPA, check, finish, run  # noqa: E402

VMALI = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
GRAFANA = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
PYTHON_DIR = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
OM_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
             "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def env():
    e = dict(os.environ)
    e.pop("OPENGPA_BACKEND", None)
    e.pop("OPENGPA_LOG", None)
    e["LD_PRELOAD"] = os.environ.get("OPENGPA_TEST_PRELOAD_FIRST", "") + VMALI
    return e


class Command:
    """`opengpa stat ... --listen 127.0.0.1:0` running, its stderr read as
    it comes (the -I lines fill a pipe otherwise) and the port it printed."""

    def __init__(self, args):
        self.p = subprocess.Popen(OPENGPA + args, env=env(), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True)
        self.lines = []
        self.address = None
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready.wait(30)

    def _read(self):
        for line in self.p.stderr:
            self.lines.append(line)
            m = re.match(r"opengpa stat: serving http://(\S+)/metrics", line)
            if m and not self.address:
                self.address = m.group(1)
                self.ready.set()
        self.ready.set()

    def wait(self, timeout=30):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None


def http_get(address, path="/metrics", accept=None, timeout=10):
    req = urllib.request.Request("http://%s%s" % (address, path))
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()
    except OSError as e:  # refused, reset, timed out: no answer
        return None, None, str(e)


def raw(address, data, timeout=10, shut=False):
    """Sends bytes; returns what came back until the server closed ("" when
    it closed at once or reset the connection)."""
    host, port = address.rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
    got = b""
    try:
        s.sendall(data)
        if shut:
            s.shutdown(socket.SHUT_WR)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    finally:
        s.close()
    return got.decode(errors="replace")


def promtool(text, what):
    if not PROMTOOL:
        return
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=30)
    check(what + ": promtool check metrics finds nothing", r.returncode == 0,
          r.stdout + r.stderr)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def sample(text, name):
    """The value of the first sample of metric `name` in exposition text."""
    m = re.search(r"^%s(\{[^}]*\})? (\S+)$" % re.escape(name), text, re.M)
    return float(m.group(2)) if m else None


def formats(address):
    st, ctype, om = http_get(address, accept=OM_ACCEPT)
    check("OpenMetrics asked: 200", st == 200, st)
    check("OpenMetrics asked: its content type", ctype == OM_TYPE, ctype)
    check("OpenMetrics: ends with # EOF", om.endswith("\n# EOF\n"), om[-80:])
    check("OpenMetrics: a counter typed on its family",
          "# TYPE opengpa_gpu_active_cycles counter\n" in om, om[:400])
    check("OpenMetrics: its UNIT", "# UNIT opengpa_gpu_active_cycles cycles\n" in om)
    check("OpenMetrics: the sample named _total", sample(om, "opengpa_gpu_active_cycles_total")
          is not None and sample(om, "opengpa_gpu_active_cycles_total") > 0)
    check("OpenMetrics: a percentage is a gauge",
          "# TYPE opengpa_fragment_queue_utilization gauge\n" in om)
    check("OpenMetrics: the labels", re.search(
        r'opengpa_gpu_active_cycles_total\{backend="mali",counter="GPUActiveCycles",'
        r'device="Mali-[^"]+",group="GPU Usage"', om) is not None, om[:600])
    check("OpenMetrics: HELP without GPA's #group# prefix",
          re.search(r"^# HELP opengpa_gpu_active_cycles #", om, re.M) is None)
    st, ctype, text = http_get(address)
    check("no Accept: the 0.0.4 text format", st == 200 and ctype == TEXT_TYPE, ctype)
    check("0.0.4: the counter typed on its sample",
          "# TYPE opengpa_gpu_active_cycles_total counter\n" in text, text[:400])
    check("0.0.4: no # EOF, no UNIT", "# EOF" not in text and "# UNIT" not in text)
    promtool(text, "--listen")
    per_core(om, text)
    st, ctype, body = http_get(address, "/other")
    check("another path: 404", st == 404, st)
    got = raw(address, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    check("HEAD: the header alone", got.startswith("HTTP/1.1 200") and got.endswith("\r\n\r\n"),
          got[:200])
    got = raw(address, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    check("POST: 405", got.startswith("HTTP/1.1 405"), got[:100])
    return om


def per_core(om, text):
    """--per-core: a counter's per-instance copies are samples of its own
    family, told apart by block="ShaderCore3" (docs/farm.md), the whole GPU's
    value beside them without the label; one TYPE line a family in both
    formats (promtool checks 0.0.4, Prometheus' scrape OpenMetrics)."""
    for fmt, doc in (("OpenMetrics", om), ("0.0.4", text)):
        types = re.findall(r"^# TYPE (\S+) ", doc, re.M)
        check("--per-core, %s: one TYPE a family" % fmt, len(types) == len(set(types)),
              sorted(t for t in types if types.count(t) > 1))
        check("--per-core, %s: no family named after an instance" % fmt,
              not re.search(r"^opengpa_(shader_core|l2_slice)\d", doc, re.M), doc[:300])
    family = "opengpa_arithmetic_unit_utilization"
    values = re.findall(r'^%s\{([^}]*)\} \S+$' % family, om, re.M)
    blocks = [re.search(r'block="([^"]*)"', v) for v in values]
    check("--per-core: the whole GPU's value without a block label",
          sum(b is None for b in blocks) == 1, values)
    check("--per-core: one sample per shader core, labelled",
          sorted(b.group(1) for b in blocks if b) == ["ShaderCore%d" % i for i in range(8)],
          values)
    check("--per-core: a copy's counter label is the counter's", all(
        'counter="ArithmeticUnitUtilization"' in v for v in values), values)
    # A family's samples together: no other family between them.
    lines = [l.split("{")[0] for l in om.splitlines() if not l.startswith("#")]
    runs = [n for i, n in enumerate(lines) if i == 0 or lines[i - 1] != n]
    check("--per-core: each family's samples together", len(runs) == len(set(runs)),
          [n for n in runs if runs.count(n) > 1][:5])


def bad_clients(address, meanwhile):
    got = raw(address, b"\x16\x03\x01\x02\x00garbage\r\n\r\n")
    check("garbage: 400", got.startswith("HTTP/1.1 400"), got[:100])
    got = raw(address, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 20000)
    check("20 kB of header: 431 or closed", got == "" or got.startswith("HTTP/1.1 431"),
          got[:100])
    # Gone before asking: half a request, then closed; then reset.
    raw(address, b"GET /metr", shut=True)
    host, port = address.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()
    # Silent clients in every slot (16): the next request waits in the
    # backlog until their deadline (5 s) frees a slot, then is answered.
    silent = [socket.create_connection((host, int(port))) for _ in range(16)]
    t0 = time.monotonic()
    meanwhile()  # other runs, while the slots are held
    st, _, _ = http_get(address, timeout=15)
    waited = time.monotonic() - t0
    check("every slot taken by a silent client: answered once they time out", st == 200,
          (st, waited))
    for s in silent:
        s.close()
    st, _, _ = http_get(address)
    check("still serving after the bad clients", st == 200, st)


def prometheus_scrape(address, tmp):
    if not PROMETHEUS:
        print("SKIP: the Prometheus server part: no `prometheus` on PATH (Debian's "
              "prometheus package; scripts/install-deps.sh installs it)")
        return
    port = free_port()
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: opengpa\n    static_configs:\n"
                "      - targets: ['%s']\n        labels:\n          board: vmali-1\n" % address)
    p = subprocess.Popen([PROMETHEUS, "--config.file=" + config,
                          "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                          "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    api = "127.0.0.1:%d" % port
    result = up = None
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.3)
            try:
                _, _, body = http_get(api, "/api/v1/query?query=opengpa_gpu_active_cycles_total",
                                      timeout=2)
                result = json.loads(body)["data"]["result"]
                _, _, body = http_get(api, "/api/v1/query?query=up", timeout=2)
                up = json.loads(body)["data"]["result"]
            except (OSError, ValueError, KeyError):
                continue
            if result:
                break
        check("Prometheus: up is 1 (the OpenMetrics scrape parsed)",
              up and up[0]["value"][1] == "1", up)
        check("Prometheus: the Mali counter answered", bool(result), result)
        _, _, body = http_get(api, "/api/v1/query?query=opengpa_arithmetic_unit_utilization"
                              "%7Bblock%3D%22ShaderCore3%22%7D", timeout=2)
        core = json.loads(body).get("data", {}).get("result", [])
        check("Prometheus: one shader core's series (--per-core)", len(core) == 1 and
              core[0]["metric"].get("counter") == "ArithmeticUnitUtilization", core)
        if result:
            m, value = result[0]["metric"], float(result[0]["value"][1])
            check("Prometheus: a count above 0", value > 0, value)
            check("Prometheus: the labels", m.get("backend") == "mali" and
                  m.get("group") == "GPU Usage" and m.get("board") == "vmali-1" and
                  m.get("device", "").startswith("Mali-"), m)
        if up and up[0]["value"][1] != "1":
            _, _, body = http_get(api, "/api/v1/targets", timeout=2)
            print(body[:2000])
    finally:
        p.terminate()
        try:
            out, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        if not result:
            print(out[-3000:])


def listen_run(tmp):
    c = Command(["stat", "-I", "100", "--listen", "127.0.0.1:0", "--backend", "mali",
                 "--per-core", "--", "sleep", "30"])
    check("--listen: the address printed", c.address is not None, "".join(c.lines)[-2000:])
    if not c.address:
        c.p.kill()
        c.wait()
        return None
    try:
        time.sleep(0.5)  # a few intervals
        om = formats(c.address)
        prometheus_scrape(c.address, tmp)
        bad_clients(c.address, lambda: (ipv6(), textfile(tmp)))
    finally:
        os.killpg(c.p.pid, 2)  # ^C from a terminal: the command and opengpa
    rc = c.wait()
    check("--listen: the run ends cleanly on ^C", rc is not None and rc in (0, 130),
          (rc, "".join(c.lines)[-1500:]))
    check("--listen: nothing went wrong on stderr",
          not any("Sanitizer" in l or "runtime error" in l
                  for l in c.lines), "".join(c.lines)[-1500:])
    return om


def ipv6():
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        print("SKIP: IPv6: no ::1 here")
        return
    c = Command(["stat", "-I", "100", "--listen", "[::1]:0", "--backend", "mali", "--",
                 "sleep", "1"])
    check("[::1]: the address printed", c.address and c.address.startswith("[::1]:"),
          c.lines[:3])
    if c.address:
        time.sleep(0.3)
        st, _, _ = http_get(c.address)
        check("[::1]: served", st == 200, st)
    check("[::1]: exits 0", c.wait() == 0, "".join(c.lines)[-800:])


def textfile(tmp):
    path = os.path.join(tmp, "opengpa.prom")
    with open(path, "w") as f:
        f.write("# previous\n")
    # A failed run (an unknown counter) leaves the file as it was.
    r = run(["stat", "-I", "50", "--openmetrics", path, "--backend", "mali", "-e", "NoSuch",
             "--", "true"], preload=VMALI)
    check("--openmetrics, failed run: exits 1", r.returncode == 1, r.stderr[-500:])
    check("--openmetrics, failed run: file untouched", open(path).read() == "# previous\n")
    r = run(["stat", "-I", "50", "--openmetrics", os.path.join(tmp, "no", "dir", "x.prom"),
             "--backend", "mali", "--", "true"], preload=VMALI)
    check("--openmetrics in a missing directory: refused at once", r.returncode == 1 and
          "x.prom" in r.stderr, r.stderr[-500:])
    # While the run writes every 20 ms, every read sees a whole document.
    log = tempfile.TemporaryFile(mode="w+")
    c = subprocess.Popen(OPENGPA + ["stat", "-I", "20", "--openmetrics", path, "--backend",
                                    "mali", "--", "sleep", "1"], env=env(),
                         stdout=subprocess.DEVNULL, stderr=log, text=True)
    reads = torn = 0
    deadline = time.monotonic() + 30
    while c.poll() is None and time.monotonic() < deadline:
        with open(path) as f:
            text = f.read()
        reads += 1
        if text != "# previous\n" and not re.search(r"\nopengpa_intervals_total[^\n]* \d+\n$",
                                                   text):
            torn += 1
        time.sleep(0.002)
    if c.poll() is None:
        c.kill()
    c.wait()
    log.seek(0)
    err = log.read()
    check("--openmetrics: exits 0", c.returncode == 0, err[-800:])
    check("--openmetrics: no read saw half a file", torn == 0, (torn, reads))
    text = open(path).read()
    check("--openmetrics: the 0.0.4 format with the Mali counter",
          "# TYPE opengpa_gpu_active_cycles_total counter\n" in text and "# EOF" not in text,
          text[:300])
    n = sample(text, "opengpa_intervals_total")
    check("--openmetrics: the last interval's document", n is not None and n >= 10, n)
    promtool(text, "--openmetrics")
    left = [f for f in os.listdir(tmp) if f.startswith(".")]
    check("--openmetrics: no temporary file left", not left, left)


def refusals():
    for args, why in ((["--listen", "127.0.0.1:9464", "--", "true"], "-I"),
                      (["-I", "100", "--listen", "localhost:9464", "--", "true"], "literal"),
                      (["-I", "100", "--listen", "127.0.0.1:65536", "--", "true"], "port"),
                      (["-I", "100", "--listen", "::1:9464", "--", "true"], "brackets"),
                      (["--openmetrics", "x.prom", "--", "true"], "-I")):
        r = run(["stat"] + args)
        check("refused: %s" % " ".join(args), r.returncode == 2, (r.returncode, r.stderr))
    # The port taken: said, before anything runs.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    r = run(["stat", "-I", "100", "--listen", "127.0.0.1:%d" % s.getsockname()[1],
             "--backend", "mali", "--", "true"], preload=VMALI)
    s.close()
    check("a port in use: exits 1 naming it", r.returncode == 1 and "in use" in r.stderr.lower(),
          r.stderr[-400:])


def python_names(om):
    """Every family is named as python/opengpa/exporter.py names it."""
    if not PYTHON_DIR:
        return
    sys.path.insert(0, PYTHON_DIR)
    try:
        from opengpa.exporter import metric_name
    except ImportError as e:
        print("SKIP: the Python exporter's names: %s" % e)
        return
    pairs = re.findall(r'^(opengpa_\w+?)(?:_total|_last_interval)?\{[^}]*counter="([^"]+)"', om,
                       re.M)
    check("python names: families to compare", len(pairs) >= 5, pairs)
    for name, counter in pairs:
        check("python names: %s" % counter, name == metric_name(counter), (name, counter))


def grafana(om):
    """The dashboard (docs/farm.md) queries metrics the command serves."""
    if not GRAFANA:
        return
    with open(GRAFANA) as f:
        board = json.load(f)
    exprs = [t["expr"] for p in board.get("panels", []) for t in p.get("targets", [])]
    check("dashboard: has queries", len(exprs) >= 4, exprs)
    served = set(re.findall(r"^(opengpa_\w+?)(?:\{| )", om, re.M))
    for e in exprs:
        names = set(re.findall(r"\bopengpa_\w+", e))
        check("dashboard: %s queries served metrics" % e, names and names <= served,
              names - served)


if not VMALI:
    print("SKIP: no virtual Mali preload in this build")
    sys.exit(77)
refusals()
with tempfile.TemporaryDirectory(prefix="opengpa-prom-") as tmp:
    om = listen_run(tmp)
    if om:
        grafana(om)
        python_names(om)
finish()
