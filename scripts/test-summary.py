#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The one closing line of scripts/test.sh and scripts/cross-test.sh:
#   tests: N passed, N failed, N skipped
#
# usage: test-summary.py [RESULT...] -- LOG...
# Each LOG is a meson testlog.json; each RESULT one more check the script
# ran itself (the install check, the Debian packages): "0" passed, "skip"
# skipped, anything else failed.
import json
import sys

args = sys.argv[1:]
split = args.index("--") if "--" in args else 0
results, logs = args[:split], args[split + 1:] if "--" in args else args
passed = failed = skipped = 0
for path in logs:
    with open(path) as log:
        for line in log:
            result = json.loads(line)["result"]
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
for extra in results:
    if extra == "0":
        passed += 1
    elif extra == "skip":
        skipped += 1
    else:
        failed += 1
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
