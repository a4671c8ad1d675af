#!/usr/bin/env bash
# macOS smoke test: real programs under `jp-policy exec` with compiled SBPL
# profiles, for each profile kind (read-only, writer, net with the
# launcher's filtering proxy). Prints one table row per run (expected vs
# got), then the sandbox denials macOS logged meanwhile, and exits 1 when
# any row differs from what the policy says.
#
# It needs macOS (sandbox-exec, `log show`); it cannot run on Linux.
# .github/workflows/macos.yml runs it on GitHub's macos-14 and macos-15
# runners. Usage, from anywhere in the repository:
#
#   scripts/macos-smoke.sh            # builds jp-policy into a temp dir
#   JP_POLICY=/path/to/jp-policy scripts/macos-smoke.sh
#
# Rows marked "deny" are attacks with a positive control elsewhere in the
# table: a write under the read-only profile (the writer's row writes),
# a read of a home file outside every grant, a direct TCP connection
# around the proxy (curl through the proxy reaches the same server).
set -u

if [ "$(uname -s)" != Darwin ] || [ ! -x /usr/bin/sandbox-exec ]; then
  echo "macos-smoke: needs macOS with /usr/bin/sandbox-exec" >&2
  exit 2
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
# The system's programs (the xcrun shims for git and python3): what every
# Mac has. A Homebrew python3 earlier on PATH keeps its libraries in its
# keg, which no grant reaches; the last rows try PATH as it was.
user_path=$PATH
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
work=$(mktemp -d "${TMPDIR:-/tmp}/jp-smoke.XXXXXX")
work=$(cd "$work" && pwd -P)
server_pid=
# A file outside every grant; readable unsandboxed (the control row).
secret="$HOME/.jp-policy-smoke-secret.$$"
echo secret >"$secret"
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work" "$secret"
}
trap cleanup EXIT

bin=${JP_POLICY:-}
if [ -z "$bin" ]; then
  bin="$work/bin/jp-policy"
  (cd "$repo" && CGO_ENABLED=0 go build -o "$work/bin/" ./cmd/jp-policy ./cmd/jp-policy-exec) || exit 2
fi

# A local origin the net tool may reach through the proxy; the port is
# chosen by the kernel and read back from the server.
python3 - "$work/port" <<'EOF' &
import http.server, sys, threading
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"smoke-ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
EOF
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port" 2>/dev/null) || { echo "macos-smoke: the local origin did not start" >&2; exit 2; }

# The workspace: a git repository with one file, compiled for three tools.
write_workspace() { # DIR
  mkdir -p "$1/.jp"
  cat >"$1/.jp/config.toml" <<EOF
[conversation.tools.ro]
source = "local"
command = "x"
[[conversation.tools.ro.access.fs]]
path = "."
read = true

[conversation.tools.rw]
source = "local"
command = "x"
[[conversation.tools.rw.access.fs]]
path = "."
read = true
write = true
# What a careful user keeps read-only inside a writable workspace: git's
# config and hooks, and JP's own config and compiled policy.
[[conversation.tools.rw.access.fs]]
path = ".git"
read = true
[[conversation.tools.rw.access.fs]]
path = ".jp"
read = true
[[conversation.tools.rw.access.fs]]
path = ".jp.toml"
read = true

[conversation.tools.net]
source = "local"
command = "x"
[[conversation.tools.net.access.fs]]
path = "."
read = true
[[conversation.tools.net.access.net]]
host = "localhost"
scheme = "http"
port = $port
allow = true
EOF
  echo hello >"$1/file.txt"
  git -C "$1" init -q && git -C "$1" add file.txt && git -C "$1" -c user.name=s -c user.email=s@s commit -qm init
  (cd "$1" && "$bin" compile --no-input >/dev/null) || { echo "macos-smoke: compile failed in $1" >&2; exit 2; }
}

ws="$work/ws"
write_workspace "$ws"
# A second workspace whose path needs SBPL's string escapes: the profile
# must load with a quote, a backslash and non-ASCII in every path.
odd="$work/odd \"q\" \\b ü"
write_workspace "$odd"

