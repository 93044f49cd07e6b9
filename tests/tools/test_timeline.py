#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`opengpa stat -I` and its files, as a user meets them: the interval lines
in their three forms, the trace checked against the trace-event format's
required fields, the CSV read by Python's csv module, the HTML report opened
in headless Chromium (it must draw every chart's lines, log no error, and
look like something), on the perf backend and the virtual Mali and MIPS;
the virtual Mali stopped with SIGSTOP for several periods (nothing lost) and
for more than its ring holds (the overflow reported); and bad input refused
before the command runs.

usage: test_timeline.py OPENGPA V34K_PRELOAD VMALI_PRELOAD [MALI_FRAME_LOOP]

Chromium is looked for on PATH (chromium, chromium-browser).
"""
import atexit
import concurrent.futures
import csv
import io
import json
import math
import os
import re
import shutil
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import perfetto_text
from perfetto_text import fields, parse_text_format

from cli_harness import OPENGPA, check, finish
V34K = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
VMALI = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
FRAME_LOOP = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium runs beside the next opengpa runs (those mostly wait for `sleep`);
# its results are checked at the end.
browser = concurrent.futures.ThreadPoolExecutor(max_workers=2)
pending = []
WORK = tempfile.mkdtemp(prefix="opengpa-timeline-")
atexit.register(shutil.rmtree, WORK, True)


def env_for(preload):
    e = dict(os.environ)
    for k in ("OPENGPA_BACKEND", "OPENGPA_LOG", "LD_PRELOAD"):
        e.pop(k, None)
    if preload:
        # A sanitizer build's runtime, when the preload library needs it first.
        e["LD_PRELOAD"] = os.environ.get("OPENGPA_TEST_PRELOAD_FIRST", "") + preload
    return e


def run(args, preload=None, timeout=60, env=None):
    e = env_for(preload)
    e.update(env or {})
    return subprocess.run(OPENGPA + args, capture_output=True, text=True, env=e,
                          timeout=timeout)


# The periods are timed on the perf backend and the devices' clocks: qemu-user
# has no perf_event_open (ENOSYS), and emulation stretches every period.
r = run(["list", "--backend", "perf"])
if r.returncode != 0 and "ENOSYS" in r.stderr:
    print("SKIP: no perf_event_open here: %s" % r.stderr.strip())
    sys.exit(77)


# ---- the files' formats --------------------------------------------------

def check_trace(where, path, counters):
    """The Trace Event Format's JSON Array Format: every event an object with
    the fields its phase requires."""
    with open(path) as f:
        events = json.load(f)
    check(where + ": trace is a JSON array of events", isinstance(events, list) and events)
    required = {"M": ("name", "ph", "pid", "tid", "args"),
                "B": ("name", "ph", "ts", "pid", "tid"),
                "E": ("ph", "ts", "pid", "tid"),
                "C": ("name", "ph", "ts", "pid", "args"),
                "i": ("name", "ph", "ts", "pid", "tid", "s"),
                "X": ("name", "ph", "ts", "dur", "pid", "tid", "args")}
    bad, open_slices, tracks = [], {}, {}
    for ev in events:
        ph = ev.get("ph")
        if ph not in required or any(k not in ev for k in required[ph]):
            bad.append(ev)
            continue
        if not isinstance(ev["pid"], int) or ("tid" in ev and not isinstance(ev["tid"], int)):
            bad.append(ev)
        if "ts" in ev and not (isinstance(ev["ts"], (int, float)) and ev["ts"] >= 0):
            bad.append(ev)
        if ph == "X" and not (ev["dur"] >= 0 and isinstance(ev["args"].get("flags"), str)):
            bad.append(ev)
        if ph == "M" and not (ev["name"] in ("process_name", "thread_name") and
                              isinstance(ev["args"].get("name"), str)):
            bad.append(ev)
        if ph == "C":
            args = ev["args"]
            if len(args) != 1 or not all(isinstance(v, (int, float)) for v in args.values()):
                bad.append(ev)
            track = tracks.setdefault(ev["name"], [])
            track.append(ev["ts"])
        if ph == "B":
            open_slices.setdefault((ev["pid"], ev["tid"]), []).append(ev["ts"])
        if ph == "E":
            stack = open_slices.get((ev["pid"], ev["tid"]), [])
            if not stack or stack.pop() > ev["ts"]:
                bad.append(ev)
        if ph == "i" and ev["s"] not in ("g", "p", "t"):
            bad.append(ev)
    check(where + ": every trace event has its phase's fields", not bad, bad[:3])
    check(where + ": the workload slice is closed",
          events and all(not s for s in open_slices.values()), open_slices)
    check(where + ": one counter track per counter", set(tracks) == set(counters),
          (sorted(tracks)[:5], sorted(counters)[:5]))
    check(where + ": counter tracks in time order",
          all(t == sorted(t) for t in tracks.values()))
    return events


def check_perfetto(where, path, counters, data):
    """Decoded with Debian's protoc against Perfetto's own schema: no field
    the schema does not know, the GPU counters' descriptor before their
    values, every id and track uuid resolving, timestamps in order, and a
    count's rate times its interval giving the CSV's count back."""
    why = perfetto_text.unavailable()
    if why:
        print("SKIP: %s: Perfetto file not decoded: %s" % (where, why))
        return
    rc, text, err, unknown = perfetto_text.decode(path)
    check(where + ": protoc decodes the Perfetto file", rc == 0, err[-500:])
    if rc:
        return
    check(where + ": no field Perfetto's schema does not know", not unknown, unknown[:3])
    packets = fields(parse_text_format(text), "packet")
    check(where + ": the first packet relates the clocks and clears the sequence's state",
          packets and fields(packets[0], "clock_snapshot") and
          fields(packets[0], "sequence_flags") == ["1"], packets[:1])
    described, gpu_names, tracks, bad, last = False, {}, set(), [], {}
    seen_gpu, seen_cpu = set(), set()
    for p in packets:
        ts = fields(p, "timestamp")
        # In order on each sequence (the frames have one of their own).
        seq = fields(p, "trusted_packet_sequence_id")[:1]
        if ts:
            if int(ts[0]) < last.get(str(seq), 0):
                bad.append(("timestamp goes back", ts[0], last))
            last[str(seq)] = int(ts[0])
            if fields(p, "timestamp_clock_id") != ["3"]:
                bad.append(("not CLOCK_MONOTONIC", p))
        for td in fields(p, "track_descriptor"):
            tracks.add(fields(td, "uuid")[0])
            for counter in fields(td, "counter"):
                seen_cpu.add(fields(td, "name")[0])
        for te in fields(p, "track_event"):
            if fields(te, "track_uuid")[0] not in tracks:
                bad.append(("track not described", te))
        for g in fields(p, "gpu_counter_event"):
            for d in fields(g, "counter_descriptor"):
                described = True
                for spec in fields(d, "specs"):
                    gpu_names[fields(spec, "counter_id")[0]] = fields(spec, "name")[0]
            for c in fields(g, "counters"):
                if not described or fields(c, "counter_id")[0] not in gpu_names:
                    bad.append(("GPU counter before its descriptor", c))
                seen_gpu.add(gpu_names.get(fields(c, "counter_id")[0]))
    check(where + ": descriptors before values, ids resolve, timestamps in order", not bad,
          bad[:3])
    check(where + ": every counter is a GPU counter or a CPU counter track",
          set(gpu_names.values()) | seen_cpu == set(counters),
          sorted(set(counters) - set(gpu_names.values()) - seen_cpu)[:5])
    slices = [te for p in packets for te in fields(p, "track_event")
              if fields(te, "type") == ["TYPE_SLICE_BEGIN"]]
    check(where + ": the workload and each interval are slices", len(slices) == len(data) + 1,
          (len(slices), len(data)))


def check_rates(where, events, header, data):
    """The trace shows a count per second over the interval's own begin and
    end: its value times the interval's length is the CSV's count."""
    rates = {}
    for ev in events:
        if ev["ph"] == "C":
            (unit, value), = ev["args"].items()
            if unit.endswith("/s"):
                rates[(ev["name"], round(ev["ts"]))] = value
    check(where + ": the trace shows counts as rates", rates or not data)
    wrong = []
    for i, h in enumerate(header[6:]):
        name = h.rsplit(" (", 1)[0]
        for row in data:
            key = (name, round(int(row[3]) / 1000.0))
            if key not in rates or row[6 + i] == "":
                continue
            count = float(row[6 + i])
            back = rates[key] * (int(row[4]) - int(row[3])) / 1e9
            if abs(back - count) > 1e-6 * max(1.0, abs(count)):
                wrong.append((name, row[0], count, back))
    check(where + ": rate x interval = the CSV's count", not wrong, wrong[:3])


def read_csv(where, path, periodic=True):
    with open(path, "rb") as f:
        raw = f.read()
    check(where + ": CSV lines end in CRLF (RFC 4180)", raw.count(b"\r\n") == raw.count(b"\n"))
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    header, data = rows[0], rows[1:]
    check(where + ": CSV header names the columns with units",
          header[:6] == ["sample", "begin_s", "end_s", "begin_ns", "end_ns", "flags"] and
          all(re.fullmatch(r".+ \(.+\)", h) for h in header[6:]), header)
    check(where + ": every CSV row has every column", all(len(r) == len(header) for r in data))
    numbers = True
    for r in data:
        for v in r[6:]:
            try:
                if v:
                    float(v)
            except ValueError:
                numbers = False
    check(where + ": CSV values are numbers", numbers)
    ints = [int(r[0]) for r in data]
    check(where + ": samples numbered from 0", ints == list(range(len(data))), ints[:10])
    begins = [float(r[1]) for r in data]
    ends = [float(r[2]) for r in data]
    if not periodic:
        check(where + ": samples in time order", all(b <= e for b, e in zip(begins, ends)) and
              all(begins[k + 1] >= ends[k] for k in range(len(data) - 1)))
        return header, data
    check(where + ": intervals follow each other without a gap",
          all(abs(begins[k + 1] - ends[k]) < 2e-9 for k in range(len(data) - 1)) and
          all(b <= e for b, e in zip(begins, ends)), list(zip(begins, ends))[:5])
    check(where + ": the last interval says it is the last",
          data and "final" in data[-1][5].split() and
          not any("final" in r[5].split() for r in data[:-1]))
    return header, data


def png_pixels(path):
    """Width, height and the rows of an 8-bit RGB(A) PNG, as bytes per pixel."""
    with open(path, "rb") as f:
        blob = f.read()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(blob):
        length, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), "unexpected PNG kind"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                cur[i] = (cur[i] + a) & 255
            elif kind == 2:
                cur[i] = (cur[i] + b) & 255
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, bpp, rows


def chromium(args, url):
    t0 = time.monotonic()
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr",
                        "--v=0"] + args + [url], capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - t0


def open_in_chromium(path, profile, screenshot):
    """In the pool: the page's DOM once its scripts ran, and a screenshot."""
    url = "file://" + os.path.abspath(path)
    # #selftest: the page drives its own search box, a legend toggle, a zoom
    # drag, a shift-drag pan and "Open all" (the folded groups' charts are
    # drawn when opened) with DOM events and says how each went.
    dom, seconds = chromium(["--user-data-dir=" + profile + "-dom", "--dump-dom"],
                            url + "#selftest")
    shot = None
    if screenshot:
        shot = path + ".png"
        _, more = chromium(["--user-data-dir=" + profile + "-shot", "--window-size=1200,1600",
                            "--screenshot=" + shot], url)
        seconds += more
    return dom, shot, seconds


