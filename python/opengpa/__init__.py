# SPDX-License-Identifier: MIT
"""opengpa from Python: GPU and CPU performance counters through the opengpa
C library (the GPA API over Linux kernel interfaces), by ctypes.

    import opengpa
    with opengpa.open(backend="perf") as ctx:
        with ctx.session(counters=["TaskClock"]) as s:
            with s.sample():
                work()
        print(s.results())

docs/python.md in the opengpa sources is the guide.
"""
from __future__ import annotations

import ctypes
from typing import List, Optional, Tuple

from . import _lib
from ._context import Context, Counter, Interval, SAMPLE_FLAGS, Session
from ._errors import MeasureError, OpenGPAError
from ._compare import compare
from ._measure import measure

__all__ = ["open", "backends", "library_version", "measure", "compare", "Context", "Counter",
           "Interval", "Session", "OpenGPAError", "MeasureError", "SAMPLE_FLAGS"]
__version__ = "0.1.0"


def open(backend: Optional[str] = None, options: Optional[str] = None,
         hardware: Optional[bool] = None, library: Optional[str] = None) -> Context:
    """Opens a context: `backend` is "auto", "perf", "mali", "panfrost" or
    "mips" (None: OPENGPA_BACKEND, else auto), `options` that backend's
    "key=value,..." (docs/backends/), `hardware` adds the raw hardware
    counters.  `library` is the path of libopengpa.so.1 (None:
    OPENGPA_LIBRARY, else the dynamic loader's search)."""
    return Context(_lib.library(library), backend, options, hardware)


def backends(library: Optional[str] = None) -> List[Tuple[str, str]]:
    """The backends compiled into the library, in the order "auto" tries
    them: (name, summary) pairs."""
    lib = _lib.library(library)
    out = []
    with lib.lock:
        n = _lib.u32()
        lib.check("OpenGPA_GetBackendCount", ctypes.byref(n))
        for i in range(n.value):
            name, summary = _lib.cstr(), _lib.cstr()
            lib.check("OpenGPA_GetBackendInfo", i, ctypes.byref(name), ctypes.byref(summary))
            out.append(((name.value or b"").decode(), (summary.value or b"").decode()))
    return out


def library_version(library: Optional[str] = None) -> Tuple[int, int, int]:
    """The version of the loaded C library."""
    lib = _lib.library(library)
    a, b, c = _lib.u32(), _lib.u32(), _lib.u32()
    with lib.lock:
        lib.check("OpenGPA_GetVersion", ctypes.byref(a), ctypes.byref(b), ctypes.byref(c))
    return (a.value, b.value, c.value)
