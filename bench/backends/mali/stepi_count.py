# SPDX-License-Identifier: MIT
# Counts the instructions one og_mali_sum_dump call executes, by class, in
# bench-mali's first timed sum (the copy a context uses, on the malloc'ed
# typical dump): valgrind runs no AVX-512, so callgrind cannot count the
# copy this CPU picks.  Single-steps under gdb:
#   gdb -batch -x bench/backends/mali/stepi_count.py \
#       --args build-rel/bench/backends/mali/bench-mali sum
import collections
import re

import gdb

gdb.execute("set pagination off")
gdb.execute("break og_mali_sum_dump")
gdb.execute("run")
gdb.execute("continue")  # the second call: the first touched every line once
ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
kinds = collections.Counter()
while int(gdb.parse_and_eval("$pc")) != ret:
    text = gdb.execute("x/i $pc", to_string=True).split(":", 1)[1].strip()
    mnemonic, _, operands = re.sub(r"\s+", " ", text).partition(" ")
    if not mnemonic.startswith(("v", "k")):
        kinds["scalar"] += 1
    elif "(" in operands.split(",")[-1] and not mnemonic.startswith("vpternlog"):
        kinds["vector store"] += 1  # AT&T: the destination is last
    elif "(" in operands:
        kinds["vector load" if mnemonic.startswith("vmovdq") else "vector load+op"] += 1
    elif mnemonic.startswith("vmovdqa"):
        kinds["vector register move"] += 1
    else:
        kinds["vector op"] += 1
    gdb.execute("stepi", to_string=True)
print("og_mali_sum_dump: %d instructions: %s"
      % (sum(kinds.values()), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
gdb.execute("kill")