def check_html(where, path, nseries, nintervals, screenshot, browse=True):
    if not CHROMIUM:
        if os.environ.get("CI"):
            check(where + ": chromium is installed (scripts/install-deps.sh)", False)
        else:
            print("SKIP: %s: no chromium here; scripts/install-deps.sh installs it" % where)
        return
    with open(path, encoding="utf-8") as f:
        page = f.read()
    check(where + ": the page fetches nothing",
          not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page) and
          "@import" not in page and "url(" not in page)
    if browse:
        job = browser.submit(open_in_chromium, path, path + ".profile", screenshot)
        pending.append((where, job, nseries, nintervals))


def check_browsed(where, job, nseries, nintervals):
    dom, shot, seconds = job.result()
    print("%s: chromium took %.2f s" % (where, seconds))
    html = dom.stdout
    rendered = re.search(r'data-rendered="([^"]*)"', html)
    errors = re.search(r'data-errors="([^"]*)"', html)
    console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    check(where + ": the page rendered", rendered is not None, html[-500:])
    check(where + ": no script error", errors is None and not console,
          (errors.group(1) if errors else "") + "\n".join(console))
    charts = re.split(r'<section class="chart"', html)[1:]
    check(where + ": one chart per counter group and unit at least", len(charts) >= 1,
          rendered.group(1) if rendered else "")
    lines = []
    for svg in charts:
        paths = re.findall(r'<path[^>]*class="series"[^>]*>', svg)
        lines.extend(paths)
        check(where + ": each chart has its lines", paths, svg[:300])
        check(where + ": no chart has more lines than colours", len(paths) <= 8, len(paths))
    check(where + ": every counter has a line", len(lines) == nseries, (len(lines), nseries))
    # A step per interval: each line has two points per interval it has a value for.
    points = [len(re.findall(r"[ML]", re.search(r'd="([^"]*)"', p).group(1))) for p in lines]
    check(where + ": the lines go through every interval",
          points and max(points) == 2 * nintervals, (points[:5], nintervals))
    check(where + ": the totals table is there", "<table>" in html and "Whole run" in html)
    selftest = re.search(r'data-selftest="([^"]*)"', html)
    check(where + ": zoom, pan, toggle and search work",
          selftest and "failed" not in selftest.group(1) and selftest.group(1).count("ok") == 6,
          selftest.group(1) if selftest else "no data-selftest")
    if not shot:
        return
    try:
        w, h, bpp, rows = png_pixels(shot)
        counts = {}
        for row in rows[::4]:
            for x in range(0, len(row), bpp * 4):
                px = row[x:x + 3]
                counts[px] = counts.get(px, 0) + 1
        total = sum(counts.values())
        background = max(counts.values())
        check(where + ": the screenshot is not blank",
              len(counts) > 20 and background < 0.97 * total,
              "%d colours, background %.1f%%" % (len(counts), 100.0 * background / total))
    except (OSError, AssertionError, zlib.error) as err:
        check(where + ": the screenshot is a PNG", False, err)


