#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's C snippet compiles, runs and prints a counted value: the
snippet is taken from README.md as it is, put in a main() with a work()
that touches fresh memory, and built against the library of this build.

usage: test_readme_snippet.py README.md INCLUDE_DIR LIBRARY CC
"""
import os
import re
import subprocess
import sys
import tempfile

readme, include, library, cc = sys.argv[1:5]
text = open(readme, encoding="utf-8").read()
m = re.search(r"```c\n(.*?)```", text, re.S)
if not m:
    print("FAIL: README.md has no C snippet")
    sys.exit(1)
body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
body = "\n".join(l for l in body.splitlines() if not l.startswith("#include"))
program = ("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
           "#include <GPUPerfAPI.h>\n"
           "static void work(void) { size_t n = 8u << 20; char *p = malloc(n);"
           " if (p) { memset(p, 1, n); free(p); } }\n"
           "int main(void) {\n" + body + "\nreturn 0;\n}\n")
with tempfile.TemporaryDirectory() as tmp:
    src, exe = os.path.join(tmp, "snippet.c"), os.path.join(tmp, "snippet")
    open(src, "w").write(program)
    r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", include, src, library,
                        "-Wl,-rpath," + os.path.dirname(library), "-o", exe],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: the README's snippet does not compile:\n" + r.stderr + program)
        sys.exit(1)
    env = dict(os.environ)
    env.pop("OPENGPA_BACKEND", None)
    r = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=60)
    if r.returncode != 0 and "ENOSYS" in r.stderr:
        print("SKIP: no perf_event_open here")
        sys.exit(77)
    m = re.fullmatch(r"PageFaults: (\d+)\n", r.stdout)
    if r.returncode != 0 or not m or int(m.group(1)) == 0:
        print("FAIL: the README's snippet printed %r (exit %d): %s" % (r.stdout, r.returncode,
                                                                       r.stderr))
        sys.exit(1)
    print("README snippet: %s" % r.stdout.strip())
