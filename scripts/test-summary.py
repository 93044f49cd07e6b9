#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The one closing line of scripts/test.sh and scripts/cross-test.sh:
#   tests: N passed, N failed, N skipped
# counted from meson's own log (testlog.json), plus the install check, whose
# result ("0" passed, anything else failed) is the second argument.
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
if len(sys.argv) > 2:
    if sys.argv[2] == "0":
        passed += 1
    else:
        failed += 1
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
