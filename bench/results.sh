# Sourced by every bench script: the build they measure, the workspaces
# they share, and writing their section of bench/RESULTS.md.
#
# Figures live only in bench/RESULTS.md, one section per script, each
# rewritten whole by the script's last run: the command line, the date,
# the machine, hyperfine's table and the ratios the script computes.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_repo=$(cd "$bench_dir/.." && pwd)

# bench_need CMD PACKAGE: install PACKAGE with apt-get when CMD is missing.
bench_need() {
  command -v "$1" >/dev/null && return
  apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
}

# bench_install DIR: jp-policy built exactly as the README installs it: `go install ./cmd/...`,
# no flags, whatever the environment's defaults are.
bench_install() {
  (cd "$bench_repo" && GOBIN="$1" go install ./cmd/...)
}

# bench_build_desc BINARY: how BINARY was built, for the machine line.
bench_build_desc() {
  local link
  link=$(file -b "$1" 2>/dev/null | grep -o 'statically linked\|dynamically linked' || true)
  echo "\`go install ./cmd/...\` ($(go version | cut -d' ' -f3), CGO_ENABLED=$(go env CGO_ENABLED)${link:+, $link})"
}

# bench_machine: CPUs, CPU model, kernel and the load at this moment.
# BENCH_NOTE (for example "shared with other builds") is appended.
bench_machine() {
  local model
  model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
  echo "$(nproc) CPUs (${model:-unknown CPU}), Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)${BENCH_NOTE:+; $BENCH_NOTE}"
}

# bench_table JSON [ms|s]: hyperfine's results (an --export-json file, or
# bench/merge_rounds.py's merge) as a Markdown table, medians first: the
# ratios are between medians, which a loaded machine moves least. The
# CPU time (user + sys, from an --export-json file) moves less still.
bench_table() {
  python3 - "$1" "${2:-ms}" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
unit = sys.argv[2]
k = 1e3 if unit == "ms" else 1.0
rounds = any("round_medians" in r for r in res)
cpu = all("user" in r and "system" in r for r in res)
head = f"| command | median [{unit}] | mean ± σ [{unit}] | min [{unit}] | max [{unit}] |"
sep = "| --- | ---: | ---: | ---: | ---: |"
if cpu:
    head += f" user + sys, mean [{unit}] |"
    sep += " ---: |"
if rounds:
    head += f" median per round [{unit}] |"
    sep += " --- |"
print(head)
print(sep)
for r in res:
    t = r["times"]
    mean = sum(t) / len(t)
    sd = (sum((x - mean) ** 2 for x in t) / (len(t) - 1)) ** 0.5 if len(t) > 1 else 0.0
    row = f"| {r['command']} | {r['median']*k:.2f} | {mean*k:.2f} ± {sd*k:.2f} | {min(t)*k:.2f} | {max(t)*k:.2f} |"
    if cpu:
        row += f" {(r['user'] + r['system'])*k:.2f} |"
    if rounds:
        row += " " + ", ".join(f"{x*k:.2f}" for x in r.get("round_medians", [])) + " |"
    print(row)
PY
}

# bench_results NAME CMDLINE BODY_FILE: replace NAME's section of
# bench/RESULTS.md (or add it) with a header naming the command, the
# date, the machine and the build, followed by BODY_FILE (Markdown).
# BENCH_MACHINE, when set, is the machine line (taken at the start of a
# run, so the load it shows is the load the run started under).
bench_results() {
  local name=$1 cmdline=$2 body=$3
  python3 - "$bench_dir/RESULTS.md" "$name" "$cmdline" "$body" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "${BENCH_MACHINE:-$(bench_machine)}" "${BENCH_BUILD:-}" <<'PY'
import os, re, sys
path, name, cmdline, body, date, machine, build = sys.argv[1:8]
start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
lines = [start, f"## {name}", "", f"- command: `{cmdline}`", f"- date: {date}", f"- machine: {machine}"]
if build:
    lines.append(f"- build: {build}")
lines += ["", open(body).read().rstrip("\n"), end]
section = "\n".join(lines)
head = ("# Benchmark results\n\n"
        "Written by the scripts in bench/, one section per script, each replaced\n"
        "whole by the script's last run. Ratios are between hyperfine medians of\n"
        "the same run. Do not edit by hand: run the script.\n")
text = open(path).read() if os.path.exists(path) else head
if start in text and end in text:
    text = text[:text.index(start)] + section + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
print(f"wrote the {name} section of {path}", file=sys.stderr)
PY
}

