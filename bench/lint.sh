#!/usr/bin/env bash
# Benchmark `jp-policy lint` against a hello-world Go binary in the same
# hyperfine run, so the ratio is independent of the machine.
#
#   bench/lint.sh [WORKSPACE]
#
# It lints the bundled example workspace (examples/workspace, the one the
# README walks through), WORKSPACE (default JP's own config,
# ../shared/fixtures/jp-upstream: ~100 files through extends; on a fresh
# clone without it, the project's testdata/fixtures/jp-layout), and
# generated workspaces with access rules on 20 and 40 tools, so both the
# loader and the rules are measured; it prints each median as a ratio of
# the hello-world's (the goal: lint on 20 tools <= 2.0x). Installs
# hyperfine with apt-get if missing.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v hyperfine >/dev/null; then
  apt-get install -y hyperfine >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/jp-policy" ./cmd/jp-policy)
mkdir -p "$tmp/hello"
cat > "$tmp/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
GO
(cd "$tmp/hello" && go mod init hello >/dev/null 2>&1 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/hello-world" .)

upstream=${1:-$repo/../shared/fixtures/jp-upstream}
if [ ! -d "$upstream/.jp" ]; then
  echo "no JP workspace at $upstream; benchmarking testdata/fixtures/jp-layout instead" >&2
  upstream=$repo/testdata/fixtures/jp-layout
fi

# Workspaces with N local tools, each with fs/net/env/config rules, a
# .env file and a git directory, so every rule has work to do.
gen() { # gen N DIR
ws=$2
mkdir -p "$ws/.jp" "$ws/src" "$ws/.git"
echo "X=1" > "$ws/.env"
for i in $(seq 1 200); do echo "// $i" > "$ws/src/f$i.rs"; done
{
  for i in $(seq 1 "$1"); do
    cat <<TOML
[conversation.tools.tool_$i]
source = "local"
run = "ask"

[[conversation.tools.tool_$i.access.fs]]
path = "."
read = true

[[conversation.tools.tool_$i.access.fs]]
path = "src"
read = true
write = true

[[conversation.tools.tool_$i.access.net]]
host = "api.github.com"
scheme = "https"
allow = true

[[conversation.tools.tool_$i.access.env]]
name = "GITHUB_*"
read = true

[[conversation.tools.tool_$i.access.config]]
path = "conversation.tools.*.run"
read = true

TOML
  done
} > "$ws/.jp/config.toml"
}
gen 20 "$tmp/ws20"
gen 40 "$tmp/ws40"

export HOME="$tmp/home" JP_GLOBAL_CONFIG_DIR="$tmp/home/.config/jp" JP_USER_DATA_DIR="$tmp/home/.local/share/jp" NO_COLOR=1
mkdir -p "$HOME"

hyperfine --warmup 5 --min-runs 50 -N --export-json "$tmp/result.json" \
  --command-name hello-world "$tmp/hello-world" \
  --command-name "lint example" "$tmp/jp-policy lint --workspace $repo/examples/workspace" \
  --command-name "lint $(basename "$upstream")" "$tmp/jp-policy lint --workspace $upstream" \
  --command-name "lint 20 tools" "$tmp/jp-policy lint --workspace $tmp/ws20" \
  --command-name "lint 40 tools" "$tmp/jp-policy lint --workspace $tmp/ws40"

python3 - "$tmp/result.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
m = {x["command"]: x["median"] * 1e3 for x in res}
print()
for k, v in m.items():
    print(f"{k:28} median {v:7.2f} ms  / hello-world {v / m['hello-world']:5.2f}")
PY
