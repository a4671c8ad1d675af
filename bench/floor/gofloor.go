//go:build ignore

// The Go floor for bench/exec.sh: the least a Go launcher can do to run a
// command under Landlock: lock the goroutine to its thread, build the same
// ruleset as landlock_floor.c on that thread only, set no_new_privs,
// restrict the thread and syscall.Exec. No Go launcher can be faster; what
// jp-policy exec costs beyond it is its own work.
//
//	go build -o gofloor bench/floor/gofloor.go
//	gofloor -r PATH... -w PATH... -- CMD ARGS...
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	const rx = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	const all = (1 << 15) - 1 // every filesystem right of ABI 3
	const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | 1<<14
	runtime.LockOSThread()
	attr := unix.LandlockRulesetAttr{Handled_access_fs: all}
	rs, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), 8, 0) // handled_access_fs only, as ABI 1-3 define it
	if e != 0 {
		fail("landlock_create_ruleset", e)
	}
	mode := uint64(rx)
	i := 1
	for ; i < len(os.Args) && os.Args[i] != "--"; i++ {
		switch os.Args[i] {
		case "-r":
			mode = rx
			continue
		case "-w":
			mode = all
			continue
		}
		fd, err := unix.Open(os.Args[i], unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		pb := unix.LandlockPathBeneathAttr{Allowed_access: mode, Parent_fd: int32(fd)}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			pb.Allowed_access &= fileRights
		}
		if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rs, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0); e != 0 {
			fail(os.Args[i], e)
		}
		unix.Close(fd)
	}
	if i >= len(os.Args)-1 {
		fail("usage: gofloor -r PATH... -w PATH... -- CMD...", nil)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fail("prctl", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rs, 0, 0); e != 0 {
		fail("landlock_restrict_self", e)
	}
	argv := os.Args[i+1:]
	fail("exec", syscall.Exec(argv[0], argv, os.Environ()))
}

func fail(what string, err error) {
	fmt.Fprintln(os.Stderr, what+":", err)
	os.Exit(125)
}
