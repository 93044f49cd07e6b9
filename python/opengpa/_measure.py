# SPDX-License-Identifier: MIT
"""measure(): a command counted by `opengpa stat --opengpa-json`, as its document."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, Mapping, Optional, Sequence

from ._errors import MeasureError, OpenGPAError


def _command(command: Optional[str]) -> str:
    path = command or os.environ.get("OPENGPA_COMMAND") or shutil.which("opengpa")
    if not path:
        raise OpenGPAError(None, "the opengpa command is not on PATH; install it (Debian: "
                                 "opengpa) or name it with OPENGPA_COMMAND=/path/to/opengpa")
    return path


def measure(cmd: Sequence[str], counters: Optional[Sequence[str]] = None, repeat: int = 1,
            backend: Optional[str] = None, options: Optional[str] = None,
            multiplex: bool = False, env: Optional[Mapping[str, str]] = None,
            timeout: Optional[float] = None, command: Optional[str] = None) -> Dict[str, Any]:
    """Runs `cmd` (a list: program and arguments) under `opengpa stat
    --opengpa-json` and returns its JSON document as a dict: command, backend,
    device, runs, repeats, passes, seconds, coverage, exit_status, and
    counters [{name, group, usage, supported, value, rel_stddev_percent,
    ...}], exactly as `opengpa stat --opengpa-json` writes it (docs/cli.md).

    `counters` are names (-e), `repeat` runs it that many times (-r: means
    and their relative standard deviation), `backend` and `options` as
    --backend/--options.  The measured command's exit status is the
    document's `exit_status`; opengpa's own failures (a bad counter name, no
    such backend) raise MeasureError with its message.  The command's
    standard output is this process's.  `command` (or
    OPENGPA_COMMAND) names the opengpa program, else it is found on PATH.
    """
    if isinstance(cmd, (str, bytes)) or not cmd:
        raise OpenGPAError(None, "cmd must be a non-empty list (program and its arguments), "
                                 "not %r" % (cmd,))
    if isinstance(counters, str):
        raise OpenGPAError(None, "counters must be a list of names, not one string")
    if not (isinstance(repeat, int) and repeat >= 1):
        raise OpenGPAError(None, "repeat must be an int of at least 1, not %r" % (repeat,))
    args = [_command(command), "stat", "--opengpa-json"]
    if counters:
        for c in counters:
            if not isinstance(c, str) or not c or "," in c:
                raise OpenGPAError(None, "counter names must be non-empty strings without "
                                         "commas, not %r" % (c,))
        args += ["-e", ",".join(counters)]
    if repeat > 1:
        args += ["-r", str(repeat)]
    if backend:
        args += ["--backend", backend]
    if options:
        args += ["--options", options]
    if multiplex:
        args += ["--multiplex"]
    with tempfile.TemporaryDirectory(prefix="opengpa-measure-") as tmp:
        out = os.path.join(tmp, "report.json")
        args += ["-o", out, "--"] + [str(a) for a in cmd]
        run_env = None if env is None else dict(env)
        try:
            proc = subprocess.run(args, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=run_env, timeout=timeout)
        except OSError as e:
            raise OpenGPAError(None, "cannot run %s: %s; name the opengpa command with "
                                     "OPENGPA_COMMAND" % (args[0], e)) from None
        text = ""
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                text = f.read()
        if not text.strip():
            raise MeasureError(proc.returncode, proc.stderr.decode("utf-8", "replace"))
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise OpenGPAError(None, "opengpa stat wrote a report that is not JSON (%s)" % e
                               ) from None
    if not isinstance(doc, dict):
        raise OpenGPAError(None, "opengpa stat wrote a JSON report that is not an object")
    return doc
