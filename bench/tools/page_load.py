#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long opengpa's HTML report takes to load in headless Chromium
(results and the command in docs/performance.md, "Timelines").

usage: page_load.py PAGE.html [RUNS]

Opens the page RUNS times (3) with a fresh profile, at #selftest (the page
zooms, pans, toggles and searches by itself), and prints what the page
recorded on its <html> element: data-load-ms (navigation start to
DOMContentLoaded: reading the file and running every interval's script),
data-render-ms (drawing the open groups' charts), data-zoom-ms (one
zoom, every drawn chart redrawn), data-open-all-ms (every group opened and
drawn), with the page's size.  Chromium's own
start and --dump-dom's serialisation of the page are not the reader's
wait and are reported apart, as the run's wall time.  Not run by meson test."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    page = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("no chromium here: apt-get install chromium")
    print("%s: %.1f MB" % (page, os.path.getsize(page) / 1e6))
    for _ in range(runs):
        profile = tempfile.mkdtemp()
        t0 = time.monotonic()
        r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
                            "--dump-dom", "file://" + page + "#selftest"],
                           capture_output=True, text=True, timeout=600)
        wall = time.monotonic() - t0
        shutil.rmtree(profile, ignore_errors=True)
        head = re.search(r"<html[^>]*>", r.stdout)
        attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', head.group(0))) if head else {}
        print("load %s ms, render %s ms, zoom %s ms, open all %s ms (%s; selftest: %s); "
              "chromium ran %.1f s"
              % (attrs.get("load-ms", "?"), attrs.get("render-ms", "?"),
                 attrs.get("zoom-ms", "?"), attrs.get("open-all-ms", "?"),
                 attrs.get("rendered", "?"),
                 attrs.get("selftest", "?"), wall))


main()
