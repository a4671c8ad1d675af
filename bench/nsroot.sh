#!/usr/bin/env bash
# Benchmark the namespaced exec path (internal/nsroot) against bubblewrap
# running /bin/true with the same sandbox, in one hyperfine run so the
# ratio does not depend on the machine's load:
#
#   bwrap --unshare-user --unshare-net --ro-bind / / --bind WS WS /bin/true
#   nsbench WS /bin/true   (new user+mount+IPC+net namespaces, / read-only
#                           recursively, WS read-write, lo up)
#
#   bench/nsroot.sh [RUNS]
#
# nsbench is a tiny main around package nsroot, built through an overlay
# so no file is added to the repository; it is what the launcher will do
# minus loading the manifest. Extra rows split the cost: a bare /bin/true,
# nsbench's own Go start-up (`nsbench -startup`, exits at once), and the
# full jp-policy binary's start-up (`jp-policy --version`), which is what
# stage 2 will cost once it runs inside jp-policy (its package inits).
# Linux only; needs unprivileged user namespaces.
set -euo pipefail

runs=${1:-300}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

need() { command -v "$1" >/dev/null || apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }; }
need hyperfine hyperfine
need bwrap bubblewrap

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
printf '{"Replace":{"%s/internal/nsroot/internal/nsbench/main.go":"%s/nsbench/main.go"}}' "$repo" "$tmp" > "$tmp/nsbench/overlay.json"
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -overlay "$tmp/nsbench/overlay.json" -o "$tmp/nsbench/nsbench" ./internal/nsroot/internal/nsbench)
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$tmp/jp-policy" ./cmd/jp-policy)

ws="$tmp/ws"
mkdir -p "$ws"
# Sanity: both sandboxes are real before we time them.
for run in "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws" "$tmp/nsbench/nsbench $ws"; do
  if $run /bin/sh -c 'echo x > /usr/nsroot-bench' 2>/dev/null; then echo "$run: / is writable; refusing to benchmark" >&2; exit 1; fi
  $run /bin/sh -c "echo x > $ws/ok" || { echo "$run: workspace not writable" >&2; exit 1; }
done

cd "$ws"
# -i: the last row fails on purpose (stage 2 without its spec pipe exits
# 127 right after the runtime and package inits, which is what it costs).
hyperfine -N -i --warmup 30 --runs "$runs" --export-json "$tmp/result.json" \
  -n 'bare' '/bin/true' \
  -n 'bwrap' "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws /bin/true" \
  -n 'nsroot' "$tmp/nsbench/nsbench $ws /bin/true" \
  -n 'go start-up (nsbench)' "$tmp/nsbench/nsbench -startup" \
  -n 'go start-up (jp-policy)' "$tmp/jp-policy --version" \
  -n 'stage-2 start-up (jp-policy)' "$tmp/jp-policy __jp-policy-nsroot-stage2"

python3 - "$tmp/result.json" <<'PY'
import json, sys
res = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
# Medians and minimums: the mean of a few-ms command is at the mercy of
# any other load; CPU time (user+sys) is the least load-sensitive figure.
m = {k: v["median"] * 1e3 for k, v in res.items()}
cpu = {k: (v["user"] + v["system"]) * 1e3 for k, v in res.items()}
print()
for k in res:
    print(f"{k:30} median {m[k]:6.2f} ms  min {res[k]['min']*1e3:6.2f} ms  cpu {cpu[k]:6.2f} ms")
go = m['go start-up (nsbench)'] - m['bare']
print(f"nsroot / bwrap                      = {m['nsroot']/m['bwrap']:.2f} (median), {res['nsroot']['min']/res['bwrap']['min']:.2f} (min), {cpu['nsroot']/cpu['bwrap']:.2f} (cpu)")
print(f"Go start-up over a bare exec        = {go:+.2f} ms (nsbench), {m['go start-up (jp-policy)']-m['bare']:+.2f} ms (jp-policy --version), {m['stage-2 start-up (jp-policy)']-m['bare']:+.2f} ms (jp-policy as stage 2)")
# jp-policy exec is a Go program on every path, so the parent's start-up
# is paid with or without namespaces: compare what namespaces add.
print(f"(nsroot - parent Go start) / bwrap  = {(m['nsroot']-go)/m['bwrap']:.2f}")
PY
