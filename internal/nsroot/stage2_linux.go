//go:build linux

package nsroot

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/caps"
	"io"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Messages from stage 2 to the parent, one per SOCK_SEQPACKET datagram:
// a type byte, then the payload.
const (
	msgReady       = 'R' // + the command's pidfd: its execve succeeded
	msgListener    = 'L' // + a listening socket (SCM_RIGHTS)
	msgFile        = 'F' // name + a descriptor (SCM_RIGHTS)
	msgPlaceholder = 'P' // host path created for a mask
	msgError       = 'E' // step NUL message
)

// Stage 2's descriptors, placed by the parent's os.ProcAttr.Files.
const (
	specFD = 3
	sockFD = 4
)

// stage2Sock is the socket to the parent while stage 2 runs, -1 elsewhere.
var stage2Sock = -1

// Stage2Main runs stage 2 when this process is one (IsStage2) and never
// returns then; otherwise it returns at once. Call it first thing in main.
func Stage2Main() {
	if !IsStage2() {
		return
	}
	// Capabilities, Landlock and seccomp are per thread: everything from
	// here to execve happens on this one.
	runtime.LockOSThread()
	unix.CloseOnExec(sockFD)
	stage2Sock = sockFD
	err := stage2()
	var se *SetupError
	if !errors.As(err, &se) {
		se = &SetupError{Step: "stage2", Msg: err.Error()}
	}
	if send(msgError, se.Step+"\x00"+se.Msg+"\x00"+strconv.Itoa(int(se.Errno)), -1) != nil {
		fmt.Fprintf(os.Stderr, "jp-policy: sandbox setup (%s): %s\n", se.Step, se.Msg)
	}
	os.Exit(127)
}

// SendFile hands f to the parent under name (Child.Files). Only the
// Finalize hook, in stage 2, may call it.
func SendFile(name string, f *os.File) error {
	if stage2Sock < 0 {
		return errors.New("nsroot.SendFile outside stage 2")
	}
	return send(msgFile, name, int(f.Fd()))
}

func send(typ byte, payload string, fd int) error {
	if stage2Sock < 0 {
		return errors.New("no parent socket")
	}
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(stage2Sock, append([]byte{typ}, payload...), oob, nil, 0)
}

func fail(step string, err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	se := &SetupError{Step: step, Msg: msg}
	_ = errors.As(err, &se.Errno)
	return se
}

func stage2() error {
	b, err := readSpec()
	if err != nil {
		return fail("spec", err, "reading the spec")
	}
	s, err := decodeSpec(b)
	if err != nil {
		return fail("spec", err, "decoding the spec (is this a re-exec by jp-policy?)")
	}
	if s.Net {
		if err := loopbackUp(); err != nil {
			return fail("net", err, "bringing lo up")
		}
	}
	if err := buildRoot(s); err != nil {
		return err
	}
	for _, a := range s.Listen {
		fd, err := listenAddr(a) // listenudp_linux.go
		if err != nil {
			return fail("listen", err, "listening on %s", a)
		}
		if err := send(msgListener, a, fd); err != nil {
			return fail("listen", err, "handing the listener on %s back", a)
		}
		unix.Close(fd)
	}
	if err := dropCapabilities(); err != nil {
		return fail("caps", err, "dropping capabilities")
	}
	// Fail closed: a binary that runs stage 2 without the launcher's hook
	// linked would run the command with namespaces but without Landlock
	// or seccomp.
	if finalize == nil {
		return fail("finalize", nil, "no sandbox hook is linked into this binary (nsroot.SetFinalize); refusing to run the command without Landlock and seccomp")
	}
	if err := finalize(s); err != nil {
		return fail("finalize", err, "applying the sandbox")
	}
	return runInit(s)
}

// readSpec reads the spec from fd 3, a pipe the parent writes once and
// closes.
func readSpec() ([]byte, error) {
	f := os.NewFile(specFD, "spec")
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSpec+1))
	if err == nil && len(b) > maxSpec {
		err = errBadSpec
	}
	return b, err
}

