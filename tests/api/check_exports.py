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

Each name must carry its version node of lib/opengpa.map as its default
version (NAME@@NODE): OPENGPA_1.0 for OpenGPA_*, OPENGPA_GPA2_1.0 for GPA_*,
OPENGPA_GPA3_1.0 for Gpa*; and those three nodes are all the library defines.

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
    out = subprocess.run([nm, '-D', '--defined-only', '--with-symbol-versions', lib],
                         check=True, capture_output=True, text=True).stdout
    exported = {}  # name -> what follows it ("@@NODE", "@NODE" or "")
    nodes = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, symbol = parts[1], parts[2]
        name, at, version = symbol.partition('@')
        # A version node is an absolute symbol, not code.
        if kind == 'A':
            nodes.add(name)
            continue
        exported[name] = at + version
    want = gpa | private | ext | table | old_table
    missing = sorted(want - exported.keys())
    extra = sorted(exported.keys() - want)
    for name in missing:
        print(f'{lib}: missing export {name}')
    for name in extra:
        print(f'{lib}: unexpected export {name}')
    node_of = {}
    for names_, node in ((gpa | private | old_table, 'OPENGPA_GPA2_1.0'),
                         (table, 'OPENGPA_GPA3_1.0'), (ext, 'OPENGPA_1.0')):
        node_of.update(dict.fromkeys(names_, node))
    wrong = sorted(n for n in want & exported.keys() if exported[n] != '@@' + node_of[n])
    for name in wrong:
        print(f'{lib}: {name} exported as {name}{exported[name] or " (unversioned)"}, '
              f'expected {name}@@{node_of[name]} (lib/opengpa.map)')
    if nodes != set(node_of.values()):
        print(f'{lib}: version nodes {sorted(nodes)}, expected {sorted(set(node_of.values()))}')
        wrong.append('nodes')
    # No constructor that runs at every load: libgcc's CPU detection
    # (__builtin_cpu_supports links __cpu_indicator_init, about ten CPUIDs,
    # each a trap to the hypervisor in a VM) cost a third of dlopen's time;
    # backends/mali/mali_vec.h asks CPUID itself, lazily (issue 29).
    local = subprocess.run([nm, lib], capture_output=True, text=True).stdout
    if '__cpu_indicator_init' in local:
        print(f'{lib}: links libgcc\'s __cpu_indicator_init (a __builtin_cpu_supports or '
              f'__builtin_cpu_init somewhere): use mali_vec.h\'s og_cpu_vec_features')
        wrong.append('__cpu_indicator_init')
    if missing or extra or wrong:
        return 1
    print(f'{lib}: exports exactly {len(gpa | private | old_table)} GPA_*, {len(table)} Gpa* '
          f'and {len(ext)} OpenGPA_* functions, each under its version node')
    return 0


if __name__ == '__main__':
    sys.exit(main())