# ---- one periodic run, checked whole ---------------------------------------

def per_period(data, period_s, kernel):
    """One interval per period: the timer thread's first begins with the run
    and its last ends with it (within one); the kernel aligns its periods to
    multiples of the period, so its first interval is short too (within
    two).  A late interval covers the periods it was late for."""
    span = float(data[-1][2]) - float(data[0][1])
    periods = span / period_s
    if kernel:
        return periods <= len(data) <= periods + 2, (len(data), periods)
    # Never more than one a period; fewer only by what late intervals cover.
    late = sum(math.ceil((float(r[2]) - float(r[1])) / period_s) - 1
               for r in data if "late" in r[5].split())
    return periods - 1 <= len(data) + late and len(data) <= periods + 1, \
        (len(data), periods, late)


def timeline_run(where, extra, preload, command, period_ms=100, kernel=False, screenshot=False,
                 env=None, browse=True):
    tmp = tempfile.mkdtemp(dir=WORK)
    trace, table, html, pf = (os.path.join(tmp, n)
                              for n in ("t.json", "t.csv", "t.html", "t.pftrace"))
    t0 = time.monotonic()
    r = run(["stat", "-I", str(period_ms), "--trace", trace, "--csv", table, "--html", html,
             "--perfetto", pf] +
            extra + ["--"] + command, preload=preload, env=env)
    elapsed = time.monotonic() - t0
    check(where + ": exits 0", r.returncode == 0, r.stderr[-2000:])
    if r.returncode:
        return
    blocks = re.findall(r"^\s+(\d+\.\d{9})\s", r.stderr, re.M)
    header, data = read_csv(where, table)
    counters = [h.rsplit(" (", 1)[0] for h in header[6:]]
    check(where + ": -I prints a block per interval", len(set(blocks)) == len(data),
          (len(set(blocks)), len(data)))
    check(where + ": then the totals", "Counter stats for" in r.stderr)
    ok, detail = per_period(data, period_ms / 1000.0, kernel)
    check(where + ": an interval per period", ok, (detail, elapsed))
    events = check_trace(where, trace, counters)
    check_rates(where, events, header, data)
    check_perfetto(where, pf, counters, data)
    check_html(where, html, len(counters), len(data), screenshot, browse)
    return data


