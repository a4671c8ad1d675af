//go:build ignore

// nsfloor is the structural floor of a pure-Go (CGO_ENABLED=0) namespaced
// sandbox, for bench/nsroot.sh: the least any Go program can do to run a
// command the way `bwrap --unshare-user --unshare-net --ro-bind / /
// --bind WS WS CMD` does. No Go implementation can be faster, because:
//
//   - The parent cannot unshare(CLONE_NEWUSER) itself: the kernel refuses
//     it to a multithreaded process (unshare(2), EINVAL), and the Go
//     runtime has started sysmon and other threads before the first init
//     function runs. So the namespaces come from clone(2) in
//     syscall.ForkExec (SysProcAttr.Cloneflags, UidMappings, GidMappings).
//   - Between that clone and execve the child runs only the fixed steps
//     SysProcAttr offers (no mount, no pivot_root), so the root is built by
//     a second Go process: this binary re-executed as stage 2 (a second
//     runtime start-up).
//
// Stage 2 does bwrap's work with the fewest system calls: clone / and WS
// (open_tree), make the clone of / read-only recursively while detached
// (mount_setattr), a tmpfs as the new root, attach both (move_mount),
// pivot_root, bring lo up, drop every capability, no_new_privs, execve.
// What package nsroot and the launcher do beyond this (a root built from
// many grants, masks, /dev, /proc, Landlock, seccomp, the supervisor's
// signal forwarding) is their own cost.
//
//	go build -o nsfloor bench/nsfloor/nsfloor.go
//	nsfloor WS CMD ARGS...        the floor (parent + Go stage 2)
//	nsfloor -bwrap WS CMD ARGS... a Go parent running bwrap as its stage 2:
//	                              the bound for a stage 2 without a Go runtime
//	nsfloor -hello                exit at once (this binary's Go start-up)
//
// Linux only; needs unprivileged user namespaces and Linux 5.12.
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

const stage2Arg = "-stage2"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nsfloor [-bwrap] WS CMD ARGS... | nsfloor -hello")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "-hello":
		return
	case stage2Arg:
		stage2(os.Args[2], os.Args[3:])
	case "-bwrap":
		ws := os.Args[2]
		args := append([]string{"bwrap", "--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "--bind", ws, ws}, os.Args[3:]...)
		os.Exit(run("/usr/bin/bwrap", args, nil))
	}
	uid, gid := os.Geteuid(), os.Getegid()
	os.Exit(run("/proc/self/exe", append([]string{os.Args[0], stage2Arg}, os.Args[1:]...), &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// An unprivileged uid keeps only ambient capabilities across the
		// re-exec: mounts and pivot_root, lo up.
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN},
		Pdeathsig:   syscall.SIGKILL,
	}))
}

// run starts path and returns its exit status as a shell reports it.
// syscall.ForkExec, not os/exec: no pidfd probe child, no goroutines.
func run(path string, argv []string, sys *syscall.SysProcAttr) int {
	runtime.LockOSThread() // Pdeathsig follows the thread that forked
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Files: []uintptr{0, 1, 2},
		Env:   []string{"GOMAXPROCS=1", "GOGC=off"},
		Sys:   sys,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nsfloor:", err)
		return 125
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

func stage2(ws string, argv []string) {
	runtime.LockOSThread() // capabilities and no_new_privs are per thread
	check := func(what string, err error) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "nsfloor stage 2: %s: %v\n", what, err)
			os.Exit(126)
		}
	}
	check("private mounts", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""))
	// Clones before the tmpfs goes over /tmp: WS may be under /tmp.
	root, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	check("open_tree /", err)
	check("read-only /", unix.MountSetattr(root, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}))
	wsTree, err := unix.OpenTree(unix.AT_FDCWD, ws, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	check("open_tree WS", err)
	check("tmpfs", unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"))
	check("attach /", unix.MoveMount(root, "", unix.AT_FDCWD, "/tmp", unix.MOVE_MOUNT_F_EMPTY_PATH))
	check("attach WS", unix.MoveMount(wsTree, "", unix.AT_FDCWD, "/tmp"+ws, unix.MOVE_MOUNT_F_EMPTY_PATH))
	check("chdir", unix.Chdir("/tmp"))
	check("pivot_root", unix.PivotRoot(".", "."))
	check("detach the old root", unix.Unmount(".", unix.MNT_DETACH))
	check("chdir WS", unix.Chdir(ws))
	check("lo up", loUp())
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	check("ambient", unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
	check("capset", unix.Capset(&hdr, &none[0]))
	check("no_new_privs", unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
	check("execve", unix.Exec(argv[0], argv, os.Environ()))
}

// loUp sets IFF_UP on lo (the classic ioctl, as package nsroot does: the
// floor imports nothing of the project, so it cannot carry its costs).
func loUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
