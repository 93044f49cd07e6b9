#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the shared library exports exactly the 40 GPA 2.x entry points
(include/GPAFunctions.h) and the OpenGPA_* functions declared in
include/opengpa.h, and nothing else.

usage: check_exports.py NM LIBRARY GPAFunctions.h opengpa.h
"""
import re
import subprocess
import sys


def main():
    nm, lib, functions_h, opengpa_h = sys.argv[1:5]
    with open(functions_h) as f:
        gpa = set(re.findall(r'^GPA_FUNCTION_PREFIX\((GPA_\w+)\)', f.read(), re.M))
    with open(opengpa_h) as f:
        ext = set(re.findall(r'^GPALIB_DECL\s+GPA_Status\s+(OpenGPA_\w+)\s*\(', f.read(), re.M))
    if len(gpa) != 40:
        print(f'{functions_h}: expected 40 entry points, found {len(gpa)}')
        return 1
    if not ext:
        print(f'{opengpa_h}: no OpenGPA_* declarations found')
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
    want = gpa | ext
    missing = sorted(want - exported)
    extra = sorted(exported - want)
    for name in missing:
        print(f'{lib}: missing export {name}')
    for name in extra:
        print(f'{lib}: unexpected export {name}')
    if missing or extra:
        return 1
    print(f'{lib}: exports exactly {len(gpa)} GPA_* and {len(ext)} OpenGPA_* functions')
    return 0


if __name__ == '__main__':
    sys.exit(main())
