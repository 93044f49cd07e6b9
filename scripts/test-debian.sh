#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages from this tree (dpkg-buildpackage -us -uc),
# checks them with lintian, checks apt could install them here, unpacks
# them into an empty root and uses them from there as a user would:
# opengpa list, the man pages, a virtual device, and a pkg-config and a CMake
# build against the installed files (scripts/check-install.sh).
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
debs=("$work"/*.deb)
[ ${#debs[@]} -eq 4 ] || fail "expected 4 packages, got: ${debs[*]##*/}"

if ! lintian --fail-on error "$work"/*.changes >"$work/lintian.log" 2>&1; then
  cat "$work/lintian.log" >&2
  fail "lintian reports errors"
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
say "$(( $(date +%s) - began )) s in all"
say "1 passed, 0 failed"
