#!/usr/bin/env bash
# Benchmark `jp-policy lint` against a hello-world Go binary in the same
# hyperfine run, so the ratio is independent of the machine.
#
#   bench/lint.sh [WORKSPACE]     (ROUNDS=5 hyperfine rounds of 30 runs)
#
# It lints the bundled example workspace (examples/workspace, the one the
# README walks through), WORKSPACE (default JP's own config,
# ../shared/fixtures/jp-upstream: ~100 files through extends; on a fresh
# clone without it, the project's testdata/fixtures/jp-layout), and
# generated workspaces with access rules on 20 and 40 tools, so both the
# loader and the rules are measured; it prints each median as a ratio of
# the hello-world's (the goal: lint on 20 tools <= 2.0x). Installs
# hyperfine with apt-get if missing.
#
# Two more binaries, built through `go build -overlay` so no file is added
# to the repository, show where the time goes (docs/lint.md):
#   - "jp-policy start": the same jp-policy binary whose main returns at
#     once: the runtime start of the 12 MB binary plus every package init,
#     the floor of any jp-policy command;
#   - "lint-only": lint's own code (cmd/jp-policy's cmd_lint.go and the
#     files it uses) in a binary of its own, what a separate lint binary
#     would cost ("lint-only start" is its floor).
# With perf installed it also prints each command's page faults, the unit
# this VM's CPU time follows (~35 us per fault).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v hyperfine >/dev/null; then
  apt-get install -y hyperfine >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

gobuild() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" "$@"; }
(cd "$repo" && gobuild -o "$tmp/jp-policy" ./cmd/jp-policy)

# The floor of the full binary: main returns before parsing anything.
mkdir -p "$tmp/floor"
sed 's|^func main() {$|func main() {\n\tif len(os.Args) > 1 \&\& os.Args[1] == "--bench-start" {\n\t\treturn\n\t}|' \
  "$repo/cmd/jp-policy/main.go" > "$tmp/floor/main.go"
grep -q -- --bench-start "$tmp/floor/main.go" || { echo "bench/lint.sh: cannot patch cmd/jp-policy/main.go" >&2; exit 1; }
printf '{"Replace":{"%s/cmd/jp-policy/main.go":"%s/floor/main.go"}}' "$repo" "$tmp" > "$tmp/floor/overlay.json"
(cd "$repo" && gobuild -overlay "$tmp/floor/overlay.json" -o "$tmp/jp-policy-start" ./cmd/jp-policy)

# Lint's code alone: the lint command's files of cmd/jp-policy compiled
# with a small main into a package that exists only in the overlay.
lean=$repo/cmd/jp-policy/internal/leanlint
mkdir -p "$tmp/leanlint"
cat > "$tmp/leanlint/main.go" <<'GO'
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var version = "bench"

const (
	exitOK     = 0
	exitFail   = 1
	exitUsage  = 2
	exitIntern = 3
)

type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string   { return fmt.Sprint(e.Err) }
func (e *exitError) Unwrap() error   { return e.Err }
func fail(code int, err error) error { return &exitError{Code: code, Err: err} }

type Globals struct {
	Color          string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// lint-only lint ARGS; any other first argument (--bench-start) exits.
func main() {
	if len(os.Args) < 2 || os.Args[1] != "lint" {
		return
	}
	c, color, ok := parseLintFast(os.Args[2:])
	if !ok {
		os.Exit(exitUsage)
	}
	err := c.Run(&Globals{Color: color, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	if ee, ok := errors.AsType[*exitError](err); ok {
		if ee.Err != nil {
			fmt.Fprintln(os.Stderr, "lint-only:", ee.Err)
		}
		os.Exit(ee.Code)
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "lint-only:", err)
		os.Exit(exitIntern)
	}
}
GO
{
  printf '{"Replace":{"%s/main.go":"%s/leanlint/main.go"' "$lean" "$tmp"
  for f in cmd_lint.go findings.go output.go workspace.go lint_fast.go; do
    printf ',"%s/%s":"%s/cmd/jp-policy/%s"' "$lean" "$f" "$repo" "$f"
  done
  printf '}}'
} > "$tmp/leanlint/overlay.json"
(cd "$repo" && gobuild -overlay "$tmp/leanlint/overlay.json" -o "$tmp/lint-only" ./cmd/jp-policy/internal/leanlint)
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

cmds=(
  --command-name hello-world "$tmp/hello-world"
  --command-name "jp-policy start" "$tmp/jp-policy-start --bench-start"
  --command-name "lint-only start" "$tmp/lint-only --bench-start"
  --command-name "lint example" "$tmp/jp-policy lint --workspace $repo/examples/workspace"
  --command-name "lint $(basename "$upstream")" "$tmp/jp-policy lint --workspace $upstream"
  --command-name "lint 20 tools" "$tmp/jp-policy lint --workspace $tmp/ws20"
  --command-name "lint 40 tools" "$tmp/jp-policy lint --workspace $tmp/ws40"
  --command-name "lint-only 20 tools" "$tmp/lint-only lint --workspace $tmp/ws20"
)
# Both binaries must print the same report, or the comparison is void.
cmp <("$tmp/jp-policy" lint --workspace "$tmp/ws20") <("$tmp/lint-only" lint --workspace "$tmp/ws20")

# In rounds (bench/rounds.sh): 5 rounds of 30 runs unless ROUNDS says.
# shellcheck source=bench/rounds.sh
. "$repo/bench/rounds.sh"
hyperfine_rounds "$tmp/result.json" "${ROUNDS:-5}" 30 5 "${cmds[@]}"

python3 - "$tmp/result.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
m = {x["command"]: x["median"] * 1e3 for x in res}
print()
for k, v in m.items():
    print(f"{k:28} median {v:7.2f} ms  / hello-world {v / m['hello-world']:5.2f}")
r = {x["command"]: x["round_medians"] for x in res}
print("lint 20 tools / hello-world by round: " + " ".join(f"{a / b:.2f}" for a, b in zip(r["lint 20 tools"], r["hello-world"])))
PY

if command -v perf >/dev/null && perf stat -e page-faults true >/dev/null 2>&1; then
  echo
  echo "page faults (perf stat -r 20):"
  i=0
  while [ $i -lt ${#cmds[@]} ]; do
    name=${cmds[$((i + 1))]} cmd=${cmds[$((i + 2))]}
    # shellcheck disable=SC2086 # the command line is split on purpose
    n=$(perf stat -r 20 -x, -e page-faults $cmd 2>&1 >/dev/null | awk -F, '/page-faults/ {print $1}')
    printf '%-28s %6s faults\n' "$name" "$n"
    i=$((i + 3))
  done
fi
