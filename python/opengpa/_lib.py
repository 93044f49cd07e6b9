# SPDX-License-Identifier: MIT
"""The C library through ctypes: loading it, the prototypes, and statuses.

The GPA 2.x calls work on one process-wide "current context"; every call the
package makes goes through `locked()`, which holds one lock for the whole
select-then-act sequence, so threads using different contexts cannot select
each other's.  Messages the library logs reach `_on_log` on the calling
thread (the library delivers them when it leaves the call), which keeps the
last error of each thread for the exception that follows.
"""
from __future__ import annotations

import ctypes
import logging
import os
import threading
from typing import Any, Callable, Optional

from ._errors import OpenGPAError, STATUS_NAMES

log = logging.getLogger("opengpa")

u32 = ctypes.c_uint32
u64 = ctypes.c_uint64
f64 = ctypes.c_double
u8 = ctypes.c_uint8
cstr = ctypes.c_char_p
P = ctypes.POINTER


class Result(ctypes.Union):
    """OpenGPA_Result: the 8-byte value of one counter of one sample."""
    _fields_ = [("u64", u64), ("f64", f64)]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)
GPA_LOGGING_ERROR = 0x01
GPA_LOGGING_ERROR_AND_MESSAGE = 0x03

# name: (argument types).  Every one returns a GPA_Status (int).
_PROTOTYPES: dict[str, list[Any]] = {
    "GPA_RegisterLoggingCallback": [ctypes.c_int, LOG_CALLBACK],
    "GPA_Initialize": [],
    "GPA_OpenContext": [ctypes.c_void_p],
    "GPA_CloseContext": [],
    "GPA_SelectContext": [ctypes.c_void_p],
    "GPA_GetNumCounters": [P(u32)],
    "GPA_GetCounterName": [u32, P(cstr)],
    "GPA_GetCounterDataType": [u32, P(ctypes.c_int)],
    "GPA_GetCounterUsageType": [u32, P(ctypes.c_int)],
    "GPA_GetUsageTypeAsStr": [ctypes.c_int, P(cstr)],
    "GPA_GetDataTypeAsStr": [ctypes.c_int, P(cstr)],
    "GPA_EnableCounterStr": [cstr],
    "GPA_DisableAllCounters": [],
    "GPA_EnableAllCounters": [],
    "GPA_GetCounterIndex": [cstr, P(u32)],
    "GPA_GetPassCount": [P(u32)],
    "GPA_BeginSession": [P(u32)],
    "GPA_EndSession": [],
    "GPA_BeginPass": [],
    "GPA_EndPass": [],
    "GPA_BeginSample": [u32],
    "GPA_EndSample": [],
    "GPA_GetSampleCount": [u32, P(u32)],
    "GPA_GetDeviceID": [P(u32)],
    "GPA_GetDeviceDesc": [P(cstr)],
    "OpenGPA_GetVersion": [P(u32), P(u32), P(u32)],
    "OpenGPA_SetBackend": [cstr, cstr],
    "OpenGPA_GetBackend": [P(cstr)],
    "OpenGPA_GetBackendCount": [P(u32)],
    "OpenGPA_GetBackendInfo": [u32, P(cstr), P(cstr)],
    "OpenGPA_SetHardwareCounters": [u8],
    "OpenGPA_AddCounterFile": [cstr],
    "OpenGPA_SetMultiplexing": [u8],
    "OpenGPA_GetCounterGroup": [u32, P(cstr)],
    "OpenGPA_GetCounterText": [u32, P(cstr)],
    "OpenGPA_GetSessionCounters": [u32, u32, P(u32), P(u32)],
    "OpenGPA_GetSampleResults": [u32, u32, u32, P(Result)],
    "OpenGPA_GetSampleCoverage": [u32, u32, P(f64)],
    "OpenGPA_SetSamplingPeriod": [u64],
    "OpenGPA_SetPeriodicWindow": [u32],
    "OpenGPA_GetSamplingPeriod": [u32, P(u64), P(u8)],
    "OpenGPA_WaitForSamples": [u32, u32, u32, P(u32)],
    "OpenGPA_GetSampleTime": [u32, u32, P(u64), P(u64)],
    "OpenGPA_GetSampleFlags": [u32, u32, P(u32)],
}

DEFAULT_LIBRARY = "libopengpa.so.1"


class Library:
    """One loaded libopengpa: its functions, the lock, the log capture."""

    def __init__(self, path: str) -> None:
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as e:
            raise OpenGPAError(
                None,
                "cannot load the opengpa library %r: %s; install it (Debian: libopengpa1) or "
                "name it with OPENGPA_LIBRARY=/path/to/libopengpa.so.1" % (path, e)) from None
        self.path = path
        self.lock = threading.RLock()
        self._tls = threading.local()
        for name, argtypes in _PROTOTYPES.items():
            try:
                fn = getattr(self.dll, name)
            except AttributeError:
                raise OpenGPAError(None, "%s does not export %s: it is not opengpa, or too old "
                                   "for this package" % (path, name)) from None
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
        self.dll.GPA_GetStatusAsStr.argtypes = [ctypes.c_int]
        self.dll.GPA_GetStatusAsStr.restype = cstr
        # Kept referenced for as long as the library: it is called from C.
        self._callback = LOG_CALLBACK(self._on_log)
        self.check("GPA_RegisterLoggingCallback", GPA_LOGGING_ERROR_AND_MESSAGE, self._callback)
        self.check("GPA_Initialize")

    def _on_log(self, kind: int, message: Optional[bytes]) -> None:
        text = message.decode("utf-8", "replace") if message else ""
        if kind & GPA_LOGGING_ERROR:
            self._tls.last_error = text
            log.debug("%s", text)
        else:
            log.info("%s", text)

    def call(self, name: str, *args: Any) -> int:
        """Calls `name`; returns its status, errors included."""
        self._tls.last_error = None
        return int(getattr(self.dll, name)(*args))

    def check(self, name: str, *args: Any) -> None:
        """Calls `name` and raises OpenGPAError unless it returns OK."""
        status = self.call(name, *args)
        if status != 0:
            raise self.error(name, status)

    def error(self, name: str, status: int) -> OpenGPAError:
        message = getattr(self._tls, "last_error", None)
        if not message:
            text = self.dll.GPA_GetStatusAsStr(status)
            message = "%s: %s" % (name, text.decode() if text else STATUS_NAMES.get(status, status))
        return OpenGPAError(status, message)


_loaded: dict[str, Library] = {}
_load_lock = threading.Lock()


def library(path: Optional[str] = None) -> Library:
    """The library at `path`, else OPENGPA_LIBRARY, else libopengpa.so.1 from
    the dynamic loader's paths; loaded once per process and path."""
    path = path or os.environ.get("OPENGPA_LIBRARY") or DEFAULT_LIBRARY
    with _load_lock:
        lib = _loaded.get(path)
        if lib is None:
            lib = _loaded[path] = Library(path)
        return lib


def out_str(fn: Callable[[Any], None]) -> str:
    """Runs fn with a `const char **` and gives the string it wrote."""
    p = cstr()
    fn(ctypes.byref(p))
    return p.value.decode("utf-8", "replace") if p.value is not None else ""
