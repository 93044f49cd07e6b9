#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the library weighs and what starting `opengpa stat` costs (issue 29).

usage: bench/light/light.py BUILD_DIR [BUILD_DIR...] [ROUNDS]

Several build directories (a baseline beside this one) alternate in every
round.  Prints, all measured in this one run:
  * libopengpa.so: file size, relocations (relative ones and all), the size of
    .data.rel.ro (data the loader must write at load: pointers), the
    libraries it needs, its init_array entries (constructors, frame_dummy
    among them) and the size of its counter-set data file, if the build
    made one (-Dcounter_sets);
  * dlopen(RTLD_NOW) of libopengpa against libzstd (a library every Linux
    system has, of about the same file size): CPU time and the resident memory
    it adds, each the cheapest of ROUNDS fresh processes, the two alternating;
  * `opengpa stat -- true` against `perf stat -- true` and against `true`
    alone (the floor: starting a process), CPU time (user + system, of the
    child and what it waits for) from wait4, the cheapest of ROUNDS each,
    alternating, and the median and range of the per-round ratios
    (stat_cost.py, which also runs alone and measures `stat -I 10`).
CPU time, not wall time, so that another process taking the CPU inflates
neither side; the cheapest round, because preemption only ever adds.
"""
import os
import re
import shutil
import subprocess
import sys


def footprint(lib):
    size = os.path.getsize(lib)
    rel = subprocess.run(["readelf", "-r", "-W", lib], capture_output=True, text=True,
                         check=True).stdout
    relative = len(re.findall(r"R_\w+_RELATIVE", rel))
    total = len(re.findall(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+R_", rel, re.M))
    sections = subprocess.run(["readelf", "-S", "-W", lib], capture_output=True, text=True,
                              check=True).stdout
    relro = 0
    for line in sections.splitlines():
        m = re.search(r"\.data\.rel\.ro\s+\w+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            relro = int(m.group(1), 16)
    print(f"{lib}: {size / 1e6:.2f} MB, {relative} relative relocations "
          f"({total} in all), .data.rel.ro {relro / 1024:.0f} KiB")
    # What else a load pays for: each library it needs that the process
    # has not loaded (libm alone cost as much as libzstd's whole load), and
    # each constructor (libgcc's CPUID one cost 80 us on a VM).
    dynamic = subprocess.run(["readelf", "-d", "-W", lib], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic)
    init = re.search(r"\(INIT_ARRAYSZ\)\s+(\d+)", dynamic)
    ptr = 8 if "ELF64" in subprocess.run(["readelf", "-h", lib], capture_output=True,
                                          text=True, check=True).stdout else 4
    ctors = int(init.group(1)) // ptr if init else 0
    # What a load maps (PT_LOAD sizes): the file also holds debug information.
    segments = subprocess.run(["readelf", "-l", "-W", lib], capture_output=True, text=True,
                              check=True).stdout
    mapped = sum(int(m.group(1), 16) for m in
                 re.finditer(r"^\s*LOAD\s+\S+\s+\S+\s+\S+\s+\S+\s+(0x[0-9a-f]+)", segments, re.M))
    # MIPS relocates its GOT without relocation records: local entries
    # (each an address the loader adds the load address to) and global
    # ones (each a symbol looked up).
    gotno = re.search(r"\(MIPS_LOCAL_GOTNO\)\s+(\d+)", dynamic)
    if gotno:
        symtabno = re.search(r"\(MIPS_SYMTABNO\)\s+(\d+)", dynamic)
        gotsym = re.search(r"\(MIPS_GOTSYM\)\s+(0x[0-9a-f]+|\d+)", dynamic)
        globals_ = (int(symtabno.group(1)) - int(gotsym.group(1), 0)
                    if symtabno and gotsym else 0)
        print(f"  MIPS GOT: {gotno.group(1)} local entries, {globals_} global")
    datafile = os.path.join(os.path.dirname(lib), "opengpa", "counter-sets.dat")
    extra = (f", data file {os.path.getsize(datafile) / 1e6:.2f} MB (sets not built in)"
             if os.path.exists(datafile) else "")
    print(f"  maps {mapped / 1e6:.2f} MB; needs {', '.join(needed)}; {ctors} init_array "
          f"entries{extra}")


def dlopen_cost(probe, lib):
    out = subprocess.run([probe, lib], capture_output=True, text=True, check=True).stdout
    ns, kib = out.split()
    return float(ns), int(kib)


def main():
    args = sys.argv[1:]
    rounds = 30
    if args and args[-1].isdigit():
        rounds = int(args.pop())
    if not args:
        sys.exit(__doc__)
    builds = args
    libs = [os.path.realpath(os.path.join(b, "lib", "libopengpa.so")) for b in builds]
    for lib in libs:
        footprint(lib)

    zstd = None
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if os.path.exists(os.path.join(d, "libzstd.so.1")):
            zstd = os.path.join(d, "libzstd.so.1")
            break
    probe = os.path.join(builds[-1], "bench", "light", "bench-dlopen")
    if zstd:
        best = {lib: [1e18, 1 << 40] for lib in libs + [zstd]}
        for _ in range(rounds):
            for which in best:
                ns, kib = dlopen_cost(probe, which)
                best[which][0] = min(best[which][0], ns)
                best[which][1] = min(best[which][1], kib)
        z_ns, z_kib = best[zstd]
        print(f"dlopen (best of {rounds} each, alternating): libzstd {z_ns / 1e3:.0f} us, "
              f"+{z_kib} KiB RSS")
        for b, lib in zip(builds, libs):
            a_ns, a_kib = best[lib]
            print(f"  {b}: libopengpa {a_ns / 1e3:.0f} us ({a_ns / z_ns:.1f}x libzstd), "
                  f"+{a_kib} KiB RSS")
    else:
        print("dlopen: skipped (no libzstd.so.1 here to compare with)")

    perf = shutil.which("perf")
    if not perf:
        print("stat: skipped (no perf here: install linux-perf to compare with)")
        return
    # stat_cost.py beside this file: per-round ratios, median and range
    # (with --interval it also measures opengpa stat -I 10 per interval).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import stat_cost
    stat_cost.stat_true(builds, rounds, perf)

if __name__ == "__main__":
    main()
