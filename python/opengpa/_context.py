# SPDX-License-Identifier: MIT
"""Contexts, sessions, samples and periodic sampling over the GPA 2.x calls
and opengpa.h's extensions."""
from __future__ import annotations

import contextlib
import ctypes
import os
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from . import _lib
from ._errors import OpenGPAError
from ._lib import Library, out_str, u32, u64, u8, f64

Value = Union[int, float]

# GPA_Type and GPA_Usage_Type (include/GPUPerfAPITypes.h).
_FLOAT_TYPES = (0, 1)  # GPA_TYPE_FLOAT32, GPA_TYPE_FLOAT64
_TYPE_NAMES = {0: "float32", 1: "float64", 2: "uint32", 3: "uint64", 4: "int32", 5: "int64"}
_USAGE_NAMES = {0: "ratio", 1: "percentage", 2: "cycles", 3: "milliseconds", 4: "bytes",
                5: "items", 6: "kilobytes"}
# What `opengpa stat -x` and -I print as the unit of each usage.
_UNITS = {1: "%", 3: "ms", 4: "B", 6: "KB", 2: "cycles"}

# OPENGPA_SAMPLE_* bits (include/opengpa.h), by name.
SAMPLE_FLAGS = {
    0x1: "kernel-time",
    0x2: "overflow",
    0x4: "late",
    0x8: "final",
    0x10: "failed",
}
SAMPLES_TOTAL = 0xFFFFFFFF


@dataclass(frozen=True)
class Counter:
    """One counter a context offers."""
    index: int
    name: str
    group: str
    usage: str        # "percentage", "milliseconds", ... (GPA's usage type)
    unit: str         # "%", "ms", "B", "KB", "cycles" or "" (as `opengpa stat` prints)
    type: str         # "float64", "uint64", ...
    description: str


@dataclass(frozen=True)
class Interval:
    """One sample of a periodic session."""
    index: int
    begin_ns: int     # CLOCK_MONOTONIC nanoseconds
    end_ns: int
    flags: int        # OPENGPA_SAMPLE_* bits
    values: Dict[str, Value]  # empty when the sample failed

    @property
    def flag_names(self) -> List[str]:
        """The flags by name: "kernel-time", "overflow", "late", "final", "failed"."""
        return [name for bit, name in SAMPLE_FLAGS.items() if self.flags & bit]

    @property
    def seconds(self) -> float:
        return (self.end_ns - self.begin_ns) / 1e9


