#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 1: install what the build needs, build, and count a
# real program with `opengpa stat` on the default backend.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh demo
build=${OPENGPA_BUILD_DIR:-build}
# A release build of the command and the library it runs, nothing else: no
# tests, no benchmarks, no virtual devices.
[ -d "$build" ] || meson setup "$build" --buildtype=release -Dtests=disabled
ninja -C "$build" tools/opengpa/opengpa

# The workload: compress the freshly built library, a few MB of real work.
exec "$build/tools/opengpa/opengpa" stat -- \
  sh -c "gzip -9 -c '$build/lib/libopengpa.so.1.0.0' | wc -c"
