#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's Quick start on a fresh Debian 12 machine, as root: a bare
# debootstrap root (scripts/debian-root.sh) gets this tree and ../shared, and
# runs in it what a new user runs, each step timed:
#
#   bash scripts/fresh-root.sh            # demo, test, cross-test aarch64
#   bash scripts/fresh-root.sh --quick    # demo, install-deps + meson setup,
#                                         # cross install + build for aarch64
#
# Steps (in this order; --quick picks the cheaper ones):
#   demo         bash scripts/demo.sh (Quick start, command 1)
#   test         bash scripts/test.sh (Quick start, command 2: every test)
#   deps         bash scripts/install-deps.sh, then meson setup with the tests
#                enabled: every dependency test.sh needs installs and is found
#   cross-test   bash scripts/cross-test.sh ARCH (install, build, tests
#                under qemu-user)
#   cross-build  bash scripts/install-cross-deps.sh ARCH, meson setup with the
#                cross file, ninja, and one test (expr) under qemu-user: the
#                cross toolchain links and the target's libraries load
# Options:
#   --quick            demo, deps, cross-build
#   --steps A,B,...    exactly these steps
#   --cross ARCH       the cross architecture (default aarch64; repeatable)
#   --logs DIR         each step's output to DIR/STEP.log, its tail shown on
#                      failure (default: all output here)
#   --keep             keep the root (its path is printed) instead of removing it
#   --no-deb-cache     download every package, caching none
#   --ci               CI=true in the root (test.sh adds the sanitizers, the
#                      fuzzers, the Debian packages), the tree made a git
#                      repository as a clone would be
# Environment: OPENGPA_FRESH_BASE, the bare root kept between runs
# (default /var/tmp/opengpa-debian-root, made once, never installed into: each
# run works in a copy); OPENGPA_FRESH_DIR, where the copies go (/var/tmp).
# The downloaded .deb files are kept in $OPENGPA_FRESH_BASE.debs and handed
# to the next root's apt cache: the root still resolves and installs every
# package itself, only the download is saved.
#
# The tree is the one scripts/test-debian.sh builds from: the committed
# files plus new ones not ignored, no build directories.  The root has no
# git: a user's clone has it, the steps do not need it.  CI is not passed
# in (but see --ci): a fresh machine runs the Quick start as a user does.
# Ends with: fresh-root: N passed, N failed.  Needs root.
set -euo pipefail
# All of it in one block: bash reads the block whole before running it, so
# the file can be edited while a run (tens of minutes) goes on.
{
cd "$(dirname "$0")/.."
src=$PWD
here=$(basename "$src")

steps=(demo test cross-test)
arches=()
logs=
keep=0
deb_cache=1
ci=0
usage() { sed -n '3,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) steps=(demo deps cross-build) ;;
    --steps) [ $# -ge 2 ] || usage; IFS=, read -r -a steps <<<"$2"; shift ;;
    --cross) [ $# -ge 2 ] || usage; arches+=("$2"); shift ;;
    --logs) [ $# -ge 2 ] || usage; logs=$2; shift ;;
    --keep) keep=1 ;;
    --no-deb-cache) deb_cache=0 ;;
    --ci) ci=1 ;;
    -h|--help) usage ;;
    *) echo "fresh-root: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
[ ${#arches[@]} -gt 0 ] || arches=(aarch64)
for s in "${steps[@]}"; do
  case $s in demo|test|deps|cross-test|cross-build) ;;
    *) echo "fresh-root: unknown step '$s'" >&2; usage ;; esac
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-root: needs root (debootstrap, chroot); run it with sudo" >&2; exit 1; }
[ -d ../shared ] || echo "fresh-root: no ../shared beside $src: the root gets none" >&2

say() { echo "fresh-root: $*"; }
began=$SECONDS
base=${OPENGPA_FRESH_BASE:-/var/tmp/opengpa-debian-root}
debs=$base.debs
timings=()
passed=0
failed=0

t=$SECONDS
bash scripts/debian-root.sh "$base"
timings+=("$(printf '%-28s %5d s' 'bare root (debian-root.sh)' $((SECONDS - t)))")

