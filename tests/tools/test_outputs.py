# SPDX-License-Identifier: MIT
"""opengpa stat's outputs are whole or untouched (docs/cli.md, "Output files").

usage: test_outputs.py OPENGPA PART [SEED]

PART is one of:
  kill-text kill-json kill-x kill-trace kill-csv kill-html kill-perfetto
      start `opengpa stat -I 20 ... -- sleep` writing that format over a
      file that already holds something, SIGKILL it at random moments, and
      check the file is then exactly what it held, or a whole document;
      and that no temporary file is left beside it.
  kill-stream
      the same for --csv - and --trace - read live through a pipe: what was
      read holds whole records only.
  refusals
      a failed run keeps every pre-existing file byte for byte; two outputs
      naming one file are refused for each pair of options; a successful
      run keeps a replaced file's mode and gives a new one the umask's;
      --append.
  quoting
      -x with hostile separators (perf's metric unit "CPUs utilized" holds a blank).

Runs on the perf backend's software events (skips where perf_event_open is
missing).  The random moments come from SEED (printed; a run is repeated
with the seed it printed).  Every wait has a deadline that fails with a
message instead of hanging.
"""
import csv
import io
import json
import re
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness as h  # noqa: E402

PART = sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else random.SystemRandom().randrange(1 << 32)
KILLS = 12            # kills per format
WORKLOAD_S = 0.25     # how long the counted command runs
DEADLINE_S = 20       # the most one opengpa run may take before the test fails
COUNTERS = "TaskClock,PageFaults"

r = h.run(["list", "--backend", "perf"])
if r.returncode != 0:
    print("SKIP: no perf_event_open here: %s" % r.stderr.strip())
    sys.exit(77)

print("%s: seed %d (rerun: test_outputs.py OPENGPA %s %d)" % (PART, SEED, PART, SEED))
rng = random.Random(SEED)
check = h.check
TMP = tempfile.mkdtemp(prefix="opengpa-outputs-")


def env():
    e = dict(os.environ)
    e.pop("OPENGPA_BACKEND", None)
    e.pop("OPENGPA_LOG", None)
    return e


def run_in(args, cwd, timeout):
    return subprocess.run(h.OPENGPA[:-1] + [os.path.abspath(h.OPENGPA[-1])] + args, capture_output=True, text=True, env=env(),
                          timeout=timeout, cwd=cwd)


def start(args, **kw):
    return subprocess.Popen(h.OPENGPA + args, env=env(), **kw)


