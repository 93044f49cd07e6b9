# SPDX-License-Identifier: MIT
"""compare(): two profiles of `opengpa stat --opengpa-json`, through
`opengpa compare --json` (one implementation of the statistics: the
command's, docs/cli.md "Comparing two profiles")."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._errors import MeasureError, OpenGPAError
from ._measure import _command

Profile = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def compare(a: Profile, b: Profile, fail_on: Optional[Sequence[str]] = None,
            confidence: float = 95.0, command: Optional[str] = None) -> Dict[str, Any]:
    """Compares profile `b` against baseline `a`: each a file name or a
    document as measure() returns it.  Returns `opengpa compare --json`'s
    document: `a`, `b` (file, device, backend, repeats), `test` ("welch"),
    `confidence_percent`, `counters` sorted by significance, each with
    `name`, `a`, `b`, `a_stderr`, `b_stderr`, `change`, `change_percent`,
    `ci_low`/`ci_high` (and `_percent`), `t`, `df`, `p`, `verdict`
    ("higher", "lower", "n.s.", "untested") and `crossed`; `unmatched`;
    `fail_on` [{rule, crossed}] and `failed`, true when a `fail_on` rule
    ("TaskClock:+5%") was crossed.  A document that cannot be read, or a rule
    that matches no counter, raises MeasureError with the command's message."""
    if isinstance(fail_on, str):
        raise TypeError("fail_on must be a list of rules, not one string")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise OpenGPAError(None, "confidence must be a number of percent, not %r"
                           % (confidence,))
    with tempfile.TemporaryDirectory(prefix="opengpa-compare-") as tmp:
        paths: List[str] = []
        for side, doc in (("a", a), ("b", b)):
            if isinstance(doc, Mapping):
                path = os.path.join(tmp, side + ".json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(doc, f)
                paths.append(path)
            elif isinstance(doc, (str, os.PathLike)):
                paths.append(os.fspath(doc))
            else:
                raise TypeError("a profile is a file name or a dict, not %s"
                                % type(doc).__name__)
        args = [_command(command), "compare", "--json", "--confidence", repr(float(confidence))]
        for rule in fail_on or ():
            if not isinstance(rule, str):
                raise TypeError("a fail_on rule is a string such as 'TaskClock:+5%%', not %r"
                                % (rule,))
            args.append("--fail-on=" + rule)
        args += ["--"] + paths
        try:
            proc = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        except OSError as e:
            raise OpenGPAError(None, "cannot run %s: %s; name the opengpa command with "
                                     "OPENGPA_COMMAND" % (args[0], e)) from None
    if proc.returncode not in (0, 3):
        raise MeasureError(proc.returncode, proc.stderr.decode("utf-8", "replace"))
    try:
        return json.loads(proc.stdout.decode("utf-8"))
    except ValueError as e:
        raise OpenGPAError(None, "opengpa compare wrote a report that is not JSON (%s)" % e
                           ) from None
