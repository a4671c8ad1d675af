//go:build linux

package caps

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// DropAll leaves the calling thread, and so the program it execs,
// with no capability: no_new_privs alone keeps what root already has
// (CapEff 000001fffeffffff inside, enough to add addresses to the host's
// loopback). With CAP_SETPCAP it also locks the securebits that stop root
// regaining capabilities at execve (SECBIT_NOROOT) and empties the
// bounding set; without it (an ordinary user) there is nothing in the
// permitted set to keep, and no_new_privs stops file capabilities. Then
// the ambient, inheritable, permitted and effective sets are cleared,
// which needs no privilege. Only this thread changes; it is about to exec.
func DropAll() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		// linux/securebits.h: NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE
		// (bits 0, 2, 6) and their locks (1, 3, 7).
		const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<6 | 1<<7
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
		for c := range 64 {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if errors.Is(err, unix.EINVAL) {
					break // past the kernel's last capability
				}
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
