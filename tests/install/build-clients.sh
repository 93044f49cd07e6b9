#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds tests/install/client.c against an installed opengpa twice, through
# pkg-config and through CMake's find_package(OpenGPA), and runs both.
#
# usage: build-clients.sh ROOT
#   ROOT: where the tree is installed (a DESTDIR, an unpacked package, or /);
#   the prefix inside it is the one opengpa.pc names.
# A cross-built tree (scripts/cross-test.sh): CC names the cross compiler and
# OPENGPA_RUN the emulator the clients run under ("qemu-aarch64-static").
set -euo pipefail
root=${1%/}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pc=$(find "${root:-/}" -xdev -name opengpa.pc -path '*/pkgconfig/*' 2>/dev/null |
     head -n1)
[ -n "$pc" ] || { echo "build-clients: no opengpa.pc under ${root:-/}" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc")")

# pkg-config, as a Makefile would use it; the sysroot maps the file's paths
# into ROOT.
export PKG_CONFIG_LIBDIR=$(dirname "$pc")
prefix=$(pkg-config --variable=prefix opengpa)
[ -z "$root" ] || export PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs opengpa)
cc=${CC:-cc}
run=(${OPENGPA_RUN:-})
# Runs a client; under an emulator without perf_event_open (77) it has
# still built, linked and loaded the library, which is what is checked.
client() {
  local rc=0
  LD_LIBRARY_PATH=$libdir "${run[@]}" "$1" || rc=$?
  if [ $rc -eq 77 ] && [ ${#run[@]} -gt 0 ]; then
    echo "build-clients: $(basename "$1") loads the library; nothing to count under ${run[0]}"
    return 0
  fi
  return $rc
}
$cc -std=c11 -Wall -Werror -o "$work/pkgconfig-client" "$here/client.c" $flags
client "$work/pkgconfig-client"

# CMake, as a project's CMakeLists.txt would use it.
cross=()
[ ${#run[@]} -eq 0 ] || cross=(-DCMAKE_SYSTEM_NAME=Linux)
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$root$prefix" -DCMAKE_C_COMPILER="$cc" \
  "${cross[@]}" -DCMAKE_C_FLAGS="-Wall -Werror" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; exit 1; }
client "$work/cmake/cmake-client"
echo "build-clients: pkg-config and CMake clients built and ran"