root=$(mktemp -d "${OPENGPA_FRESH_DIR:-/var/tmp}/opengpa-fresh.XXXXXX")
# Nothing may be mounted under the root when it goes (debian-root.sh mounts
# in a namespace of its own, or unmounts on exit: this is the last guard).
cleanup() {
  if [ $keep -eq 1 ]; then
    say "root kept: $root (bash scripts/debian-root.sh $root -- bash)"
    return
  fi
  if awk -v d="$root" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' \
       /proc/self/mounts; then
    say "something is still mounted under $root: not removing it" >&2
    return
  fi
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t=$SECONDS
cp -a "$base/." "$root/"
if [ $deb_cache -eq 1 ] && [ -d "$debs" ]; then
  cp -l "$debs"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null ||
    cp "$debs"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
fi
mkdir -p "$root/src/$here"
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - -cf - | tar -xf - -C "$root/src/$here"
[ -d ../shared ] && tar -C .. -cf - shared | tar -xf - -C "$root/src"
if [ $ci -eq 1 ]; then
  git -C "$root/src/$here" init -q
  git -C "$root/src/$here" add -A
  git -C "$root/src/$here" -c user.name=fresh-root -c user.email=fresh-root@localhost \
    commit -q -m "the tree fresh-root.sh copied"
fi
timings+=("$(printf '%-28s %5d s' 'copy root, tree, ../shared' $((SECONDS - t)))")
say "root $root, tree in /src/$here"

ci_env=(-u CI)
[ $ci -eq 0 ] || ci_env=(CI=true)
in_root() {
  env "${ci_env[@]}" bash scripts/debian-root.sh "$root" -- bash -c 'cd "/src/$1" && shift && "$@"' bash "$here" "$@"
}
# step NAME CMD...: runs CMD in the root's tree, timed, counted.
step() {
  local name=$1 t=$SECONDS status=0
  shift
  say "---- $name: $*"
  if [ -n "$logs" ]; then
    mkdir -p "$logs"
    in_root "$@" >"$logs/$name.log" 2>&1 || status=$?
    [ $status -eq 0 ] || tail -n 60 "$logs/$name.log"
  else
    in_root "$@" || status=$?
  fi
  local secs=$((SECONDS - t)) verdict=ok
  if [ $status -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); verdict="FAILED ($status)"; fi
  say "---- $name: $verdict in $secs s"
  timings+=("$(printf '%-28s %5d s  %s' "$name" "$secs" "$verdict")")
}

for s in "${steps[@]}"; do
  case $s in
    demo) step demo bash scripts/demo.sh ;;
    test) step test bash scripts/test.sh ;;
    deps) step deps bash -c 'bash scripts/install-deps.sh &&
            meson setup build-test -Dwerror=true -Dtests=enabled -Dbuildtype=debugoptimized' ;;
    cross-test)
      for a in "${arches[@]}"; do step "cross-test $a" bash scripts/cross-test.sh "$a"; done ;;
    cross-build)
      for a in "${arches[@]}"; do
        step "cross-build $a" bash -c 'bash scripts/install-deps.sh &&
          bash scripts/install-cross-deps.sh "$1" &&
          meson setup "build-cross-$1" --cross-file "cross/$1.ini" -Dwerror=true -Dtests=enabled &&
          ninja -C "build-cross-$1" -j2 &&
          meson test -C "build-cross-$1" --no-rebuild --print-errorlogs expr' bash "$a"
      done ;;
  esac
done

if [ $deb_cache -eq 1 ]; then
  mkdir -p "$debs"
  cp -l -n "$root"/var/cache/apt/archives/*.deb "$debs/" 2>/dev/null ||
    cp -n "$root"/var/cache/apt/archives/*.deb "$debs/" 2>/dev/null || true
fi

say "timings:"
for line in "${timings[@]}"; do echo "  $line"; done
say "$((SECONDS - began)) s in all"
say "$passed passed, $failed failed"
[ $failed -eq 0 ]
exit
}