def wait(p, what):
    try:
        return p.wait(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        check("%s ends within %d s" % (what, DEADLINE_S), False)
        return None


def listing(d):
    return sorted(os.listdir(d))


# ---- what a whole document is, per format --------------------------------

def whole_text(data):
    t = data.decode()
    return ("Counter stats for" in t and t.endswith("seconds time elapsed\n\n") and
            "TaskClock" in t and t.startswith("#"))


def whole_json(data):
    """-I --json --summary: perf's JSON lines, an object per counter and
    interval (with "interval"), then the totals (without)."""
    lines = data.decode().splitlines()
    try:
        objs = [json.loads(x) for x in lines]
    except ValueError:
        return False
    summary = [o for o in objs if "interval" not in o]
    n = len(COUNTERS.split(","))
    return (len(objs) > n and len(summary) == n and
            all("interval" not in o for o in objs[-n:]) and
            sorted(o["event"] for o in summary) == sorted(COUNTERS.split(",")))


def whole_x(data):
    """-I -x ';' --summary: perf's time field and seven fields a line; the
    totals' lines last, led by "summary", every counter in them."""
    rows = list(csv.reader(io.StringIO(data.decode(), newline=""), delimiter=";"))
    if not rows or any(len(row) != 8 for row in rows):
        return False
    summary = [i for i, row in enumerate(rows) if row[0].strip() == "summary"]
    n = len(COUNTERS.split(","))
    return (len(summary) == n and summary == list(range(len(rows) - n, len(rows))) and
            sorted(rows[i][3] for i in summary) == sorted(COUNTERS.split(",")))


def whole_trace(data):
    try:
        events = json.loads(data.decode())
    except ValueError:
        return False
    return isinstance(events, list) and events and events[-1].get("ph") == "E"


def csv_rows(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def whole_csv(data):
    t = data.decode()
    if t.count("\r\n") != t.count("\n") or not t.endswith("\r\n"):
        return False
    rows = csv_rows(t)
    return (len(rows) >= 2 and all(len(row) == len(rows[0]) for row in rows) and
            "final" in rows[-1][5].split())


def whole_html(data):
    t = data.decode()
    return t.startswith("<!DOCTYPE html>") and t.endswith("</body>\n</html>\n") and "end({" in t


def whole_perfetto(data):
    """Whole TracePackets (Trace field 1, length-delimited) to the end, the
    last one the workload's slice end (TrackEvent type 2 on track 1)."""
    at, last = 0, b""
    while at < len(data):
        if data[at] != 0x0A:
            return False
        at, n, shift = at + 1, 0, 0
        while at < len(data) and data[at] & 0x80:
            n |= (data[at] & 0x7F) << shift
            at, shift = at + 1, shift + 7
        if at >= len(data):
            return False
        n |= data[at] << shift
        last, at = data[at + 1:at + 1 + n], at + 1 + n
        if at > len(data):
            return False
    return b"\x48\x02\x58\x01" in last


FORMATS = {
    "text": (["-o"], whole_text),
    "json": (["--json", "--summary", "-o"], whole_json),
    "x": (["-x", ";", "--summary", "-o"], whole_x),
    "trace": (["--trace"], whole_trace),
    "csv": (["--csv"], whole_csv),
    "html": (["--html"], whole_html),
    "perfetto": (["--perfetto"], whole_perfetto),
}


def kill_test(fmt):
    flags, whole = FORMATS[fmt]
    d = os.path.join(TMP, fmt)
    os.mkdir(d)
    path = os.path.join(d, "out")
    old = ("what was there before opengpa ran (%s)\n" % fmt).encode()
    seen = {"old": 0, "whole": 0}
    for k in range(KILLS + 1):
        with open(path, "wb") as f:
            f.write(old)
        args = ["stat", "-I", "20", "-e", COUNTERS] + flags + [path, "--", "sleep",
                                                                  str(WORKLOAD_S)]
        p = start(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The last run is not killed: one whole document at least.
        delay = rng.uniform(0.0, WORKLOAD_S * 2) if k < KILLS else None
        if delay is not None:
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
        if wait(p, "%s run %d" % (fmt, k)) is None:
            return
        with open(path, "rb") as f:
            data = f.read()
        what = "old" if data == old else "whole" if whole(data) else None
        check("%s: killed after %s s, the file is what it held or whole" %
              (fmt, "%.3f" % delay if delay is not None else "(not killed)"),
              what is not None, data[-300:])
        check("%s run %d: no temporary file left beside it" % (fmt, k),
              listing(d) == ["out"], listing(d))
        if what:
            seen[what] += 1
    check("%s: an unkilled run writes a whole document" % fmt, seen["whole"] >= 1, seen)
    print("%s: %d kills: %d left the old file, %d a whole one" %
          (fmt, KILLS, seen["old"], seen["whole"] - 1))


# ---- streams read live ----------------------------------------------------

def whole_trace_records(text):
    """A trace read live: the array, missing only its ']' when cut."""
    t = text.rstrip()
    if not t:
        return True
    try:
        json.loads(t if t.endswith("]") else t + "\n]")
        return True
    except ValueError:
        return False


def whole_csv_records(text):
    if not text:
        return True
    if not text.endswith("\r\n"):
        return False
    rows = csv_rows(text)
    return all(len(row) == len(rows[0]) for row in rows)


def kill_stream():
    for flag, whole in (("--csv", whole_csv_records), ("--trace", whole_trace_records)):
        for k in range(KILLS):
            p = start(["stat", "-I", "5", "-e", COUNTERS, flag, "-", "--", "sleep",
                       str(WORKLOAD_S)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            delay = rng.uniform(0.0, WORKLOAD_S * 1.2)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            try:
                out, _ = p.communicate(timeout=DEADLINE_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                check("%s - run %d ends within %d s" % (flag, k, DEADLINE_S), False)
                continue
            text = out.decode()
            check("%s -: killed after %.3f s, the stream holds whole records" % (flag, delay),
                  whole(text), text[-300:])


# ---- refusals -------------------------------------------------------------

OPTIONS = ["-o", "--trace", "--csv", "--html"]


def snapshot(paths):
    return {p: (open(p, "rb").read(), stat.S_IMODE(os.stat(p).st_mode)) for p in paths}


def refusals():
    d = os.path.join(TMP, "refusals")
    os.mkdir(d)
    marker = os.path.join(d, "ran")

    # A failed run (an unknown counter) keeps every file as it was.
    files = {o: os.path.join(d, "pre" + o.strip("-")) for o in OPTIONS}
    for o, p in files.items():
        with open(p, "wb") as f:
            f.write(("before %s\n" % o).encode())
        os.chmod(p, 0o640)
    before = snapshot(files.values())
    args = ["stat", "-I", "20", "-e", "TaskClock,NoSuchCounterAnywhere"]
    for o, p in files.items():
        args += [o, p]
    r = h.run(args + ["--", "touch", marker], timeout=DEADLINE_S)
    check("a failed run exits 1", r.returncode == 1, (r.returncode, r.stderr))
    check("a failed run keeps every pre-existing file byte for byte, and its mode",
          snapshot(files.values()) == before)
    check("a failed run leaves no temporary file",
          listing(d) == sorted(os.path.basename(p) for p in files.values()), listing(d))
    r = h.run(["stat", "-e", "NoSuchCounterAnywhere", "-o", files["-o"], "--append", "--",
               "true"], timeout=DEADLINE_S)
    check("a failed --append run keeps the file", r.returncode == 1 and
          snapshot([files["-o"]]) == {files["-o"]: before[files["-o"]]})

    # A successful one replaces them, keeping their mode; a new file gets
    # 0666 less the umask.
    old_umask = os.umask(0o027)
    try:
        new = os.path.join(d, "new.csv")
        r = h.run(["stat", "-e", "TaskClock", "-o", files["-o"], "--csv", new, "--", "true"],
                  timeout=DEADLINE_S)
    finally:
        os.umask(old_umask)
    check("a successful run exits 0", r.returncode == 0, r.stderr)
    check("a replaced file keeps its mode",
          stat.S_IMODE(os.stat(files["-o"]).st_mode) == 0o640, oct(os.stat(files["-o"]).st_mode))
    check("a replaced file holds the new report",
          b"Counter stats for" in open(files["-o"], "rb").read())
    check("a new file gets 0666 less the umask",
          stat.S_IMODE(os.stat(new).st_mode) == 0o640, oct(os.stat(new).st_mode))
    os.unlink(new)
    r = h.run(["stat", "-x", ",", "-e", "TaskClock", "-o", files["-o"], "--append", "--",
               "true"], timeout=DEADLINE_S)
    text = open(files["-o"], "rb").read().decode()
    check("--append keeps what the file held", r.returncode == 0 and
          text.count("Counter stats for") == 1 and re.search(r"\n[0-9.]+,msec,TaskClock,\d+,100\.00,[0-9.]+,CPUs utilized\n$", text), text)

    # One file for two outputs: refused for each pair, before the command
    # runs, naming both options and the path; nothing written.
    os.mkdir(os.path.join(d, "sub"))
    existing = os.path.join(d, "existing")
    with open(existing, "wb") as f:
        f.write(b"keep me\n")
    os.link(existing, os.path.join(d, "hardlink"))
    os.symlink("existing", os.path.join(d, "symlink"))
    os.symlink("missing-target", os.path.join(d, "dangling"))
    spellings = [  # (first, second): one file each time
        ("same", "same"),                       # does not exist, same spelling
        ("sub/new", "sub/../sub/./new"),         # does not exist, other spelling
        ("dangling", "missing-target"),         # a dangling link and the file it names
        ("existing", "hardlink"),               # one inode, two names
        ("existing", "symlink"),                # a link to it
    ]
    for i, a in enumerate(OPTIONS):
        for b in OPTIONS[i + 1:]:
            for first, second in spellings:
                listed = listing(d)
                r = run_in(["stat", "-e", "TaskClock", a, first, b, second, "--", "touch",
                            marker], d, DEADLINE_S)
                what = "%s %s %s %s" % (a, first, b, second)
                check("%s: refused with a usage error" % what, r.returncode == 2,
                      (r.returncode, r.stderr))
                check("%s: the message names both options and the path" % what,
                      "%s %s and %s %s" % (a, first, b, second) in r.stderr, r.stderr)
                check("%s: the command did not run, nothing written" % what,
                      not os.path.exists(marker) and listing(d) == listed and
                      open(existing, "rb").read() == b"keep me\n", listing(d))
    # Standard output and character devices are not files to corrupt.
    r = h.run(["stat", "-I", "50", "-e", "TaskClock", "--csv", "-", "--trace", "-", "-o",
               "/dev/null", "--html", "/dev/null", "--", "true"], timeout=DEADLINE_S)
    check("- and /dev/null may take several outputs", r.returncode == 0 and
          "sample,begin_s" in r.stdout and '"ph":"B"' in r.stdout, r.stderr)


# ---- -x quoting -----------------------------------------------------------

HOSTILE_GROUP = 'He said "no", then; left::x|y\tz'


def split_sep(line, sep):
    """RFC 4180 fields of one line separated by sep (several characters
    allowed); None when the line is not RFC 4180."""
    fields, i = [], 0
    while True:
        if line.startswith('"', i):
            j, field = i + 1, ""
            while True:
                if j >= len(line):
                    return None
                if line.startswith('""', j):
                    field, j = field + '"', j + 2
                elif line[j] == '"':
                    break
                else:
                    field, j = field + line[j], j + 1
            i = j + 1
        else:
            j = line.find(sep, i)
            field = line[i:] if j < 0 else line[i:j]
            if '"' in field:
                return None
            i = len(line) if j < 0 else j
        fields.append(field)
        if i == len(line):
            return fields
        if not line.startswith(sep, i):
            return None
        i += len(sep)


def quoting():
    d = os.path.join(TMP, "quoting")
    os.mkdir(d)
    counters = os.path.join(d, "hostile.counters")
    with open(counters, "w") as f:
        f.write("backend perf\ncounter HostileClock\n    group: %s\n    usage: items\n"
                "    type: float64\n    description: TaskClock in a hostile group.\n"
                "    expression: $TaskClock\n" % HOSTILE_GROUP.replace("\t", " "))
    group = HOSTILE_GROUP.replace("\t", " ")
    for sep in (",", ";", "::", "|", "Cl", "o", ".", " ", "\t"):
        r = h.run(["stat", "-x", sep, "-e", "HostileClock,TaskClock", "--", "true"],
                  env={"OPENGPA_COUNTER_PATH": counters}, timeout=DEADLINE_S)
        lines = r.stderr.splitlines()
        rows = [split_sep(line, sep) for line in lines]
        check("-x %r: two lines of perf's seven fields" % sep, r.returncode == 0 and
              len(rows) == 2 and all(row and len(row) == 7 for row in rows), (r.stderr, rows))
        if r.returncode == 0 and len(rows) == 2 and all(row and len(row) == 7 for row in rows):
            check("-x %r: the names and metric units read back" % sep,
                  [row[2] for row in rows] == ["HostileClock", "TaskClock"] and
                  rows[1][6] == "CPUs utilized", rows)
            check("-x %r: the values read back as numbers" % sep,
                  all(float(row[0]) >= 0 for row in rows), rows)
    for sep, why in (('"', "quote"), ("a\"b", "quote"), ("\n", "line break"), ("", "empty")):
        r = h.run(["stat", "-x", sep, "-e", "TaskClock", "--", "true"], timeout=DEADLINE_S)
        check("-x %r refused" % sep, r.returncode == 2 and why in r.stderr, r.stderr)


try:
    if PART.startswith("kill-") and PART[5:] in FORMATS:
        kill_test(PART[5:])
    elif PART == "kill-stream":
        kill_stream()
    elif PART == "refusals":
        refusals()
    elif PART == "quoting":
        quoting()
    else:
        print("unknown part %s" % PART)
        sys.exit(2)
finally:
    shutil.rmtree(TMP, ignore_errors=True)
h.finish()
