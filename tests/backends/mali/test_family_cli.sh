#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue #10's "done when": under LD_PRELOAD of the virtual device,
# `opengpa list --backend mali` and `opengpa stat --backend mali -- true`
# work for each of Mali-G31, G52, G57, G76, G78, G610, G710, G715, G720,
# G725, G1 and G71, on vinstr where a real driver still offers it (JM UK
# 11.39, CSF UK 1.20; forced with interface=vinstr on 128-value GPUs, which
# it cuts to 64) and on kinstr_prfcnt at JM UK 11.40 and CSF UK 1.21.
#
#   test_family_cli.sh OPENGPA LIBOPENGPA-VMALI.SO [PRELOAD_FIRST]
set -u
opengpa=$1
vmali=$2
first=${3:-}
failures=0

# name id cores-mask slices description
gpus=(
  "G31  0x7003 0x3    1 Mali-G31 MP2"
  "G52  0x7002 0x3    1 Mali-G52 MP2"
  "G57  0x9001 0x3F   2 Mali-G57 MC6"
  "G76  0x7001 0xFF   2 Mali-G76 MP8"
  "G78  0x9002 0xFFF  4 Mali-G78 MC12"
  "G71  0x6000 0xFF   2 Mali-G71 MP8"
  "G610 0xa007 0xF    1 Mali-G610 MC4"
  "G710 0xa002 0x3FF  2 Mali-G710 MC10"
  "G715 0xb002 0x7F   2 Mali-G715 MC7"
  "G720 0xc000 0xFFF  4 Mali-G720 MC12"
  "G725 0xd000 0xFFF  4 Mali-G725 MC12"
  "G1   0xe000 0x3FF  4 Mali G1-Ultra MC10"
)

run() { # label, then environment assignments, then the command
  local label=$1
  shift
  local out
  if ! out=$(env "$@" 2>&1); then
    echo "FAIL $label: exit status $?"
    echo "$out" | head -20
    failures=$((failures + 1))
    return 1
  fi
  printf '%s' "$out"
}

check() { # label, text, needle
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: output lacks '$3'"
    echo "$2" | head -20
    failures=$((failures + 1))
  fi
}

for g in "${gpus[@]}"; do
  read -r name id mask slices desc <<<"$g"
  case $id in
    0x6*|0x7*|0x9*) vinstr_uk=11.39; kinstr_uk=11.40; opts="" ;;
    0xa*) vinstr_uk=1.20; kinstr_uk=1.21; opts="" ;;
    *) vinstr_uk=1.20; kinstr_uk=1.21; opts="interface=vinstr" ;;
  esac
  for iface in vinstr kinstr_prfcnt; do
    uk=$vinstr_uk
    o=$opts
    if [ "$iface" = kinstr_prfcnt ]; then uk=$kinstr_uk; o=""; fi
    envs=("LD_PRELOAD=$first$vmali" "VMALI_GPU_ID=$id" "VMALI_UK=$uk" "VMALI_CORE_MASK=$mask"
          "VMALI_L2_SLICES=$slices" "OPENGPA_LOG=message")
    args=(--backend mali)
    [ -n "$o" ] && args+=("--options=$o")
    label="$name $iface (UK $uk)"
    if out=$(run "$label list" "${envs[@]}" "$opengpa" list "${args[@]}"); then
      check "$label list" "$out" "counters on $desc (mali backend)"
      check "$label list" "$out" "counters through $iface"
    fi
    if out=$(run "$label stat" "${envs[@]}" "$opengpa" stat "${args[@]}" -- true); then
      check "$label stat" "$out" "Counter stats for 'true' on $desc (mali backend"
      check "$label stat" "$out" "counters through $iface"
      check "$label stat" "$out" "GPUActiveCycles"
    fi
    echo "ok $label"
  done
done
[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
