# SPDX-License-Identifier: MIT
"""Errors: every failure of the library is an OpenGPAError carrying the GPA
status and the library's own message (which names the cause and the fix)."""
from __future__ import annotations

from typing import Optional

# GPA_Status values (include/GPUPerfAPITypes.h), by number.
STATUS_NAMES = {
    0: "OK",
    1: "ERROR_NULL_POINTER",
    2: "ERROR_COUNTERS_NOT_OPEN",
    3: "ERROR_COUNTERS_ALREADY_OPEN",
    4: "ERROR_INDEX_OUT_OF_RANGE",
    5: "ERROR_NOT_FOUND",
    6: "ERROR_ALREADY_ENABLED",
    7: "ERROR_NO_COUNTERS_ENABLED",
    8: "ERROR_NOT_ENABLED",
    9: "ERROR_SAMPLING_NOT_STARTED",
    10: "ERROR_SAMPLING_ALREADY_STARTED",
    11: "ERROR_SAMPLING_NOT_ENDED",
    12: "ERROR_NOT_ENOUGH_PASSES",
    13: "ERROR_PASS_NOT_ENDED",
    14: "ERROR_PASS_NOT_STARTED",
    15: "ERROR_PASS_ALREADY_STARTED",
    16: "ERROR_SAMPLE_NOT_STARTED",
    17: "ERROR_SAMPLE_ALREADY_STARTED",
    18: "ERROR_SAMPLE_NOT_ENDED",
    19: "ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING",
    20: "ERROR_SESSION_NOT_FOUND",
    21: "ERROR_SAMPLE_NOT_FOUND",
    22: "ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES",
    23: "ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE",
    24: "ERROR_READING_COUNTER_RESULT",
    25: "ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES",
    26: "ERROR_FAILED",
    27: "ERROR_HARDWARE_NOT_SUPPORTED",
    28: "ERROR_DRIVER_NOT_SUPPORTED",
}


class OpenGPAError(Exception):
    """A failure of opengpa.

    `status` is the GPA_Status number the library returned (None when the
    failure is the package's own: a library that cannot be loaded, a bad
    argument caught before any call), `status_name` its name without the
    GPA_STATUS_ prefix ("ERROR_NOT_FOUND"), and `message` the library's log
    message, which names the cause and the fix.
    """

    def __init__(self, status: Optional[int], message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def status_name(self) -> Optional[str]:
        if self.status is None:
            return None
        return STATUS_NAMES.get(self.status, str(self.status))

    def __str__(self) -> str:
        if self.status is None:
            return self.message
        return "%s (GPA_STATUS_%s)" % (self.message, self.status_name)


class MeasureError(OpenGPAError):
    """`opengpa stat` itself failed in measure() (not the measured command):
    `returncode` is its exit status (1: a failure, 2: bad usage), `stderr`
    what it printed."""

    def __init__(self, returncode: int, stderr: str) -> None:
        lines = [line for line in stderr.splitlines() if line.strip()]
        super().__init__(None, lines[-1] if lines else "opengpa stat exited with %d" % returncode)
        self.returncode = returncode
        self.stderr = stderr