def _as_bytes(value: str, what: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if "\0" in value:
        raise OpenGPAError(None, "%s %r holds a NUL character" % (what, value))
    return value.encode("utf-8")


class Context:
    """An opengpa context on one backend (`opengpa.open()` makes one).

    Use it as a context manager, or call close().  Every method may be
    called from any thread: the package serialises the library's calls.
    """

    def __init__(self, lib: Library, backend: Optional[str], options: Optional[str],
                 hardware: Optional[bool]) -> None:
        self._lib = lib
        # GPA_OpenContext's pointer: a plain key under libopengpa.so.1.
        self._key = ctypes.create_string_buffer(1)
        self._closed = True
        self._session: Optional[Session] = None
        self._multiplex = False
        if backend is None:
            backend = os.environ.get("OPENGPA_BACKEND") or "auto"
            if options is None:
                options = os.environ.get("OPENGPA_BACKEND_OPTIONS")
        if hardware is None:
            hardware = os.environ.get("OPENGPA_HARDWARE_COUNTERS") == "1"
        b = _as_bytes(backend, "backend")
        o = _as_bytes(options, "options") if options is not None else None
        with lib.lock:
            lib.check("OpenGPA_SetHardwareCounters", 1 if hardware else 0)
            lib.check("OpenGPA_SetBackend", b, o)
            lib.check("GPA_OpenContext", self._key)
            self._closed = False
            self.backend = out_str(lambda p: lib.check("OpenGPA_GetBackend", p))
            self.device = out_str(lambda p: lib.check("GPA_GetDeviceDesc", p))
        self._counters: Optional[List[Counter]] = None

    # ---- plumbing ---------------------------------------------------------

    @contextlib.contextmanager
    def _selected(self) -> Iterator[Library]:
        """Holds the library's lock with this context current."""
        lib = self._lib
        with lib.lock:
            self._select(lib)
            yield lib

    def _select(self, lib: Library) -> None:
        """Makes this context current; the caller holds lib.lock."""
        if self._closed:
            raise OpenGPAError(2, "this opengpa context is closed; open another with "
                                  "opengpa.open()")
        lib.check("GPA_SelectContext", self._key)

    def close(self) -> None:
        """Closes the context (ending a session left open)."""
        with self._lib.lock:
            if self._closed:
                return
            if self._session is not None:
                self._session._abandon()
            self._lib.check("GPA_SelectContext", self._key)
            self._lib.check("GPA_CloseContext")
            self._closed = True

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ---- counters ---------------------------------------------------------

    def counters(self) -> List[Counter]:
        """Every counter this context offers, in index order."""
        if self._counters is not None:
            return list(self._counters)
        out = []
        with self._selected() as lib:
            n = u32()
            lib.check("GPA_GetNumCounters", ctypes.byref(n))
            for i in range(n.value):
                usage = ctypes.c_int()
                dtype = ctypes.c_int()
                lib.check("GPA_GetCounterUsageType", i, ctypes.byref(usage))
                lib.check("GPA_GetCounterDataType", i, ctypes.byref(dtype))
                out.append(Counter(
                    index=i,
                    name=out_str(lambda p: lib.check("GPA_GetCounterName", i, p)),
                    group=out_str(lambda p: lib.check("OpenGPA_GetCounterGroup", i, p)),
                    usage=_USAGE_NAMES.get(usage.value, str(usage.value)),
                    unit=_UNITS.get(usage.value, ""),
                    type=_TYPE_NAMES.get(dtype.value, str(dtype.value)),
                    description=out_str(lambda p: lib.check("OpenGPA_GetCounterText", i, p))))
        self._counters = out
        return list(out)

    def counter(self, name: str) -> Counter:
        """The counter named `name` (any case, or one of its aliases)."""
        b = _as_bytes(name, "counter name")
        with self._selected() as lib:
            index = u32()
            lib.check("GPA_GetCounterIndex", b, ctypes.byref(index))
        return self.counters()[index.value]

    # ---- sessions -----------------------------------------------------------

    def session(self, counters: Optional[Sequence[str]] = None, multiplex: bool = False
                ) -> "Session":
        """A session counting `counters` (names; None = every counter), for
        client samples: `with ctx.session([...]) as s: with s.sample(): ...`.

        GPA's model runs the workload once per pass when the counters do not
        fit on the hardware together; a Python block runs once, so a counter
        set that needs more than one pass is refused (OpenGPAError naming the
        count): use fewer counters, or multiplex=True (perf backend: the
        kernel time-shares them; values become estimates)."""
        return Session(self, counters, multiplex, period_ns=0, window=0)

    def periodic(self, counters: Optional[Sequence[str]] = None, period_ms: float = 100.0,
                 window: int = 0, multiplex: bool = False) -> "Session":
        """A session that samples by itself every `period_ms` milliseconds
        until it ends; iterate it for the intervals as they complete
        (Interval: index, begin_ns, end_ns, flags, values).  `window` > 0
        keeps only the newest samples (OpenGPA_SetPeriodicWindow)."""
        if not (isinstance(period_ms, (int, float)) and period_ms > 0):
            raise OpenGPAError(None, "period_ms must be a number above 0, not %r" % (period_ms,))
        return Session(self, counters, multiplex, period_ns=int(period_ms * 1e6), window=window)


class _Sample:
    """What `with session.sample():` enters: a class, not a generator
    context manager, and the lock taken directly rather than through
    Context._selected(), because this is the one call a harness makes in
    its loop (docs/performance.md, "Python: one sample() against C")."""
    __slots__ = ("_session", "_id")

    def __init__(self, session: "Session", sample_id: int) -> None:
        self._session = session
        self._id = sample_id

    def __enter__(self) -> int:
        s = self._session
        ctx = s._ctx
        lib = ctx._lib
        with lib.lock:
            ctx._select(lib)
            if not s._open:
                raise OpenGPAError(9, "the session is not open: sample inside `with "
                                      "ctx.session(...)`")
            lib.check("GPA_BeginSample", self._id)
            s._sample_open = True
        return self._id

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        s = self._session
        ctx = s._ctx
        lib = ctx._lib
        with lib.lock:
            ctx._select(lib)
            if s._sample_open:
                s._sample_open = False
                lib.check("GPA_EndSample")
        if exc_type is None:
            s._sample_ids.append(self._id)
            s._next_sample = max(s._next_sample, self._id + 1)


class Session:
    """One GPA session of one pass (Context.session and Context.periodic)."""

    def __init__(self, ctx: Context, counters: Optional[Sequence[str]], multiplex: bool,
                 period_ns: int, window: int) -> None:
        if isinstance(counters, str):
            raise TypeError("counters must be a list of names, not one string")
        self._ctx = ctx
        self._names = None if counters is None else [_as_bytes(c, "counter name")
                                                     for c in counters]
        self._multiplex = multiplex
        self._period_ns = period_ns
        self._window = window
        self.id: Optional[int] = None
        self._open = False
        self._sample_open = False
        self._next_sample = 0
        self._sample_ids: List[int] = []
        self._indices: List[int] = []
        self._read = 0
        self.passes = 0

    # ---- begin and end ------------------------------------------------------

    def begin(self) -> "Session":
        ctx = self._ctx
        with ctx._selected() as lib:
            if ctx._session is not None:
                raise OpenGPAError(10, "a session of this context is already open (session %s); "
                                       "end it first" % ctx._session.id)
            lib.check("GPA_DisableAllCounters")
            if self._names is None:
                lib.check("GPA_EnableAllCounters")
            for name in self._names or []:
                lib.check("GPA_EnableCounterStr", name)
            if self._multiplex != ctx._multiplex:
                lib.check("OpenGPA_SetMultiplexing", 1 if self._multiplex else 0)
                ctx._multiplex = self._multiplex
            passes = u32()
            lib.check("GPA_GetPassCount", ctypes.byref(passes))
            self.passes = passes.value
            if passes.value > 1:
                raise OpenGPAError(26, "these counters need %d passes (runs of the workload, "
                                   "GPA's model); a Python block runs once: count fewer "
                                   "counters, or pass multiplex=True (perf backend)"
                                   % passes.value)
            lib.check("OpenGPA_SetSamplingPeriod", self._period_ns)
            if self._period_ns:
                lib.check("OpenGPA_SetPeriodicWindow", self._window)
            sid = u32()
            lib.check("GPA_BeginSession", ctypes.byref(sid))
            self.id = sid.value
            try:
                lib.check("GPA_BeginPass")
            except OpenGPAError:
                lib.call("GPA_EndSession")
                raise
            self._open = True
            ctx._session = self
            n = u32()
            lib.check("OpenGPA_GetSessionCounters", self.id, 0, None, ctypes.byref(n))
            arr = (u32 * max(n.value, 1))()
            lib.check("OpenGPA_GetSessionCounters", self.id, n.value, arr, ctypes.byref(n))
            self._indices = list(arr[:n.value])
        return self

    def end(self) -> None:
        """Ends the pass and the session; the results stay readable."""
        ctx = self._ctx
        with ctx._selected() as lib:
            if not self._open:
                return
            if self._sample_open:
                lib.call("GPA_EndSample")
                self._sample_open = False
            st_pass = lib.call("GPA_EndPass")
            err = lib.error("GPA_EndPass", st_pass) if st_pass else None
            st = lib.call("GPA_EndSession")
            if st and err is None:
                err = lib.error("GPA_EndSession", st)
            self._open = False
            ctx._session = None
            if self._period_ns:
                lib.call("OpenGPA_SetSamplingPeriod", 0)
            if err is not None:
                raise err

    def _abandon(self) -> None:
        try:
            self.end()
        except OpenGPAError:
            pass

    def __enter__(self) -> "Session":
        return self.begin()

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.end()
        else:
            self._abandon()

    # ---- client samples -----------------------------------------------------

    def sample(self, sample_id: Optional[int] = None) -> "_Sample":
        """Counts the block it wraps as one sample; gives its ID (0, 1, ...
        unless `sample_id` names one)."""
        if self._period_ns:
            raise OpenGPAError(None, "a periodic session samples by itself; iterate it instead")
        if sample_id is None:
            sample_id = self._next_sample
        if not (isinstance(sample_id, int) and 0 <= sample_id < SAMPLES_TOTAL):
            raise OpenGPAError(None, "sample_id must be an int from 0 to 2^32-2, not %r"
                               % (sample_id,))
        return _Sample(self, sample_id)

    # ---- results ------------------------------------------------------------

    @property
    def counter_names(self) -> List[str]:
        """The session's counters, in the order results give them."""
        cs = self._ctx.counters()
        return [cs[i].name for i in self._indices]

    def _values(self, lib: Library, sample_id: int) -> Dict[str, Value]:
        cs = self._ctx.counters()
        n = len(self._indices)
        arr = (_lib.Result * max(n, 1))()
        lib.check("OpenGPA_GetSampleResults", self.id, sample_id, n, arr)
        out: Dict[str, Value] = {}
        for k, index in enumerate(self._indices):
            c = cs[index]
            out[c.name] = arr[k].f64 if c.type in ("float32", "float64") else int(arr[k].u64)
        return out

    def result(self, sample_id: int) -> Dict[str, Value]:
        """One sample's values: {counter name: value}."""
        self._check_id(sample_id)
        with self._ctx._selected() as lib:
            return self._values(lib, sample_id)

    def total(self) -> Dict[str, Value]:
        """Every counter over all of the session's samples (raw counts summed,
        then each counter's expression: a ratio is the ratio of the sums)."""
        self._check_id(None)
        with self._ctx._selected() as lib:
            return self._values(lib, SAMPLES_TOTAL)

    def results(self) -> Dict[int, Dict[str, Value]]:
        """Every sample's values: {sample ID: {counter name: value}}.  A
        periodic session gives its intervals by index."""
        self._check_id(None)
        with self._ctx._selected() as lib:
            if self._period_ns:
                n = u32()
                lib.check("GPA_GetSampleCount", self.id, ctypes.byref(n))
                ids: List[int] = list(range(n.value))
            else:
                ids = list(self._sample_ids)
            return {i: self._values(lib, i) for i in ids}

    def results_array(self) -> Any:
        """The results as a NumPy array of float64, one row per sample (in
        results() order), one column per counter (counter_names order).
        Needs NumPy."""
        try:
            import numpy
        except ImportError:
            raise OpenGPAError(None, "results_array() needs NumPy (Debian: python3-numpy); "
                                     "results() gives the same values as dicts") from None
        res = self.results()
        names = self.counter_names
        return numpy.array([[float(v[n]) for n in names] for v in res.values()],
                           dtype=numpy.float64).reshape(len(res), len(names))

    def coverage(self, sample_id: int) -> float:
        """Share of the sample its least-counted group was on the counters."""
        self._check_id(sample_id)
        c = f64()
        with self._ctx._selected() as lib:
            lib.check("OpenGPA_GetSampleCoverage", self.id, sample_id, ctypes.byref(c))
        return c.value

    def _check_id(self, sample_id: Optional[int]) -> None:
        if self.id is None:
            raise OpenGPAError(9, "the session has not begun: results come after `with "
                                  "ctx.session(...)`")
        if sample_id is not None and not (isinstance(sample_id, int) and
                                          0 <= sample_id <= SAMPLES_TOTAL):
            raise OpenGPAError(None, "sample_id must be an int from 0 to 2^32-1, not %r"
                               % (sample_id,))

    # ---- periodic samples -------------------------------------------------

    def interval(self, index: int) -> Interval:
        """Periodic sample `index` with its times and flags."""
        self._check_id(index)
        with self._ctx._selected() as lib:
            return self._interval(lib, index)

    def _interval(self, lib: Library, index: int) -> Interval:
        b, e, fl = u64(), u64(), u32()
        lib.check("OpenGPA_GetSampleTime", self.id, index, ctypes.byref(b), ctypes.byref(e))
        lib.check("OpenGPA_GetSampleFlags", self.id, index, ctypes.byref(fl))
        values: Dict[str, Value] = {}
        if not fl.value & 0x10:
            values = self._values(lib, index)
        return Interval(index, b.value, e.value, fl.value, values)

    def kernel_timed(self) -> bool:
        """Whether the kernel times this periodic session's samples."""
        self._check_id(None)
        period, kt = u64(), u8()
        with self._ctx._selected() as lib:
            lib.check("OpenGPA_GetSamplingPeriod", self.id, ctypes.byref(period), ctypes.byref(kt))
        return bool(kt.value)

    def intervals(self, timeout: Optional[float] = None) -> Iterator[Interval]:
        """The periodic samples as they complete, from the first not yet
        given; stops when the session has ended and every sample was given,
        or when `timeout` seconds pass without a new one."""
        if not self._period_ns:
            raise OpenGPAError(None, "intervals() is for periodic sessions (ctx.periodic())")
        self._check_id(None)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._ctx._selected() as lib:
                avail = u32()
                # Short waits, so other threads get the lock in between.
                lib.check("OpenGPA_WaitForSamples", self.id, self._read + 1, 20,
                          ctypes.byref(avail))
                ready = [self._interval(lib, i) for i in range(self._read, avail.value)]
                finished = not self._open
            for iv in ready:
                # Counted as given only once given: a caller that stops
                # iterating finds the rest in the next intervals().
                self._read = iv.index + 1
                yield iv
            if ready:
                deadline = None if timeout is None else time.monotonic() + timeout
            elif finished:
                return
            elif deadline is not None and time.monotonic() > deadline:
                return

    def __iter__(self) -> Iterator[Interval]:
        return self.intervals()

