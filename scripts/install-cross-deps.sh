#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what a cross build for ARCH needs on a Debian 12 build machine:
#   bash scripts/install-cross-deps.sh aarch64|armhf|mipsel|mips
# the cross compiler, the target's C library for it to link with (gcc-TRIPLET
# only Recommends libc6-dev-DEBARCH-cross, and installs here leave Recommends
# out: without it the compiler cannot link, "cannot find Scrt1.o"), the
# target's C runtime and kernel headers, qemu-user-static to run the tests,
# and the target's libraries: Debian's multiarch -dev packages (cmocka,
# libdrm) for arm64, armhf and mipsel.  Every package is named here; nothing
# is left to Recommends or to what a machine happens to have.  Debian 12 has no big-endian mips port, so for mips it
# installs what scripts/cross-test.sh needs to build cmocka from Debian's
# source package (cmake, dpkg-dev, a deb-src entry).  Run as root (or with
# sudo); installs nothing that is present.
set -euo pipefail

arch=${1:-}
# crossarch: the suffix of Debian's -cross packages; debarch: the multiarch
# architecture, none for mips (Debian 12 has no big-endian mips port).
case $arch in
  aarch64) triplet=aarch64-linux-gnu crossarch=arm64 debarch=arm64 ;;
  armhf) triplet=arm-linux-gnueabihf crossarch=armhf debarch=armhf ;;
  mipsel) triplet=mipsel-linux-gnu crossarch=mipsel debarch=mipsel ;;
  mips) triplet=mips-linux-gnu crossarch=mips debarch= ;;
  *) echo "usage: $0 aarch64|armhf|mipsel|mips" >&2; exit 2 ;;
esac

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-cross-deps: need root" >&2; exit 1; }
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# gcc-TRIPLET brings binutils-TRIPLET (objdump, nm, strip) by Depends; the
# C library is named: headers, crt files and libc.so for linking
# (libc6-dev-*-cross), the runtime under /usr/TRIPLET that qemu's -L uses for
# mips (libc6-*-cross), the kernel's uapi headers (linux-libc-dev-*-cross).
packages=("gcc-$triplet" "libc6-dev-$crossarch-cross" "libc6-$crossarch-cross"
          "linux-libc-dev-$crossarch-cross" qemu-user-static)
if [ -n "$debarch" ]; then
  if ! dpkg --print-foreign-architectures | grep -qx "$debarch" &&
     [ "$(dpkg --print-architecture)" != "$debarch" ]; then
    echo "install-cross-deps: enabling the $debarch multiarch architecture"
    "${as_root[@]}" dpkg --add-architecture "$debarch"
    added_arch=1
  fi
  packages+=("libcmocka-dev:$debarch" "libdrm-dev:$debarch")
else
  packages+=(cmake dpkg-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# apt-get source needs a deb-src entry; CI images carry only deb lines.
# Mirror the machine's own Debian entries, so the same archive serves both.
need_src=0
if [ -z "$debarch" ] && ! apt-get source --print-uris cmocka >/dev/null 2>&1; then
  need_src=1
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -e 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      "${as_root[@]}" tee /etc/apt/sources.list.d/opengpa-deb-src.sources >/dev/null
  elif grep -qs '^deb ' /etc/apt/sources.list; then
    sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list |
      "${as_root[@]}" tee /etc/apt/sources.list.d/opengpa-deb-src.list >/dev/null
  else
    echo "install-cross-deps: no Debian deb entry to mirror as deb-src; add one for" \
         "'apt-get source cmocka'" >&2
    exit 1
  fi
  echo "install-cross-deps: added a deb-src entry for Debian's source packages"
fi

[ ${#missing[@]} -eq 0 ] && [ $need_src -eq 0 ] && [ -z "${added_arch:-}" ] && exit 0

# A mirror that is mid-sync fails some index files; what was fetched still
# serves, and the install below says if something needed is really missing.
update() { "${as_root[@]}" apt-get update || echo "install-cross-deps: apt-get update" \
  "reported errors; going on with the indexes it fetched" >&2; }

if [ -n "${added_arch:-}" ] || [ $need_src -eq 1 ]; then
  update
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-cross-deps: installing ${missing[*]}"
  if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    update
    "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi
