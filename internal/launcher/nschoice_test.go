package launcher

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// TestChoosePath: the namespaced path is taken exactly when a need is
// there and namespaces are available; otherwise the fast path, with the
// weakened needs as degradations (refused unless --best-effort).
func TestChoosePath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the namespaced path is Linux only")
	}
	avail, _ := nsroot.Available()
	plain := func() *landlock.Manifest {
		m := testManifest()
		m.Net = landlock.Net{Restrict: true}
		m.Namespace = &landlock.NSPlan{Binds: []landlock.NSBind{{Path: "/ws"}}}
		return m
	}
	protected := func() *landlock.Manifest {
		m := plain()
		m.Namespace = &landlock.NSPlan{Binds: []landlock.NSBind{{Path: "/ws", RW: true}}, Protected: []string{"/ws/.git/hooks"}}
		return m
	}
	masked := func() *landlock.Manifest {
		m := plain()
		m.Namespace = &landlock.NSPlan{Binds: []landlock.NSBind{{Path: "/ws", RW: true}}, Masks: []string{"/ws/.env"}}
		return m
	}
	for _, tc := range []struct {
		name       string
		m          *landlock.Manifest
		mode       NSMode
		noUserns   bool
		best       bool
		namespaced bool
		degraded   string
		refused    bool
	}{
		{"nothing needs it: fast", plain(), NSAuto, false, false, false, "", false},
		{"older manifest: fast", testManifest(), NSAuto, false, false, false, "", false},
		{"protected: namespaced", protected(), NSAuto, false, false, avail, "", !avail},
		{"--no-namespaces weakens: refused", protected(), NSOff, false, false, false, "ns.protected", true},
		{"--no-namespaces --best-effort", protected(), NSOff, false, true, false, "ns.protected", false},
		{"no userns: refused", protected(), NSAuto, true, false, false, "ns.protected", true},
		{"no userns, best effort: fast, degraded", protected(), NSAuto, true, true, false, "ns.protected", false},
		{"no userns, masks only: stricter, runs", masked(), NSAuto, true, false, false, "", false},
		{"--namespaces without a need", plain(), NSRequire, false, false, avail, "", !avail},
		{"--namespaces without userns: refused", plain(), NSRequire, true, true, false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noUserns {
				nsroot.SetUnavailableForTest("JP_POLICY_TEST_NO_USERNS=1 (test only)")
			} else {
				nsroot.SetUnavailableForTest("")
			}
			defer nsroot.SetUnavailableForTest("")
			p, err := Prepare(&Options{Built: &Built{Linux: tc.m}, Tool: "t", Argv: []string{"true"}, Environ: []string{"PATH=" + os.Getenv("PATH")},
				Platform: "linux", ABI: 7, BestEffort: tc.best, NSMode: tc.mode})
			if tc.refused != (err != nil) {
				t.Fatalf("err = %v, want refused=%v", err, tc.refused)
			}
			if err != nil && !tc.noUserns && tc.mode != NSOff && !avail {
				return // refused for lack of user namespaces on this machine
			}
			if tc.refused && tc.degraded != "" && !errors.As(err, new(*UnenforceableError)) {
				t.Fatalf("err = %T, want *UnenforceableError", err)
			}
			if p.Namespaced != tc.namespaced {
				t.Errorf("namespaced = %v, want %v", p.Namespaced, tc.namespaced)
			}
			if got := ids(p.Degraded); got != tc.degraded {
				t.Errorf("degraded = %q, want %q", got, tc.degraded)
			}
		})
	}
}

// TestSandboxExecArgvProxyPort: a macOS run with net rules defines the
// profile's proxy-port parameter as the port the launcher's proxy took.
func TestSandboxExecArgvProxyPort(t *testing.T) {
	p := &Plan{HostProxy: "127.0.0.1:5555", ProfileText: "(version 1)", Path: "/no/such/bin/t", Argv: []string{"t", "a"}}
	got := strings.Join(SandboxExecArgv(p), " ")
	if want := "/usr/bin/sandbox-exec -D JP_PROXY_PORT=5555 -D JP_PROGRAM=/no/such/bin/t -D JP_PROGRAM_REAL=/no/such/bin/t -p (version 1) -- /no/such/bin/t a"; got != want {
		t.Errorf("argv = %q, want %q", got, want)
	}
	p.HostProxy = ""
	if got := strings.Join(SandboxExecArgv(p), " "); strings.Contains(got, "JP_PROXY_PORT") {
		t.Errorf("argv without a proxy defines a parameter: %q", got)
	}
}
