//go:build linux

package nsroot

import (
	"os/exec"
	"testing"
)

// The three benchmarks run /bin/true: bare (the floor), under bwrap, and
// under nsroot with bwrap's sandbox (new user, mount and network
// namespaces, / read-only recursively, a read-write workspace). They run
// in this process, so the parent's Go start-up — paid by jp-policy exec
// on every path, namespaces or not — is left out; bench/nsroot.sh times
// whole processes.
//
//	go test ./internal/nsroot -run XXX -bench . -benchtime 200x

// BenchmarkPlainExec is the floor: /bin/true started and reaped by
// os/exec, no namespaces.
func BenchmarkPlainExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBwrap(b *testing.B) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Skip("bwrap not installed (apt-get install bubblewrap)")
	}
	ws := b.TempDir()
	for b.Loop() {
		if err := exec.Command(bwrap, "--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "--bind", ws, ws, "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStart(b *testing.B) {
	requireUserns(b)
	ws := b.TempDir()
	s := &Spec{
		Path: "/bin/true", Argv: []string{"true"}, Workdir: ws,
		Binds: []Bind{{Src: "/", Dst: "/"}, {Src: ws, Dst: ws, RW: true}},
		Net:   true,
	}
	for b.Loop() {
		if code, err := Run(s); err != nil || code != 0 {
			b.Fatal(code, err)
		}
	}
}