# A command line that would break out of a JSON string, a CSV field or a
# <script> if the writers did not quote it.
timeline_run("perf", ["-e", "TaskClock,PageFaults,CPUUtilization,ContextSwitches"], None,
             ["sh", "-c", "sleep 1", "</script><b>\"x\",'y'\u00e9\x7f"])
if VMALI:
    timeline_run("virtual Mali", ["--backend", "mali"], VMALI, ["sleep", "1"], kernel=True,
                 screenshot=True)
    # The same page as vinstr's: not opened again, to keep the test short.
    timeline_run("virtual Mali, kinstr_prfcnt", ["--backend", "mali"], VMALI, ["sleep", "1"],
                 kernel=True, env={"VMALI_UK": "11.41"}, browse=False)
if V34K:
    timeline_run("virtual MIPS", [], V34K, ["sleep", "1"])

# panfrost has no periodic mode: opengpa's thread, one PERFCNT_DUMP a period.
if VMALI:
    table = os.path.join(WORK, "panfrost.csv")
    r = run(["stat", "-I", "50", "--backend", "panfrost", "-e", "GPUActiveCycles",
             "--csv", table, "--", "sleep", "0.3"], preload=VMALI,
            env={"VMALI_PANFROST_UNSTABLE": "1"})
    check("panfrost -I: exits 0", r.returncode == 0, r.stderr[-500:])
    if r.returncode == 0:
        header, data = read_csv("panfrost", table)
        ok, detail = per_period(data, 0.050, False)
        check("panfrost: an interval per period", ok, detail)

