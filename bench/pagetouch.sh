#!/usr/bin/env bash
# What a first touch of fresh memory costs here, on 4 KB pages and on a
# transparent huge page, and what MADV_COLLAPSE costs: the measurement
# behind internal/earlyheap (docs/lint.md, "Huge pages for the heap").
#
#   bench/pagetouch.sh [ROUNDS]
#
# Builds bench/pagetouch/pagetouch.c with the system compiler. Linux only.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/pagetouch" "$repo/bench/pagetouch/pagetouch.c"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
"$tmp/pagetouch" "${1:-9}"
