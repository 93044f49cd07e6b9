#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the shared library exports exactly what its public headers
declare, and nothing else:

- the GPA 2.x entry points of include/GPAFunctions.h (40, and the 2
  internal-build ones under AMDT_INTERNAL) and include/GPUPerfAPI-Private.h;
- the GPA 4.3 entry points of include/gpa4/gpu_performance_api/
  gpu_perf_api_functions.h (72 Gpa* names), and GPA 3.0-3.7's
  GPA_GetFuncTable (include/gpa3/.../gpu_perf_api.h);
- the OpenGPA_* functions of include/opengpa.h.

usage: check_exports.py NM LIBRARY INCLUDE_DIR
"""
import os
import re
import subprocess
import sys


def names(path, pattern):
    with open(path) as f:
        return set(re.findall(pattern, f.read(), re.M))


def main():
    nm, lib, include = sys.argv[1:4]
    decl = r'^GPALIB_DECL\s.*?\b((?:GPA|OpenGPA)_\w+)\s*\('
    gpa = names(os.path.join(include, 'GPAFunctions.h'), r'^GPA_FUNCTION_PREFIX\((GPA_\w+)\)')
    private = names(os.path.join(include, 'GPUPerfAPI-Private.h'), decl)
    ext = names(os.path.join(include, 'opengpa.h'), decl)
    table = names(os.path.join(include, 'gpa4', 'gpu_performance_api', 'gpu_perf_api_functions.h'),
                  r'^GPA_FUNCTION_PREFIX\((Gpa\w+)\)')
    old_table = names(os.path.join(include, 'gpa3', 'gpu_performance_api', 'gpu_perf_api.h'),
                      r'^GPA_LIB_DECL\s.*?\b(GPA_\w+)\s*\(')
    expect = {'GPAFunctions.h': (gpa, 42), 'GPUPerfAPI-Private.h': (private, 4),
              'gpa4 gpu_perf_api_functions.h': (table, 72), 'gpa3 gpu_perf_api.h': (old_table, 1)}
    for header, (found, count) in expect.items():
        if len(found) != count:
            print(f'{header}: expected {count} entry points, found {len(found)}')
            return 1
    if not ext:
        print('opengpa.h: no OpenGPA_* declarations found')
        return 1
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    exported = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2].split('@')[0]
        # The version script's node is an absolute symbol, not code.
        if kind == 'A':
            continue
        exported.add(name)
    want = gpa | private | ext | table | old_table
    missing = sorted(want - exported)
    extra = sorted(exported - want)
    for name in missing:
        print(f'{lib}: missing export {name}')
    for name in extra:
        print(f'{lib}: unexpected export {name}')
    if missing or extra:
        return 1
    print(f'{lib}: exports exactly {len(gpa | private | old_table)} GPA_*, {len(table)} Gpa* '
          f'and {len(ext)} OpenGPA_* functions')
    return 0


if __name__ == '__main__':
    sys.exit(main())
