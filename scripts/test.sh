#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 2: install what the build needs, build with warnings
# as errors, and run every test (unit, virtual-device, example, install).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

build=${OPENGPA_BUILD_DIR:-build-test}
# Optimised with debug information: backtraces name the line.
setup=(-Dwerror=true -Dtests=enabled -Dbuildtype=debugoptimized)
if [ -d "$build" ]; then
  meson setup --reconfigure "$build" "${setup[@]}"
else
  meson setup "$build" "${setup[@]}"
fi
ninja -C "$build"
status=0
meson test -C "$build" --print-errorlogs --num-processes 2 || status=$?

# The installed layout: library, GPA file-name aliases, headers, pkg-config.
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
install_ok=1
if DESTDIR="$dest" meson install -C "$build" --quiet && bash scripts/check-install.sh "$dest"; then
  install_ok=0
fi

# In CI, the fuzz targets of tests/fuzz run under libFuzzer as well (the
# build above runs them on a fixed series of inputs): FUZZ_SECONDS each.
logs=("$build/meson-logs/testlog.json")
if [ "${CI:-}" = true ]; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash scripts/fuzz.sh || status=$?
  logs+=("${OPENGPA_FUZZ_DIR:-build-fuzz}/meson-logs/testlog.json")
fi

# The Debian packages, built, checked and used from an empty root (about
# 40 s): in CI, or when asked with OPENGPA_TEST_DEBIAN=1.
debian_ok=skip
if [ "${CI:-}" = true ] || [ "${OPENGPA_TEST_DEBIAN:-}" = 1 ]; then
  debian_ok=1
  bash scripts/test-debian.sh && debian_ok=0
fi

# One closing line with the totals, counted from meson's own logs.
python3 scripts/test-summary.py "$install_ok" "$debian_ok" -- "${logs[@]}"
[ "$status" -eq 0 ] && [ "$install_ok" -eq 0 ] && [ "$debian_ok" != 1 ]
