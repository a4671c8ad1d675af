#!/usr/bin/env bash
# Benchmark `jp-policy exec` against `/bin/true` run bare, the two floors
# (bench/floor: a minimal static C Landlock launcher and a minimal Go one,
# the least any Go launcher can cost), go-landlock's landlock-restrict,
# and bubblewrap, in one hyperfine run so the ratios are independent of
# the machine. jp-policy runs on a 1-tool, a 1,000-tool and a 10,000-tool
# workspace (exec must not grow with the workspace) and on the namespaced
# path; and on a read-only tool (no flags: its
# policy needs no namespace) in the same three workspaces. Page faults
# (perf stat) follow when perf is installed: on a VM where a fault costs
# ~35 us they are most of a run's CPU time (docs/exec.md). Every Go binary is built the same way (-trimpath -ldflags "-s -w",
# the documented build).
#
#   bench/exec.sh [RUNS]     (ROUNDS=5: RUNS split over 5 hyperfine rounds)
#
# The jp-policy policy has 10 fs rules (a read-write workspace narrowed
# around .env and three read-only directories, plus read-only and
# read-write siblings), net denied, env isolation and the system
# baseline, compiled with `jp-policy compile`. landlock-restrict gets the
# same workspace paths and the baseline paths that exist here. Linux only.
set -euo pipefail

runs=${1:-300}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v hyperfine >/dev/null; then
  apt-get install -y hyperfine >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

gobuild() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" "$@"; }
(cd "$repo" && gobuild -o "$tmp/jp-policy" ./cmd/jp-policy)
GOBIN="$tmp" go install github.com/landlock-lsm/go-landlock/cmd/landlock-restrict@v0.11.0
cc -O2 -static -o "$tmp/c-floor" "$repo/bench/floor/landlock_floor.c"
(cd "$repo" && gobuild -o "$tmp/go-floor" bench/floor/gofloor.go)
if ! command -v bwrap >/dev/null; then
  apt-get install -y bubblewrap >/dev/null 2>&1 || true
fi

# Keep the real JP config out of it.
export JP_GLOBAL_CONFIG_DIR="$tmp/jp-global" JP_USER_DATA_DIR="$tmp/jp-data"
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_DATA_HOME="$tmp/xdg-data"

ws="$tmp/ws"
mkdir -p "$ws/.jp" "$ws/src" "$ws/docs" "$ws/vendor" "$ws/build" "$ws/tmp" "$ws/scripts" "$ws/data" "$ws/assets"
echo "X=1" > "$ws/.env"
for d in src docs vendor build tmp scripts data assets; do echo "$d" > "$ws/$d/file"; done
cat > "$ws/.jp/config.toml" <<'TOML'
[conversation.tools.bench]
source = "local"
command = "true"

[[conversation.tools.bench.access.fs]]
path = "."
read = true
write = true

[[conversation.tools.bench.access.fs]]
path = ".env"

[[conversation.tools.bench.access.fs]]
path = "src"
read = true

[[conversation.tools.bench.access.fs]]
path = "docs"
read = true

[[conversation.tools.bench.access.fs]]
path = "vendor"
read = true

[[conversation.tools.bench.access.fs]]
path = "build"
read = true
write = true

[[conversation.tools.bench.access.fs]]
path = "tmp"
read = true
write = true

[[conversation.tools.bench.access.fs]]
path = "scripts"
read = true
execute = true

[[conversation.tools.bench.access.fs]]
path = "data"
read = true
create = true

[[conversation.tools.bench.access.fs]]
path = "assets"
read = true
update = true

[[conversation.tools.bench.access.net]]
host = "invalid"
allow = false

[[conversation.tools.bench.access.env]]
name = "GITHUB_TOKEN"
read = true

# A read-only tool: Landlock and seccomp enforce it exactly, so exec takes
# the fast path without any flag (the bench tool above writes the
# workspace, which needs the namespaced path for its protected paths).
[conversation.tools.ro]
source = "local"
command = "true"
TOML
for d in src docs vendor build tmp data assets; do
  printf '[[conversation.tools.ro.access.fs]]\npath = "%s"\nread = true\n\n' "$d" >> "$ws/.jp/config.toml"
done
printf '[[conversation.tools.ro.access.fs]]\npath = "scripts"\nread = true\nexecute = true\n' >> "$ws/.jp/config.toml"
"$tmp/jp-policy" compile --workspace "$ws" --no-input >/dev/null 2>&1

# Sanity: the sandbox is real before we time it.
if "$tmp/jp-policy" exec -w "$ws" -t bench -- cat "$ws/.env" 2>/dev/null; then
  echo "jp-policy exec did not deny .env; refusing to benchmark" >&2; exit 1
fi
if "$tmp/jp-policy" exec -w "$ws" -t ro -- cat "$ws/.env" 2>/dev/null; then
  echo "jp-policy exec did not deny .env to the read-only tool; refusing to benchmark" >&2; exit 1
fi
"$tmp/jp-policy" exec -w "$ws" -t bench --dry-run -- /bin/true | sed 's/^/  /'

# landlock-restrict: the same workspace paths (it cannot express the
# narrowing, so the workspace is one read-write tree) and the baseline
# paths that exist on this machine.
rodirs=() rofiles=()
for p in /usr /bin /sbin /lib /lib64 /lib32 /libx32 /etc/ld.so.cache /etc/ld.so.conf /etc/ld.so.conf.d \
         /etc/nsswitch.conf /etc/passwd /etc/group /etc/hosts /etc/resolv.conf /etc/ssl /etc/localtime /proc/self; do
  if [ -d "$p" ]; then rodirs+=("$p"); elif [ -e "$p" ]; then rofiles+=("$p"); fi
