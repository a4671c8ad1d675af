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
# inputs), so every per-tool file is still reused. CPU time (user + sys),
# minor page faults and peak resident memory of one run of each come
# from /usr/bin/time -v: on a shared machine they move much less than
# wall-clock time. Linux only.
#
#   bench/compile.sh [RUNS]        (RUNS for 1,000 tools; 10,000 gets 2)
set -euo pipefail

runs=${1:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v hyperfine >/dev/null; then
  apt-get install -y hyperfine >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$tmp/jp-policy" ./cmd/jp-policy)
(cd "$repo" && go build -o "$tmp/genws" bench/genws.go)

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data"

compile() { echo "$tmp/jp-policy compile --workspace $1 --no-input --accept-widening"; }
floor() { echo "sh -c 'cp -r $1/.jp/policy $tmp/copy && sync -f $tmp/copy && rm -rf $tmp/copy'"; }
edit() { echo "sh -c 'echo \# edited >> $1/.jp/config.toml'"; }

for n in 1000 10000; do
  "$tmp/genws" "$tmp/ws$n" "$n"
  $(compile "$tmp/ws$n") >/dev/null # first compile: the artifact the floor copies
done

hyperfine -N --warmup 1 --runs "$runs" --export-json "$tmp/r1k.json" \
  --prepare true --prepare "$(edit "$tmp/ws1000")" --prepare true \
  -n 'compile 1000' "$(compile "$tmp/ws1000")" -n 'edited 1000' "$(compile "$tmp/ws1000")" -n 'floor 1000' "$(floor "$tmp/ws1000")"
hyperfine -N --runs 2 --export-json "$tmp/r10k.json" \
  --prepare true --prepare "$(edit "$tmp/ws10000")" --prepare true \
  -n 'compile 10000' "$(compile "$tmp/ws10000")" -n 'edited 10000' "$(compile "$tmp/ws10000")" -n 'floor 10000' "$(floor "$tmp/ws10000")"

tv() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} /Minor/ {f=$2} /Maximum resident/ {m=$2} END {print u+s, f, m}' "$1"; }
for n in 1000 10000; do
  /usr/bin/time -v $(compile "$tmp/ws$n") 2>"$tmp/time$n" >/dev/null
  echo "# edited" >> "$tmp/ws$n/.jp/config.toml"
  /usr/bin/time -v $(compile "$tmp/ws$n") 2>"$tmp/timee$n" >/dev/null
  files=$(find "$tmp/ws$n/.jp/policy" -type f | wc -l)
  size=$(du -sm "$tmp/ws$n/.jp/policy" | cut -f1)
  echo "$n $(tv "$tmp/time$n") $(tv "$tmp/timee$n") $files $size" >> "$tmp/rss"
done
uptime

python3 - "$tmp/r1k.json" "$tmp/r10k.json" "$tmp/rss" <<'PY'
import json, sys
m = {}
for f in sys.argv[1:3]:
    for x in json.load(open(f))["results"]:
        m[x["command"]] = x["median"]
print()
for n in (1000, 10000):
    c, e, f = m[f"compile {n}"], m[f"edited {n}"], m[f"floor {n}"]
    print(f"{n:6} tools: compile median {c:7.2f} s  edited {e:7.2f} s  floor {f:7.2f} s  compile / floor {c/f:5.2f}  edited / floor {e/f:5.2f}")
print(f"10,000 / 1,000 tools: compile {m['compile 10000']/m['compile 1000']:.1f}x, edited {m['edited 10000']/m['edited 1000']:.1f}x, floor {m['floor 10000']/m['floor 1000']:.1f}x (linear: 10x)")
for line in open(sys.argv[3]):
    n, cpu, faults, kb, ecpu, efaults, ekb, files, mb = line.split()
    print(f"{n:>6} tools: compile CPU {float(cpu):5.2f} s, {faults} page faults, peak resident {int(kb)/1024:4.0f} MB; "
          f"edited CPU {float(ecpu):5.2f} s, {efaults} page faults, peak resident {int(ekb)/1024:4.0f} MB; artifact {files} files, {mb} MB")
PY
