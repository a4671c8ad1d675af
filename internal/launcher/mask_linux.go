//go:build linux

package launcher

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Narrowed paths that grant nothing (".env" in a read-write workspace)
// are enforced by the compiled split, which can only withhold rights on
// the narrowed path's ancestors. When the launcher may create a private
// mount namespace, it hides those paths exactly instead — an empty
// read-only tmpfs over a directory, a read-only nodev bind of /dev/null
// over a file (opening it fails) — and applies the manifest's MaskedFS,
// the split computed without them, so the ancestors keep their full
// rights. A Landlock domain cannot change the mount topology, so the
// sandboxed program cannot take the masks off.
//
// Creating the namespace needs CAP_SYS_ADMIN: an unprivileged launcher
// would need a user namespace, which the kernel refuses to a
// multi-threaded process such as any Go program. Without it the split
// applies, which never grants more than the policy.

// canMask reports whether this process may create a mount namespace.
func canMask() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) != 0
}

// applyMasks hides every path in masks inside a new mount namespace of
// the calling thread, which must be locked (runtime.LockOSThread) and
// exec next. It reports whether every mask is in place; on false the
// caller uses the split FS, and any mask already mounted only hides more.
func applyMasks(masks []string) (bool, error) {
	if len(masks) == 0 || !canMask() {
		return false, nil
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return false, nil
	}
	// Nothing mounted here may reach the caller's namespace.
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return false, fmt.Errorf("making the private mount namespace private: %w", err)
	}
	for _, p := range masks {
		if err := mask(p); err != nil {
			return false, err
		}
	}
	return true, nil
}

// mask mounts over p, reached without following symlinks: the target is
// opened with RESOLVE_NO_SYMLINKS and mounted on through /proc/self/fd,
// so a path that turned into a symlink since the compile is not masked
// somewhere else.
func mask(p string) error {
	fd, err := OpenPath(p, false)
	if err != nil {
		return &PathError{Clause: "masks", Path: p, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &PathError{Clause: "masks", Path: p, Err: err}
	}
	target := "/proc/self/fd/" + strconv.Itoa(fd)
	const flags = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := unix.Mount("tmpfs", target, "tmpfs", flags, "mode=000,size=4k"); err != nil {
			return &PathError{Clause: "masks", Path: p, Err: err}
		}
		return nil
	}
	if err := unix.Mount("/dev/null", target, "", unix.MS_BIND, ""); err != nil {
		return &PathError{Clause: "masks", Path: p, Err: err}
	}
	// A bind ignores the flags; they need a remount of the new mount,
	// which fd still sits under: reopen p to reach it.
	top, err := OpenPath(p, false)
	if err != nil {
		return &PathError{Clause: "masks", Path: p, Err: err}
	}
	defer unix.Close(top)
	if err := unix.Mount("", "/proc/self/fd/"+strconv.Itoa(top), "", unix.MS_BIND|unix.MS_REMOUNT|flags, ""); err != nil {
		return &PathError{Clause: "masks", Path: p, Err: err}
	}
	return nil
}
