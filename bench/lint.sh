#!/usr/bin/env bash
# Benchmark `jp-policy lint` against a hello-world Go binary in the same
# hyperfine run, so the ratio is independent of the machine.
#
#   bench/lint.sh [WORKSPACE]
#
# It lints the bundled example workspace (examples/workspace, the one the
# README walks through), WORKSPACE (default JP's own config,
# ../shared/fixtures/jp-upstream: ~100 files through extends; on a fresh
# clone without it, the project's testdata/fixtures/jp-layout), and a
# generated workspace with access rules on 40 tools, so both the loader
# and the rules are measured. Installs hyperfine with apt-get if missing.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v hyperfine >/dev/null; then
  apt-get install -y hyperfine >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

(cd "$repo" && go build -o "$tmp/jp-policy" ./cmd/jp-policy)
mkdir -p "$tmp/hello"
cat > "$tmp/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
GO
(cd "$tmp/hello" && go mod init hello >/dev/null 2>&1 && go build -o "$tmp/hello-world" .)

upstream=${1:-$repo/../shared/fixtures/jp-upstream}
if [ ! -d "$upstream/.jp" ]; then
  echo "no JP workspace at $upstream; benchmarking testdata/fixtures/jp-layout instead" >&2
  upstream=$repo/testdata/fixtures/jp-layout
fi

# A workspace with 40 local tools, each with fs/net/env/config rules, a
# .env file and a git directory, so every rule has work to do.
ws="$tmp/ws"
mkdir -p "$ws/.jp" "$ws/src" "$ws/.git"
echo "X=1" > "$ws/.env"
for i in $(seq 1 200); do echo "// $i" > "$ws/src/f$i.rs"; done
{
  for i in $(seq 1 40); do
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

export HOME="$tmp/home" JP_GLOBAL_CONFIG_DIR="$tmp/home/.config/jp" JP_USER_DATA_DIR="$tmp/home/.local/share/jp" NO_COLOR=1
mkdir -p "$HOME"

hyperfine --warmup 5 --min-runs 50 -N \
  --command-name hello-world "$tmp/hello-world" \
  --command-name "lint example" "$tmp/jp-policy lint --workspace $repo/examples/workspace" \
  --command-name "lint $(basename "$upstream")" "$tmp/jp-policy lint --workspace $upstream" \
  --command-name "lint 40 tools" "$tmp/jp-policy lint --workspace $ws"
