#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-compiles opengpa for a board or router with Debian 12's cross
# toolchain and runs the whole test suite (unit, virtual devices, the
# command, the install layout) under qemu-user:
#
#   bash scripts/cross-test.sh aarch64|armhf|mipsel|mips
#
# Installs what it needs first (scripts/install-deps.sh, then
# scripts/install-cross-deps.sh), builds in build-cross-ARCH (or
# $OPENGPA_BUILD_DIR) with the cross file cross/ARCH.ini and warnings as
# errors, and ends with the same line as scripts/test.sh:
#   tests: N passed, N failed, N skipped
set -euo pipefail
cd "$(dirname "$0")/.."

arch=${1:-}
# run: the cross file's exe_wrapper, for the install check's clients.
case $arch in
  aarch64) triplet=aarch64-linux-gnu run=qemu-aarch64-static ;;
  armhf) triplet=arm-linux-gnueabihf run=qemu-arm-static ;;
  mipsel) triplet=mipsel-linux-gnu run=qemu-mipsel-static ;;
  mips) triplet=mips-linux-gnu run="qemu-mips-static -L /usr/mips-linux-gnu" ;;
  *) echo "usage: $0 aarch64|armhf|mipsel|mips" >&2; exit 2 ;;
esac

bash scripts/install-deps.sh
bash scripts/install-cross-deps.sh "$arch"

# The cross compiler must link a program before meson is asked to, whose
# "cannot compile programs" would not say why.
probe=$(mktemp -d)
if ! echo 'int main(void) { return 0; }' |
     "$triplet-gcc" -x c - -o "$probe/a.out" 2>"$probe/gcc.log"; then
  cat "$probe/gcc.log" >&2
  rm -rf "$probe"
  echo "cross-test: $triplet-gcc cannot link a program: the target's C library" \
       "(libc6-dev-*-cross) is missing; scripts/install-cross-deps.sh $arch installs it" >&2
  exit 1
fi
rm -rf "$probe"

build=${OPENGPA_BUILD_DIR:-build-cross-$arch}
cross=(--cross-file "cross/$arch.ini")

# Debian 12 has no big-endian mips port: cmocka for the tests is built here
# from Debian's own source package (the version the native build uses),
# installed under the build directory, and found through a second cross
# file.  Its .pc gains a RUNPATH so that the tests load it under qemu
# without anything being installed on the build machine.
build_cmocka() {
  local deps=$1
  if [ ! -f "$deps/prefix/lib/pkgconfig/cmocka.pc" ]; then
    rm -rf "$deps"
    mkdir -p "$deps/src"
    (cd "$deps/src" && apt-get source --only-source cmocka >/dev/null 2>"$deps/apt-source.log") ||
      { cat "$deps/apt-source.log" >&2; echo "cross-test: apt-get source cmocka failed" >&2;
        exit 1; }
    local src
    src=$(find "$deps/src" -mindepth 1 -maxdepth 1 -type d -name 'cmocka-*' | head -n1)
    cmake -S "$src" -B "$deps/build" -G Ninja -Wno-dev \
      -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=mips \
      -DCMAKE_C_COMPILER="$triplet-gcc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_INSTALL_PREFIX="$deps/prefix" -DCMAKE_INSTALL_LIBDIR=lib \
      -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF >"$deps/cmake.log" ||
      { cat "$deps/cmake.log" >&2; exit 1; }
    ninja -C "$deps/build" -j2 install >"$deps/ninja.log" ||
      { cat "$deps/ninja.log" >&2; exit 1; }
    sed -i 's|^Libs: \(.*\)$|Libs: \1 -Wl,-rpath,${libdir}|' \
      "$deps/prefix/lib/pkgconfig/cmocka.pc"
  fi
  printf "[properties]\npkg_config_libdir = ['%s']\n" "$deps/prefix/lib/pkgconfig" \
    >"$deps/cmocka.ini"
}
if [ "$arch" = mips ]; then
  deps=$(pwd)/$build-deps
  build_cmocka "$deps"
  cross+=(--cross-file "$deps/cmocka.ini")
fi

if [ -d "$build" ]; then
  meson setup --reconfigure "$build" "${cross[@]}" -Dwerror=true -Dtests=enabled
else
  meson setup "$build" "${cross[@]}" -Dwerror=true -Dtests=enabled
fi
ninja -C "$build" -j2
status=0
# qemu translates every instruction: give each test five times its time.
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 5 || status=$?

# What a device gets: the installed tree, checked with the target's tools,
# and clients built against it with the cross compiler run under qemu.
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
install_ok=1
if DESTDIR="$dest" meson install -C "$build" --quiet &&
   OBJDUMP="$triplet-objdump" CC="$triplet-gcc" OPENGPA_RUN="$run" \
     bash scripts/check-install.sh "$dest"; then
  install_ok=0
fi

python3 scripts/test-summary.py "$install_ok" -- "$build/meson-logs/testlog.json"
[ "$status" -eq 0 ] && [ "$install_ok" -eq 0 ]
