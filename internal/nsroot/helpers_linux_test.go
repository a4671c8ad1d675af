//go:build linux

package nsroot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jp-policy/jp-policy/internal/enforcetest"
)

// helperEnv makes the test binary, exec'd as the command inside the
// sandbox, run one helper action instead of the tests.
const helperEnv = "NSROOT_TEST_HELPER"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "nohook" {
		SetFinalize(nil) // TestFinalizeMissing
	}
	Stage2Main()
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// errName prints an error as its errno name (EROFS), "ok" for nil.
func errName(err error) string {
	if err == nil {
		return "ok"
	}
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// helper runs one action and prints its outcome on stdout.
func helper(args []string) int {
	if len(args) == 0 {
		return 2
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch args[0] {
	case "id":
		fmt.Printf("%d %d\n", os.Geteuid(), os.Getegid())
	case "cat":
		b, err := os.ReadFile(arg(1))
		if err != nil {
			fmt.Println(errName(err))
		} else {
			fmt.Printf("content=%q\n", b)
		}
	case "write":
		fmt.Println(errName(os.WriteFile(arg(1), []byte("x"), 0o644)))
	case "mkdir":
		fmt.Println(errName(unix.Mkdir(arg(1), 0o755)))
	case "stat":
		var st unix.Stat_t
		fmt.Println(errName(unix.Lstat(arg(1), &st)))
	case "owner":
		var st unix.Stat_t
		if err := unix.Lstat(arg(1), &st); err != nil {
			fmt.Println(errName(err))
		} else {
			fmt.Printf("%d %d\n", st.Uid, st.Gid)
		}
	case "meta":
		p := arg(1)
		now := []unix.Timespec{unix.NsecToTimespec(time.Now().UnixNano()), unix.NsecToTimespec(time.Now().UnixNano())}
		fmt.Printf("chmod=%s chown=%s utime=%s setxattr=%s\n",
			errName(unix.Chmod(p, 0o600)),
			errName(unix.Lchown(p, os.Geteuid(), os.Getegid())),
			errName(unix.UtimesNanoAt(unix.AT_FDCWD, p, now, unix.AT_SYMLINK_NOFOLLOW)),
			errName(unix.Lsetxattr(p, "user.nsroot", []byte("1"), 0)))
	case "connect":
		var c net.Conn
		var err error
		switch arg(1) {
		case "unix":
			c, err = net.Dial("unix", arg(2))
		case "abstract":
			c, err = net.Dial("unix", "@"+arg(2))
		case "tcp":
			c, err = net.DialTimeout("tcp", arg(2), 2*time.Second)
		}
		if err == nil {
			if arg(3) != "" {
				_, err = io.WriteString(c, arg(3))
			}
			c.Close()
		}
		fmt.Println(errName(err))
	case "exit":
		n, _ := strconv.Atoi(arg(1))
		return n
	case "pids":
		// The process's own pid and the pids /proc lists.
		ents, err := os.ReadDir("/proc")
		if err != nil {
			fmt.Println(errName(err))
			return 0
		}
		var pids []string
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err == nil {
				pids = append(pids, e.Name())
			}
		}
		fmt.Println(os.Getpid(), strings.Join(pids, " "))
	case "chain":
		// chain N FILE: N nested processes, each waiting for the next; the
		// bottom one holds an exclusive lock on FILE and never exits. The
		// top returns once the bottom holds the lock.
		n, _ := strconv.Atoi(arg(1))
		if n == 0 {
			f, err := os.OpenFile(arg(2), os.O_RDWR, 0)
			if err != nil || unix.Flock(int(f.Fd()), unix.LOCK_EX) != nil {
				return 1
			}
			f.WriteString("locked")
			select {}
		}
		cmd := exec.Command(os.Args[0], "chain", strconv.Itoa(n-1), arg(2))
		cmd.Env = os.Environ()
		if err := cmd.Start(); err != nil {
			fmt.Println(errName(err))
			return 1
		}
		if arg(3) != "top" {
			cmd.Wait()
			return 0
		}
		for {
			if b, _ := os.ReadFile(arg(2)); string(b) == "locked" {
				return 0
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "kill":
		n, _ := strconv.Atoi(arg(1))
		unix.Kill(os.Getpid(), unix.Signal(n))
		// The signal ends the process. Were it not to, the caller sees
		// exit 99 after a bound only a failing run reaches.
		<-time.After(30 * time.Second)
		return 99
	case "waitsig":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGUSR1)
		fmt.Println("ready")
		select {
		case s := <-ch:
			fmt.Println("got", s)
			return 0
		case <-time.After(10 * time.Second):
			fmt.Println("timeout")
			return 1
		}
	case "echo":
		io.Copy(os.Stdout, os.Stdin)
		fmt.Fprint(os.Stderr, "to-stderr")
	case "openpty":
		f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
		if err == nil {
			f.Close()
		}
		fmt.Println(errName(err))
	case "pwd":
		wd, err := os.Getwd()
		fmt.Println(wd, errName(err))
	case "caps":
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		unix.Capget(&hdr, &data[0])
		fmt.Printf("eff=%x prm=%x\n", uint64(data[1].Effective)<<32|uint64(data[0].Effective), uint64(data[1].Permitted)<<32|uint64(data[0].Permitted))
	default:
		fmt.Println("unknown helper action", args[0])
		return 2
	}
	return 0
}

// requireUserns skips when this machine cannot run the sandbox.
func requireUserns(t testing.TB) {
	t.Helper()
	if ok, reason := Available(); !ok {
		enforcetest.Skipf(t, "user namespaces unavailable: %s", reason)
	}
}

// baseSpec runs the test binary itself as the command: it is bound in at
// its own path, and nothing else is (no /usr, no shell).
func baseSpec(t testing.TB, args ...string) *Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &Spec{
		Path:  exe,
		Argv:  append([]string{exe}, args...),
		Env:   []string{helperEnv + "=1"},
		Binds: []Bind{{Src: exe, Dst: exe}, {Src: "/usr", Dst: "/usr"}},
		Dev:   true,
	}
	// The test binary may be linked dynamically (cgo): the loader and
	// libraries come from /usr, reached through the merged-usr links.
	for _, d := range []string{"/bin", "/lib", "/lib64", "/sbin"} {
		if target, err := os.Readlink(d); err == nil {
			s.Symlinks = append(s.Symlinks, Symlink{Target: target, Path: d})
		} else {
			s.Binds = append(s.Binds, Bind{Src: d, Dst: d, Optional: true})
		}
	}
	return s
}

// run runs s and returns its exit status and stdout.
func run(t testing.TB, s *Spec) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.Stdio[1] = w
	c, err := Start(s)
	w.Close()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	out, _ := io.ReadAll(r)
	code, err := c.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return code, strings.TrimSpace(string(out))
}

// helperOut runs one helper action in a sandbox built from s (its Argv is
// replaced) and returns what it printed.
func helperOut(t testing.TB, s *Spec, args ...string) string {
	t.Helper()
	s.Argv = append([]string{s.Path}, args...)
	code, out := run(t, s)
	if code != 0 {
		t.Fatalf("helper %v exited %d: %s", args, code, out)
	}
	return out
}

// startLines starts s and returns a reader of its stdout.
func startLines(t testing.TB, s *Spec) (*Child, *bufio.Reader, func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s.Stdio[1] = w
	c, err := Start(s)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatalf("Start: %v", err)
	}
	return c, bufio.NewReader(r), func() { r.Close() }
}
