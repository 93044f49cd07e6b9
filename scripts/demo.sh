#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 1: install what the build needs, build, and count a
# real program with `opengpa stat` on the default backend.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
build=${OPENGPA_BUILD_DIR:-build}
[ -d "$build" ] || meson setup "$build"
ninja -C "$build"

# The workload: compress the freshly built library, a few MB of real work.
exec "$build/tools/opengpa/opengpa" stat -- \
  sh -c "gzip -9 -c '$build/lib/libopengpa.so.1.0.0' | wc -c"