# The pass's last sample flagged by the kernel (STOP's, drained after the
# stop): OVERFLOW once divided by the period the stop had just set to 0 and
# killed the command with SIGFPE; ERROR makes that interval a failed one.
if VMALI:
    for name, device in (("JM", {"VMALI_UK": "11.41"}),
                         ("CSF", {"VMALI_UK": "1.21", "VMALI_GPU_ID": "0xc000"})):
        for flag, word in (("0x1", "OVERFLOW"), ("0x40000000", "ERROR")):
            where = "kinstr_prfcnt %s, STOP's sample flagged %s" % (name, word)
            r = run(["stat", "-I", "20", "--backend", "mali", "-e", "GPUActiveCycles", "-x", ",",
                     "--", "sleep", "0.2"], preload=VMALI,
                    env=dict(device, VMALI_FAULT_STOP_SAMPLE_FLAGS=flag))
            check(where + ": ends without a signal", r.returncode >= 0,
                  "killed by signal %d: %s" % (-r.returncode, r.stderr[-300:]))
            if word == "OVERFLOW":
                check(where + ": exits 0", r.returncode == 0, r.stderr[-500:])
            else:
                # perf's word for a count it could not read, on that interval.
                last = [l for l in (r.stdout + r.stderr).splitlines() if l.count(",") >= 4]
                check(where + ": the last interval reads <not counted>",
                      last and "<not counted>" in last[-1], (r.stdout + r.stderr)[-500:])
                # ... and stderr says why, in the backend's words.
                check(where + ": the reason on stderr",
                      re.search(r"was not counted: mali: the kernel flagged .*ERROR", r.stderr),
                      r.stderr[-500:])

# ---- the example writes the same files through the library -------------------
if FRAME_LOOP and VMALI:
    with tempfile.TemporaryDirectory() as tmp:
        trace, table = os.path.join(tmp, "f.json"), os.path.join(tmp, "f.csv")
        r = subprocess.run([FRAME_LOOP, "-n", "6", "-t", trace, "-c", table],
                           capture_output=True, text=True, env=env_for(VMALI), timeout=60)
        check("mali-frame-loop -t -c: exits 0", r.returncode == 0, r.stderr)
        if r.returncode == 0:
            header, data = read_csv("mali-frame-loop", table, periodic=False)
            check("mali-frame-loop: one sample per frame", len(data) == 6, len(data))
            check_trace("mali-frame-loop", trace, [h.rsplit(" (", 1)[0] for h in header[6:]])

# ---- -x and --json interval lines, read while the command runs -----------

r = run(["stat", "-I", "50", "-x", ";", "-e", "TaskClock,PageFaults", "--", "sleep", "0.3"])
lines = [l for l in r.stderr.splitlines() if l]
fields = [l.split(";") for l in lines]
check("-I -x: perf's time field then its seven fields, every line",
      len(fields) >= 4 and all(len(f) == 8 and re.fullmatch(r" *\d+\.\d{9}", f[0])
                               for f in fields), r.stderr[:500])
check("-I -x: no totals without --summary, as perf's",
      [f[3] for f in fields[:2]] == ["TaskClock", "PageFaults"] and
      not any(f[0].strip() == "summary" for f in fields), r.stderr[-300:])
r = run(["stat", "-I", "50", "-x", ";", "--summary", "-e", "TaskClock,PageFaults", "--",
         "sleep", "0.2"])
