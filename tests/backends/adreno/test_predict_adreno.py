#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`opengpa predict` fed by Adreno counters, end to end on the virtual Adreno.

usage: test_predict_adreno.py OPENGPA VADRENO_PRELOAD [PRELOAD_FIRST]
(FRAME_MARKS in the environment: tests/tools/frame_marks.c's program)

The virtual Adreno's workload (tests/virtual-devices/adreno/vadreno.c) counts,
per frame, 50 000 x 30 vertex and 400 000 x 20 fragment shader instructions
and 800 000 GPU-busy cycles on every generation, so the model's corrected
throughput (equation 1), USI x 100 / GPUU, is 9 500 000 / 800 000 = 11.875
instructions per busy cycle times the maximum clock, whatever the run's length
or the number of frames it counted: the check does not depend on timing.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

# The `opengpa` command tests' harness (the command under the cross build's
# wrapper, the checks).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from cli_harness import OPENGPA as opengpa, check, finish  # noqa: E402

preload = (sys.argv[3] if len(sys.argv) > 3 else "") + sys.argv[2]
PER_BUSY_CYCLE = (50000 * 30 + 400000 * 20) / 800000


def run(args, env):
    e = dict(os.environ, LD_PRELOAD=preload, **env)
    try:
        p = subprocess.run([*opengpa, *args], capture_output=True, text=True, env=e, timeout=60,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after 60 s (blocked?)"
    return p.returncode, p.stdout, p.stderr


def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b)


def check_prediction(name, doc, detail):
    """The inputs came from the Adreno counters, and equation (1) holds the
    workload's instructions per busy cycle at the maximum clock."""
    m = doc.get("measured", {})
    ok = (m.get("instructions_counter") == "UnifiedShaderInstructions" and
          m.get("active_cycles_counter") == "GPUActiveCycles" and
          m.get("max_clock_mhz", 0) > 0 and m.get("instructions", 0) > 0 and
          close(m["instructions"] / m["active_cycles"], PER_BUSY_CYCLE) and
          close(doc["USI_Corrected"], PER_BUSY_CYCLE * m["max_clock_mhz"] * 1e6) and
          doc.get("FPS", 0) > 0)
    check(name, ok, detail + " " + json.dumps(doc)[:600])


CHIPS = [("a530", {"VADRENO_CHIP_ID": "0x05030002"}),
         ("a650", {"VADRENO_CHIP_ID": "0x06050002"}),
         ("a740", {"VADRENO_CHIP_ID": "0x43050a01"}),
         ("a650-msm", {"VADRENO_CHIP_ID": "0x06050002", "VADRENO_INTERFACE": "msm"})]

with tempfile.TemporaryDirectory() as tmp:
    # A profile from `opengpa stat --opengpa-json`, predicted afterwards: the a530 is
    # the paper's LG G5's GPU, which the device table matches by name.
    path = os.path.join(tmp, "a530.json")
    rc, out, err = run(["stat", "--opengpa-json", "-o", path, "--backend", "adreno", "-e",
                        "UnifiedShaderInstructions,GPUActiveCycles,MaxClockMHz,ShaderCoreCount",
                        "--", "sleep", "0.1"], CHIPS[0][1])
    check("stat --opengpa-json on the virtual a530", rc == 0, err)
    rc, out, err = run(["predict", "--fps", "30", "--to", "g4", "--json", path], {})
    doc = json.loads(out) if rc == 0 else {}
    check_prediction("predict from an a530 profile", doc, err)
    check("the a530 profile is the G5's", doc.get("source", {}).get("id") == "g5" and
          doc["measured"]["max_clock_mhz"] == 587, err)

    # Live: `opengpa predict -- COMMAND` on each generation and interface.
    for name, env in CHIPS:
        on = [] if name == "a530" else ["--on", "g5"]
        if name.endswith("-msm"):
            # The virtual msm stream runs a frame per record, one record per
            # millisecond: 800 million busy cycles a second, more than its
            # 587 MHz maximum allows, so the clock is given above that.
            on = ["--on", "g5,mhz=1000"]
        rc, out, err = run(["predict", *on, "--frames", "3", "--to", "g4", "--backend", "adreno",
                            "--json", "--", "sh", "-c", "sleep 0.1; echo ran"], env)
        doc = json.loads(err[err.index("{"):]) if rc == 0 and "{" in err else {}
        check("a live run on the virtual " + name, rc == 0 and out == "ran\n", "%d %r" % (rc, err))
        check_prediction("a live prediction on the virtual " + name, doc, err)

    # No Adreno countable counts frames: without --frames or --fps the frames
    # are the workload's OpenGPA_MarkFrame() marks (in a cross build it runs
    # under the exe wrapper too).
    marks = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [os.environ["FRAME_MARKS"]]
    rc, out, err = run(["predict", "--to", "g4", "--backend", "adreno", "--json", "--",
                        *marks, "12", "20"], CHIPS[0][1])
    doc = json.loads(err[err.index("{"):]) if rc == 0 and "{" in err else {}
    check("a live run marking 12 frames", rc == 0, "%d %r" % (rc, err))
    check_prediction("a prediction from the marked frames", doc, err)
    m = doc.get("measured", {})
    check("the prediction counts the 12 marked frames", m.get("frames") == 12 and
          close(m["FPS"], 12 / m["seconds"]), json.dumps(m))
    rc, out, err = run(["predict", "--to", "g4", "--backend", "adreno", "--", *marks, "12",
                        "20"], CHIPS[0][1])
    check("the text names the frames as marked", rc == 0 and
          "12 frames (marked by the workload)" in err, "%d %r" % (rc, err))

    # A workload that marks no frame: refused after its run, the way out named.
    rc, out, err = run(["predict", "--to", "g4", "--backend", "adreno", "--", "sh", "-c",
                        "echo ran"], CHIPS[0][1])
    check("no frame marked: refused", rc == 1 and out == "ran\n" and
          "marked no frame" in err and "--frames or --fps" in err,
          "%d %r %r" % (rc, out, err))

finish()
