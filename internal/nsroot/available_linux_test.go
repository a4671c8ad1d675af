//go:build linux

package nsroot

import (
	"strings"
	"testing"
)

func TestAvailableFrom(t *testing.T) {
	const (
		max = "/proc/sys/user/max_user_namespaces"
		deb = "/proc/sys/kernel/unprivileged_userns_clone"
		aa  = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
	)
	for _, c := range []struct {
		name   string
		sys    map[string]int
		euid   int
		label  string
		ok     bool
		reason string
	}{
		{"plain kernel", map[string]int{max: 1000}, 1000, "", true, ""},
		{"no userns", map[string]int{}, 1000, "", false, "no user namespaces"},
		{"max zero", map[string]int{max: 0}, 0, "", false, "max_user_namespaces is 0"},
		{"debian switch off", map[string]int{max: 1000, deb: 0}, 1000, "", false, "unprivileged_userns_clone"},
		{"debian switch off, root", map[string]int{max: 1000, deb: 0}, 0, "", true, ""},
		{"debian switch on", map[string]int{max: 1000, deb: 1}, 1000, "", true, ""},
		{"apparmor, unconfined", map[string]int{max: 1000, aa: 1}, 1000, "unconfined", false, "apparmor"},
		{"apparmor, profile", map[string]int{max: 1000, aa: 1}, 1000, "jp-policy (enforce)", true, ""},
		{"apparmor off", map[string]int{max: 1000, aa: 0}, 1000, "unconfined", true, ""},
	} {
		read := func(p string) (int, bool) { v, ok := c.sys[p]; return v, ok }
		ok, reason := availableFrom(read, c.euid, c.label)
		if ok != c.ok || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: got %v %q, want %v %q", c.name, ok, reason, c.ok, c.reason)
		}
	}
}
