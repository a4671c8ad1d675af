#!/usr/bin/env bash
# jp-policy against its peers, on the README's install build (plain
# `go install ./cmd/...`), in one hyperfine run so that every ratio is
# between commands measured under the same load:
#
#   - the exec fast path (a read-only tool: Landlock, seccomp, execve)
#     against go-landlock's landlock-restrict with the same paths;
#   - the namespaced path (a tool that writes the workspace) against
#     `bwrap --unshare-all`, Codex CLI's `codex sandbox` and
#     sandbox-runtime's `srt`, each running /bin/true in the workspace;
#   - exec on a 2,000-tool workspace against the same tool alone;
#   - `jp-policy lint` on 20 tools against actionlint on 20 workflows.
#
# Compile of 10,000 tools (no peer: a bar in seconds) is a second
# hyperfine run, since one compile takes as long as thousands of execs.
#
#   bench/peers.sh [RUNS]     (RUNS=20; COMPILE_RUNS=3)
#
# Peers that are missing are installed where that is cheap (hyperfine,
# bubblewrap and srt's ripgrep and socat with apt-get; landlock-restrict
# at the version go.mod pins and actionlint with `go install`); Codex CLI
# and sandbox-runtime come from npm (`npm install -g @openai/codex
# @anthropic-ai/sandbox-runtime`) and their rows are left out when they
# are not installed. Every sandbox is checked to deny a write outside the
# workspace before it is timed. Writes its section of bench/RESULTS.md.
# Linux only.
set -euo pipefail

runs=${1:-20}
compile_runs=${COMPILE_RUNS:-3}
. "$(dirname "$0")/results.sh"
repo=$bench_repo
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
bench_need bwrap bubblewrap
bin="$tmp/bin"
mkdir -p "$bin"
bench_install "$bin"
BENCH_BUILD=$(bench_build_desc "$bin/jp-policy")
ll_version=$(awk '$1 == "github.com/landlock-lsm/go-landlock" {print $2}' "$repo/go.mod")
GOBIN="$bin" GOFLAGS= go install "github.com/landlock-lsm/go-landlock/cmd/landlock-restrict@$ll_version"
ll=$bin/landlock-restrict
actionlint=$(command -v actionlint || true)
if [ -z "$actionlint" ]; then
  GOBIN="$bin" GOFLAGS= go install github.com/rhysd/actionlint/cmd/actionlint@latest
  actionlint=$bin/actionlint
fi
codex=$(command -v codex || true)
srt=$(command -v srt || true)
if [ -n "$srt" ]; then
  bench_need rg ripgrep
  bench_need socat socat
fi

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data" NO_COLOR=1

ws="$tmp/ws"
bench_exec_ws "$ws"
"$bin/jp-policy" compile --workspace "$ws" --no-input >/dev/null
bench_tools_ws "$tmp/tools1" 1
bench_tools_ws "$tmp/tools2000" 2000
# compile records a config layer's identity, which spares exec hashing it,
# only once the layer is older than its timestamps' granularity
# (docs/exec.md, "Staleness on every exec"); a config written a moment ago
# is hashed on every exec until the next compile. A user's config is at
# rest when tools run: let these settle as well.
sleep 1
"$bin/jp-policy" compile --workspace "$tmp/tools1" --no-input >/dev/null
"$bin/jp-policy" compile --workspace "$tmp/tools2000" --no-input >/dev/null
bench_lint_ws "$tmp/lint20" 20
python3 "$bench_dir/workflows.py" "$tmp/wf20" 20
bench_landlock_paths "$ws"
restrict="$ll -ro ${restrict_ro[*]} -rofiles ${restrict_rofiles[*]} -rw ${restrict_rw[*]} -rwfiles /dev/null --"
# codex and srt get the policy the others have: the workspace writable,
# the rest read-only, no network.
codex_cmd="$codex sandbox -c sandbox_mode=\"workspace-write\" --"
printf '{"filesystem":{"denyRead":[],"allowWrite":["%s"],"denyWrite":[]},"network":{"allowedDomains":[],"deniedDomains":[]}}\n' "$ws" > "$tmp/srt-settings.json"
srt_cmd="$srt --settings $tmp/srt-settings.json"
bwrap="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind $ws $ws --chdir $ws"

