# SPDX-License-Identifier: MIT
"""What the `opengpa` command tests share: running the command as a user
would (under qemu-user on cross builds, where meson names the wrapper in
MESON_EXE_WRAPPER) and counting checks."""
import os
import shlex
import subprocess
import sys

OPENGPA = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [sys.argv[1]]
failures = []
passed = 0


def run(args, env=None, preload=None, timeout=60):
    e = dict(os.environ)
    e.pop("OPENGPA_BACKEND", None)
    e.pop("OPENGPA_LOG", None)
    if env:
        e.update(env)
    if preload:
        # A sanitizer build's runtime, when the preload library needs it first.
        e["LD_PRELOAD"] = os.environ.get("OPENGPA_TEST_PRELOAD_FIRST", "") + preload
    r = subprocess.run(OPENGPA + args, capture_output=True, text=True, env=e, timeout=timeout)
    if preload:
        r.stderr = without_emulation_noise(r.stderr)
    return r


def without_emulation_noise(text):
    """Under qemu-user the counted command (`true`, `sh`) is the build
    machine's own, and its loader warns that the target's preload library
    is not for it: an artifact of the emulation, not the command's output."""
    if len(OPENGPA) == 1:
        return text
    return "".join(line for line in text.splitlines(True)
                   if not (line.startswith("ERROR: ld.so: object ") and
                           "from LD_PRELOAD cannot be preloaded" in line))


def check(name, condition, detail=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(name)
        print("FAIL: %s %s" % (name, str(detail)[:2000]))


def finish():
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)
