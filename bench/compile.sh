#!/usr/bin/env bash
# Benchmark `jp-policy compile` on generated workspaces of 1,000 and
# 10,000 local tools (10 fs rules each, plus net and env rules: package
# internal/benchws, the shape the compiler's Go benchmarks use too),
# against a floor measured in the same hyperfine run: `cp -r` of the
# artifact compile wrote, one syncfs (`sync -f`) and `rm -rf` of the copy,
# i.e. creating, making durable and removing the same files, which any
# compile that replaces its artifact must do. "compile" recompiles an
# unchanged workspace (every file of the previous artifact is reused);
# "edited" appends a comment to the config before each run, which changes
# the config's hash: only policy.json and the pin record it (the staleness
# inputs), so every per-tool file is still reused. CPU time (user + sys)
# and peak resident memory of one run of each come from /usr/bin/time -v:
# on a shared machine they move much less than wall-clock time. Runs on
# the README's install build (`go install ./cmd/...`). Writes its section
# of bench/RESULTS.md. Linux only.
#
#   bench/compile.sh [RUNS]        (RUNS for 1,000 tools; 10,000 gets 2)
set -euo pipefail

runs=${1:-5}
. "$(dirname "$0")/results.sh"
repo=$bench_repo
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
# Not beside the workspaces: the directory holding jp-policy is a
# protected path, and lint would report every grant below it.
bench_install "$tmp/bin"
BENCH_BUILD=$(bench_build_desc "$tmp/bin/jp-policy")
(cd "$repo" && go build -o "$tmp/genws" bench/genws.go)

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data"

compile() { echo "$tmp/bin/jp-policy compile --workspace $1 --no-input --accept-widening"; }
floor() { echo "sh -c 'cp -r $1/.jp/policy $tmp/copy && sync -f $tmp/copy && rm -rf $tmp/copy'"; }
edit() { echo "sh -c 'echo \# edited >> $1/.jp/config.toml'"; }

for n in 1000 10000; do
  "$tmp/genws" "$tmp/ws$n" "$n"
  $(compile "$tmp/ws$n") >/dev/null # first compile: the artifact the floor copies
done

hyperfine -N --warmup 1 --runs "$runs" --export-json "$tmp/r1k.json" >&2 \
  --prepare true --prepare "$(edit "$tmp/ws1000")" --prepare true \
  -n 'compile 1000' "$(compile "$tmp/ws1000")" -n 'edited 1000' "$(compile "$tmp/ws1000")" -n 'floor 1000' "$(floor "$tmp/ws1000")"
hyperfine -N --runs 2 --export-json "$tmp/r10k.json" >&2 \
  --prepare true --prepare "$(edit "$tmp/ws10000")" --prepare true \
  -n 'compile 10000' "$(compile "$tmp/ws10000")" -n 'edited 10000' "$(compile "$tmp/ws10000")" -n 'floor 10000' "$(floor "$tmp/ws10000")"

tv() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2} END {print u+s, m}' "$1"; }
for n in 1000 10000; do
  /usr/bin/time -v $(compile "$tmp/ws$n") 2>"$tmp/time$n" >/dev/null
  echo "# edited" >> "$tmp/ws$n/.jp/config.toml"
  /usr/bin/time -v $(compile "$tmp/ws$n") 2>"$tmp/timee$n" >/dev/null
  files=$(find "$tmp/ws$n/.jp/policy" -type f | wc -l)
  size=$(du -sm "$tmp/ws$n/.jp/policy" | cut -f1)
  echo "$n $(tv "$tmp/time$n") $(tv "$tmp/timee$n") $files $size" >> "$tmp/rss"
done
{
  echo "1,000 tools ($runs runs, 1 warm-up):"
  echo
  bench_table "$tmp/r1k.json" s
  echo
  echo "10,000 tools (2 runs):"
  echo
  bench_table "$tmp/r10k.json" s
  echo
  python3 - "$tmp/r1k.json" "$tmp/r10k.json" "$tmp/rss" <<'PY'
import json, sys
m = {}
for f in sys.argv[1:3]:
    for x in json.load(open(f))["results"]:
        m[x["command"]] = x["median"]
print("| ratio of medians | value |")
print("| --- | ---: |")
for n in (1000, 10000):
    print(f"| compile {n} / floor {n} | {m[f'compile {n}']/m[f'floor {n}']:.2f}× |")
    print(f"| edited {n} / floor {n} | {m[f'edited {n}']/m[f'floor {n}']:.2f}× |")
for k in ("compile", "edited", "floor"):
    print(f"| {k} 10000 / {k} 1000 (linear: 10×) | {m[f'{k} 10000']/m[f'{k} 1000']:.1f}× |")
print()
print("| tools | compile CPU [s] | compile peak RSS [MB] | edited CPU [s] | edited peak RSS [MB] | artifact files | artifact [MB] |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for line in open(sys.argv[3]):
    n, cpu, kb, ecpu, ekb, files, mb = line.split()
    print(f"| {n} | {float(cpu):.2f} | {int(kb)/1024:.0f} | {float(ecpu):.2f} | {int(ekb)/1024:.0f} | {files} | {mb} |")
PY
} > "$tmp/body.md"
bench_results "bench/compile.sh" "bench/compile.sh $runs" "$tmp/body.md"
cat "$tmp/body.md"