# Sanity: each sandbox is real (the write outside the workspace fails,
# the one inside succeeds), each tool takes the path its row names, and
# every timed command succeeds.
probe=$(mktemp -d /var/tmp/jp-policy-bench.XXXXXX)
trap 'rm -rf "$tmp" "$probe"' EXIT
cd "$ws"
check() { # check NAME WRITES PREFIX...: PREFIX sh -c ... must not write $probe; WRITES=1: must write the workspace
  local name=$1 writes=$2
  shift 2
  "$@" /bin/sh -c "echo x > $probe/escaped" >/dev/null 2>&1 || true
  if [ -e "$probe/escaped" ]; then
    echo "bench/peers.sh: $name wrote outside the workspace; refusing to benchmark" >&2
    exit 1
  fi
  if [ "$writes" = 1 ] && ! "$@" /bin/sh -c "echo x > $ws/build/ok-$RANDOM" >/dev/null 2>&1; then
    echo "bench/peers.sh: $name cannot write the workspace; refusing to benchmark" >&2
    exit 1
  fi
  "$@" /bin/true || { echo "bench/peers.sh: $name fails to run /bin/true" >&2; exit 1; }
}
check 'jp-policy exec (fast path)' 0 "$bin/jp-policy" exec -t ro --
check 'jp-policy exec (namespaced)' 1 "$bin/jp-policy" exec -t bench --
check landlock-restrict 1 $restrict
check bwrap 1 $bwrap
if [ -n "$codex" ]; then check 'codex sandbox' 1 $codex_cmd; fi
if [ -n "$srt" ]; then check srt 1 $srt_cmd; fi
"$bin/jp-policy" exec -t ro --dry-run -- /bin/true | grep -q '^path: fast' ||
  { echo "bench/peers.sh: the read-only tool does not take the fast path" >&2; "$bin/jp-policy" exec -t ro --dry-run -- /bin/true | grep '^path' >&2; exit 1; }
"$bin/jp-policy" exec -t bench --dry-run -- /bin/true | grep -q '^path: namespaced' ||
  { echo "bench/peers.sh: the writing tool does not take the namespaced path" >&2; exit 1; }
"$bin/jp-policy" lint --workspace "$tmp/lint20" >/dev/null
(cd "$tmp/wf20" && "$actionlint" -shellcheck= -pyflakes= >/dev/null) || { echo "bench/peers.sh: actionlint reports findings on the generated workflows" >&2; exit 1; }
lean=""
if [ -x "$bin/jp-policy-exec" ]; then lean="$bin/jp-policy-exec"; fi
cmds=(-n 'landlock-restrict' "$restrict /bin/true"
  -n 'jp-policy exec, fast path' "$bin/jp-policy exec -t ro -- /bin/true")
if [ -n "$lean" ]; then cmds+=(-n 'jp-policy-exec, fast path' "$lean -t ro -- /bin/true"); fi
cmds+=(-n 'bwrap --unshare-all' "$bwrap /bin/true"
  -n 'jp-policy exec, namespaced' "$bin/jp-policy exec -t bench -- /bin/true")
if [ -n "$codex" ]; then cmds+=(-n 'codex sandbox' "$codex_cmd /bin/true"); fi
if [ -n "$srt" ]; then cmds+=(-n 'srt' "$srt_cmd /bin/true"); fi
cmds+=(-n 'jp-policy exec, 1-tool workspace' "$bin/jp-policy exec -w $tmp/tools1 -t tool_0 -- /bin/true"
  -n 'jp-policy exec, 2,000-tool workspace' "$bin/jp-policy exec -w $tmp/tools2000 -t tool_1999 -- /bin/true")
if [ -n "$lean" ]; then
  cmds+=(-n 'jp-policy-exec, 1-tool workspace' "$lean -w $tmp/tools1 -t tool_0 -- /bin/true"
    -n 'jp-policy-exec, 2,000-tool workspace' "$lean -w $tmp/tools2000 -t tool_1999 -- /bin/true")
fi
# actionlint's own checks: -shellcheck= and -pyflakes= keep it from
# running shellcheck and pyflakes on every step when they happen to be
# installed, which would time those programs instead.
cmds+=(-n 'actionlint, 20 workflows' "$actionlint -shellcheck= -pyflakes= $(echo "$tmp"/wf20/.github/workflows/*.yml)"
  -n 'jp-policy lint, 20 tools' "$bin/jp-policy lint --workspace $tmp/lint20")
hyperfine -N --warmup 3 --runs "$runs" --export-json "$tmp/peers.json" "${cmds[@]}" >&2