done
rwdirs=("$ws")
for d in src docs vendor build tmp scripts data assets; do rwdirs+=("$ws/$d"); done
restrict="$tmp/landlock-restrict -ro ${rodirs[*]} -rofiles ${rofiles[*]} -rw ${rwdirs[*]} -rwfiles /dev/null -- /bin/true"
$restrict

floor_args="-r ${rodirs[*]} ${rofiles[*]} -w ${rwdirs[*]} /dev/null -- /bin/true"

# Workspaces of 1,000 and 10,000 tools with 10 read-only rules each (no
# namespace needed: the fast path); exec runs one of them. (Compiling
# 10,000 tools takes a while.)
for n in 1000 10000; do
big="$tmp/big$n"
mkdir -p "$big/.jp"
python3 - "$big" "$n" <<'PY'
import sys
with open(sys.argv[1] + "/.jp/config.toml", "w") as f:
    for t in range(int(sys.argv[2])):
        f.write(f'[conversation.tools.tool_{t}]\nsource = "local"\ncommand = "true"\n')
        f.write(f'[[conversation.tools.tool_{t}.access.fs]]\npath = "."\nread = true\n')
        for r in range(9):
            f.write(f'[[conversation.tools.tool_{t}.access.fs]]\npath = "d{r}/t{t}"\nread = true\n')
PY
"$tmp/jp-policy" compile --workspace "$big" --no-input >/dev/null 2>&1
done
cmds=(-n 'bare' '/bin/true'
  -n 'C floor' "$tmp/c-floor $floor_args"
  -n 'Go floor' "$tmp/go-floor $floor_args"
  -n 'landlock-restrict' "$restrict"
  -n 'jp-policy exec' "$tmp/jp-policy exec -t bench --no-namespaces --best-effort -- /bin/true"
  -n 'jp-policy exec, 1000 tools' "$tmp/jp-policy exec -w $tmp/big1000 -t tool_5 --no-namespaces --best-effort -- /bin/true"
  -n 'jp-policy exec, 10000 tools' "$tmp/jp-policy exec -w $tmp/big10000 -t tool_9999 --no-namespaces --best-effort -- /bin/true"
  -n 'jp-policy exec, ro' "$tmp/jp-policy exec -w $ws -t ro -- /bin/true")
if "$tmp/jp-policy" exec -w "$ws" -t bench --namespaces -- /bin/true 2>/dev/null; then
  # The bench tool writes the workspace, so exec takes the namespaced path
  # by itself; the rows above force the fast path.
  cmds+=(-n 'jp-policy exec --namespaces' "$tmp/jp-policy exec -w $ws -t bench -- /bin/true")
fi
if command -v bwrap >/dev/null && bwrap --unshare-user --unshare-net --ro-bind / / --bind "$ws" "$ws" /bin/true 2>/dev/null; then
  cmds+=(-n 'bwrap' "bwrap --unshare-user --unshare-net --ro-bind / / --bind $ws $ws /bin/true")
fi

cd "$ws"
# In rounds (bench/rounds.sh). ROUNDS=1 gives one hyperfine run of RUNS
# per command.
rounds=${ROUNDS:-5}
# shellcheck source=bench/rounds.sh
. "$repo/bench/rounds.sh"
hyperfine_rounds "$tmp/result.json" "$rounds" $(( (runs + rounds - 1) / rounds )) 10 "${cmds[@]}"

python3 - "$tmp/result.json" <<'PY'
import json, sys
res = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
# Medians: the mean of a few-ms command is at the mercy of any other load.
m = {k: v["median"] * 1e3 for k, v in res.items()}
print()
for k in res:
    print(f"{k:28} median {m[k]:6.2f} ms  min {res[k]['min']*1e3:6.2f} ms  / C floor {m[k]/m['C floor']:5.2f}  / Go floor {m[k]/m['Go floor']:5.2f}")
# The headline ratio round by round: its spread is the noise.
per_round = [a / b for a, b in zip(res['jp-policy exec, ro']['round_medians'], res['Go floor']['round_medians'])]
print("jp-policy exec, ro / Go floor by round: " + " ".join(f"{x:.2f}" for x in per_round))
print(f"jp-policy exec, ro / landlock-restrict = {m['jp-policy exec, ro']/m['landlock-restrict']:.2f}")
print(f"1,000-tool workspace / 1-tool workspace = {m['jp-policy exec, 1000 tools']/m['jp-policy exec']:.2f}")
print(f"10,000-tool workspace / 1-tool workspace = {m['jp-policy exec, 10000 tools']/m['jp-policy exec']:.2f}")
if "jp-policy exec --namespaces" in m and "bwrap" in m:
    print(f"jp-policy exec --namespaces / bwrap = {m['jp-policy exec --namespaces']/m['bwrap']:.2f}")
PY

# Page faults per run (perf stat, 30 runs each): deterministic where time
# is noisy, and on this kind of VM most of the CPU time.
if command -v perf >/dev/null; then
  echo
  for ((i = 0; i < ${#cmds[@]}; i += 3)); do
    name=${cmds[$((i + 1))]}
    line=${cmds[$((i + 2))]}
    # shellcheck disable=SC2086
    faults=$(perf stat -r 30 -x, -e page-faults $line 2>&1 >/dev/null | awk -F, '/page-faults/ {print $1}')
    printf '%-28s %6s page faults\n' "$name" "$faults"
  done
fi
