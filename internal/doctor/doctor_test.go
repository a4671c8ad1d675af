package doctor

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	good := Facts{OS: "linux", LandlockABI: 6, UserNS: true}
	var b bytes.Buffer
	if !Write(&b, Report(good)) || strings.Contains(b.String(), "MISSING") {
		t.Fatalf("all present, got:\n%s", b.String())
	}
	for _, tc := range []struct {
		name string
		f    Facts
		want []string
	}{
		{"apparmor", Facts{OS: "linux", LandlockABI: 6, UserNSWhy: "kernel.apparmor_restrict_unprivileged_userns is 1 and jp-policy has no AppArmor profile allowing userns"},
			[]string{"MISSING user namespaces", "chmod, chown and utime fail", "jp-policy doctor --apparmor | sudo tee /etc/apparmor.d/jp-policy >/dev/null && sudo apparmor_parser -r /etc/apparmor.d/jp-policy"}},
		{"debian sysctl", Facts{OS: "linux", LandlockABI: 6, UserNSWhy: "kernel.unprivileged_userns_clone is 0"},
			[]string{"sudo sysctl -w kernel.unprivileged_userns_clone=1"}},
		{"container", Facts{OS: "linux", LandlockABI: 6, UserNSWhy: "operation not permitted"},
			[]string{"--security-opt seccomp=unconfined"}},
		{"old landlock", Facts{OS: "linux", LandlockABI: 3, UserNS: true}, []string{"MISSING landlock: ABI 3", "Linux 6.12"}},
		{"no landlock", Facts{OS: "linux", UserNS: true}, []string{"MISSING landlock: not enabled", "lsm="}},
		{"no seccomp", Facts{OS: "linux", LandlockABI: 6, UserNS: true, Seccomp: errors.New("no")}, []string{"MISSING seccomp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if Write(&b, Report(tc.f)) {
				t.Error("Write reported all present")
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
		})
	}
	b.Reset()
	if !Write(&b, Report(Facts{OS: "darwin"})) {
		t.Error("darwin: nothing to enable")
	}
}

func TestProfile(t *testing.T) {
	p := Profile([]string{"/usr/local/bin/jp-policy", "/home/me/go/bin/jp policy-exec"})
	for _, w := range []string{"abi <abi/4.0>,", "profile jp-policy-0 /usr/local/bin/jp-policy flags=(unconfined) {\n  userns,", `profile jp-policy-1 "/home/me/go/bin/jp policy-exec"`} {
		if !strings.Contains(p, w) {
			t.Errorf("profile lacks %q:\n%s", w, p)
		}
	}
}