# Compile: a generated workspace of 10,000 tools (package benchws, as
# bench/compile.sh and the compiler's benchmarks), compiled once first;
# "recompile" compiles it again unchanged, "fresh" after removing the
# artifact (the pin and the accepted grants stay, so nothing asks).
(cd "$repo" && go run bench/genws.go "$tmp/ws10000" 10000)
"$bin/jp-policy" compile --workspace "$tmp/ws10000" --no-input --accept-widening >/dev/null
compile="$bin/jp-policy compile --workspace $tmp/ws10000 --no-input --accept-widening"
hyperfine -N --runs "$compile_runs" --export-json "$tmp/compile.json" \
  --prepare true --prepare "rm -rf $tmp/ws10000/.jp/policy" \
  -n 'compile 10,000 tools (recompile)' "$compile" -n 'compile 10,000 tools (fresh)' "$compile" >&2

{
  echo "Exec, lint (one hyperfine run, $runs runs each, 3 warm-up runs):"
  echo
  bench_table "$tmp/peers.json" ms
  echo
  echo "Compile (a second hyperfine run, $compile_runs runs each):"
  echo
  bench_table "$tmp/compile.json" s
  echo
  python3 - "$tmp/peers.json" "$tmp/compile.json" <<'PY'
import json, sys
res = {r["command"]: r for f in sys.argv[1:3] for r in json.load(open(f))["results"]}
m = {k: r["median"] for k, r in res.items()}
cpu = {k: r["user"] + r["system"] for k, r in res.items()}
rows = []
def ratio(a, b, goal=None, why=""):
    if a in m and b in m:
        r = m[a] / m[b]
        verdict = "" if goal is None else ("met" if r <= goal else "not met")
        rows.append((f"{a} / {b}", f"{r:.2f}×", f"{cpu[a]/cpu[b]:.2f}×", "" if goal is None else f"≤ {goal:.2f}×", verdict, why))
ratio("jp-policy exec, fast path", "landlock-restrict", 1.5, "fast path")
ratio("jp-policy-exec, fast path", "landlock-restrict", 1.5, "fast path")
ratio("jp-policy exec, namespaced", "bwrap --unshare-all", 2.0, "namespaced")
for peer in ("codex sandbox", "srt"):
    ratio(peer, "bwrap --unshare-all", None, "peer, for scale")
    ratio("jp-policy exec, namespaced", peer, None, "peer, for scale")
ratio("jp-policy exec, 2,000-tool workspace", "jp-policy exec, 1-tool workspace", 1.10, "workspace size")
ratio("jp-policy-exec, 2,000-tool workspace", "jp-policy-exec, 1-tool workspace", 1.10, "workspace size")
ratio("jp-policy lint, 20 tools", "actionlint, 20 workflows", 0.75, "lint")
print("| ratio | of medians | of CPU (user + sys) | goal (medians) | | |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for r in rows:
    print("| " + " | ".join(r) + " |")
for k in ("compile 10,000 tools (recompile)", "compile 10,000 tools (fresh)"):
    print(f"| {k} | {m[k]:.2f} s | {cpu[k]:.2f} s | < 8 s | {'met' if m[k] < 8 else 'not met'} | compile |")
PY
  echo
  echo "Peers: landlock-restrict $ll_version, $(bwrap --version), actionlint $("$actionlint" --version | head -1)${codex:+, codex $("$codex" --version | awk '{print $NF}')}${srt:+, srt $("$srt" --version)}. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "Workloads: the exec workspace has a writing tool (10 fs rules, narrowed around \`.env\`: the namespaced path) and a read-only tool (8 rules: the fast path); landlock-restrict gets the workspace read-write and the same system baseline; \`bwrap --unshare-all\` binds / read-only, /dev, /proc, a /tmp tmpfs and the workspace read-write; \`codex sandbox -c sandbox_mode=\"workspace-write\"\` and srt (\`allowWrite\`: the workspace, no allowed domains) get the same policy; every sandbox was checked to refuse a write outside the workspace and allow one inside. The 1- and 2,000-tool workspaces hold read-only tools of 10 rules each. Lint: 20 tools with fs, net, env and config rules over 200 files; actionlint: 20 generated workflows (bench/workflows.py, about 100 lines each) with matrices, expressions and shell steps, run with \`-shellcheck= -pyflakes=\` (its own checks; with shellcheck it runs one shellcheck process per \`run:\` step)."
} > "$tmp/body.md"
bench_results "bench/peers.sh" "bench/peers.sh $runs (COMPILE_RUNS=$compile_runs)" "$tmp/body.md"
cat "$tmp/body.md"
