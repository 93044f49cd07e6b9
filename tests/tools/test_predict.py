#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`opengpa predict`, end to end: the paper's Table 8 through the command, a
profile from `opengpa stat --opengpa-json` on the virtual Mali, a live run, and every
bad input refused with its own message.

usage: test_predict.py OPENGPA YUN2019_TABLE [VMALI_PRELOAD]

tests/models/test_fps_paper.c checks the paper with interval arithmetic;
this checks the command gives the same numbers and the same refusals.
"""
import json
import os
import subprocess
import sys
import tempfile

from cli_harness import OPENGPA as opengpa, check, finish

paper_table = sys.argv[2]
vmali = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None


def run(*args, env=None, preload=None, timeout=60):
    e = dict(os.environ, **(env or {}))
    if preload:
        e["LD_PRELOAD"] = preload
    try:
        p = subprocess.run([*opengpa, "predict", *args], capture_output=True, text=True,
                           env=e, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s (blocked?)" % timeout
    return p.returncode, p.stdout, p.stderr


def refused(name, args, status, needle):
    rc, out, err = run(*args)
    check(name, rc == status and needle in err and out == "",
          "(exit %d, stderr %r, stdout %r; wanted exit %d and %r)" % (rc, err, out, status, needle))


# ---- the paper's Table 8, row by row, through the command ----------------

IDS = {"G4": "g4", "G3CAT6": "g3-cat6", "GFLEX2": "g-flex2", "G5": "g5"}
# The GF_Frame Table 8's predictions imply per scene (tests/models/test_fps_paper.c).
GF_FRAME = {"MANHATTAN": "1.9466", "TREX": "0.8223", "BOOTCAMP": "1.0385"}
t7, t8 = {}, {}
with open(paper_table, encoding="utf-8") as f:
    for line in f:
        words = line.split("#")[0].split()
        if words and words[0] == "table7":
            t7[(words[1], words[2])] = words[3:]
        elif words and words[0] == "table8":
            t8[(words[1], words[2])] = words[3:]

rows = 0
for (scene, dev), (fps, fpsc, pred, _err, _rate) in t8.items():
    if (scene, dev) not in t7:
        continue  # the G5's TREX row of Table 7 is not in the text
    usic, _usimax, gpuu, _sb, _salu, egpu, etmu = t7[(scene, dev)]
    target = "%s,egpu=%s" % (IDS[dev], egpu) + (",etmu=%s" % etmu if etmu != "-" else "")
    usi = float(usic) * float(gpuu) / 100
    rc, out, err = run("--on", IDS[dev], "--to", target, "--usi", "%.6fG" % usi,
                       "--gpuu", gpuu, "--fps", fps, "--gf-frame", GF_FRAME[scene], "--json")
    if rc != 0:
        check("table 8 %s %s" % (scene, dev), False, err)
        continue
    doc = json.loads(out)
    rows += 1
    # Half a unit of the last printed digit, and what half a unit of GPUU's moves it.
    slack = 0.005 + float(fps) * 100 / float(gpuu) ** 2 * 0.005
    check("table 8 %s %s FPS correction" % (scene, dev),
          abs(doc["FPS_Corrected"] - float(fpsc)) <= slack,
          "%.4f vs %s" % (doc["FPS_Corrected"], fpsc))
    check("table 8 %s %s prediction" % (scene, dev), abs(doc["FPS"] - float(pred)) <= 0.015,
          "%.4f vs %s" % (doc["FPS"], pred))
    check("table 8 %s %s names" % (scene, dev),
          doc["EGPU_given"] and doc["GF_Frame_given"] and doc["measured"]["given"]["USI"])
check("table 8 rows", rows == 10, "%d rows" % rows)

# The text report prints the paper's names and the prediction.
rc, out, err = run("--on", "g4", "--to", "g3-cat6,etmu=10.86", "--usi", "16.2G", "--gpuu",
                   "95.68", "--fps", "16")
for word in ("USI_Corrected", "FPS_Corrected", "USI_Frame", "GF_Frame", "EGPU", "ETMU",
             "16.72", "27.54     predicted on LG G3 CAT6"):
    check("text report has %s" % word, rc == 0 and word in out, out + err)

# ---- the device table -------------------------------------------------------

rc, out, err = run("--list-devices")
for dev in ("g4", "g3-cat6", "g-flex2", "g5", "mali-g71", "mali-g710", "mali-g1-ultra"):
    check("--list-devices has %s" % dev, rc == 0 and ("\n%s " % dev) in out, out)
with tempfile.TemporaryDirectory() as tmp:
    mine = os.path.join(tmp, "mine.table")
    with open(mine, "w") as f:
        f.write("device my-gpu\n    name: My GPU\n    gflops: 200\n")
    rc, out, err = run("--devices", mine, "--on", "g4", "--to", "my-gpu", "--usi", "16.2G",
                       "--gpuu", "95.68", "--fps", "16", "--json")
    check("--devices adds a device", rc == 0 and json.loads(out)["target"]["GF_Device"] == 200,
          err)
    with open(mine, "w") as f:
        f.write("device my-gpu\n    gflops: fast\n")
    refused("--devices with a bad file", ["--devices", mine, "--list-devices"], 1,
            "mine.table:2: gflops=fast: not a number")

# ---- bad input ------------------------------------------------------------------

given = ["--on", "g4", "--usi", "16.2G", "--gpuu", "95.68", "--fps", "16"]
refused("unknown target", ["--to", "nope"] + given, 1,
        "--to: unknown device 'nope'; the known devices are: g4, g3-cat6, g-flex2, g5, mali-g31")
refused("unknown source", ["--to", "g5", "--on", "g6", "--usi", "1G", "--gpuu", "50", "--fps",
                           "30"], 1, "--on: unknown device 'g6'")
refused("unknown key", ["--to", "g5,speed=2"] + given, 1, "unknown key 'speed'")
refused("zero cores", ["--to", "g5,cores=0"] + given, 1, "cores=0: must be above 0")
refused("target without its clock", ["--to", "mali-g76,cores=10"] + given, 1,
        "Mali-G76: its GFLOPS (cores x 24 FMA x 2 x clock) need the core count and clock")
refused("zero FPS", ["--to", "g5", "--on", "g4", "--usi", "1G", "--gpuu", "50", "--fps", "0"],
        2, "--fps 0: a frame rate must be above 0: from 0.001 to 10000")
refused("negative FPS", ["--to", "g5", "--on", "g4", "--usi", "1G", "--gpuu", "50",
                         "--fps=-30"], 2, "a frame rate must be above 0")
refused("zero utilisation", ["--to", "g5", "--on", "g4", "--usi", "1G", "--gpuu", "0",
                             "--fps", "30"], 2, "a GPU utilisation must be above 0: from 0.001 to 100")
refused("utilisation above 100", ["--to", "g5", "--on", "g4", "--usi", "1G", "--gpuu", "150",
                                  "--fps", "30"], 2, "from 0.001 to 100")
refused("USI not a number", ["--to", "g5", "--on", "g4", "--usi", "lots", "--gpuu", "50",
                             "--fps", "30"], 2, "--usi lots: not a number")
refused("no target", given, 2, "no target: --to DEVICE")

# Every numeric option within its documented range (docs/man/opengpa-predict.1.txt):
# 1e-300, 1e300, inf, nan and what is below or above the range are refused with it.
figures = {"--usi": "1G", "--gpuu": "50", "--fps": "30"}
ranges = [("--usi", "a USI", "1", "1e+16"), ("--gpuu", "a GPU utilisation", "0.001", "100"),
          ("--fps", "a frame rate", "0.001", "10000"), ("--frames", "a frame count", "1", "1e+12"),
          ("--passes-per-frame", "render passes per frame", "0.001", "1e+06"),
          ("--gf-frame", "GF_Frame", "1e-09", "1e+09")]
for opt, what, lo, hi in ranges:
    for bad in ("1e-300", "1e300", "-1", "0"):
        args = dict(figures, **{opt: bad})
        if opt in ("--frames", "--passes-per-frame"):
            del args["--fps"]
        argv = ["--to", "g5", "--on", "g4"] + [w for kv in args.items() for w in kv]
        refused("%s %s" % (opt, bad), argv, 2,
                "%s %s: %s must be above 0: from %s to %s" % (opt, bad, what, lo, hi))
    for bad in ("inf", "nan", "1e999"):
        refused("%s %s" % (opt, bad), ["--to", "g5", "--on", "g4", opt, bad] + given[2:], 2,
                "%s %s: not a number" % (opt, bad))
    # The bounds themselves are accepted.
    for good in (lo, hi):
        args = dict(figures, **{opt: good})
        if opt in ("--frames", "--passes-per-frame"):
            continue  # they need a profile's seconds; the parser's bound is what is checked
        argv = ["--to", "g5", "--on", "g4"] + [w for kv in args.items() for w in kv]
        rc, out, err = run(*argv, "--json")
        check("%s %s accepted" % (opt, good), "must be" not in err and "not a number" not in err,
              err)
# A device field's range: cores=1e-300 would give no GFLOPS.
refused("cores 1e-300", ["--to", "g5,cores=1e-300"] + given, 1,
        "cores=1e-300: must be above 0: from 1 to 100000")
refused("mhz 1e300", ["--to", "g5,mhz=1e300"] + given, 1, "mhz=1e300: must be above 0: from 1 to 100000")
refused("egpu 101", ["--to", "g5,egpu=101"] + given, 1, "egpu=101: must be a percentage from 0 to 100")

# Text from the command line is shown escaped: an ESC never reaches the terminal.
rc, out, err = run("--to", "g5,cores=\x1b[2J", *given)
check("control byte escaped", rc == 1 and "\x1b" not in err and "cores=\\x1b[2J" in err,
      repr(err))
rc, out, err = run("--to", "\x1b]0;owned\x07", *given)
check("control bytes escaped in an unknown device", rc == 1 and "\x1b" not in err and
      "\x07" not in err and "'\\x1b]0;owned\\x07'" in err, repr(err))
rc, out, err = run("--to", "g5", "a\x1bb.json", "--usi", "1G")
check("control byte escaped in a profile's name", rc != 0 and "\x1b" not in err and
      "a\\x1bb.json" in err, repr(err))

# Files named on the command line are regular files: a FIFO, a directory or
# a device is refused by name at once, never opened (a FIFO would block).
with tempfile.TemporaryDirectory() as tmp:
    fifo = os.path.join(tmp, "p.fifo")
    os.mkfifo(fifo)
    rc, out, err = run("--to", "g5", fifo, timeout=10)
    check("a FIFO profile is refused", rc == 1 and
          "p.fifo: is a FIFO, not a profile" in err and "opengpa stat --opengpa-json" in err, err)
    rc, out, err = run("--devices", fifo, "--list-devices", timeout=10)
    check("a FIFO device table is refused", rc == 1 and
          "p.fifo: is a FIFO, not a device table" in err, err)
    rc, out, err = run("--devices", tmp, "--list-devices", timeout=10)
    check("a directory device table is refused", rc == 1 and
          "is a directory, not a device table" in err, err)
    rc, out, err = run("--to", "g5", "/dev/null", timeout=10)
    check("a device profile is refused", rc == 1 and
          "/dev/null: is a character device, not a profile" in err, err)
    big = os.path.join(tmp, "big.table")
    with open(big, "wb") as f:
        f.truncate((1 << 20) + 1)
    rc, out, err = run("--devices", big, "--list-devices", timeout=10)
    check("a device table over the cap is refused", rc == 1 and
          "big.table: is 1048577 bytes; a device table may have at most 1048576" in err, err)
refused("nothing measured", ["--to", "g5", "--on", "g4", "--fps", "30"], 2, "nothing measured")
refused("no source for given figures", ["--to", "g5", "--usi", "1G", "--gpuu", "50", "--fps",
                                        "30"], 2, "--on DEVICE says which device")
refused("two profiles", ["--to", "g5", "a.json", "b.json"], 2, "one profile at a time")
refused("a profile and a command", ["--to", "g5", "a.json", "--", "true"], 2,
        "a profile or a command after --, not both")

with tempfile.TemporaryDirectory() as tmp:
    def profile(name, doc):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    perf = profile("perf.json", {"device": "Intel Xeon", "seconds_per_run": 1.0, "counters": [
        {"name": "TaskClock", "value": 1000}]})
    refused("a profile of another device", ["--to", "g5", perf], 1,
            "perf.json was measured on 'Intel Xeon', which is not in the device table: say "
            "which device it is with --on")
    refused("a profile without the counters", ["--to", "g5", "--on", "mali-g71", perf], 1,
            "perf.json lacks what the model needs: shader instructions (one of MaliEngInstr")
    refused("not a profile", ["--to", "g5", profile("t.txt", "Counter stats for 'true'")], 1,
            "t.txt: not JSON (offset 0")
    refused("a missing profile", ["--to", "g5", os.path.join(tmp, "none.json")], 1,
            "none.json: No such file or directory")
    hot = profile("hot.json", {"device": "Mali-G71 MP8", "seconds_per_run": 0.5, "counters": [
        {"name": "I", "aliases": ["MaliEngInstr"], "value": 1e9},
        {"name": "A", "aliases": ["MaliGPUActiveCy"], "value": 5e8},
        {"name": "F", "aliases": ["MaliFragQueueJob"], "value": 30}]})
    refused("utilisation above 100 % from the counters",
            ["--to", "g5", "--on", "mali-g71,cores=8,mhz=850", hot], 1,
            "GPU utilisation 117.6 % is above 100 %")
    rc, out, err = run("--to", "mali-g76,cores=10,mhz=720", "--on", "mali-g71,cores=8,mhz=1200",
                       hot, "--json")
    doc = json.loads(out) if rc == 0 else {}
    check("a Mali profile", rc == 0 and abs(doc["measured"]["GPUU"] - 5e8 / (0.5 * 1.2e9) * 100)
          < 1e-9 and abs(doc["FPS"] - doc["FPS_Corrected"] * 345.6 / 230.4) < 1e-6, err)
    out_path = os.path.join(tmp, "out.json")
    rc, out, err = run("--to", "g5", "--on", "mali-g71,cores=8,mhz=1200", hot, "--json", "-o",
                       out_path)
    check("-o writes the report", rc == 0 and out == "" and
          json.load(open(out_path))["target"]["id"] == "g5", err)

    # ---- on the virtual Mali: a stat --json profile and a live run ----------
    if vmali:
        env_profile = os.path.join(tmp, "g71.json")
        p = subprocess.run([*opengpa, "stat", "--opengpa-json", "-o", env_profile, "--backend", "mali",
                            "--hardware", "-e", "GPUActiveCycles,"
                            "MaliCoreInstructionsExecutedInstructions,MaliHwJM_JS0_JOBS",
                            "--", "sleep", "0.2"], capture_output=True, text=True,
                           env=dict(os.environ, LD_PRELOAD=vmali), timeout=60)
        check("stat --json on the virtual Mali", p.returncode == 0, p.stderr)
        rc, out, err = run("--on", "mali-g71,cores=8,mhz=850", "--to", "mali-g76,cores=10,mhz=720",
                           env_profile, "--json")
        doc = json.loads(out) if rc == 0 else {}
        check("predict from a stat --json profile", rc == 0 and
              doc["measured"]["instructions_counter"] == "MaliCoreInstructionsExecutedInstructions"
              and doc["source"]["GF_Device"] == 8 * 12 * 2 * 0.85
              and abs(doc["FPS"] - doc["FPS_Corrected"] * 345.6 / 163.2) < 1e-6, err)
        # A report that records the device: its core count and clock come from it.
        p = subprocess.run([*opengpa, "stat", "--opengpa-json", "-o", env_profile, "--backend", "mali",
                            "--hardware", "-e",
                            "GPUActiveCycles,MaliCoreInstructionsExecutedInstructions,"
                            "MaliHwJM_JS0_JOBS,ShaderCoreCount,MaxClockMHz", "--", "sleep", "0.2"],
                           capture_output=True, text=True, env=dict(os.environ, LD_PRELOAD=vmali),
                           timeout=60)
        rc, out, err = run("--to", "mali-g76,cores=10,mhz=720", env_profile, "--json")
        doc = json.loads(out) if rc == 0 else {}
        check("the profile's own cores and clock", p.returncode == 0 and rc == 0 and
              doc["source"]["id"] == "mali-g71" and doc["source"]["cores"] == 8 and
              doc["source"]["mhz"] == 850 and doc["measured"]["max_clock_mhz"] == 850,
              p.stderr + err)
        rc, out, err = run("--on", "mali-g71,cores=8,mhz=850", "--to", "g5", "--backend", "mali",
                           "--json", "--", "sh", "-c", "sleep 0.2; echo hello", preload=vmali)
        doc = json.loads(err[err.index("{"):]) if rc == 0 and "{" in err else {}
        check("a live run", rc == 0 and out == "hello\n" and doc.get("profile", "").startswith(
            "the run of sh"), "%d %r %r" % (rc, out, err))
        rc, out, err = run("--on", "mali-g71,cores=8,mhz=850", "--to", "g5", "--backend", "mali",
                           "--", "sh", "-c", "sleep 0.2; exit 3", preload=vmali)
        check("a live run's exit status", rc == 3 and "exited with status 3" in err, err)

finish()
