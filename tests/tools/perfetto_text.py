# SPDX-License-Identifier: MIT
"""Reading a Perfetto file back in the tests: decoded by Debian's protoc
against Perfetto's own schema, which is not copied into the project
(docs/timelines.md) but read from the fact sheets beside it, or from
PERFETTO_PROTO_DIR; protoc's text format as nested lists of (field, value)."""

import os
import re
import shutil
import subprocess

PERFETTO_DIR = os.environ.get("PERFETTO_PROTO_DIR") or os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "reference",
    "perfetto"))
PROTOC = shutil.which("protoc")
SCHEMA = os.path.join(PERFETTO_DIR, "perfetto_trace.proto")


def unavailable():
    """Why a file cannot be decoded here, or None."""
    if not PROTOC:
        return "no protoc (scripts/install-deps.sh installs protobuf-compiler)"
    if not os.path.exists(SCHEMA):
        return "no Perfetto schema at %s (set PERFETTO_PROTO_DIR)" % PERFETTO_DIR
    return None


def decode(path):
    """protoc's run on the file: (returncode, text, stderr, fields the schema
    does not know)."""
    with open(path, "rb") as f:
        r = subprocess.run([PROTOC, "--decode=perfetto.protos.Trace", "-I", PERFETTO_DIR,
                            SCHEMA], stdin=f, capture_output=True, timeout=120)
    text = r.stdout.decode()
    return r.returncode, text, r.stderr, re.findall(r"^\s*\d+: .*$", text, re.M)


def parse_text_format(text):
    """protoc --decode's text format as nested lists of (field, value)."""
    stack = [[]]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = []
            stack[-1].append((line[:-1].strip(), child))
            stack.append(child)
        elif line == "}":
            stack.pop()
        else:
            key, _, value = line.partition(": ")
            stack[-1].append((key, value.strip('"')))
    return stack[0]


def fields(msg, key):
    return [v for k, v in msg if k == key]