// loopbackUp sets IFF_UP on lo, the only interface of a new network
// namespace, with the classic ioctl (no netlink needed).
func loopbackUp() error {
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

func listenTCP(addr string) (int, error) {
	ip, port, err := parseListenAddr(addr)
	if err != nil {
		return -1, fmt.Errorf("listen address %q: %w", addr, err)
	}
	sa := &unix.SockaddrInet4{Port: int(port), Addr: ip}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err == nil {
		if err = unix.Bind(fd, sa); err == nil {
			if err = unix.Listen(fd, unix.SOMAXCONN); err == nil {
				return fd, nil
			}
		}
		unix.Close(fd)
		return -1, err
	}
	unix.Close(fd)
	return -1, err
}

// dropCapabilities empties every capability set of this thread (the one
// that execs) and sets no_new_privs. A command that kept CAP_SYS_ADMIN in
// its user namespace could unmount a mask and see what it hides; root's
// uid 0 would get the bounding set back at execve, so that goes too.
func dropCapabilities() error {
	if err := caps.DropAll(); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// root is the new root under construction: a tmpfs mounted over base in
// stage 2's private mount namespace. Every destination is opened beneath
// it with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) and mounted on
// through that descriptor (move_mount, or /proc/self/fd for new
// filesystems), so a symlink in the bound trees can never send a mount
// outside the new root.
type root struct {
	base    string // where the tmpfs is mounted ("/tmp")
	fd      int    // O_PATH on the top mount at base (changes after a bind at "/")
	tmpfsFD int    // O_PATH on the root tmpfs itself
	dev     uint64 // the root tmpfs's st_dev
	empty   int    // an empty mode-000 file on the root tmpfs (mask source)
	spec    *Spec

	// noSetattr is set once mount_setattr answered ENOSYS (Linux < 5.12):
	// read-only binds then take the remount path.
	noSetattr bool
}

const emptyName = ".nsroot-empty"

func buildRoot(s *Spec) error {
	// Nothing mounted here may propagate to the host, nor the reverse.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if err == unix.EPERM {
			// AppArmor's userns restriction lets the clone succeed but
			// gives the namespace no capabilities.
			return fail("unavailable", err, "mount in the new user namespace")
		}
		return fail("mount", err, "making the mount namespace private")
	}
	r := &root{spec: s, base: "/tmp"}
	// Bind sources are cloned (detached copies of their mount trees)
	// before anything is mounted over base: a source under /tmp is still
	// the host's, and a bind of / does not contain the new root.
	srcs := make([]clone, len(s.Binds))
	for i, b := range s.Binds {
		c, err := r.clone(b)
		if err != nil && !(b.Optional && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR))) {
			return fail("mount", err, "bind source %s", b.Src)
		}
		if err != nil {
			c.fd = -1
		}
		srcs[i] = c
	}
	if err := r.mountTmpfs(); err != nil {
		return err
	}
	// Binds and tmpfs mounts, shallowest destination first (stable), so a
	// mount inside another lands on top of it.
	type op struct {
		dst string
		i   int // index in s.Binds, or -1-j for s.Tmpfs[j]
	}
	ops := make([]op, 0, len(s.Binds)+len(s.Tmpfs))
	for i, b := range s.Binds {
		ops = append(ops, op{b.Dst, i})
	}
	for j, t := range s.Tmpfs {
		ops = append(ops, op{t, -1 - j})
	}
	slices.SortStableFunc(ops, func(a, b op) int { return depth(a.dst) - depth(b.dst) })
	for _, o := range ops {
		if o.i < 0 {
			if err := r.tmpfs(o.dst); err != nil {
				return err
			}
			continue
		}
		if srcs[o.i].fd < 0 {
			continue
		}
		if err := r.bind(srcs[o.i], s.Binds[o.i]); err != nil {
			return err
		}
		unix.Close(srcs[o.i].fd)
	}
	if s.Dev {
		if err := r.makeDev(); err != nil {
			return err
		}
	}
	if s.Proc {
		if err := r.mountProc(); err != nil {
			return err
		}
	}
	for _, l := range s.Symlinks {
		dir, err := r.ensure(path.Dir(l.Path), true)
		if err != nil {
			return fail("symlink", err, "parent of %s", l.Path)
		}
		err = unix.Symlinkat(l.Target, dir, path.Base(l.Path))
		unix.Close(dir)
		if err != nil {
			return fail("symlink", err, "%s -> %s", l.Path, l.Target)
		}
	}
	for _, m := range s.Masks {
		if err := r.mask(m); err != nil {
			return err
		}
	}
	// The mask source is mounted wherever it is needed; its name goes.
	if err := unix.Unlinkat(r.tmpfsFD, emptyName, 0); err != nil {
		return fail("mount", err, "removing the mask source")
	}
	// The root tmpfs itself is read-only: nothing can be created beside
	// the bound paths (and masks over missing paths there need nothing).
	if err := r.readOnly(r.tmpfsFD, false); err != nil {
		return fail("mount", err, "making the root read-only")
	}
	if err := unix.Fchdir(r.fd); err != nil {
		return fail("pivot", err, "chdir to the new root")
	}
	// pivot_root(".", ".") stacks the old root on the new one; detaching
	// it leaves nothing of the host but what was bound in.
	if err := unix.PivotRoot(".", "."); err != nil {
		return fail("pivot", err, "pivot_root")
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fail("pivot", err, "detaching the old root")
	}
	wd := s.Workdir
	if wd == "" {
		wd = "/"
	}
	if err := unix.Chdir(wd); err != nil {
		return fail("pivot", err, "working directory %s", wd)
	}
	// Stage 2 stays as the init while the command runs: it keeps no
	// handle on the new root or the mask source (the command could not
	// reach them, stage 2 being not dumpable, but nothing needs them).
	if r.fd != r.tmpfsFD {
		unix.Close(r.fd)
	}
	unix.Close(r.tmpfsFD)
	unix.Close(r.empty)
	return nil
}

