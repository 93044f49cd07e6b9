#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mutate.sh — plants one-line bugs (scripts/mutations.txt) in a scratch copy
# of the tree, one at a time, runs the tests after each and reports which
# the suite caught ("killed"), which it let through ("survived") and which did
# not build.  Never touches the working tree.  docs/testing.md, "Mutation testing".
#
#   bash scripts/mutate.sh [--tests "NAME ..."] [--timeout SECS] [--threshold PCT]
#                          [--list FILE] [--only ID,ID...] [--work DIR] [--jobs N]
#
# --work DIR   scratch copy and its build (default build-mutate/): kept between
#              runs, so a second run rebuilds only what changed.
# Exit status: 0 when killed / (killed + survived) >= threshold (default 90),
# 1 below it, 2 on a usage error, a broken list or a baseline that fails.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
list=$here/scripts/mutations.txt
tests=""
timeout_s=600
threshold=90
only=""
work=$here/build-mutate
jobs=2

while [ $# -gt 0 ]; do
	case $1 in
	--tests) tests=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--threshold) threshold=$2; shift 2 ;;
	--list) list=$(realpath "$2"); shift 2 ;;
	--only) only=,$2,; shift 2 ;;
	--work) work=$(realpath -m "$2"); shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	*) echo "mutate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -f "$list" ] || { echo "mutate.sh: no mutation list $list" >&2; exit 2; }

src=$work/src
build=$work/build
log=$work/log
mkdir -p "$src" "$log"
# The project expects its fact sheets and data at ../shared.
if [ -e "$here/../shared" ] && [ ! -e "$work/shared" ]; then
	ln -s "$(realpath "$here/../shared")" "$work/shared"
fi

# The scratch copy: every tracked and untracked-but-not-ignored file, mtimes
# kept, so an unchanged file never rebuilds.
echo "mutate: copying the tree to $src"
(cd "$here" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xpf - -C "$src"

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" -Dwerror=true -Dtests=enabled -Dbuildtype=debug >"$log/setup.txt" 2>&1 ||
		{ echo "mutate: meson setup failed, see $log/setup.txt" >&2; exit 2; }
fi

# shellcheck disable=SC2086
run_tests() { timeout --kill-after=10 "$timeout_s" \
	meson test -C "$build" --no-rebuild --num-processes "$jobs" --print-errorlogs $tests; }

# With --tests, only what those tests run and depend on is built (the
# library, the test programs and what meson lists as their dependencies):
# a first build and each mutant's rebuild skip the rest of the tree.
targets=""
if [ -n "$tests" ]; then
	targets=$(meson introspect "$build" --tests --targets | python3 -c '
import json, os, sys
build, names = sys.argv[1], set(sys.argv[2:])
info = json.load(sys.stdin)
tests, targets = info["tests"], info["targets"]
files = {t["id"]: t["filename"] for t in targets}
want = set()
for t in tests:
    if t["name"] in names:
        names.discard(t["name"])
        for dep in t["depends"]:
            want.update(files.get(dep, []))
if names:
    sys.exit("mutate: no test named " + ", ".join(sorted(names)))
print(" ".join(sorted(os.path.relpath(f, build) for f in want)))
' "$build" $tests) || { echo "mutate: cannot list what the tests need (see above)" >&2; exit 2; }
fi

echo "mutate: building the unmutated copy${targets:+ (what the tests need)}"
# shellcheck disable=SC2086
ninja -C "$build" $targets >"$log/build-baseline.txt" 2>&1 ||
	{ echo "mutate: the unmutated tree does not build, see $log/build-baseline.txt" >&2; exit 2; }
echo "mutate: running the tests on the unmutated copy${tests:+ ($tests)}"
t0=$(date +%s)
run_tests >"$log/tests-baseline.txt" 2>&1 ||
	{ echo "mutate: the tests fail without any mutation, see $log/tests-baseline.txt" >&2; exit 2; }
echo "mutate: baseline green in $(( $(date +%s) - t0 )) s"

# Applies or reverts mutation N of the list: prints the file it changed.
# Lines: ID <TAB> FILE <TAB> PATTERN <TAB> REPLACEMENT <TAB> WHY; \n and \t
# in PATTERN and REPLACEMENT stand for a newline and a tab.  PATTERN must
# occur exactly once in FILE.
apply() {
	python3 - "$list" "$src" "$1" <<'PY'
import os, sys
lst, src, want = sys.argv[1], sys.argv[2], sys.argv[3]
def unesc(s):
    return s.replace("\\n", "\n").replace("\\t", "\t")
for no, line in enumerate(open(lst, encoding="utf-8"), 1):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if len(f) != 5:
        sys.exit(f"{lst}:{no}: needs 5 tab-separated fields, has {len(f)}")
    if f[0] != want:
        continue
    path = os.path.join(src, f[1])
    text = open(path, encoding="utf-8").read()
    pat, rep = unesc(f[2]), unesc(f[3])
    n = text.count(pat)
    if n != 1:
        sys.exit(f"{lst}:{no}: mutant {want}: the pattern occurs {n} times in {f[1]}, not once")
    open(path + ".mutate-orig", "w", encoding="utf-8").write(text)
    open(path, "w", encoding="utf-8").write(text.replace(pat, rep))
    print(f[1])
    sys.exit(0)
sys.exit(f"{lst}: no mutant {want}")
PY
}

ids=$(awk -F'\t' '!/^#/ && NF >= 5 { print $1 }' "$list")
killed=0 survived=0 broken=0 invalid=0
report=$work/report.txt
: >"$report"
printf '%-6s %-12s %6s  %s\n' ID RESULT SECS WHY | tee -a "$report"
for id in $ids; do
	case $only in ""|*,"$id",*) ;; *) continue ;; esac
	why=$(awk -F'\t' -v id="$id" '$1 == id { print $5 }' "$list")
	start=$(date +%s)
	if ! file=$(apply "$id" 2>"$log/$id-apply.txt"); then
		result=invalid; invalid=$((invalid + 1))
	else
		# shellcheck disable=SC2086
		if ! ninja -C "$build" $targets >"$log/$id-build.txt" 2>&1; then
			result=build-failed; broken=$((broken + 1))
		elif run_tests >"$log/$id-tests.txt" 2>&1; then
			result=SURVIVED; survived=$((survived + 1))
		else
			result=killed; killed=$((killed + 1))
			grep -qE '^Timeout: +[1-9]' "$log/$id-tests.txt" && result=killed-timeout
		fi
		# Back to the original text, with a new mtime: ninja rebuilds it.
		mv "$src/$file.mutate-orig" "$src/$file"
		touch "$src/$file"
	fi
	printf '%-6s %-12s %6s  %s\n' "$id" "$result" "$(( $(date +%s) - start ))" "$why" | tee -a "$report"
done
# shellcheck disable=SC2086
ninja -C "$build" $targets >"$log/build-final.txt" 2>&1 || true

scored=$((killed + survived))
rate=0
[ "$scored" -gt 0 ] && rate=$((100 * killed / scored))
{
	echo "mutants: $((scored + broken + invalid)); killed $killed, survived $survived," \
	     "build-failed $broken, invalid $invalid"
	echo "kill rate: $rate % of $scored that built (threshold $threshold %)"
	echo "logs: $log; tests: ${tests:-the whole suite}"
} | tee -a "$report"
[ "$invalid" -eq 0 ] || exit 2
[ "$rate" -ge "$threshold" ] || exit 1
