#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sanitizer builds (docs/testing.md): the whole suite under AddressSanitizer
# and UndefinedBehaviorSanitizer (every error fatal, leaks reported), then
# the tests that run threads under ThreadSanitizer.  The first is built with
# clang and the second with gcc, so that CI holds both compilers to -Werror
# and to their sanitizers (the native and cross builds are gcc's); CC=gcc or
# CC=clang builds both with one.  scripts/test.sh runs this in CI.
#
#   bash scripts/sanitize.sh [asan|tsan|all]
#
# Build directories: build-asan and build-tsan (OPENGPA_SANITIZE_DIR=prefix
# changes "build").  Prints one line per build: "sanitize asan: N passed, ...".
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
prefix=${OPENGPA_SANITIZE_DIR:-build}
asan_cc=${CC:-clang}
tsan_cc=${CC:-gcc}
command -v "$asan_cc" >/dev/null || asan_cc=cc

# The C++ header test links the same runtime as the C code: clang++ with clang.
cxx_for() { # C compiler
  if [ -n "${CXX:-}" ]; then echo "$CXX"; elif [ "$1" = clang ]; then echo clang++; else echo c++; fi
}

# The tests that start threads of their own, or drive the library from
# several: what ThreadSanitizer has something to say about.
# cli-prometheus: `opengpa stat --listen` (a listener and a reader thread)
# over the LD_PRELOADed virtual Mali, the combination that once hung here
# (tests/virtual-devices/meson.build says why the preloads are built
# uninstrumented under ThreadSanitizer).
threaded_tests=(core-threads core-thread-stress core-periodic api-sessions perf-real core-gathered-reads
                cli-prometheus)

# Every sanitizer error stops the test that hit it, with a stack.  The tests
# put the runtime before a preload library in LD_PRELOAD (docs/testing.md);
# verify_asan_link_order=0 lets a test script that forgets still run, its
# children then checked less.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
# Interpreters a test script runs under the preloaded runtime leak on their
# own at exit: not counted (the file says why and what stays counted).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/scripts/lsan-interpreters.supp:print_suppressions=0}

setup() { # dir, meson options...
  local dir=$1
  shift
  if [ -d "$dir" ]; then
    # (meson 1.0's setup --reconfigure drops a changed c_args; configure keeps it)
    meson configure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
  # Regenerated now, so the tests listed below are those of this tree.
  ninja -C "$dir" build.ninja >/dev/null
}

# The names of a build's tests that load a GPU API's driver (GL, GLES,
# OpenCL, Vulkan: the apictx suite and the examples on them), or of all the
# others.  meson names a suite PROJECT:SUITE.
tests_of() { # dir, drivers|others
  python3 - "$1" "$2" <<'PY'
import json, re, subprocess, sys
for t in json.loads(subprocess.check_output(["meson", "introspect", "--tests", sys.argv[1]])):
    suites = {s.rsplit(":", 1)[-1] for s in t["suite"]}
    driver = "apictx" in suites or re.search(r"-(gl|gles|cl|vk)(-|$)", t["name"]) is not None
    if driver == (sys.argv[2] == "drivers"):
        print(t["name"])
PY
}

# "sanitize NAME: ..." from meson's logs of the tests just run.
summary() { # name, dir
  python3 - "$1" "$2"/meson-logs/testlog*.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[2:]:
  for line in open(path):
    r = json.loads(line)["result"]
    key = "passed" if r in ("OK", "EXPECTEDFAIL") else "skipped" if r == "SKIP" else "failed"
    counts[key] += 1
print("sanitize %s: %d passed, %d failed, %d skipped" % (sys.argv[1], counts["passed"],
      counts["failed"], counts["skipped"]))
PY
}

# -O1, as the sanitizers' documentation advises: quicker to build than -O2,
# and its warnings differ from the main build's (both are -Werror).
# Both runtimes stop on the first error: -fno-sanitize-recover makes UBSan's
# checks fatal too.  clang needs no more than gcc (meson.build gives it the
# shared runtime the preload libraries need); b_lundef is meson's switch for
# a shared library whose runtime symbols the program supplies.
fatal=(-fno-sanitize-recover=all -fno-omit-frame-pointer)
status=0

if [ "$what" = all ] || [ "$what" = asan ]; then
  dir=$prefix-asan
  CC=$asan_cc CXX=$(cxx_for "$asan_cc") \
  setup "$dir" -Dwerror=true -Dtests=enabled -Dbuildtype=plain -Doptimization=1 -Ddebug=true -Db_lundef=false \
    -Db_sanitize=address,undefined "-Dc_args=${fatal[*]}" "-Dc_link_args=${fatal[*]}"
  ninja -C "$dir"
  # Tests that load a GL or OpenCL driver (Mesa, pocl): the drivers leak,
  # and are unloaded before the leak check, so their leaks have no frame to
  # tell them from ours.  Those tests run with leak detection off, every
  # other check on; the rest with everything.
  mapfile -t drivers < <(tests_of "$dir" drivers)
  mapfile -t others < <(tests_of "$dir" others)
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${others[@]}" ||
    status=1
  rm -f "$dir/meson-logs/testlog-drivers.json"
  if [ ${#drivers[@]} -gt 0 ]; then
    ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 meson test -C "$dir" --no-rebuild --print-errorlogs \
      --num-processes 2 --logbase testlog-drivers "${drivers[@]}" || status=1
  fi
  summary asan "$dir"
fi

if [ "$what" = all ] || [ "$what" = tsan ]; then
  dir=$prefix-tsan
  # gcc warns that it cannot check atomic_thread_fence (perf_rdpmc.c's
  # seqlock uses one): not an error in this build.
  extra=()
  "$tsan_cc" -Werror -Wno-tsan -fsanitize=thread -x c -c -o /dev/null /dev/null 2>/dev/null &&
    extra=(-Wno-tsan)
  CC=$tsan_cc CXX=$(cxx_for "$tsan_cc") \
  setup "$dir" -Dwerror=true -Dtests=enabled -Dbuildtype=plain -Doptimization=1 -Ddebug=true -Db_lundef=false \
    -Db_sanitize=thread "-Dc_args=${extra[*]} -fno-omit-frame-pointer"
  # Only what the threaded tests need is built: their programs, and what a
  # script test depends on.
  mapfile -t targets < <(python3 - "$dir" "${threaded_tests[@]}" <<'PY'
import json, os, subprocess, sys
build = os.path.abspath(sys.argv[1])
tests = json.loads(subprocess.check_output(["meson", "introspect", "--tests", build]))
files = {t["id"]: t["filename"] for t in
         json.loads(subprocess.check_output(["meson", "introspect", "--targets", build]))}
wanted = set(sys.argv[2:])
for t in tests:
    if t["name"] in wanted:
        for f in [t["cmd"][0]] + [f for d in t["depends"] for f in files.get(d, [])]:
            if os.path.abspath(f).startswith(build + os.sep):
                print(os.path.relpath(os.path.abspath(f), build))
PY
)
  ninja -C "$dir" "${targets[@]}"
  mapfile -t present < <(meson test -C "$dir" --list 2>/dev/null | sed 's/.* \/ //')
  run=()
  for t in "${threaded_tests[@]}"; do
    printf '%s\n' "${present[@]}" | grep -qx "$t" && run+=("$t")
  done
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${run[@]}" || status=1
  summary tsan "$dir"
fi

exit "$status"
