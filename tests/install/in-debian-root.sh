#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs inside a fresh, minimal Debian 12 root (scripts/test-debian.sh puts it
# there with the packages and this folder): installs opengpa's packages with
# apt as a user would, and uses them.
#
# usage: in-debian-root.sh DIR
#   DIR holds the .deb files, tests/install/ (this folder) and the two
#   example clients (gpa-guide.c, a GPA 2.x tool; gpa3-client/ and common/,
#   a GPA 3.x one), as test-debian.sh lays them out.
#
# Checks, each failing with its own message: the packages install with their
# dependencies from the archive; `opengpa list` counts on this machine; a
# GPA 2.x tool (dlopen of libGPUPerfAPIGL.so, dlsym) and a GPA 3.x client
# (GpaGetFuncTable) load the library by GPA's file name from the directory
# pkg-config names (gpadir), both by LD_LIBRARY_PATH and by path; a program
# links with pkg-config and with CMake's find_package(OpenGPA); the pages of
# opengpa-doc that the manual pages cite are there.
set -euo pipefail
dir=$1
say() { echo "in-debian-root: $*"; }
fail() { echo "in-debian-root: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

apt-get -q update >"$dir/apt-update.log" 2>&1 ||
  { cat "$dir/apt-update.log" >&2; fail "apt-get update failed in the fresh root"; }
# The packages, and what a user building against them needs.  Named one by
# one, no recommends: a bare root has nothing else.
apt-get -q install -y --no-install-recommends "$dir"/*.deb \
    gcc libc6-dev pkgconf cmake make >"$dir/apt-install.log" 2>&1 ||
  { tail -n 30 "$dir/apt-install.log" >&2; fail "apt-get install of the packages failed"; }
say "installed: $(dpkg-query -W -f='${Package} ' 'libopengpa*' 'opengpa*')"

# The command.
opengpa --version >"$dir/version.txt" || fail "opengpa --version failed"
opengpa list >"$dir/list.txt" 2>&1 || { cat "$dir/list.txt" >&2; fail "opengpa list failed"; }
grep -q "counters on" "$dir/list.txt" || { cat "$dir/list.txt" >&2; fail "opengpa list printed no counters"; }
say "opengpa list: $(grep -c . "$dir/list.txt") lines"

# Where GPA's file names are: pkg-config says, and they are there.
gpadir=$(pkg-config --variable=gpadir opengpa)
[ -n "$gpadir" ] || fail "opengpa.pc names no gpadir"
for name in libGPUPerfAPIGL.so libGPUPerfAPIGLES.so libGPUPerfAPICL.so libGPUPerfAPIHSA.so; do
  [ -e "$gpadir/$name" ] || fail "$gpadir/$name missing (libopengpa1 installs GPA's names there)"
done
# ...and only there: not in the public library directory, where AMD's GPA
# puts the same names.
libdir=$(pkg-config --variable=libdir opengpa)
if ls "$libdir"/libGPUPerfAPI* >/dev/null 2>&1; then
  fail "GPA's file names are in $libdir: $(ls "$libdir"/libGPUPerfAPI*)"
fi

work=$(mktemp -d)
# A GPA 2.x tool: dlopen of a GPA file name, dlsym of each function.
cc -std=c11 -D_GNU_SOURCE -Wall -Werror -o "$work/gpa-guide" "$dir/gpa-guide.c" $(pkg-config --cflags opengpa) -ldl
(cd "$work" && OPENGPA_BACKEND=perf LD_LIBRARY_PATH=$gpadir ./gpa-guide --frames 3 \
   --library libGPUPerfAPIGL.so --csv "$work/by-name.csv") >"$work/guide.log" 2>&1 ||
  { cat "$work/guide.log" >&2; fail "GPA 2.x tool: loading libGPUPerfAPIGL.so through LD_LIBRARY_PATH=$gpadir failed"; }
(cd "$work" && OPENGPA_BACKEND=perf ./gpa-guide --frames 3 --library "$gpadir/libGPUPerfAPIGL.so" \
   --csv "$work/by-path.csv") >>"$work/guide.log" 2>&1 ||
  { cat "$work/guide.log" >&2; fail "GPA 2.x tool: loading $gpadir/libGPUPerfAPIGL.so by path failed"; }
[ "$(wc -l <"$work/by-name.csv")" -gt 3 ] || fail "GPA 2.x tool wrote no samples"
say "GPA 2.x tool (gpa-guide): loaded by name and by path, $(($(wc -l <"$work/by-name.csv") - 1)) lines of results"

# A GPA 3.x client: GpaGetFuncTable, sessions, command lists.
cc -std=c11 -D_GNU_SOURCE -Wall -Werror -o "$work/gpa3-client" "$dir/gpa3-client/gpa3-client.c" "$dir/common/client.c" \
  -I"$dir/common" $(pkg-config --cflags opengpa-gpa3) -ldl
OPENGPA_BACKEND=perf LD_LIBRARY_PATH=$gpadir "$work/gpa3-client" --library libGPUPerfAPIGL.so --verify \
  --frames 3 --counters TaskClock,PageFaults,ContextSwitches --expect-min PageFaults=64 \
  >"$work/gpa3.log" 2>&1 || { cat "$work/gpa3.log" >&2; fail "GPA 3.x client (GpaGetFuncTable) failed"; }
say "GPA 3.x client: $(grep -c PageFaults "$work/gpa3.log") PageFaults results"

# pkg-config and CMake builds against the installed tree (find_package(OpenGPA)).
bash "$dir/install/build-clients.sh" / || fail "building a client against the packages failed"

# Every docs/ file a manual page cites is installed by opengpa-doc.
docdir=/usr/share/doc/opengpa-doc
missing=0
for page in /usr/share/man/man1/opengpa*.1.gz /usr/share/man/man3/opengpa.3.gz; do
  # (Not in roff comments: those name the page's source, docs/man/*.txt.)
  for cited in $(zcat "$page" | grep -v '^[.'"'"']\\"' |
                 grep -o 'docs/[A-Za-z0-9_./-]*[A-Za-z0-9_/]' | sort -u); do
    [ -e "$docdir/$cited" ] || { echo "in-debian-root: $page cites $cited; $docdir/$cited is missing" >&2; missing=1; }
  done
done
[ $missing -eq 0 ] || fail "manual pages cite documentation opengpa-doc does not install"
say "manual pages: every docs/ file cited is in $docdir"
rm -rf "$work"
say "all checks passed"
