#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""callgrind_vk.py — opengpa's own instructions per Vulkan sample, load-free.

Runs bench-apictx-vk under callgrind twice, collecting only inside
frame_opengpa (a frame of D draws with one GPA 3.x sample per draw, its
session, its reads), for 3 and for 6 frames; the difference is 3 frames in
steady state (the first frame's allocations cancel out).  Of it, opengpa's
own share is the cost of the calls from the bench into libopengpa less the
cost of the calls libopengpa makes into the Vulkan loader and driver
(lavapipe recording the timestamps, reading the query pool).

    bench/apictx/callgrind_vk.py BUILD_DIR [--draws D] [--keep DIR]

BUILD_DIR is a release build (meson setup BUILD -Dbuildtype=release).  The
two runs go side by side (two cores); each takes about a minute.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def parse(path):
    """(calls into libopengpa by entry point, cost inside the Vulkan libraries)."""
    names, objs = {}, {}

    def name(tab, tok):
        m = re.match(r'\((\d+)\)(?: (.*))?', tok)
        if not m:
            return tok
        if m.group(2) is not None:
            tab[m.group(1)] = m.group(2)
        return tab[m.group(1)]

    ob = cob = cfn = None
    pending = False
    into, out = {}, 0
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if pending:
                pending = False
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                callee = cob or ob or ''
                here = ob or ''
                if 'libopengpa' not in here and 'libopengpa' in callee:
                    into[cfn] = into.get(cfn, 0) + cost
                if 'libopengpa' in here and 'libvulkan' in callee:
                    out += cost
                cob = None
            elif line.startswith('ob='):
                ob = name(objs, line[3:])
            elif line.startswith('fn='):
                name(names, line[3:])
                cob = None
            elif line.startswith('cob='):
                cob = name(objs, line[4:])
            elif line.startswith('cfn='):
                cfn = name(names, line[4:])
            elif line.startswith('calls='):
                pending = True
    return into, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--draws', type=int, default=1000)
    ap.add_argument('--keep', help='keep the callgrind files in this folder')
    a = ap.parse_args()
    bench = os.path.join(a.build, 'bench', 'apictx', 'bench-apictx-vk')
    out_dir = a.keep or tempfile.mkdtemp(prefix='callgrind-vk-')
    os.makedirs(out_dir, exist_ok=True)
    env = dict(os.environ, OPENGPA_BACKEND=os.environ.get('OPENGPA_BACKEND', 'perf'))
    runs = {}
    for frames in (3, 6):
        path = os.path.join(out_dir, f'callgrind.{frames}')
        runs[frames] = (path, subprocess.Popen(
            ['valgrind', '--tool=callgrind', '--toggle-collect=frame_opengpa',
             f'--callgrind-out-file={path}', bench, '--frames', str(frames), '--rounds', '1',
             '--draws', str(a.draws)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for frames, (path, p) in runs.items():
        if p.wait() != 0:
            sys.exit(f'callgrind_vk: the run of {frames} frames failed (exit {p.returncode})')
    (i3, o3), (i6, o6) = parse(runs[3][0]), parse(runs[6][0])
    n = 3 * a.draws
    print(f'steady state, per sample ({n} samples: 6 frames less 3)')
    for fn in sorted(i6, key=lambda k: -(i6[k] - i3.get(k, 0))):
        d = (i6[fn] - i3.get(fn, 0)) / n
        if d >= 1:
            print(f'  {fn:28s} {d:8.0f}  (Vulkan driver calls included)')
    into = (sum(i6.values()) - sum(i3.values())) / n
    drv = (o6 - o3) / n
    print(f'into libopengpa {into:.0f}, of it in the Vulkan driver {drv:.0f}: '
          f'opengpa own {into - drv:.0f} instructions a sample')
    if not a.keep:
        for frames in runs:
            os.unlink(runs[frames][0])
        os.rmdir(out_dir)


if __name__ == '__main__':
    main()
