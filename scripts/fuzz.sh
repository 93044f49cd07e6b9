#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every fuzz target of tests/fuzz/ under libFuzzer, with AddressSanitizer
# and UndefinedBehaviorSanitizer (every error fatal), on its committed corpus
# and then for FUZZ_RUNS more inputs each (default 5000), or for
# FUZZ_SECONDS each when FUZZ_RUNS=0 (docs/testing.md, "Fuzzing"):
#
#   bash scripts/fuzz.sh                        # what CI runs
#   FUZZ_RUNS=0 FUZZ_SECONDS=600 bash scripts/fuzz.sh   # a long run
#
# Needs clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
# Builds only the fuzz targets, in build-fuzz (or $OPENGPA_FUZZ_DIR), with
# every source they use instrumented for coverage and the sanitizers.  A
# crash leaves its input in that directory (crash-*): docs/testing.md says
# how to replay it and add it to the corpus.  Prints "fuzz: N passed, ...".
set -euo pipefail
cd "$(dirname "$0")/.."

build=${OPENGPA_FUZZ_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-30}
runs=${FUZZ_RUNS:-5000}
if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
# The library, the backends and the parsers are compiled for coverage
# (fuzzer-no-link) and the sanitizers, not only the targets' own files.
instrument="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
opts=(-Dwerror=true -Dtests=enabled -Dbuildtype=debugoptimized -Db_lundef=false
      -Db_sanitize=address,undefined "-Dc_args=$instrument"
      "-Dfuzz_seconds=$seconds" "-Dfuzz_runs=$runs")
if [ -d "$build" ]; then
  # (meson 1.0's setup --reconfigure drops a changed c_args; configure keeps it)
  meson configure "$build" "${opts[@]}" >/dev/null
else
  CC=clang meson setup "$build" "${opts[@]}" >/dev/null
fi
# Regenerated now, not at the first ninja, so the targets listed below
# include any a changed meson.build added.
ninja -C "$build" build.ninja >/dev/null
targets=$(meson introspect --targets "$build" |
  python3 -c 'import json, sys; print(" ".join(t["filename"][0] for t in json.load(sys.stdin) if t["name"].startswith("fuzz-")))')
[ -n "$targets" ] || { echo "fuzz: no fuzz targets (is libFuzzer linkable?)" >&2; exit 1; }
ninja -C "$build" -j2 $(for t in $targets; do realpath --relative-to="$build" "$t"; done)
status=0
# Crashes land in the build directory, not the source tree.
(cd "$build" &&
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
  meson test --no-rebuild --suite fuzz --print-errorlogs --num-processes 2) || status=1
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
n = {"passed": 0, "failed": 0}
for line in open(sys.argv[1]):
    n["passed" if json.loads(line)["result"] == "OK" else "failed"] += 1
print("fuzz: %d passed, %d failed" % (n["passed"], n["failed"]))
PY
exit "$status"
