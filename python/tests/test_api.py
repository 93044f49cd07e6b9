# SPDX-License-Identifier: MIT
"""The package over the library: contexts, counters, samples, results,
periodic sampling, errors, threads."""
import threading
import time

import pytest

import opengpa
from conftest import BACKEND, COUNTERS, busy

KNOWN_USAGES = {"ratio", "percentage", "cycles", "milliseconds", "bytes", "items", "kilobytes"}


def test_library_version_and_backends():
    assert opengpa.library_version() == (0, 1, 0)
    names = [name for name, _ in opengpa.backends()]
    assert "perf" in names and BACKEND in names, names
    assert all(summary for _, summary in opengpa.backends())


def test_context_names_backend_and_device(ctx, backend):
    assert ctx.backend == backend
    assert ctx.device


def test_counters_have_every_field(ctx, two_counters):
    counters = ctx.counters()
    assert len(counters) >= 2
    assert [c.index for c in counters] == list(range(len(counters)))
    for c in counters:
        assert c.name and c.group and c.description, c
        assert not c.description.startswith("#"), c  # the 2.x "#Group#" prefix is gone
        assert c.usage in KNOWN_USAGES, c
        assert c.type in ("float32", "float64", "uint32", "uint64", "int32", "int64"), c
    units = {c.usage: c.unit for c in counters}
    assert units.get("percentage", "%") == "%" and units.get("milliseconds", "ms") == "ms"
    names = {c.name for c in counters}
    assert set(two_counters) <= names
    # Found by any case, as the library matches names.
    assert ctx.counter(two_counters[0].lower()).name == two_counters[0]


def test_sample_counts_the_block(ctx, backend, two_counters):
    with ctx.session(counters=two_counters) as s:
        assert s.passes == 1
        assert s.counter_names == two_counters
        t0 = time.perf_counter()
        with s.sample() as first:
            busy(0.03)
        wall_ms = (time.perf_counter() - t0) * 1e3
        with s.sample() as second:
            pass
        with s.sample(sample_id=42):
            busy(0.01)
    assert (first, second) == (0, 1)
    res = s.results()
    assert list(res) == [0, 1, 42]
    for values in res.values():
        assert list(values) == two_counters
        assert all(v >= 0 for v in values.values()), values
    must_count = COUNTERS[backend][1]
    if must_count:
        assert res[0][two_counters[0]] > 0, res
    if backend == "perf":
        # 30 ms of this thread's CPU time, no more than the wall-clock time
        # around the sample, and more than the empty sample's.
        assert 29.0 < res[0]["TaskClock"] <= wall_ms * 1.05 + 0.5, (res, wall_ms)
        assert res[0]["TaskClock"] > res[1]["TaskClock"], res
        assert isinstance(res[0]["PageFaults"], int)
    assert s.result(42) == res[42]
    total = s.total()
    assert set(total) == set(two_counters)


def test_results_as_numpy_array(ctx, two_counters):
    numpy = pytest.importorskip("numpy")
    with ctx.session(counters=two_counters) as s:
        for _ in range(3):
            with s.sample():
                busy(0.005)
    a = s.results_array()
    assert a.shape == (3, 2) and a.dtype == numpy.float64
    res = s.results()
    for row, values in zip(a, res.values()):
        assert list(row) == [float(values[n]) for n in two_counters]


def test_all_counters_when_none_named(ctx):
    one_pass = [c.name for c in ctx.counters()][:1]
    with ctx.session(counters=one_pass) as s:
        with s.sample():
            pass
    assert list(s.results()[0]) == one_pass


def test_periodic_intervals(ctx, two_counters):
    done = threading.Event()
    worker = threading.Thread(target=lambda: [busy(0.005) for _ in range(400)
                                              if not done.is_set()])
    got = []
    with ctx.periodic(counters=two_counters, period_ms=10) as s:
        worker.start()
        for iv in s:
            got.append(iv)
            if len(got) >= 5:
                break
        assert s.kernel_timed() in (True, False)
    done.set()
    worker.join()
    # After the end: the rest, the last one marked final.
    rest = list(s.intervals())
    got += rest
    assert [iv.index for iv in got] == list(range(len(got)))
    assert len(got) >= 5
    for a, b in zip(got, got[1:]):
        assert a.end_ns <= b.begin_ns + 2, (a, b)
    for iv in got:
        assert iv.begin_ns < iv.end_ns
        assert set(iv.values) == set(two_counters) or "failed" in iv.flag_names
    assert "final" in got[-1].flag_names
    assert not any("final" in iv.flag_names for iv in got[:-1])
    # 10 ms periods on average (the first may be short where the kernel
    # aligns its timer, one read late is followed by a short one, the last
    # is cut short): the time they cover over their number.
    middle = got[1:-1]
    mean = sum(iv.seconds for iv in middle) / len(middle)
    assert 0.005 < mean < 0.1, middle
    assert set(s.results()) == set(range(len(got)))


def test_periodic_timeout_stops_waiting(ctx, two_counters):
    with ctx.periodic(counters=two_counters, period_ms=200) as s:
        t0 = time.monotonic()
        first = list(s.intervals(timeout=0.05))
        assert time.monotonic() - t0 < 1.0
        assert len(first) <= 1


