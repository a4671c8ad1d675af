#!/usr/bin/env bash
# Benchmark the namespaced exec path against bubblewrap running /bin/true
# with the same sandbox, and against the structural floor of a pure-Go
# namespaced sandbox, in one hyperfine run so the ratios do not depend on
# the machine's load:
#
#   bwrap --unshare-user --unshare-net --ro-bind / / --bind WS WS /bin/true
#   nsfloor WS /bin/true   bench/nsfloor/nsfloor.go: a Go parent cloning the
#                          namespaces (SysProcAttr) and a minimal Go stage 2
#                          doing bwrap's mounts with the fewest system calls
#   nsbench WS /bin/true   package nsroot with bwrap's sandbox (new user,
#                          mount, IPC and net namespaces, / read-only
#                          recursively, WS read-write, lo up)
#   jp-policy exec         the real namespaced path on a narrowed workspace
#                          (. read-write, .env masked, read-only dirs)
#
#   bench/nsroot.sh [RUNS]
#
# nsbench and `launcher only` are tiny mains around package nsroot and
# package launcher, built through overlays so no file is added to the
# repository: `launcher only` is jp-policy exec's namespaced path with
# both processes (parent and stage 2) free of the other subcommands'
# package inits. Extra rows split the cost: a bare /bin/true, the Go
# start-up of a hello-world-sized binary (`nsfloor -hello`), a Go parent
# running bwrap as its stage 2 (the bound for a stage 2 without a Go
# runtime), and the full jp-policy binary's start-up as a stage 2.
# Every Go binary is built as the README installs jp-policy (`go build`
# / `go install`, no flags). Writes its section of bench/RESULTS.md.
# Linux only; needs unprivileged user namespaces.
set -euo pipefail

runs=${1:-300}
. "$(dirname "$0")/results.sh"
repo=$bench_repo
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
bench_need bwrap bubblewrap

mkdir -p "$tmp/nsbench"
cat > "$tmp/nsbench/main.go" <<'GO'
package main

