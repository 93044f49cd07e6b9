#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the facts of Arm's Mali counter database into tools/mali-spec/data.

usage: import.py SOURCE [DEST]

SOURCE is Arm's database folder: the `specification/database/` folder of
Arm's libGPUCounters (MIT licence), or a copy of it such as
../shared/data/mali-spec.  DEST defaults to tools/mali-spec/data beside this
script.  What generate.py and the test mali-gpus read is copied, and only
that:

    LICENSE.md              Arm's MIT licence, as it is
    Mali-ProductInfo.xml    product ids, names, architectures, layouts
    hardwarelayout/*.xml    the counter blocks of each layout
    counterinfo/*.xml       each counter's names, units, source or equation,
                            less Arm's <ShortDescription> and
                            <LongDescription> texts

The description texts are Arm's prose, which the project does not copy (its
counter files carry descriptions of its own) and which no generator reads.
Everything else, Arm's copyright headers included, is copied byte for byte;
a blank in a file name becomes '-' ("Mali G1.xml" -> "Mali-G1.xml").
Run it when Arm updates the database, then `generate.py` (docs/counter-files.md,
"Generated Mali sets").  Only Python 3's standard library is needed.
"""
import os
import re
import shutil
import sys

# An element of Arm's prose, with the blank it is indented by and its line end.
PROSE = re.compile(r"[ \t]*<(ShortDescription|LongDescription)>.*?</\1>[ \t]*\n?", re.S)


def local_name(entry):
    """Arm's "Mali G1.xml" is "Mali-G1.xml" here, as every other layout is named."""
    return entry.replace(" ", "-")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1]
    dest = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "data")
    for need in ("LICENSE.md", "Mali-ProductInfo.xml", "hardwarelayout", "counterinfo"):
        if not os.path.exists(os.path.join(src, need)):
            print("mali-spec import: %s has no %s: not Arm's database folder "
                  "(specification/database/ of libGPUCounters)" % (src, need), file=sys.stderr)
            return 1
    for sub in ("hardwarelayout", "counterinfo"):
        os.makedirs(os.path.join(dest, sub), exist_ok=True)
        # A file that left Arm's database leaves ours.
        theirs = {local_name(e) for e in os.listdir(os.path.join(src, sub))}
        for entry in os.listdir(os.path.join(dest, sub)):
            if entry not in theirs:
                os.remove(os.path.join(dest, sub, entry))
    shutil.copyfile(os.path.join(src, "LICENSE.md"), os.path.join(dest, "LICENSE.md"))
    shutil.copyfile(os.path.join(src, "Mali-ProductInfo.xml"),
                    os.path.join(dest, "Mali-ProductInfo.xml"))
    count = 2
    for entry in sorted(os.listdir(os.path.join(src, "hardwarelayout"))):
        if entry.endswith(".xml"):
            shutil.copyfile(os.path.join(src, "hardwarelayout", entry),
                            os.path.join(dest, "hardwarelayout", local_name(entry)))
            count += 1
    for entry in sorted(os.listdir(os.path.join(src, "counterinfo"))):
        if not entry.endswith(".xml"):
            continue
        with open(os.path.join(src, "counterinfo", entry), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(dest, "counterinfo", entry), "w", encoding="utf-8") as f:
            f.write(PROSE.sub("", text))
        count += 1
    print("mali-spec import: %d files from %s in %s" % (count, src, dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