fields = [l.split(";") for l in r.stderr.splitlines() if l]
check("-I -x --summary: the totals last, led by summary",
      [(f[0].strip(), f[3]) for f in fields[-2:]] == [("summary", "TaskClock"),
                                                     ("summary", "PageFaults")] and
      all(len(f) == 8 for f in fields), r.stderr[-300:])

proc = subprocess.Popen(OPENGPA + ["stat", "-I", "50", "--json", "--summary", "-e",
                         "TaskClock,PageFaults", "--", "sleep", "0.6"], stderr=subprocess.PIPE,
                        text=True, env=env_for(None))
first = json.loads(proc.stderr.readline())
still_running = proc.poll() is None
rest = [json.loads(l) for l in proc.stderr.read().splitlines() if l.strip()]
proc.wait()
check("--json -I: perf's lines, each interval's while the command runs",
      still_running and first["event"] == "TaskClock" and first["interval"] > 0 and
      rest[0]["event"] == "PageFaults" and rest[0]["interval"] == first["interval"], first)
check("--json -I --summary: the totals last, without interval",
      [(o["event"], "interval" in o) for o in rest[-2:]] ==
      [("TaskClock", False), ("PageFaults", False)], rest[-2:])
times = [o["interval"] for o in [first] + rest[:-2]]
check("--json -I: intervals in order", times == sorted(times) and len(set(times)) >= 3, times)

proc = subprocess.Popen(OPENGPA + ["stat", "-I", "50", "--opengpa-json", "-e",
                         "TaskClock,PageFaults", "--", "sleep", "0.3"], stderr=subprocess.PIPE,
                        text=True, env=env_for(None))
first = json.loads(proc.stderr.readline())
rest = [json.loads(l) for l in proc.stderr.read().splitlines() if l.strip()]
proc.wait()
check("--opengpa-json -I: an object per interval, then the totals", first["interval"] == 0 and
      [c["name"] for c in first["counters"]] == ["TaskClock", "PageFaults"] and
      "command" in rest[-1] and
      [d["interval"] for d in [first] + rest[:-1]] == list(range(len(rest))), rest[-1:])

# ---- the process stopped: the kernel's ring keeps the periods --------------

def all_stopped(pid):
    """Every thread of pid in the stopped state: a process stops only when
    each of its threads has run to take the stop, which a loaded machine
    can delay by a hundred milliseconds and more."""
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
        for t in tasks:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("T", "t"):
                    return False
        return True
    except OSError:
        return False


