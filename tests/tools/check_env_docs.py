#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every OPENGPA_ variable the library reads is documented in
docs/man/environment.txt (opengpa(1) and opengpa(3) include it), and every
documented one is read somewhere.

usage: check_env_docs.py SOURCE_ROOT
"""
import os
import re
import sys

root = sys.argv[1]
read = set()
for top in ("lib", "backends"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            if name.endswith((".c", ".h")):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    read |= set(re.findall(r'getenv\("(OPENGPA_[A-Z0-9_]+)"\)', f.read()))
                    f.seek(0)
                    read |= set(re.findall(r'setting\([^,]+, "(OPENGPA_[A-Z0-9_]+)"', f.read()))
                    f.seek(0)
                    read |= set(re.findall(r'env_true\("(OPENGPA_[A-Z0-9_]+)"\)', f.read()))
                    f.seek(0)  # lib/core/context.c's one walk of the environment
                    read |= set(re.findall(r'\{ "(OPENGPA_[A-Z0-9_]+)", offsetof\(struct open_env',
                                           f.read()))
with open(os.path.join(root, "docs", "man", "environment.txt"), encoding="utf-8") as f:
    documented = set(re.findall(r"^(OPENGPA_[A-Z0-9_]+)$", f.read(), re.M))
missing, stale = sorted(read - documented), sorted(documented - read)
for v in missing:
    print("FAIL: the library reads %s; document it in docs/man/environment.txt" % v)
for v in stale:
    print("FAIL: docs/man/environment.txt documents %s, which nothing reads" % v)
print("%d variables, %d undocumented, %d stale" % (len(read), len(missing), len(stale)))
sys.exit(1 if missing or stale or not read else 0)
