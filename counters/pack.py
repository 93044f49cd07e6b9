#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Packs counter files into the counter-set data file (lib/catalog/datafile.h).

usage: pack.py OUTPUT FILE.counters...

The sets a build does not carry (-Dcounter_sets, docs/building.md) go into
this one file, installed beside the library; the library maps it read-only
and parses a set's text with the same reader as any counter file when a
device needs it.  Only packs bytes: the format is described, and checked,
in lib/catalog/datafile.h and datafile.c (one reader).

Layout, every number little-endian:
  header (32 bytes): magic "OGPASETS", u32 version 1, u32 set count,
    u32 index size, u32 0, u64 index hash (FNV-1a 64 of the header's first
    24 bytes then the index);
  index: per set, in name order, u32 name offset, u32 name length,
    u32 text offset, u32 text length, u64 text hash (FNV-1a 64 of the text),
    u64 0; then the names, each followed by a NUL;
  the texts, each followed by a NUL.
Offsets count from the start of the file.
"""
import os
import struct
import sys

MAGIC = b"OGPASETS"
VERSION = 1
HEADER = 32
RECORD = 32


def fnv1a64(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def pack(inputs):
    sets = []
    for path in inputs:
        name = os.path.basename(path)
        if not name.endswith(".counters"):
            sys.exit(f"pack.py: {path}: not a .counters file")
        with open(path, "rb") as f:
            text = f.read()
        if b"\0" in text:
            sys.exit(f"pack.py: {path}: holds a NUL byte")
        sets.append((name[:-len(".counters")].encode(), text))
    sets.sort()
    names = b"".join(n + b"\0" for n, _ in sets)
    index_size = RECORD * len(sets) + len(names)
    text_at = HEADER + index_size
    records, texts = b"", b""
    name_at = HEADER + RECORD * len(sets)
    for name, text in sets:
        records += struct.pack("<IIIIQQ", name_at, len(name), text_at + len(texts), len(text),
                               fnv1a64(text), 0)
        name_at += len(name) + 1
        texts += text + b"\0"
    head = MAGIC + struct.pack("<III", VERSION, len(sets), index_size)
    head += struct.pack("<I", 0)
    index = records + names
    return head + struct.pack("<Q", fnv1a64(index, fnv1a64(head))) + index + texts


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = pack(sys.argv[2:])
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, sys.argv[1])


if __name__ == "__main__":
    main()
