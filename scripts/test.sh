#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 2: install what the build needs, build with warnings
# as errors, and run every test (unit, virtual-device, example, install).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

build=${OPENGPA_BUILD_DIR:-build-test}
if [ -d "$build" ]; then
  meson setup --reconfigure "$build" -Dwerror=true -Dtests=enabled
else
  meson setup "$build" -Dwerror=true -Dtests=enabled
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

# One closing line with the totals, counted from meson's own log.
python3 scripts/test-summary.py "$build/meson-logs/testlog.json" "$install_ok"
[ "$status" -eq 0 ] && [ "$install_ok" -eq 0 ]
