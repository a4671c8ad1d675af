package doctor

import (
	"fmt"
	"io"
	"strings"
)

// Facts is what the machine says about itself.
type Facts struct {
	OS string // runtime.GOOS
	// LandlockABI is the kernel's Landlock ABI (0: none).
	LandlockABI int
	// Seccomp is nil when seccomp filters can be installed.
	Seccomp error
	// UserNS reports whether unprivileged user namespaces are usable, and
	// UserNSWhy why not (the sysctl or AppArmor restriction found).
	UserNS    bool
	UserNSWhy string
	// Binaries are the absolute paths of the jp-policy binaries (for the
	// AppArmor profile).
	Binaries []string
}

// Check is one feature's finding.
type Check struct {
	Name string
	OK   bool
	// Detail says what is there, or what is missing and what fails.
	Detail string
	// Fix is the command (or step) that enables it; "" when OK.
	Fix string
}

// NeedABI is the Landlock ABI every clause of a compiled policy can need
// (ABI 6: signal and abstract-socket scoping).
const NeedABI = 6

// Report is the checks for f, in a stable order.
func Report(f Facts) []Check {
	if f.OS != "linux" {
		return []Check{{Name: "platform", OK: true, Detail: f.OS + ": exec uses the platform's own sandbox (docs/enforcement.md); nothing to enable"}}
	}
	var out []Check
	switch {
	case f.LandlockABI >= NeedABI:
		out = append(out, Check{Name: "landlock", OK: true, Detail: fmt.Sprintf("ABI %d", f.LandlockABI)})
	case f.LandlockABI == 0:
		out = append(out, Check{Name: "landlock", Detail: "not enabled: exec refuses every tool (unless --best-effort, which then enforces no file rule)",
			Fix: "boot a kernel with Landlock (5.13+, 6.12+ for ABI 6) and add landlock to the lsm= kernel parameter (cat /sys/kernel/security/lsm shows the list)"})
	default:
		out = append(out, Check{Name: "landlock", Detail: fmt.Sprintf("ABI %d, policies can need %d: exec refuses a tool whose clauses need more (net rules need 4, scopes 6) unless --best-effort", f.LandlockABI, NeedABI),
			Fix: fmt.Sprintf("upgrade to Linux 6.12 or newer (Landlock ABI %d)", NeedABI)})
	}
	if f.Seccomp == nil {
		out = append(out, Check{Name: "seccomp", OK: true, Detail: "filters available"})
	} else {
		out = append(out, Check{Name: "seccomp", Detail: "filters unavailable (" + f.Seccomp.Error() + "): exec refuses unless --best-effort",
			Fix: "a kernel with CONFIG_SECCOMP_FILTER; in a container, a seccomp profile that allows seccomp(2)"})
	}
	if f.UserNS {
		out = append(out, Check{Name: "user namespaces", OK: true, Detail: "unprivileged user namespaces available: tools that write run on the namespaced path"})
	} else {
		out = append(out, Check{Name: "user namespaces", Detail: "unavailable (" + f.UserNSWhy + "): exec refuses tools that write, or have net rules, unless --best-effort; with it they run on the fast path, where the workspace's .git and .jp are writable, net rules filter TCP ports only, and chmod, chown and utime fail even inside write grants (tar x, cp -a, rsync -a, npm install, python -m venv)",
			Fix: userNSFix(f)})
	}
	return out
}

// userNSFix is the step that enables unprivileged user namespaces, from
// the reason they are unavailable.
func userNSFix(f Facts) string {
	why := f.UserNSWhy
	switch {
	case strings.Contains(why, "apparmor"):
		return "install the AppArmor profile that lets jp-policy create user namespaces: jp-policy doctor --apparmor | sudo tee /etc/apparmor.d/jp-policy >/dev/null && sudo apparmor_parser -r /etc/apparmor.d/jp-policy"
	case strings.Contains(why, "unprivileged_userns_clone"):
		return "sudo sysctl -w kernel.unprivileged_userns_clone=1 (and the same line in /etc/sysctl.d/90-userns.conf to keep it)"
	case strings.Contains(why, "max_user_namespaces"):
		return "sudo sysctl -w user.max_user_namespaces=15000 (and the same line in /etc/sysctl.d/90-userns.conf to keep it)"
	}
	return "in a container, run it with a seccomp and AppArmor profile that allow unshare(CLONE_NEWUSER) (Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined), or run tools with --no-namespaces --best-effort"
}

// Write prints the report, one check a line with its fix indented below.
// It returns whether every check passed.
func Write(w io.Writer, checks []Check) bool {
	all := true
	for _, c := range checks {
		mark := "ok     "
		if !c.OK {
			mark, all = "MISSING", false
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "        fix: %s\n", c.Fix)
		}
	}
	return all
}

// Profile is an AppArmor profile (AppArmor 4, Ubuntu 23.10+) for each
// binary: unconfined except that it may create user namespaces, which is
// what kernel.apparmor_restrict_unprivileged_userns takes away from
// programs without a profile.
func Profile(binaries []string) string {
	var b strings.Builder
	b.WriteString("# jp-policy: allow unprivileged user namespaces (jp-policy doctor --apparmor)\nabi <abi/4.0>,\ninclude <tunables/global>\n")
	for i, bin := range binaries {
		fmt.Fprintf(&b, "\nprofile jp-policy-%d %s flags=(unconfined) {\n  userns,\n  include if exists <local/jp-policy>\n}\n", i, quotePath(bin))
	}
	return b.String()
}

// quotePath quotes a path for an AppArmor profile when it holds a space
// or a quote.
func quotePath(p string) string {
	if strings.ContainsAny(p, " \t\"") {
		return `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
	}
	return p
}