start=$(date '+%Y-%m-%d %H:%M:%S')
fails=0
rows=()

# run KIND EXPECT NAME CMD...: runs CMD under tool KIND in $dir, records
# ok/deny against EXPECT ("any": recorded, not judged).
dir=$ws
run() {
  local kind=$1 expect=$2 name=$3
  shift 3
  local out rc got
  out=$(cd "$dir" && "$bin" exec --tool "$kind" -- "$@" 2>&1 </dev/null)
  rc=$?
  if [ $rc -eq 0 ]; then got=ok; else got=deny; fi
  local verdict=PASS
  if [ "$expect" = any ]; then
    verdict=INFO
  elif [ "$got" != "$expect" ]; then
    verdict=FAIL
    fails=$((fails + 1))
  fi
  rows+=("$(printf '%-4s %-5s %-22s %-6s %-6s %-4s %s' "$verdict" "$kind" "$name" "$expect" "$got" "$rc" "$(printf '%s' "$out" | tr '\n' ' ' | cut -c1-100)")")
}

heredoc='cat <<EOF
here
EOF'
for kind in ro rw net; do
  run "$kind" ok true /usr/bin/true
  run "$kind" ok "sh -c 'ls | wc'" /bin/sh -c 'ls | wc -l'
  run "$kind" ok here-document /bin/sh -c "$heredoc"
  run "$kind" ok "git status" git status --short
  run "$kind" ok "python3 -c 1" python3 -c 1
  run "$kind" ok date date
  run "$kind" ok tempfile python3 -c 'import tempfile; tempfile.TemporaryFile().write(b"x")'
  if [ "$kind" = net ]; then
    run "$kind" ok "curl via proxy" curl -fsS --max-time 10 "http://localhost:$port/"
    # Around the proxy: the same server, dialled directly, is refused.
    run "$kind" deny "curl direct" curl -fsS --max-time 10 --noproxy '*' "http://127.0.0.1:$port/"
    # The IPv4-mapped loopback (what the JVM dials): SBPL cannot name it,
    # so the profile refuses it; the row records that on each macOS.
    run "$kind" deny "ipv4-mapped proxy" python3 -c 'import os,socket,urllib.parse as u; p=u.urlsplit(os.environ["HTTP_PROXY"]).port; socket.create_connection(("::ffff:127.0.0.1", p), timeout=5).close()'
  else
    run "$kind" deny "curl (no net rule)" curl -fsS --max-time 10 "http://localhost:$port/"
  fi
  if [ "$kind" = rw ]; then
    run "$kind" ok "write in workspace" /bin/sh -c 'echo x >new-rw.txt'
  else
    run "$kind" deny "write in workspace" /bin/sh -c 'echo x >new-ro.txt'
  fi
  run "$kind" deny "read home file" /bin/cat "$secret"
done
if /bin/cat "$secret" >/dev/null; then
  rows+=("PASS ---   read home file (control)  ok     ok     0    unsandboxed")
else
  rows+=("FAIL ---   read home file (control)  ok     deny   1    unsandboxed")
  fails=$((fails + 1))
fi
for prog in python3 git; do
  p=$(PATH=$user_path command -v "$prog") && [ "$p" != "/usr/bin/$prog" ] &&
    run ro any "$prog from PATH ($p)" "$p" --version
done
dir=$odd
run rw ok "odd workspace path" /bin/sh -c 'ls >/dev/null && echo x >new.txt'

sw_vers 2>/dev/null | tr '\n' ' '
echo
printf '%-4s %-5s %-22s %-6s %-6s %-4s %s\n' "" kind command expect got rc output
printf '%s\n' "${rows[@]}"
echo
echo "== sandbox denials since $start (log show --predicate 'sender==\"Sandbox\"')"
log show --start "$start" --style compact --predicate 'sender=="Sandbox"' 2>/dev/null | grep -v '^Filtering' | tail -n 300
echo
if [ $fails -gt 0 ]; then
  echo "macos-smoke: $fails row(s) differ from the policy"
  exit 1
fi
echo "macos-smoke: all rows as the policy says"