# bench_exec_ws DIR: the workspace exec is timed in. Tool "bench" writes
# the workspace, narrowed around .env and read-only directories (exec
# takes the namespaced path for it by itself); tool "ro" only reads
# (Landlock and seccomp enforce it exactly: the fast path).
bench_exec_ws() {
  local ws=$1 d
  mkdir -p "$ws/.jp" "$ws/src" "$ws/docs" "$ws/vendor" "$ws/build" "$ws/tmp" "$ws/scripts" "$ws/data" "$ws/assets"
  echo "X=1" > "$ws/.env"
  for d in src docs vendor build tmp scripts data assets; do echo "$d" > "$ws/$d/file"; done
  {
    printf '[conversation.tools.bench]\nsource = "local"\ncommand = "true"\n'
    bench_rule bench . read write
    bench_rule bench .env
    for d in src docs vendor; do bench_rule bench "$d" read; done
    for d in build tmp; do bench_rule bench "$d" read write; done
    bench_rule bench scripts read execute
    bench_rule bench data read create
    bench_rule bench assets read update
    printf '\n[[conversation.tools.bench.access.net]]\nhost = "invalid"\nallow = false\n'
    printf '\n[[conversation.tools.bench.access.env]]\nname = "GITHUB_TOKEN"\nread = true\n'
    printf '\n[conversation.tools.ro]\nsource = "local"\ncommand = "true"\n'
    for d in src docs vendor build tmp data assets; do bench_rule ro "$d" read; done
    bench_rule ro scripts read execute
  } > "$ws/.jp/config.toml"
}

# bench_rule TOOL PATH [CAPABILITY...]: one fs rule.
bench_rule() {
  local tool=$1 path=$2 c
  shift 2
  printf '\n[[conversation.tools.%s.access.fs]]\npath = "%s"\n' "$tool" "$path"
  for c in "$@"; do printf '%s = true\n' "$c"; done
}

# bench_tools_ws DIR N: N read-only tools of 10 fs rules each (tool_0 ..
# tool_N-1); exec on any of them takes the fast path.
bench_tools_ws() {
  mkdir -p "$1/.jp"
  python3 - "$1" "$2" <<'PY'
import sys
with open(sys.argv[1] + "/.jp/config.toml", "w") as f:
    for t in range(int(sys.argv[2])):
        f.write(f'[conversation.tools.tool_{t}]\nsource = "local"\ncommand = "true"\n')
        f.write(f'[[conversation.tools.tool_{t}.access.fs]]\npath = "."\nread = true\n')
        for r in range(9):
            f.write(f'[[conversation.tools.tool_{t}.access.fs]]\npath = "d{r}/t{t}"\nread = true\n')
PY
}

# bench_lint_ws DIR N: N local tools with fs, net, env and config rules,
# 200 source files, a .env file and a git directory, so every lint rule
# has work to do.
bench_lint_ws() {
  local ws=$1 n=$2 i
  mkdir -p "$ws/.jp" "$ws/src" "$ws/.git"
  echo "X=1" > "$ws/.env"
  for i in $(seq 1 200); do echo "// $i" > "$ws/src/f$i.rs"; done
  for i in $(seq 1 "$n"); do
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
  done > "$ws/.jp/config.toml"
}

# bench_landlock_paths WS...: the arguments of landlock-restrict (and of
# bench/floor's launchers) for the system baseline that exists on this
# machine plus WS... read-write; sets restrict_ro, restrict_rofiles and
# restrict_rw.
bench_landlock_paths() {
  local p
  restrict_ro=() restrict_rofiles=() restrict_rw=("$@")
  for p in /usr /bin /sbin /lib /lib64 /lib32 /libx32 /etc/ld.so.cache /etc/ld.so.conf /etc/ld.so.conf.d \
    /etc/nsswitch.conf /etc/passwd /etc/group /etc/hosts /etc/resolv.conf /etc/ssl /etc/localtime /proc/self; do
    if [ -d "$p" ]; then restrict_ro+=("$p"); elif [ -e "$p" ]; then restrict_rofiles+=("$p"); fi
  done
}
