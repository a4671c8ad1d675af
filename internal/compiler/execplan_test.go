package compiler

import (
	"runtime"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// TestFastPlan: the exec plan carries a fast path exactly when the Linux
// manifest needs no namespace, with the manifest's rules as kernel bits,
// the ABI that enforces every clause, and the seccomp program assembled.
func TestFastPlan(t *testing.T) {
	base := func() *landlock.Manifest {
		return &landlock.Manifest{
			FS:        []landlock.PathRule{{Path: "/ws/src", Access: []string{landlock.ReadFile, landlock.ReadDir}, Clause: "fs[0]"}},
			Baseline:  []landlock.PathRule{{Path: "/usr", Access: []string{landlock.ReadFile, landlock.Execute}, Clause: "baseline.usr", Optional: true}},
			Net:       landlock.Net{Restrict: true},
			Scope:     []string{"signal"},
			Seccomp:   &seccomp.Spec{Inet: seccomp.InetTCP},
			Namespace: &landlock.NSPlan{Binds: []landlock.NSBind{{Path: "/ws/src"}}},
			Clauses:   []emit.Clause{{ID: "fs[0]", MinABI: 3}},
		}
	}
	f, err := fastPlan(base())
	if err != nil || f == nil {
		t.Fatalf("read-only manifest: %v, %v", f, err)
	}
	if f.NeedABI != 6 { // the scope
		t.Errorf("NeedABI %d, want 6", f.NeedABI)
	}
	if f.FS[0].Access != uint64(landlock.RReadFile|landlock.RReadDir) || !f.Baseline[0].Optional || f.Scoped != landlock.ScopeSignal {
		t.Errorf("rules %+v %+v scope %#x", f.FS, f.Baseline, f.Scoped)
	}
	if len(f.Sockets) != 1 || f.Sockets[0] != "/ws/src" {
		t.Errorf("socket candidates %v", f.Sockets)
	}
	if _, err := seccomp.ArchFor(runtime.GOARCH); err == nil && (f.FilterArch != runtime.GOARCH || len(f.Filter) == 0) {
		t.Errorf("no seccomp program for %s", runtime.GOARCH)
	}
	// A narrowed path (a mask) needs the namespaced path: no fast plan.
	m := base()
	m.Namespace.Masks = []string{"/ws/src/.env"}
	if f, err := fastPlan(m); err != nil || f != nil {
		t.Errorf("masked manifest got a fast plan %+v (%v)", f, err)
	}
	// No seccomp spec: never run unfiltered, so no fast plan.
	m = base()
	m.Seccomp = nil
	if f, _ := fastPlan(m); f != nil {
		t.Error("a manifest without seccomp got a fast plan")
	}
	// An unknown right is an error, not a guess.
	m = base()
	m.FS[0].Access = []string{"fly"}
	if _, err := fastPlan(m); err == nil {
		t.Error("an unknown right was accepted")
	}
}