import (
	"fmt"
	"os"

	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// nsbench WS CMD...: CMD in a root with / read-only and WS read-write.
// nsbench -startup: exit at once (the Go start-up alone).
func main() {
	nsroot.Stage2Main()
	if os.Args[1] == "-startup" {
		return
	}
	ws := os.Args[1]
	code, err := nsroot.Run(&nsroot.Spec{
		Path:    os.Args[2],
		Argv:    os.Args[2:],
		Env:     os.Environ(),
		Workdir: ws,
		Binds:   []nsroot.Bind{{Src: "/", Dst: "/"}, {Src: ws, Dst: ws, RW: true}},
		Net:     true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nsbench:", err)
		os.Exit(125)
	}
	os.Exit(code)
}
GO
gobuild() { go build "$@"; }
printf '{"Replace":{"%s/internal/nsroot/internal/nsbench/main.go":"%s/nsbench/main.go"}}' "$repo" "$tmp" > "$tmp/nsbench/overlay.json"
(cd "$repo" && gobuild -overlay "$tmp/nsbench/overlay.json" -o "$tmp/nsbench/nsbench" ./internal/nsroot/internal/nsbench)
(cd "$repo" && gobuild -o "$tmp/jp-policy" ./cmd/jp-policy)
# As installed (go install ./cmd/...).
mkdir -p "$tmp/pair"
bench_install "$tmp/pair"
BENCH_BUILD=$(bench_build_desc "$tmp/pair/jp-policy")
(cd "$repo" && gobuild -o "$tmp/nsfloor" bench/nsfloor/nsfloor.go)
# The launcher alone as parent and stage 2 (what a lean exec binary runs).
mkdir -p "$tmp/lean"
cat > "$tmp/lean/main.go" <<'GO'
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/jp-policy/jp-policy/internal/launcher"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/platform"
)

// lean TOOL CMD...: jp-policy exec -t TOOL -- CMD... in the current
// workspace, namespaced when the policy needs it.
func main() {
	nsroot.Stage2Main()
	o := &launcher.Options{Tool: os.Args[1], Argv: os.Args[2:], Environ: os.Environ(), Platform: platform.Host}
	if err := launcher.Run(o, os.Stdout, os.Stderr); err != nil {
		if ce, ok := errors.AsType[*launcher.ChildExit](err); ok {
			os.Exit(ce.Code)
		}
		fmt.Fprintln(os.Stderr, "lean:", err)
		os.Exit(1)
	}
}
GO
printf '{"Replace":{"%s/internal/launcher/internal/leanbench/main.go":"%s/lean/main.go"}}' "$repo" "$tmp" > "$tmp/lean/overlay.json"
(cd "$repo" && gobuild -overlay "$tmp/lean/overlay.json" -o "$tmp/lean/lean" ./internal/launcher/internal/leanbench)

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data"

# One workspace for every row: bwrap, the floor and nsbench bind it
# read-write whole; jp-policy's tool narrows it (so it takes the
# namespaced path by itself: a mask, read-only rules inside a writable
# one, protected .git and .jp).
ws="$tmp/ws"
mkdir -p "$ws/.jp" "$ws/.git" "$ws/src" "$ws/docs" "$ws/vendor" "$ws/build"
echo "X=1" > "$ws/.env"
for d in src docs vendor build; do echo "$d" > "$ws/$d/file"; done
# rule PATH [CAPABILITY...]: one fs rule of the bench tool.
rule() { printf '\n[[conversation.tools.bench.access.fs]]\npath = "%s"\n' "$1"; shift; for c in "$@"; do printf '%s = true\n' "$c"; done; }
{
  printf '[conversation.tools.bench]\nsource = "local"\ncommand = "true"\n'
  rule . read write
  rule .env
  for d in src docs vendor; do rule "$d" read; done
  rule build read write
} > "$ws/.jp/config.toml"
"$tmp/jp-policy" compile --workspace "$ws" --no-input >/dev/null 2>&1
# Sanity: every sandbox is real before we time it.
for run in "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws" "$tmp/nsbench/nsbench $ws" "$tmp/nsfloor $ws"; do
  if $run /bin/sh -c 'echo x > /usr/nsroot-bench' 2>/dev/null; then echo "$run: / is writable; refusing to benchmark" >&2; exit 1; fi
  $run /bin/sh -c "echo x > $ws/ok" || { echo "$run: workspace not writable" >&2; exit 1; }
done
cd "$ws"
for run in "$tmp/jp-policy exec -t bench --" "$tmp/lean/lean bench"; do
  if $run /bin/cat .env 2>/dev/null; then echo "$run: .env readable; refusing to benchmark" >&2; exit 1; fi
  $run /bin/sh -c 'echo x > .git/x' 2>/dev/null && { echo "$run: .git writable; refusing to benchmark" >&2; exit 1; }
  $run /bin/sh -c 'echo x > build/ok' || { echo "$run: build/ not writable" >&2; exit 1; }
done
"$tmp/jp-policy" exec -t bench --dry-run -- /bin/true | grep '^path:'

rows=(
  'bare' '/bin/true'
  'go hello-world start-up' "$tmp/nsfloor -hello"
  'bwrap' "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws /bin/true"
  'go parent + bwrap' "$tmp/nsfloor -bwrap $ws /bin/true"
  'floor (nsfloor)' "$tmp/nsfloor $ws /bin/true"
  'nsroot (nsbench)' "$tmp/nsbench/nsbench $ws /bin/true"
  'launcher only, namespaced' "$tmp/lean/lean bench /bin/true"
  'jp-policy exec, namespaced' "$tmp/pair/jp-policy exec -t bench -- /bin/true"
  'stage-2 start-up (jp-policy)' "$tmp/jp-policy __jp-policy-nsroot-stage2"
)
args=()
for ((i = 0; i < ${#rows[@]}; i += 2)); do args+=(-n "${rows[i]}" "${rows[i+1]}"); done
# -i: the last rows fail on purpose (stage 2 without its spec exits 127
# right after the runtime and package inits, which is what it costs).
hyperfine -N -i --warmup 30 --runs "$runs" --export-json "$tmp/result.json" "${args[@]}" >&2

{
  echo "One hyperfine run, $runs runs per command, 30 warm-up runs (the two stage-2 rows exit 127 on purpose, right after start-up):"
  echo
  bench_table "$tmp/result.json" ms
  echo
  python3 - "$tmp/result.json" <<'PY'
import json, sys
res = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
m = {k: v["median"] for k, v in res.items()}
cpu = {k: v["user"] + v["system"] for k, v in res.items()}
print("| row | / bwrap (median) | / bwrap (CPU) | / floor (median) |")
print("| --- | ---: | ---: | ---: |")
for k in res:
    print(f"| {k} | {m[k]/m['bwrap']:.2f}× | {cpu[k]/cpu['bwrap']:.2f}× | {m[k]/m['floor (nsfloor)']:.2f}× |")
PY
} > "$tmp/body.md"
bench_results "bench/nsroot.sh" "bench/nsroot.sh $runs" "$tmp/body.md"
cat "$tmp/body.md"
