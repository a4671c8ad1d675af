//go:build linux

package nsroot

import (
	"os/exec"
	"testing"
)

// BenchmarkPlainExec is the floor: /bin/true started and reaped by
// os/exec, no namespaces.
func BenchmarkPlainExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStart runs /bin/true in the sandbox the bench script compares
// with bwrap: /usr and the merged-usr links, a rw workspace, a minimal
// /dev, a new network namespace. Its ratio to BenchmarkPlainExec is the
// namespaces' cost plus stage 2's Go start-up.
func BenchmarkStart(b *testing.B) {
	requireUserns(b)
	ws := b.TempDir()
	s := baseSpec(b)
	s.Path, s.Argv = "/usr/bin/true", []string{"true"}
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true})
	s.Net = true
	for b.Loop() {
		if code, err := Run(s); err != nil || code != 0 {
			b.Fatal(code, err)
		}
	}
}
