#!/usr/bin/env bash
# Benchmark `jp-policy lint` against a hello-world Go binary in the same
# hyperfine run, so the ratio is independent of the machine, on the
# README's install build (`go install ./cmd/...`; the hello-world and the
# two binaries below are built the same way, with no flags). Writes its
# section of bench/RESULTS.md.
#
#   bench/lint.sh [WORKSPACE]     (ROUNDS=5 hyperfine rounds of 30 runs)
#
# It lints the bundled example workspace (examples/workspace, the one the
# README walks through), WORKSPACE (default JP's own config,
# ../shared/fixtures/jp-upstream: ~100 files through extends; on a fresh
# clone without it, the project's testdata/fixtures/jp-layout), and
# generated workspaces with access rules on 20 and 40 tools, so both the
# loader and the rules are measured; it reports each median as a ratio of
# the hello-world's. Installs hyperfine with apt-get if missing.
#
# Two more binaries, built through `go build -overlay` so no file is added
# to the repository, show where the time goes (docs/lint.md):
#   - "jp-policy start": the same jp-policy binary whose main returns at
#     once: the runtime start of the binary plus every package init, the
#     floor of any jp-policy command;
#   - "lint-only": lint's own code (cmd/jp-policy's cmd_lint.go and the
#     files it uses) in a binary of its own, what a separate lint binary
#     would cost ("lint-only start" is its floor).
set -euo pipefail

. "$(dirname "$0")/results.sh"
repo=$bench_repo
BENCH_MACHINE=$(bench_machine)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_need hyperfine hyperfine
gobuild() { go build "$@"; }
bench_install "$tmp"
BENCH_BUILD=$(bench_build_desc "$tmp/jp-policy")

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
(cd "$tmp/hello" && go mod init hello >/dev/null 2>&1 && go build -o "$tmp/hello-world" .)

upstream=${1:-$repo/../shared/fixtures/jp-upstream}
if [ ! -d "$upstream/.jp" ]; then
  echo "no JP workspace at $upstream; benchmarking testdata/fixtures/jp-layout instead" >&2
  upstream=$repo/testdata/fixtures/jp-layout
fi

bench_lint_ws "$tmp/ws20" 20
bench_lint_ws "$tmp/ws40" 40

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

{
  echo "${ROUNDS:-5} hyperfine rounds of 30 runs per command (bench/rounds.sh; each round in its own order):"
  echo
  bench_table "$tmp/result.json" ms
  echo
  python3 - "$tmp/result.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
m = {x["command"]: x["median"] for x in res}
print("| ratio of medians | value |")
print("| --- | ---: |")
for k in m:
    if k != "hello-world":
        print(f"| {k} / hello-world | {m[k] / m['hello-world']:.2f}× |")
PY
} > "$tmp/body.md"
bench_results "bench/lint.sh" "bench/lint.sh${1:+ $1} (ROUNDS=${ROUNDS:-5})" "$tmp/body.md"
cat "$tmp/body.md"
