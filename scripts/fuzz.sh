#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every fuzz target of tests/fuzz/ under libFuzzer, with AddressSanitizer
# and UndefinedBehaviorSanitizer, for FUZZ_SECONDS each (default 30):
#
#   bash scripts/fuzz.sh
#
# Needs clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
# Builds only the fuzz targets, in build-fuzz (or $OPENGPA_FUZZ_DIR).  A crash
# leaves its input in that directory (crash-*): run the target on it to
# replay it, or give it to the gcc build's replayer (fuzz-NAME 0 DICT FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${OPENGPA_FUZZ_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-30}
if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
# The fuzz targets bring their own ASan and UBSan (tests/fuzz/meson.build).
opts=(-Dwerror=true -Dtests=enabled "-Dfuzz_seconds=$seconds")
if [ -d "$build" ]; then
  CC=clang meson setup --reconfigure "$build" "${opts[@]}" >/dev/null
else
  CC=clang meson setup "$build" "${opts[@]}" >/dev/null
fi
targets=$(meson introspect --targets "$build" |
  python3 -c 'import json, sys; print(" ".join(t["filename"][0] for t in json.load(sys.stdin) if t["name"].startswith("fuzz-")))')
[ -n "$targets" ] || { echo "fuzz: no fuzz targets (is libFuzzer linkable?)" >&2; exit 1; }
ninja -C "$build" -j2 $(for t in $targets; do realpath --relative-to="$build" "$t"; done)
cd "$build"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test --no-rebuild --suite fuzz --print-errorlogs