def stopped_run(where, period_ms, stop_s, preload, extra, env=None):
    """Stops opengpa (not the command) for stop_s seconds mid-run."""
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "t.csv")
        e = env_for(preload)
        e.update(env or {})
        # The CSV read live: through a pipe (a file is renamed into place only
        # when the run ends, docs/cli.md).
        proc = subprocess.Popen(OPENGPA + ["stat", "-I", str(period_ms), "--csv", "-"] + extra +
                                ["--", "sleep", str(0.4 + stop_s + 0.4)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        # Stop it once the pass samples (two intervals written), however long
        # a busy machine takes to start it.
        live = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and live.count(b"\n") < 3:
            ready, _, _ = select.select([proc.stdout], [], [], 0.05)
            chunk = os.read(proc.stdout.fileno(), 65536) if ready else b""
            if ready and not chunk:
                break
            live += chunk
        check(where + ": two intervals within 30 s", live.count(b"\n") >= 3, live[-300:])
        os.kill(proc.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 10
        while not all_stopped(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        stopped = time.monotonic_ns()
        time.sleep(stop_s)
        os.kill(proc.pid, signal.SIGCONT)
        resumed = time.monotonic_ns()
        rest, err = proc.communicate(timeout=60)
        err = err.decode(errors="replace")
        check(where + ": exits 0", proc.returncode == 0, err[-1000:])
        with open(table, "wb") as f:
            f.write(live + rest)
        header, data = read_csv(where, table)
        spans = [float(r[2]) - float(r[1]) for r in data]
        flags = [r[5].split() for r in data]
        # The intervals the stop fell in, for the messages.
        during = [(r[0], int(r[3]), int(r[4]), r[5]) for r in data
                  if int(r[4]) > stopped and int(r[3]) < resumed]
        err += "\nstopped %d .. %d: %r" % (stopped, resumed, during)
        return data, spans, flags, err


# The Mali's two kernel interfaces keep 32 periods while opengpa is stopped:
# the hwcnt reader (vinstr, SET_INTERVAL) and kinstr_prfcnt's periodic mode
# (JM UK 11.41 has no vinstr).
for reader, env in (("vinstr", {}), ("kinstr_prfcnt", {"VMALI_UK": "11.41"})):
    if not VMALI:
        break
    # 10 periods of a 32-buffer ring (room for 440 ms more of a busy machine
    # keeping opengpa off the CPU): every period has its own interval.
    where = "%s: SIGSTOP 200 ms at 20 ms" % reader
    data, spans, flags, err = stopped_run(where, 20, 0.2, VMALI,
                                          ["--backend", "mali", "-e", "GPUActiveCycles"], env)
    middle = spans[1:-1]
    check(where + ": every interval one period, none merged",
          middle and all(abs(s - 0.020) < 5e-5 for s in middle) and
          not any("overflow" in f for f in flags), [s for s in middle if abs(s - 0.020) >= 5e-5])
    ok, detail = per_period(data, 0.020, True)
    check(where + ": an interval per period", ok, detail)
    # 60 periods: the ring overflows, the kernel merges, opengpa says so.
    where = "%s: SIGSTOP 600 ms at 10 ms" % reader
    data, spans, flags, err = stopped_run(where, 10, 0.6, VMALI,
                                          ["--backend", "mali", "-e", "GPUActiveCycles"], env)
    merged = [s for s, f in zip(spans, flags) if "overflow" in f]
    check(where + ": the overflow reported", merged and max(merged) > 0.2, (merged, flags))
    check(where + ": the -I lines say it", "the kernel's buffer was full" in err, err[-1500:])
    total = float(data[-1][2]) - float(data[0][1])
    check(where + ": no time lost", abs(sum(spans) - total) < 1e-6)

# The timer thread stops with the process: one late interval covers the stop.
data, spans, flags, err = stopped_run("perf SIGSTOP", 20, 0.2, None, ["-e", "TaskClock"])
check("perf SIGSTOP: the interval that covers the stop is flagged late",
      any("late" in f and s > 0.15 for s, f in zip(spans, flags)), err[-600:])

# ---- bad input, refused before the command runs ---------------------------

with tempfile.TemporaryDirectory() as tmp:
    marker = os.path.join(tmp, "ran")
    r = run(["stat", "-I", "0", "--", "touch", marker])
    check("-I 0 refused", r.returncode == 2 and "milliseconds" in r.stderr and
          not os.path.exists(marker), r.stderr)
    r = run(["stat", "-I", "100", "-r", "3", "--", "touch", marker])
    check("-I with -r refused", r.returncode == 2 and not os.path.exists(marker), r.stderr)
    r = run(["stat", "-I", "100", "--trace", os.path.join(tmp, "no", "such", "t.json"),
             "-e", "TaskClock", "--", "touch", marker])
    check("unwritable --trace refused before the command", r.returncode == 1 and
          "cannot open" in r.stderr and not os.path.exists(marker), r.stderr)
    for flag in ("--csv", "--html"):
        r = run(["stat", flag, os.path.join(tmp, "no", "such", "f"), "-e", "TaskClock", "--",
                 "touch", marker])
        check("unwritable %s refused before the command" % flag, r.returncode == 1 and
              not os.path.exists(marker), r.stderr)
    if V34K:
        # Four counters on two banks of the 34K: more than one run.
        trace = os.path.join(tmp, "refused.json")
        r = run(["stat", "-I", "100", "-e", "IPC,ICacheMissRate,DCacheMissRate,ITLBMissRate",
                 "--trace", trace, "--", "touch", marker], preload=V34K)
        check("-I with a multi-pass set refused before the command",
              r.returncode == 1 and not os.path.exists(marker) and "pass 0:" in r.stderr and
              "pass 1:" in r.stderr and "fewer counters" in r.stderr and
              len(r.stderr.strip().splitlines()) == 1, r.stderr)
        check("a refused run leaves no empty trace behind", not os.path.exists(trace))
    if VMALI:
        r = run(["stat", "-I", "1", "--backend", "mali", "--options", "timeout=100",
                 "-e", "GPUActiveCycles", "--", "true"], preload=VMALI)
        check("-I 1 on the virtual Mali", r.returncode == 0, r.stderr[-500:])

for item in pending:
    check_browsed(*item)
browser.shutdown()
finish()