// tmpfs mounts an empty, writable, sticky tmpfs at t.
func (r *root) tmpfs(t string) error {
	return r.mountFS("mount", t, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777")
}

// mountFS mounts a new filesystem at p beneath the root, creating the
// mount point if it is missing.
func (r *root) mountFS(step, p, fstype string, flags uintptr, data string) error {
	fd, err := r.ensure(p, true)
	if err != nil {
		return fail(step, err, "mount point %s", p)
	}
	err = unix.Mount(fstype, fdPath(fd), fstype, flags, data)
	unix.Close(fd)
	if err != nil {
		return fail(step, err, "%s at %s", fstype, p)
	}
	return nil
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

func (r *root) mountTmpfs() error {
	var st unix.Stat_t
	if err := unix.Stat(r.base, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		r.base = "/mnt"
	}
	if err := unix.Mount("tmpfs", r.base, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		if err == unix.EPERM {
			return fail("unavailable", err, "mount in the new user namespace")
		}
		return fail("mount", err, "root tmpfs at %s", r.base)
	}
	fd, err := unix.Open(r.base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("mount", err, "opening the root tmpfs")
	}
	r.fd, r.tmpfsFD = fd, fd
	if err := unix.Fstat(fd, &st); err != nil {
		return fail("mount", err, "stat of the root tmpfs")
	}
	r.dev = st.Dev
	// The descriptor that creates it is the bind source of every mask (a
	// bind through /proc/self/fd takes the file, whatever the open mode).
	if r.empty, err = unix.Openat(r.fd, emptyName, unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0); err != nil {
		return fail("mount", err, "creating the mask source")
	}
	return nil
}

// open opens p (absolute, in the new root) beneath the root, following no
// symlink.
func (r *root) open(p string) (int, error) {
	return openBeneath(r.fd, strings.TrimPrefix(p, "/"))
}

func openBeneath(dirfd int, rel string) (int, error) {
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err == unix.ENOSYS {
		return -1, &SetupError{Step: "unavailable", Msg: "openat2 needs Linux 5.6"}
	}
	return fd, err
}

// ensure opens p beneath the root, first creating it (and missing
// parents) as a directory, or an empty file when dir is false.
func (r *root) ensure(p string, dir bool) (int, error) {
	fd, err := r.open(p)
	if err == nil || !errors.Is(err, unix.ENOENT) {
		return fd, err
	}
	parent, err := r.ensure(path.Dir(p), true)
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	name := path.Base(p)
	if dir {
		err = unix.Mkdirat(parent, name, 0o755)
	} else {
		// O_EXCL: a new regular file, never a symlink's target. Its
		// descriptor is the mount point: no second lookup.
		var f int
		if f, err = unix.Openat(parent, name, unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644); err == nil {
			return f, nil
		}
	}
	if err != nil && err != unix.EEXIST {
		return -1, err
	}
	return openBeneath(parent, name)
}

// clone is a detached copy of a bind source's mount tree.
type clone struct {
	fd int
	// ro: the tree is read-only already (mount_setattr on the detached
	// tree, before it is attached); the bind has nothing more to do.
	ro bool
}

// clone copies b.Src's mount tree and, unless b.RW, makes it read-only
// while it is still detached: one mount_setattr on the clone, rather than
// a lookup of the attached mount and a mount_setattr after move_mount.
// The kernel allows mount_setattr on a detached tree (what idmapped
// mounts are built with); the result is the same read-only tree.
func (r *root) clone(b Bind) (clone, error) {
	fd, err := cloneTree(b.Src)
	if err != nil {
		return clone{fd: -1}, err
	}
	c := clone{fd: fd}
	if b.RW || r.spec.forceRemount || r.noSetattr {
		return c, nil
	}
	err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	switch err {
	case nil:
		c.ro = true
	case unix.ENOSYS:
		r.noSetattr = true // the remount path, after move_mount
	default:
		unix.Close(fd)
		return clone{fd: -1}, fmt.Errorf("making it read-only: %w", err)
	}
	return c, nil
}

// cloneTree returns a detached copy of the mount tree at src (submounts
// included), ready to be attached with move_mount.
func cloneTree(src string) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err == unix.ENOSYS {
		return -1, &SetupError{Step: "unavailable", Msg: "open_tree needs Linux 5.2"}
	}
	return fd, err
}

// bindNew clones b.Src now and attaches it at b.Dst (bind).
func (r *root) bindNew(b Bind) error {
	c, err := r.clone(b)
	if err != nil {
		return fail("mount", err, "bind source %s", b.Src)
	}
	defer unix.Close(c.fd)
	return r.bind(c, b)
}

// bind attaches c (from clone) at b.Dst, then makes the whole tree
// read-only unless b.RW or c is read-only already.
func (r *root) bind(c clone, b Bind) error {
	src := c.fd
	var st unix.Stat_t
	if err := unix.Fstat(src, &st); err != nil {
		return fail("mount", err, "bind source %s", b.Src)
	}
	dst, err := r.ensure(b.Dst, st.Mode&unix.S_IFMT == unix.S_IFDIR)
	if err != nil {
		return fail("mount", err, "mount point %s", b.Dst)
	}
	err = unix.MoveMount(src, "", dst, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
	unix.Close(dst)
	if err != nil {
		return fail("mount", err, "bind %s at %s", b.Src, b.Dst)
	}
	if b.Dst == "/" {
		// r.fd still names the tmpfs under the new mount: reopen the top.
		fd, err := unix.Open(r.base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail("mount", err, "reopening the root")
		}
		if r.fd != r.tmpfsFD {
			unix.Close(r.fd)
		}
		r.fd = fd
	}
	if b.RW || c.ro {
		return nil
	}
	top, err := r.open(b.Dst) // the new mount, not the mount point under it
	if err != nil {
		return fail("mount", err, "reopening %s", b.Dst)
	}
	defer unix.Close(top)
	if err := r.readOnly(top, true); err != nil {
		return fail("mount", err, "making %s read-only", b.Dst)
	}
	return nil
}

// readOnly makes the mount fd is the root of read-only (with every mount
// under it when recursive).
//
// mount_setattr (Linux 5.12) changes only the read-only attribute, in one
// call for the whole tree. Without it, each mount is remounted with
// MS_BIND|MS_REMOUNT|MS_RDONLY plus the nosuid/nodev/noexec/atime flags it
// already has — as bubblewrap does: in a user namespace those flags are
// locked on mounts inherited from the host, and a remount that would
// clear them fails with EPERM.
func (r *root) readOnly(fd int, recursive bool) error {
	if !r.spec.forceRemount && !r.noSetattr {
		flags := uint(unix.AT_EMPTY_PATH)
		if recursive {
			flags |= unix.AT_RECURSIVE
		}
		err := unix.MountSetattr(fd, "", flags, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
		if err != unix.ENOSYS {
			return err
		}
		r.noSetattr = true
	}
	if err := remountRO(fdPath(fd)); err != nil {
		return err
	}
	if !recursive {
		return nil
	}
	top, err := os.Readlink(fdPath(fd))
	if err != nil {
		return err
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	for _, mp := range submounts(parseMountinfo(info), top) {
		// A submount whose mount point is hidden by a later mount cannot
		// be reached by path, nor by the command: skip what will not open.
		if err := remountRO(mp); err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EACCES) {
			return fmt.Errorf("%s: %w", mp, err)
		}
	}
	return nil
}

// keptFlags are the per-mount flags a read-only remount must restate.
// statfs's ST_* values for them are the MS_* values.
const keptFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME

func remountRO(p string) error {
	var sf unix.Statfs_t
	if err := unix.Statfs(p, &sf); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY) | uintptr(sf.Flags)&keptFlags
	return unix.Mount("", p, "", flags, "")
}

// mask hides p exactly: a read-only, mode-000 empty tmpfs over a
// directory, a read-only bind of an empty mode-000 file over anything
// else, and for a path that does not exist, a placeholder that the empty
// file is then bound over, so the command can neither create nor remove it
// (a mount point cannot be unlinked or renamed).
func (r *root) mask(p string) error {
	fd, err := r.open(p)
	if errors.Is(err, unix.ENOENT) {
		fd, err = r.placeholder(p)
		if fd < 0 && err == nil {
			return nil // cannot be created by the command either
		}
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return fail("mask", err, "%s goes through a symlink in the new root; refusing to mask elsewhere", p)
		}
		return fail("mask", err, "%s", p)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fail("mask", err, "%s", p)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err := unix.Mount("tmpfs", fdPath(fd), "tmpfs",
			unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k,nr_inodes=1")
		if err != nil {
			return fail("mask", err, "tmpfs over %s", p)
		}
		return nil
	}
	if err := unix.Mount(fdPath(r.empty), fdPath(fd), "", unix.MS_BIND, ""); err != nil {
		return fail("mask", err, "empty file over %s", p)
	}
	top, err := r.open(p)
	if err != nil {
		return fail("mask", err, "reopening %s", p)
	}
	defer unix.Close(top)
	if err := r.readOnly(top, false); err != nil {
		return fail("mask", err, "making the mask of %s read-only", p)
	}
	return nil
}

// placeholder creates the missing part of p (directories, then an empty
// file) so a mask can be mounted on it. It returns -1 and no error when
// the command could not create p either: the deepest existing ancestor is
// on the root tmpfs (read-only at the end), on a read-only mount, or not
// writable by a caller that does not own it. Creation happens on the host
// when the ancestor is a read-write bind; the parent reports those paths.
func (r *root) placeholder(p string) (int, error) {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	fd, err := unix.Dup(r.fd)
	if err != nil {
		return -1, err
	}
	i := 0
	for ; i < len(parts); i++ {
		nfd, err := openBeneath(fd, parts[i])
		if errors.Is(err, unix.ENOENT) {
			break
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = nfd
	}
	defer func() { unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return -1, err
	}
	if st.Dev == r.dev {
		return -1, nil
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err == nil && sf.Flags&unix.ST_RDONLY != 0 {
		return -1, nil
	}
	// Stage 2 holds no CAP_DAC_OVERRIDE, so its access is the command's.
	if unix.Faccessat(fd, ".", unix.W_OK, unix.AT_EACCESS) != nil && int(st.Uid) != os.Geteuid() {
		return -1, nil
	}
	for j := i; j < len(parts); j++ {
		last := j == len(parts)-1
		if last {
			var f int
			if f, err = unix.Openat(fd, parts[j], unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600); err == nil {
				unix.Close(f)
			}
		} else {
			err = unix.Mkdirat(fd, parts[j], 0o755)
		}
		if err != nil {
			return -1, fmt.Errorf("creating a placeholder at /%s: %w", strings.Join(parts[:j+1], "/"), err)
		}
		r.reportCreated("/" + strings.Join(parts[:j+1], "/"))
		nfd, err := openBeneath(fd, parts[j])
		if err != nil {
			return -1, err
		}
		unix.Close(fd)
		fd = nfd
	}
	out, err := unix.Dup(fd)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(out)
	return out, nil
}

// reportCreated tells the parent the host path of p when p was created
// inside a read-write bind (inside a private tmpfs nothing reaches the
// host).
func (r *root) reportCreated(p string) {
	under := func(dst string) bool { return dst == "/" || p == dst || strings.HasPrefix(p, dst+"/") }
	host, best := "", -1
	for _, b := range r.spec.Binds {
		if b.RW && under(b.Dst) && len(b.Dst) > best {
			best, host = len(b.Dst), path.Join(b.Src, strings.TrimPrefix(p, b.Dst))
		}
	}
	for _, t := range r.spec.Tmpfs {
		if under(t) && len(t) > best {
			return
		}
	}
	if best >= 0 {
		_ = send(msgPlaceholder, host, -1)
	}
}

// devices are bound from the host's /dev into the minimal one.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// makeDev builds /dev: a tmpfs with the harmless character devices bound
// from the host, the /proc/self/fd links, a private /dev/shm, and a new
// devpts instance (and /dev/ptmx) when the command's stdio is a terminal,
// so it can open new pseudo-terminals without seeing the host's. The
// tmpfs is then made read-only.
func (r *root) makeDev() error {
	if err := r.mountFS("dev", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755"); err != nil {
		return err
	}
	for _, d := range devices {
		if err := r.bindNew(Bind{Src: "/dev/" + d, Dst: "/dev/" + d, RW: true}); err != nil {
			if _, serr := os.Stat("/dev/" + d); errors.Is(serr, os.ErrNotExist) {
				continue // a host without it (a minimal container)
			}
			return err
		}
	}
	dev, err := r.open("/dev")
	if err != nil {
		return fail("dev", err, "/dev")
	}
	defer unix.Close(dev)
	links := [][2]string{{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}}
	if StdioIsTerminal() {
		if err := r.mountFS("dev", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
			return err
		}
		links = append(links, [2]string{"pts/ptmx", "ptmx"})
	}
	for _, l := range links {
		if err := unix.Symlinkat(l[0], dev, l[1]); err != nil {
			return fail("dev", err, "/dev/%s", l[1])
		}
	}
	if err := r.mountFS("dev", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return err
	}
	if err := r.readOnly(dev, false); err != nil {
		return fail("dev", err, "making /dev read-only")
	}
	return nil
}

// StdioIsTerminal reports whether any of descriptors 0-2 is a terminal
// (the launcher's fast path asks the same question).
func StdioIsTerminal() bool {
	for fd := 0; fd <= 2; fd++ {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			return true
		}
	}
	return false
}