# ---- bad input ---------------------------------------------------------------

def test_unknown_counter_is_not_found_with_the_librarys_message(ctx):
    with pytest.raises(opengpa.OpenGPAError) as e:
        with ctx.session(counters=["NoSuchCounterAnywhere"]):
            pass
    assert e.value.status == 5 and e.value.status_name == "ERROR_NOT_FOUND"
    assert "NoSuchCounterAnywhere" in e.value.message and "opengpa list" in e.value.message
    assert "GPA_STATUS_ERROR_NOT_FOUND" in str(e.value)
    # The context is still usable.
    with ctx.session(counters=[ctx.counters()[0].name]) as s:
        with s.sample():
            pass
    assert 0 in s.results()


def test_unknown_backend_is_refused():
    with pytest.raises(opengpa.OpenGPAError) as e:
        opengpa.open(backend="nosuchbackend")
    assert e.value.status is not None and e.value.status != 0
    assert "nosuchbackend" in e.value.message


def test_bad_arguments(ctx, two_counters):
    with pytest.raises(TypeError):
        ctx.session(counters="TaskClock")
    with pytest.raises(TypeError):
        ctx.session(counters=[b"TaskClock"])
    with pytest.raises(opengpa.OpenGPAError):
        ctx.session(counters=["Task\0Clock"])
    with pytest.raises(opengpa.OpenGPAError):
        ctx.periodic(counters=two_counters, period_ms=0)
    with pytest.raises(opengpa.OpenGPAError):
        ctx.periodic(counters=two_counters, period_ms="10")
    with pytest.raises(opengpa.OpenGPAError) as e:
        ctx.counter("NoSuchCounterAnywhere")
    assert e.value.status == 5
    with pytest.raises(opengpa.OpenGPAError):
        opengpa.open(backend="perf", library="/nonexistent/libopengpa.so.1")


def test_misuse_of_sessions_and_samples(ctx, two_counters):
    s = ctx.session(counters=two_counters)
    with pytest.raises(opengpa.OpenGPAError) as e:
        s.results()
    assert e.value.status == 9
    with pytest.raises(opengpa.OpenGPAError):
        with s.sample():
            pass
    with s:
        with pytest.raises(opengpa.OpenGPAError) as e:
            with ctx.session(counters=two_counters):
                pass
        assert e.value.status == 10
        with s.sample(sample_id=7):
            # The same ID twice in a pass: the library refuses it.
            with pytest.raises(opengpa.OpenGPAError) as nested:
                with s.sample(sample_id=8):
                    pass
            assert nested.value.status == 17  # SAMPLE_ALREADY_STARTED
        with pytest.raises(opengpa.OpenGPAError):
            with s.sample(sample_id=7):
                pass
        with pytest.raises(opengpa.OpenGPAError):
            with s.sample(sample_id=-1):
                pass
    # After the session: no more samples.
    with pytest.raises(opengpa.OpenGPAError) as e:
        with s.sample():
            pass
    assert e.value.status == 9
    with pytest.raises(opengpa.OpenGPAError) as e:
        s.result(12345)
    assert e.value.status == 21  # SAMPLE_NOT_FOUND


def test_exception_in_the_block_closes_the_session(ctx, two_counters):
    with pytest.raises(ZeroDivisionError):
        with ctx.session(counters=two_counters) as s:
            with s.sample():
                1 / 0
    # A new session opens: the failed one was ended.
    with ctx.session(counters=two_counters) as s2:
        with s2.sample():
            pass
    assert s2.id == s.id + 1


def test_closed_context_refuses(backend, two_counters):
    c = opengpa.open(backend=backend)
    c.close()
    c.close()  # twice is fine
    with pytest.raises(opengpa.OpenGPAError) as e:
        c.counters()
    assert e.value.status == 2 and "closed" in e.value.message


def test_multiple_passes_refused_with_the_count(ctx):
    names = [c.name for c in ctx.counters()]
    try:
        with ctx.session(counters=names):
            pytest.skip("every counter of %s fits in one pass" % ctx.device)
    except opengpa.OpenGPAError as e:
        assert "passes" in e.message and e.status == 26, e


# ---- threads -----------------------------------------------------------------

def test_threads_with_their_own_contexts(backend, two_counters):
    if backend == "mips":
        pytest.skip("one /proc/perf per core: two contexts counting at once reprogram "
                    "each other's counters (the library detects it and refuses)")
    errors, results = [], {}

    def worker(k):
        try:
            with opengpa.open(backend=backend) as c:
                for round_ in range(5):
                    with c.session(counters=two_counters) as s:
                        for _ in range(3):
                            with s.sample():
                                busy(0.002)
                    results[(k, round_)] = s.results()
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert len(results) == 20
    for res in results.values():
        assert list(res) == [0, 1, 2]
        assert all(set(v) == set(two_counters) for v in res.values())


def test_threads_sharing_one_context(ctx, two_counters):
    errors = []
    n = len(ctx.counters())

    def reader():
        try:
            for _ in range(50):
                assert len(ctx.counters()) == n
                assert ctx.counter(two_counters[1]).name == two_counters[1]
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    with ctx.session(counters=two_counters) as s:
        for _ in range(20):
            with s.sample():
                busy(0.001)
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert len(s.results()) == 20
