#!/usr/bin/env bash
# Benchmark `jp-policy exec` against `/bin/true` run bare, the two floors
# (bench/floor: a minimal static C Landlock launcher and a minimal Go one,
# the least any Go launcher can cost), go-landlock's landlock-restrict
# and bubblewrap, on the README's install build (`go install ./cmd/...`).
# jp-policy runs on a 1-tool, a 1,000-tool and a 10,000-tool workspace
# (exec must not grow with the workspace), on a read-only tool (the fast
# path without any flag), and on a tool that writes the workspace (the
# namespaced path).
# Writes its section of bench/RESULTS.md.
#
#   bench/exec.sh [RUNS]     (ROUNDS=5: RUNS split over 5 hyperfine rounds)
#
# The writing tool has 10 fs rules (a read-write workspace narrowed
# around .env and three read-only directories, plus read-only and
# read-write siblings), net denied, env isolation and the system
# baseline; the fast-path rows force it onto the fast path with
# `--no-namespaces --best-effort`. landlock-restrict gets the same
# workspace paths and the baseline paths that exist here. Linux only.
set -euo pipefail

runs=${1:-300}
. "$(dirname "$0")/results.sh"
repo=$bench_repo
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
bench_need bwrap bubblewrap
# Not beside the workspaces: the directory holding jp-policy is a
# protected path, and one above a workspace would narrow every grant.
bench_install "$tmp/bin"
BENCH_BUILD=$(bench_build_desc "$tmp/bin/jp-policy")
ll_version=$(awk '$1 == "github.com/landlock-lsm/go-landlock" {print $2}' "$repo/go.mod")
GOBIN="$tmp" GOFLAGS= go install "github.com/landlock-lsm/go-landlock/cmd/landlock-restrict@$ll_version"
cc -O2 -static -o "$tmp/c-floor" "$repo/bench/floor/landlock_floor.c"
(cd "$repo" && go build -o "$tmp/go-floor" bench/floor/gofloor.go)

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data"

ws="$tmp/ws"
bench_exec_ws "$ws"
"$tmp/bin/jp-policy" compile --workspace "$ws" --no-input >/dev/null 2>&1

# Sanity: the sandbox is real before we time it.
if "$tmp/bin/jp-policy" exec -w "$ws" -t bench -- cat "$ws/.env" 2>/dev/null; then
  echo "jp-policy exec did not deny .env; refusing to benchmark" >&2; exit 1
fi

bench_landlock_paths "$ws" "$ws"/{src,docs,vendor,build,tmp,scripts,data,assets}
restrict="$tmp/landlock-restrict -ro ${restrict_ro[*]} -rofiles ${restrict_rofiles[*]} -rw ${restrict_rw[*]} -rwfiles /dev/null -- /bin/true"
$restrict
floor_args="-r ${restrict_ro[*]} ${restrict_rofiles[*]} -w ${restrict_rw[*]} /dev/null -- /bin/true"

# Workspaces of 1,000 and 10,000 read-only tools with 10 rules each (the
# fast path); exec runs one of them.
for n in 1000 10000; do
  bench_tools_ws "$tmp/big$n" "$n"
done
# compile records a config layer's identity, which spares exec hashing it,
# only once the layer is older than its timestamps' granularity
# (docs/exec.md, "Staleness on every exec"): let the configs settle, as a
# user's config has when tools run.
sleep 1
for n in 1000 10000; do
  "$tmp/bin/jp-policy" compile --workspace "$tmp/big$n" --no-input >/dev/null 2>&1
done
cmds=(-n 'bare' '/bin/true'
  -n 'C floor' "$tmp/c-floor $floor_args"
  -n 'Go floor' "$tmp/go-floor $floor_args"
  -n 'landlock-restrict' "$restrict"
  -n 'jp-policy exec' "$tmp/bin/jp-policy exec -w $ws -t bench --no-namespaces --best-effort -- /bin/true"
  -n 'jp-policy exec, 1000 tools' "$tmp/bin/jp-policy exec -w $tmp/big1000 -t tool_5 -- /bin/true"
  -n 'jp-policy exec, 10000 tools' "$tmp/bin/jp-policy exec -w $tmp/big10000 -t tool_9999 -- /bin/true"
  -n 'jp-policy exec, ro' "$tmp/bin/jp-policy exec -w $ws -t ro -- /bin/true")
if "$tmp/bin/jp-policy" exec -w "$ws" -t bench -- /bin/true 2>/dev/null; then
  # The bench tool writes the workspace, so exec takes the namespaced path
  # by itself; the first row forces the fast path.
  cmds+=(-n 'jp-policy exec, namespaced' "$tmp/bin/jp-policy exec -w $ws -t bench -- /bin/true")
fi
if bwrap --unshare-user --unshare-net --ro-bind / / --bind "$ws" "$ws" /bin/true 2>/dev/null; then
  cmds+=(-n 'bwrap' "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws /bin/true")
fi

cd "$ws"
# In rounds (bench/rounds.sh). ROUNDS=1 gives one hyperfine run of RUNS
# per command.
rounds=${ROUNDS:-5}
# shellcheck source=bench/rounds.sh
. "$repo/bench/rounds.sh"
hyperfine_rounds "$tmp/result.json" "$rounds" $(( (runs + rounds - 1) / rounds )) 10 "${cmds[@]}"

{
  echo "$rounds hyperfine rounds of $(( (runs + rounds - 1) / rounds )) runs per command (bench/rounds.sh; each round in its own order):"
  echo
  bench_table "$tmp/result.json" ms
  echo
  python3 - "$tmp/result.json" <<'PY'
import json, sys
res = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
m = {k: v["median"] for k, v in res.items()}
print("| ratio of medians | value |")
print("| --- | ---: |")
def row(a, b):
    if a in m and b in m:
        print(f"| {a} / {b} | {m[a]/m[b]:.2f}× |")
for k in ("jp-policy exec", "jp-policy exec, ro", "landlock-restrict"):
    row(k, "Go floor")
    row(k, "C floor")
row("jp-policy exec, ro", "landlock-restrict")
row("jp-policy exec, 10000 tools", "jp-policy exec, 1000 tools")
row("jp-policy exec, namespaced", "bwrap")
PY
} > "$tmp/body.md"
bench_results "bench/exec.sh" "bench/exec.sh $runs (ROUNDS=$rounds)" "$tmp/body.md"
cat "$tmp/body.md"
