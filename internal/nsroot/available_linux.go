//go:build linux

package nsroot

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// availableOnce is Available's cache. (Not a package-level
// sync.OnceValues: that allocates at every jp-policy start.)
func availableOnce() (bool, string) {
	availableCache.Do(func() { availableCache.ok, availableCache.why = available() })
	return availableCache.ok, availableCache.why
}

var availableCache struct {
	sync.Once
	ok  bool
	why string
}

// Available reports whether unprivileged user namespaces can be used
// here, and if not, why. It reads a few sysctls and never forks, so it is
// cheap enough for every exec; the answer is cached for the process only
// (a sysctl may change between two tool calls). Some refusals are visible
// only when trying — a container's seccomp profile refusing the clone,
// AppArmor taking the capabilities of a namespace from a confined
// program — and Start reports those as an error matching ErrUnavailable,
// before anything ran, so the caller can still fall back.
func Available() (bool, string) {
	if r := unavailableForTest.Load(); r != nil && *r != "" {
		return false, *r
	}
	return availableOnce()
}

func available() (bool, string) {
	label, _ := os.ReadFile("/proc/self/attr/current")
	return availableFrom(readSysctl, os.Geteuid(), strings.TrimSpace(string(label)))
}

// availableFrom decides from the sysctls (read), the effective uid and
// the process's AppArmor label ("" when unknown).
func availableFrom(read func(string) (int, bool), euid int, label string) (bool, string) {
	n, ok := read("/proc/sys/user/max_user_namespaces")
	if !ok {
		return false, "the kernel has no user namespaces (no /proc/sys/user/max_user_namespaces)"
	}
	if n == 0 {
		return false, "user.max_user_namespaces is 0"
	}
	if euid == 0 {
		return true, "" // the restrictions below apply to unprivileged callers
	}
	// Debian's and older Ubuntu's switch.
	if v, ok := read("/proc/sys/kernel/unprivileged_userns_clone"); ok && v == 0 {
		return false, "kernel.unprivileged_userns_clone is 0"
	}
	// Ubuntu 23.10+: an unconfined program gets a user namespace without
	// capabilities. A program with an AppArmor profile allowing userns
	// is let through; Start finds out.
	if v, ok := read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && v == 1 {
		if label == "" || strings.HasPrefix(label, "unconfined") {
			return false, "kernel.apparmor_restrict_unprivileged_userns is 1 and jp-policy has no AppArmor profile allowing userns"
		}
	}
	return true, ""
}

func readSysctl(p string) (int, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}
