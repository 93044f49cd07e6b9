#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages from this tree (dpkg-buildpackage -us -uc; the
# build checks the symbols file, dpkg-gensymbols -c4), checks them with
# lintian (no error, no warning: debian/*.lintian-overrides say why for any
# tag they hide), checks apt could install them here, unpacks them into an
# empty root and uses them from there (opengpa list, the man pages, a virtual
# device, pkg-config and CMake builds: scripts/check-install.sh), and then
# installs them with apt into a fresh minimal Debian 12 root
# (scripts/debian-root.sh) and runs tests/install/in-debian-root.sh there:
# opengpa list, a GPA 2.x tool and a GPA 3.x client loading the library by
# GPA's file names, find_package(OpenGPA), the cited documentation.
#
# The fresh root needs root (debootstrap, chroot).  The bare root is made once
# and kept in $OPENGPA_DEBIAN_ROOT (default /var/tmp/opengpa-debian-root);
# each run installs into a copy of it, so it stays bare.
#
# The test suite is not run again inside the package build (nocheck: test.sh
# has just run it), nor are debug-symbol packages made (noddebs).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
began=$(date +%s)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { echo "test-debian: $*"; }
fail() { echo "test-debian: $*" >&2; echo "test-debian: 0 passed, 1 failed"; exit 1; }

# The tree as committed plus what is new and not ignored: no build dirs.
mkdir "$work/src"
git -C "$src" ls-files -z --cached --others --exclude-standard |
  (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$work/src"

# debian/changelog's version is the project's (NEWS.md says to bump both).
project=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)
changelog=$(dpkg-parsechangelog -S Version)
[ "$project" = "$changelog" ] ||
  fail "debian/changelog says $changelog, meson.build $project: add a changelog entry"

start=$(date +%s)
if ! (cd "$work/src" &&
      DEB_BUILD_OPTIONS="nocheck noddebs parallel=2" dpkg-buildpackage -us -uc >"$work/build.log" 2>&1); then
  tail -n 40 "$work/build.log" >&2
  fail "dpkg-buildpackage failed"
fi
say "dpkg-buildpackage -us -uc: $(( $(date +%s) - start )) s"
# The symbols file was checked, not merely used (debian/rules).
grep -q -- "dh_makeshlibs -- -c4" "$work/build.log" ||
  fail "the package build did not run dh_makeshlibs -- -c4: debian/rules lost the symbols check"
debs=("$work"/*.deb)
[ ${#debs[@]} -eq 6 ] || fail "expected 6 packages, got: ${debs[*]##*/}"

if ! lintian --fail-on error,warning "$work"/*.changes >"$work/lintian.log" 2>&1; then
  cat "$work/lintian.log" >&2
  fail "lintian reports errors or warnings"
fi
say "lintian: $(grep -c '^[EW]:' "$work/lintian.log" || true) errors and warnings"

# Would apt install them on this machine (their Depends resolve)?
apt-get install --simulate "${debs[@]}" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt-get cannot install the packages here"; }

# Unpacked into an empty root, used from there.
root=$work/root
for deb in "${debs[@]}"; do
  dpkg-deb -x "$deb" "$root"
done
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$root/usr/lib/$arch
export LD_LIBRARY_PATH=$libdir
opengpa=$root/usr/bin/opengpa
# (Each output to a file first: grep -q closing a pipe early would fail it.)
"$opengpa" --version >"$work/version.txt" && grep -q "^opengpa " "$work/version.txt" ||
  fail "opengpa --version"
"$opengpa" list >"$work/list.txt" || fail "opengpa list failed: $(cat "$work/list.txt")"
grep -q "counters on" "$work/list.txt" || fail "opengpa list printed no counters"
"$opengpa" list --backends >/dev/null || fail "opengpa list --backends"
LD_PRELOAD=$libdir/opengpa/libopengpa-vmali.so "$opengpa" list --backend mali >"$work/mali.txt" &&
  grep -q "Mali-G71" "$work/mali.txt" || fail "opengpa-virtual's Mali-G71 is not seen"
for page in man1/opengpa.1 man1/opengpa-stat.1 man1/opengpa-list.1 man3/opengpa.3; do
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$root/usr/share/man/$page.gz" 2>&1 >/dev/null) ||
    fail "man $page"
  [ -z "$out" ] || fail "man $page: $out"
done
bash scripts/check-install.sh "$root" || fail "the installed files do not serve a client build"

unset LD_LIBRARY_PATH
# A fresh Debian 12 root: apt installs the packages with their dependencies
# from the archive, and they are used there as on a user's machine.
[ "$(id -u)" -eq 0 ] ||
  fail "the fresh-root check needs root (debootstrap, chroot): run scripts/test-debian.sh as root"
base=${OPENGPA_DEBIAN_ROOT:-/var/tmp/opengpa-debian-root}
start=$(date +%s)
bash scripts/debian-root.sh "$base" || fail "no fresh Debian root at $base (scripts/debian-root.sh)"
fresh=$work/fresh
cp -a "$base" "$fresh"
say "fresh root: $(( $(date +%s) - start )) s"
inside=/tmp/opengpa-test
mkdir -p "$fresh$inside"
cp "${debs[@]}" "$fresh$inside/"
cp -r tests/install "$fresh$inside/install"
cp examples/gpa-guide/gpa-guide.c "$fresh$inside/"
cp -r examples/gpa3-client examples/common "$fresh$inside/"
start=$(date +%s)
bash scripts/debian-root.sh "$fresh" -- bash "$inside/install/in-debian-root.sh" "$inside" ||
  fail "the packages do not install or work in a fresh Debian 12 root (tests/install/in-debian-root.sh)"
say "fresh root: apt install and checks: $(( $(date +%s) - start )) s"
say "$(( $(date +%s) - began )) s in all"
say "1 passed, 0 failed"
