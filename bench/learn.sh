#!/usr/bin/env bash
# Benchmark `jp-policy learn` against the bare run of the same workflow,
# and `jp-policy exec --denials` against `jp-policy exec`, in one hyperfine
# run, on the README's install build. The goals are at most 3x and 2x.
# Writes its section of bench/RESULTS.md.
#
#   bench/learn.sh [RUNS]     (default 10 runs per command)
#
# Workflows: a Python script reading src/ and writing out/ (the README's
# walkthrough), `go build` of a small module with a warm build cache, a
# `git commit`, and a shell loop that creates, renames and removes 200
# files (the system-call-heavy case: every file call stops the tracer).
set -euo pipefail

. "$(dirname "$0")/results.sh"
runs=${1:-10}
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
bench_install "$tmp/bin"
BENCH_BUILD=$(bench_build_desc "$tmp/bin/jp-policy")
jp=$tmp/bin/jp-policy

ws=$tmp/ws
mkdir -p "$ws/.jp" "$ws/src" "$ws/scripts" "$ws/mod"
printf '[conversation.tools.t]\nsource = "local"\ncommand = "true"\n' > "$ws/.jp/config.toml"
for i in $(seq 1 50); do echo "row,$i" >> "$ws/src/data.csv"; done
cat > "$ws/scripts/report.py" <<'PY'
import os
rows = open("src/data.csv").read().splitlines()
os.makedirs("out", exist_ok=True)
with open("out/report.txt", "w") as f:
    f.write("%d rows\n" % len(rows))
PY
cat > "$ws/mod/go.mod" <<'GO'
module example.com/m

go 1.22
GO
cat > "$ws/mod/main.go" <<'GO'
package main

import (
	"fmt"
	"strings"
)

func main() { fmt.Println(strings.ToUpper("hi")) }
GO
(cd "$ws" && git init -q && git config user.email b@example.com && git config user.name bench && git add -A && git commit -qm init)
(cd "$ws/mod" && go build -o /dev/null .) # warm the build cache

learn() { echo "$jp learn -t t -- $*"; }
declare -a cmds
add() { # NAME CMD: the bare run and the learn run of CMD
  cmds+=(-n "$1, bare" "$2" -n "$1, learn" "$(learn "$2")")
}
add "python report" "python3 scripts/report.py"
add "go build" "sh -c 'cd mod && go build -o /dev/null .'"
add "git commit" "sh -c 'date +%s%N > stamp && git add stamp && git commit -qm x'"
add "200 files" "sh -c 'mkdir -p d && for i in \$(seq 200); do echo \$i > d/\$i; mv d/\$i d/\$i.x; rm d/\$i.x; done'"

# exec and exec --denials under the policy learn proposes for the
# workflows that need nothing outside the workspace and the baseline
# (the system python3 and git).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
files="sh -c 'mkdir -p d && for i in \$(seq 200); do echo \$i > d/\$i; mv d/\$i d/\$i.x; rm d/\$i.x; done'"
commit="sh -c 'date +%s%N > stamp && git add stamp && git commit -qm x'"
(cd "$ws" && "$jp" learn -t t --write -- $py scripts/report.py >/dev/null 2>&1 &&
  eval "\"$jp\" learn -t t --write -- $commit" >/dev/null 2>&1 &&
  eval "\"$jp\" learn -t t --write -- $files" >/dev/null 2>&1 &&
  "$jp" compile --no-input --accept-widening >/dev/null)
cmds+=(-n "python report, exec" "$jp exec -t t -- $py scripts/report.py"
  -n "python report, exec --denials" "$jp exec --denials -t t -- $py scripts/report.py"
  -n "git commit, exec" "$jp exec -t t -- $commit"
  -n "git commit, exec --denials" "$jp exec --denials -t t -- $commit"
  -n "200 files, exec" "$jp exec -t t -- $files"
  -n "200 files, exec --denials" "$jp exec --denials -t t -- $files")

(cd "$ws" && hyperfine --style basic --runs "$runs" --warmup 2 --export-json "$tmp/learn.json" "${cmds[@]}")

{
  echo "Each workflow bare and under \`jp-policy learn -t t -- CMD\` ($runs runs, 2 warm-up runs):"
  echo
  bench_table "$tmp/learn.json" ms
  echo
  echo "Ratios (learn / bare and exec --denials / exec, medians; goals at most 3x and 2x;"
  echo "the CPU time's ratio, user + sys, moves less on a shared machine):"
  echo
  python3 - "$tmp/learn.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
cpu = lambda r: r["user"] + r["system"]
for base, traced in zip(res[0::2], res[1::2]):
    print(f"- {traced['command']}: {traced['median'] / base['median']:.2f}x (CPU {cpu(traced) / cpu(base):.2f}x)")
PY
} > "$tmp/body.md"
bench_results bench/learn.sh "bench/learn.sh $runs" "$tmp/body.md"
