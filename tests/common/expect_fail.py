#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""expect_fail.py — runs a program that must fail, and checks how it fails.

    expect_fail.py [--status N] --message TEXT [--message TEXT ...] -- PROGRAM ARGS...

Passes only when PROGRAM exits by itself (not killed by a signal, not a
sanitizer's abort) with a status other than 0 (exactly N with --status), and
its output (stdout and stderr together) contains every TEXT.  meson's
`should_fail: true` passes on any non-zero exit, a crash included; a test
that expects a failure must say which one.
"""
import os
import shlex
import signal
import subprocess
import sys


def main(argv):
    if "--" not in argv:
        print("usage: expect_fail.py [--status N] --message TEXT ... -- PROGRAM ARGS...",
              file=sys.stderr)
        return 2
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    messages, status = [], None
    i = 0
    while i < len(opts):
        if opts[i] == "--message" and i + 1 < len(opts):
            messages.append(opts[i + 1])
        elif opts[i] == "--status" and i + 1 < len(opts):
            status = int(opts[i + 1])
        else:
            print(f"expect_fail.py: unknown option {opts[i]!r}", file=sys.stderr)
            return 2
        i += 2
    if not cmd or not messages:
        print("expect_fail.py: a program and at least one --message are needed", file=sys.stderr)
        return 2
    # A cross build's program runs under its exe wrapper (qemu-user).
    cmd = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + cmd
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"FAIL: {cmd[0]} still running after 60 s; it was expected to fail at once")
        return 1
    out = run.stdout.decode("utf-8", "replace")
    sys.stdout.write(out)
    rc = run.returncode
    if rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        print(f"FAIL: {cmd[0]} was killed by {name}; it must fail with a message, not crash")
        return 1
    if rc == 0:
        print(f"FAIL: {cmd[0]} exited 0; it was expected to fail")
        return 1
    if rc >= 128:
        print(f"FAIL: {cmd[0]} exited {rc}, a shell's or sanitizer's report of a signal")
        return 1
    if status is not None and rc != status:
        print(f"FAIL: {cmd[0]} exited {rc}, expected {status}")
        return 1
    missing = [m for m in messages if m not in out]
    if missing:
        for m in missing:
            print(f"FAIL: the output lacks {m!r}")
        return 1
    print(f"ok: {cmd[0]} failed with status {rc} and the expected message")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
