# SPDX-License-Identifier: MIT
"""What the tests count with: OPENGPA_TEST_BACKEND (perf, mali or mips; the
meson tests run the mali and mips ones with the virtual devices preloaded),
and the library and command named by OPENGPA_LIBRARY and OPENGPA_COMMAND
(unset: the installed ones)."""
import os
import sys

import pytest

# test_pytest_plugin.py runs pytest on test files it writes.
pytest_plugins = ["pytester"]

BACKEND = os.environ.get("OPENGPA_TEST_BACKEND", "perf")

# Two counters of one pass on each backend, and whether the workload of the
# test (Python busy for a few ms) must make the first one count above 0.
COUNTERS = {
    "perf": (["TaskClock", "PageFaults"], True),
    # The virtual Mali's GPU clock runs whether or not anything draws.
    "mali": (["GPUActiveCycles", "FragmentQueueActiveCycles"], False),
    "mips": (["CoreCycles", "InstructionCount"], True),
}


def busy(seconds=0.02):
    """Keeps this thread on the CPU for `seconds` of its own CPU time (the
    machine may be shared: wall-clock time would count others' turns)."""
    import time
    end = time.thread_time() + seconds
    n = 0
    while time.thread_time() < end:
        n += 1
    return n


@pytest.fixture(scope="session")
def backend():
    if BACKEND not in COUNTERS:
        pytest.fail("OPENGPA_TEST_BACKEND=%s: use perf, mali or mips" % BACKEND)
    return BACKEND


@pytest.fixture(scope="session")
def two_counters(backend):
    return COUNTERS[backend][0]


@pytest.fixture
def ctx(backend):
    import opengpa
    c = opengpa.open(backend=backend)
    yield c
    c.close()


def pytest_report_header(config):
    import opengpa
    return ["opengpa package: %s" % os.path.dirname(opengpa.__file__),
            "library: %s, command: %s, backend: %s" % (
                os.environ.get("OPENGPA_LIBRARY", "(installed)"),
                os.environ.get("OPENGPA_COMMAND", "(PATH)"), BACKEND),
            "python: %s" % sys.executable]
