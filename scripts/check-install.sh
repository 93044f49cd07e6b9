#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks an installed tree (DESTDIR) has what GPA clients and builds look for.
set -euo pipefail
root=$1
# (-xdev: ROOT may be / of a Debian root, whose /proc and /sys are mounted.)
libdir=$(find "$root" -xdev -name 'libopengpa.so.1' -printf '%h\n' | head -n1)
[ -n "$libdir" ] || { echo "check-install: libopengpa.so.1 not installed" >&2; exit 1; }
fail=0
# GPA's file names, in their own directory (LIBDIR/opengpa/gpa), not in the
# libdir, where AMD's GPA puts the same names (docs/building.md, "Installing").
for alias in libGPUPerfAPIGL.so libGPUPerfAPIGLES.so libGPUPerfAPICL.so libGPUPerfAPIHSA.so; do
  target=$(readlink "$libdir/opengpa/gpa/$alias" || true)
  if [ "$target" != "../../libopengpa.so.1" ] || [ ! -e "$libdir/opengpa/gpa/$alias" ]; then
    echo "check-install: opengpa/gpa/$alias should point to ../../libopengpa.so.1, points to" \
         "'${target}'" >&2
    fail=1
  fi
  if [ -e "$libdir/$alias" ] || [ -L "$libdir/$alias" ]; then
    echo "check-install: $alias is in $libdir, where AMD's GPA installs it: only opengpa/gpa/" >&2
    fail=1
  fi
done
for h in GPUPerfAPI.h GPUPerfAPITypes.h GPUPerfAPIFunctionTypes.h GPAFunctions.h opengpa.h \
         GPUPerfAPI-Private.h GPUPerfAPITypes-Private.h GPUPerfAPIFunctionTypes-Private.h \
         GPUPerfAPIOS.h GPUPerfAPI-HSA.h; do
  [ -f "$(find "$root" -xdev -path "*/include/opengpa/$h" | head -n1)" ] ||
    { echo "check-install: header $h missing" >&2; fail=1; }
done
for v in 3 4; do
  for h in gpu_perf_api.h gpu_perf_api_types.h gpu_perf_api_function_types.h gpu_perf_api_functions.h; do
    [ -f "$(find "$root" -xdev -path "*/include/opengpa/gpa$v/gpu_performance_api/$h" | head -n1)" ] ||
      { echo "check-install: GPA $v.x header $h missing" >&2; fail=1; }
  done
  [ -n "$(find "$root" -xdev -name "opengpa-gpa$v.pc" | head -n1)" ] ||
    { echo "check-install: opengpa-gpa$v.pc missing" >&2; fail=1; }
done
[ -n "$(find "$root" -xdev -name opengpa.pc | head -n1)" ] || { echo "check-install: opengpa.pc missing" >&2; fail=1; }
for f in OpenGPAConfig.cmake OpenGPAConfigVersion.cmake; do
  [ -n "$(find "$root" -xdev -path "*/cmake/OpenGPA/$f" | head -n1)" ] || { echo "check-install: $f missing" >&2; fail=1; }
done
[ -n "$(find "$root" -xdev -path '*/bin/opengpa' | head -n1)" ] || { echo "check-install: opengpa command missing" >&2; fail=1; }
for page in man1/opengpa.1 man1/opengpa-stat.1 man1/opengpa-list.1 man1/opengpa-pc_sweep.1 man1/opengpa-spe.1 man3/opengpa.3; do
  [ -n "$(find "$root" -xdev -path "*/man/$page" -o -path "*/man/$page.gz" | head -n1)" ] || { echo "check-install: man page $page missing" >&2; fail=1; }
done
soname=$("${OBJDUMP:-objdump}" -p "$libdir/libopengpa.so.1" | awk '/SONAME/ {print $2}')
[ "$soname" = "libopengpa.so.1" ] || { echo "check-install: soname is '$soname'" >&2; fail=1; }
# A program built against the tree as users build: pkg-config and CMake.
if [ $fail -eq 0 ] && ! bash "$(dirname "$0")/../tests/install/build-clients.sh" "$root"; then
  echo "check-install: building a client against the installed tree failed" >&2
  fail=1
fi
if [ $fail -eq 0 ]; then
  echo "check-install: 1 passed, 0 failed"
else
  echo "check-install: 0 passed, 1 failed"
fi
exit $fail
