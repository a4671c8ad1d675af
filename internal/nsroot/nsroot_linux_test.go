//go:build linux

package nsroot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// workspace makes a host directory with a few files, owned by the caller.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestIdentity(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, nil)
	s := baseSpec(t)
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true})
	s.Workdir = ws
	if got, want := helperOut(t, s, "id"), fmt.Sprintf("%d %d", os.Geteuid(), os.Getegid()); got != want {
		t.Errorf("uid/gid inside = %q, want the caller's %q", got, want)
	}
	if got := helperOut(t, s, "caps"); got != "eff=0 prm=0" {
		t.Errorf("capabilities inside = %q, want none", got)
	}
	if got := helperOut(t, s, "pwd"); got != ws+" ok" {
		t.Errorf("working directory = %q, want %q", got, ws)
	}
	// A file the command creates belongs to the caller on the host.
	if got := helperOut(t, s, "write", filepath.Join(ws, "made")); got != "ok" {
		t.Fatalf("write in the rw workspace: %s", got)
	}
	fi, err := os.Stat(filepath.Join(ws, "made"))
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
		t.Errorf("created file owned by %d:%d, want %d:%d", st.Uid, st.Gid, os.Geteuid(), os.Getegid())
	}
}

func TestBinds(t *testing.T) {
	requireUserns(t)
	for _, remount := range []bool{false, true} {
		t.Run(fmt.Sprintf("remount=%v", remount), func(t *testing.T) {
			ws := workspace(t, map[string]string{"a": "A"})
			ro := workspace(t, map[string]string{"b": "B", "sub/c": "C"})
			outside := workspace(t, map[string]string{"secret": "S"})
			s := baseSpec(t)
			s.forceRemount = remount
			s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true}, Bind{Src: ro, Dst: ro},
				// A bind whose mount point's parents do not exist.
				Bind{Src: ro, Dst: "/made/up/ro"},
				// File binds: a missing mount point (a stub file is made
				// on the root tmpfs) under a missing parent, and beside it.
				Bind{Src: filepath.Join(ro, "b"), Dst: "/made/file"},
				Bind{Src: filepath.Join(ws, "a"), Dst: "/made/rwfile", RW: true})
			cases := []struct {
				args []string
				want string
			}{
				{[]string{"cat", filepath.Join(ro, "b")}, `content="B"`},
				{[]string{"cat", "/made/up/ro/sub/c"}, `content="C"`},
				{[]string{"write", filepath.Join(ws, "new")}, "ok"},
				{[]string{"write", filepath.Join(ro, "new")}, "EROFS"},
				{[]string{"write", filepath.Join(ro, "b")}, "EROFS"},
				{[]string{"write", "/made/up/ro/new"}, "EROFS"},
				{[]string{"cat", "/made/file"}, `content="B"`},
				{[]string{"write", "/made/file"}, "EROFS"},
				{[]string{"meta", "/made/file"}, "chmod=EROFS chown=EROFS utime=EROFS setxattr=EROFS"},
				{[]string{"cat", "/made/rwfile"}, `content="A"`},
				{[]string{"write", "/made/newfile"}, "EROFS"}, // beside the stubs: the root tmpfs
				{[]string{"meta", filepath.Join(ws, "a")}, "chmod=ok chown=ok utime=ok"},
				{[]string{"meta", filepath.Join(ro, "b")}, "chmod=EROFS chown=EROFS utime=EROFS setxattr=EROFS"},
				{[]string{"meta", filepath.Join(ro, "sub")}, "chmod=EROFS chown=EROFS utime=EROFS setxattr=EROFS"},
				{[]string{"mkdir", "/newdir"}, "EROFS"}, // the root tmpfs is read-only
				{[]string{"stat", ws}, "ok"},
				{[]string{"stat", filepath.Join(outside, "secret")}, "ENOENT"},
				{[]string{"stat", "/etc/passwd"}, "ENOENT"},
				{[]string{"stat", "/root"}, "ENOENT"},
			}
			for _, c := range cases {
				if got := helperOut(t, s, c.args...); !strings.HasPrefix(got, c.want) {
					t.Errorf("%v = %q, want %q", c.args, got, c.want)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "new")); string(b) != "x" {
				t.Errorf("write through the rw bind did not reach the host: %q", b)
			}
		})
	}
}

// TestReadOnlySubmounts: a read-only bind is read-only all the way down,
// host submounts included (the host's /dev has /dev/shm mounted on it).
func TestReadOnlySubmounts(t *testing.T) {
	requireUserns(t)
	info, _ := os.ReadFile("/proc/self/mountinfo")
	if !slices.Contains(parseMountinfo(info), "/dev/shm") {
		t.Skip("no /dev/shm mount on this host to test a submount with")
	}
	for _, remount := range []bool{false, true} {
		s := baseSpec(t)
		s.Dev = false
		s.forceRemount = remount
		s.Binds = append(s.Binds, Bind{Src: "/dev", Dst: "/dev"})
		if got := helperOut(t, s, "write", "/dev/shm/nsroot-test"); got != "EROFS" {
			t.Errorf("remount=%v: write in a submount of a ro bind = %s, want EROFS", remount, got)
		}
		// Positive control: devices stay usable on a read-only mount.
		if got := helperOut(t, s, "write", "/dev/null"); got != "ok" {
			t.Errorf("remount=%v: write /dev/null = %s, want ok", remount, got)
		}
	}
}

func TestMasks(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, map[string]string{".env": "SECRET", "plain": "P", "secrets/key": "K", "ro/x": "X"})
	ro := filepath.Join(ws, "ro")
	s := baseSpec(t)
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true}, Bind{Src: ro, Dst: ro})
	s.Masks = []string{
		filepath.Join(ws, ".env"),
		filepath.Join(ws, "secrets"),
		filepath.Join(ws, "new.key"),         // does not exist yet
		filepath.Join(ws, "deep/x/y.key"),    // nor do its parents
		filepath.Join(ro, "missing"),         // missing under a read-only parent
		filepath.Join("/nowhere/at/all.key"), // missing on the root tmpfs
	}
	denied := func(got string) bool { return got == "EACCES" || got == "EROFS" || got == "ENOENT" }
	checks := []struct {
		args  []string
		allow bool
	}{
		{[]string{"cat", filepath.Join(ws, ".env")}, false},
		{[]string{"write", filepath.Join(ws, ".env")}, false},
		{[]string{"cat", filepath.Join(ws, "secrets/key")}, false},
		{[]string{"write", filepath.Join(ws, "secrets/other")}, false},
		{[]string{"write", filepath.Join(ws, "new.key")}, false},
		{[]string{"write", filepath.Join(ws, "deep/x/y.key")}, false},
		{[]string{"write", filepath.Join(ro, "missing")}, false},
		{[]string{"write", "/nowhere/at/all.key"}, false},
		// Positive controls: the rest of the split directory, created
		// later, and the placeholder's new parents stay writable.
		{[]string{"cat", filepath.Join(ws, "plain")}, true},
		{[]string{"write", filepath.Join(ws, "later")}, true},
		{[]string{"write", filepath.Join(ws, "deep/x/other")}, true},
	}
	for _, c := range checks {
		got := helperOut(t, s, c.args...)
		if c.allow && !strings.HasPrefix(got, "ok") && !strings.HasPrefix(got, "content=") {
			t.Errorf("%v = %s, want allowed", c.args, got)
		}
		if !c.allow && !denied(got) {
			t.Errorf("%v = %s, want denied", c.args, got)
		}
	}
	if got := helperOut(t, s, "meta", filepath.Join(ws, ".env")); got != "chmod=EROFS chown=EROFS utime=EROFS setxattr=EROFS" {
		t.Errorf("metadata writes on a masked file: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != "SECRET" {
		t.Errorf("masked file changed on the host: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(ro, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a placeholder was created under a read-only parent: %v", err)
	}
	// The placeholders are reported and left in place.
	s.Argv = []string{s.Path, "stat", filepath.Join(ws, "new.key")}
	c, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// They existed since the first run, so this run created none.
	if len(c.Placeholders) != 0 {
		t.Errorf("second run created placeholders again: %v", c.Placeholders)
	}
	for _, p := range []string{"new.key", "deep/x/y.key"} {
		if fi, err := os.Lstat(filepath.Join(ws, p)); err != nil || fi.Size() != 0 {
			t.Errorf("placeholder %s on the host: %v", p, err)
		}
	}
}

func TestPlaceholdersReported(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, nil)
	s := baseSpec(t, "exit", "0")
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true})
	s.Masks = []string{filepath.Join(ws, "a/b.key")}
	c, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	c.Wait()
	want := []string{filepath.Join(ws, "a"), filepath.Join(ws, "a/b.key")}
	if !slices.Equal(c.Placeholders, want) {
		t.Errorf("Placeholders = %v, want %v", c.Placeholders, want)
	}
}

func TestMaskThroughSymlinkRefused(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, map[string]string{"real/.env": "S"})
	if err := os.Symlink("real", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	s := baseSpec(t, "exit", "0")
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true})
	s.Masks = []string{filepath.Join(ws, "link/.env")}
	_, err := Start(s)
	var se *SetupError
	if !errors.As(err, &se) || se.Step != "mask" {
		t.Fatalf("Start = %v, want a mask SetupError", err)
	}
	s.Masks = []string{filepath.Join(ws, "real/.env")} // positive control
	if _, out := run(t, s); out != "" {
		t.Errorf("unexpected output %q", out)
	}
}

func TestDevProcTmp(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t)
	s.Proc = true
	s.Tmpfs = []string{"/tmp"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"write", "/dev/null"}, "ok"},
		{[]string{"cat", "/dev/zero"}, ""}, // reads forever: not run
		{[]string{"write", "/dev/shm/x"}, "ok"},
		{[]string{"write", "/dev/newfile"}, "EROFS"},
		{[]string{"stat", "/dev/tty"}, "ok"},
		{[]string{"stat", "/dev/sda"}, "ENOENT"},
		{[]string{"stat", "/dev/stdin"}, "ok"},
		{[]string{"stat", "/proc/self/status"}, "ok"},
		{[]string{"cat", "/proc/1/environ"}, procInit()}, // stage 2, the init: not dumpable
		{[]string{"write", "/proc/sys/kernel/hostname"}, "EROFS"},
		{[]string{"write", "/tmp/private"}, "ok"},
	}
	for _, c := range cases {
		if c.want == "" {
			continue
		}
		if got := helperOut(t, s, c.args...); got != c.want {
			t.Errorf("%v = %q, want %q", c.args, got, c.want)
		}
	}
	if _, err := os.Stat("/tmp/private"); err == nil {
		t.Errorf("the private /tmp reached the host")
	}
}

func TestUnixSockets(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, nil)
	outside := t.TempDir()
	serve := func(network, addr string) {
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	serve("unix", filepath.Join(outside, "out.sock"))
	serve("unix", filepath.Join(ws, "in.sock"))
	abstract := fmt.Sprintf("jp-nsroot-test-%d", os.Getpid())
	serve("unix", "@"+abstract)

	s := baseSpec(t)
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws})
	if got := helperOut(t, s, "connect", "unix", filepath.Join(outside, "out.sock")); got != "ENOENT" {
		t.Errorf("outside socket: %s, want ENOENT", got)
	}
	if got := helperOut(t, s, "connect", "unix", filepath.Join(ws, "in.sock")); got != "ok" {
		t.Errorf("socket inside a bind (positive control): %s", got)
	}
	// Abstract sockets belong to the network namespace.
	if got := helperOut(t, s, "connect", "abstract", abstract); got != "ok" {
		t.Errorf("abstract socket without a new netns (positive control): %s", got)
	}
	s.Net = true
	if got := helperOut(t, s, "connect", "abstract", abstract); got != "ECONNREFUSED" {
		t.Errorf("abstract socket with a new netns: %s, want ECONNREFUSED", got)
	}
}

func TestNetwork(t *testing.T) {
	requireUserns(t)
	// A loopback server outside the namespace.
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	s := baseSpec(t)
	if got := helperOut(t, s, "connect", "tcp", host.Addr().String()); got != "ok" {
		t.Fatalf("host loopback without a netns (positive control): %s", got)
	}
	s.Net = true
	if got := helperOut(t, s, "connect", "tcp", host.Addr().String()); got != "ECONNREFUSED" {
		t.Errorf("host loopback from a new netns: %s, want ECONNREFUSED", got)
	}
	if got := helperOut(t, s, "connect", "tcp", "1.1.1.1:80"); got != "ENETUNREACH" {
		t.Errorf("the Internet from a new netns: %s, want ENETUNREACH", got)
	}

	// A listener opened inside, handed back and served from outside: a
	// fresh namespace has every port free, so the command knows it.
	s.Listen = []string{"127.0.0.1:8123"}
	s.Argv = []string{s.Path, "connect", "tcp", "127.0.0.1:8123", "hello"}
	r, w, _ := os.Pipe()
	defer r.Close()
	s.Stdio[1] = w
	c, err := Start(s)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Listeners) != 1 {
		t.Fatalf("got %d listeners", len(c.Listeners))
	}
	ln, err := net.FileListener(c.Listeners[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(conn)
	conn.Close()
	c.Listeners[0].Close()
	if code, _ := c.Wait(); code != 0 || string(got) != "hello" {
		t.Errorf("served %q (exit %d), want hello", got, code)
	}
	out, _ := io.ReadAll(r)
	if strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("command said %q", out)
	}
}

func TestExitStatus(t *testing.T) {
	requireUserns(t)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"exit", "0"}, 0},
		{[]string{"exit", "7"}, 7},
		{[]string{"kill", "15"}, 128 + 15},
		{[]string{"kill", "9"}, 128 + 9},
	} {
		if code, _ := run(t, baseSpec(t, c.args...)); code != c.want {
			t.Errorf("%v: exit %d, want %d", c.args, code, c.want)
		}
	}
}

// TestPIDNamespace: the command runs in its own PID namespace (stage 2
// is its init, pid 1), /proc lists the namespace's processes only, and when
// the command exits every process it started is gone before Wait
// returns, however deep: the bottom of a chain held a lock on a file,
// which is free again.
// TestInitSurvivesEarlySignals: a command that signals its parent (stage
// 2, the namespace's init) the moment it starts does not end the run:
// stage 2 catches those signals from before the fork (the Go runtime's
// own handler would make it exit), and those the runtime drops by itself
// (SIGUSR1, SIGPIPE, ...) or leaves at their default (the stop signals,
// which the kernel never delivers to a namespace's init) end nothing
// either. Repeated, since the window is the time between the fork and
// stage 2 settling as init.
func TestInitSurvivesEarlySignals(t *testing.T) {
	requireUserns(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh: a shell starts fast enough to hit the window")
	}
	for i := range 40 {
		s := baseSpec(t)
		s.Proc = true
		s.Path = sh
		s.Argv = []string{"sh", "-c", "for s in TERM INT HUP QUIT USR1 USR2 ALRM PIPE WINCH TSTP TTIN TTOU; do kill -$s $PPID; done; echo alive"}
		code, out := run(t, s)
		if code != 0 || out != "alive" {
			t.Fatalf("run %d: exit %d, %q", i, code, out)
		}
	}
}

func TestPIDNamespace(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t)
	s.Proc = true
	// The command sees itself, and stage 2, the init (pid 1), only where
	// the caller is root (hidepid=2 lets gid 0 see every entry).
	got := strings.Fields(helperOut(t, s, "pids"))
	want := []string{got[0], got[0]}
	if os.Getegid() == 0 {
		want = []string{got[0], "1", got[0]}
	}
	if got[0] == "1" || !slices.Equal(got, want) {
		t.Errorf("pid and /proc inside = %q, want %q", got, want)
	}
	ws := workspace(t, map[string]string{"lock": ""})
	s = baseSpec(t)
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws, RW: true})
	lock := filepath.Join(ws, "lock")
	helperOut(t, s, "chain", "20", lock, "top")
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, _ := os.ReadFile(lock); string(b) != "locked" {
		t.Fatalf("the chain's bottom never ran: %q", b)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("the chain's bottom process outlived the command: flock = %v", err)
	}
}

func TestSignalsForwarded(t *testing.T) {
	requireUserns(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		out  string
	}{
		{syscall.SIGUSR1, 0, "got user defined signal 1"}, // caught by the command
		{syscall.SIGTERM, 128 + 15, ""},                   // kills it
		{syscall.SIGINT, 128 + 2, ""},                     // forwarded: no terminal sent it
	} {
		if c.sig == syscall.SIGINT && inForeground() {
			t.Log("SIGINT not checked: the test runs in a terminal's foreground group, where the terminal delivers it")
			continue
		}
		child, out, done := startLines(t, baseSpec(t, "waitsig"))
		if line, _ := out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("helper said %q", line)
		}
		// Sent to the parent (this process), forwarded to the command.
		syscall.Kill(os.Getpid(), c.sig)
		code, err := child.Wait()
		rest, _ := io.ReadAll(out)
		done()
		if err != nil || code != c.code || strings.TrimSpace(string(rest)) != c.out {
			t.Errorf("%v: exit %d %v, output %q; want exit %d, %q", c.sig, code, err, rest, c.code, c.out)
		}
	}
}

func TestStdio(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t, "echo")
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	s.Stdio = [3]*os.File{inR, outW, errW}
	c, err := Start(s)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(inW, "through stdin")
	inW.Close()
	stdout, _ := io.ReadAll(outR)
	stderr, _ := io.ReadAll(errR)
	if code, _ := c.Wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if string(stdout) != "through stdin" || string(stderr) != "to-stderr" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}

func TestSetupErrors(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t, "exit", "0")
	s.Binds = append(s.Binds, Bind{Src: "/nonexistent/src", Dst: "/x", Optional: true})
	if code, _ := run(t, s); code != 0 {
		t.Errorf("an optional missing bind failed the run: %d", code)
	}
	for _, c := range []struct {
		mod  func(*Spec)
		step string
	}{
		{func(s *Spec) { s.Binds = append(s.Binds, Bind{Src: "/nonexistent/src", Dst: "/x"}) }, "mount"},
		{func(s *Spec) { s.Path = "/nonexistent/cmd" }, "exec"},
		{func(s *Spec) { s.Workdir = "/nonexistent" }, "pivot"},
		{func(s *Spec) { s.Listen = []string{"not an address"} }, "listen"},
		// An error message longer than the parent's first receive buffer.
		{func(s *Spec) {
			s.Binds = append(s.Binds, Bind{Src: "/nonexistent/" + strings.Repeat("x/", 3000), Dst: "/x"})
		}, "mount"},
	} {
		s := baseSpec(t, "exit", "0")
		c.mod(s)
		_, err := Start(s)
		var se *SetupError
		if !errors.As(err, &se) || se.Step != c.step {
			t.Errorf("Start = %v, want a %s SetupError", err, c.step)
		} else if strings.Contains(se.Msg, "/nonexistent/x/") && !strings.Contains(se.Msg, strings.Repeat("x/", 3000)) {
			t.Errorf("a long error message was cut: %d bytes", len(se.Msg))
		}
	}
}

func TestFinalizeHook(t *testing.T) {
	// The hook runs in stage 2, a re-exec of this binary: it is
	// registered by init below, as the launcher would.
	requireUserns(t)
	s := baseSpec(t, "exit", "0")
	s.Extra = []byte("refuse")
	_, err := Start(s)
	var se *SetupError
	if !errors.As(err, &se) || se.Step != "finalize" || !strings.Contains(se.Msg, "refused by the hook") {
		t.Errorf("Start = %v, want the hook's refusal", err)
	}
	s.Extra = []byte("send")
	s.Argv = []string{s.Path, "exit", "0"}
	c, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	c.Wait()
	f := c.Files["devnull"]
	if f == nil {
		t.Fatalf("no file handed back: %v", c.Files)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("handed-back file: %v %v", fi, err)
	}
}

func init() {
	SetFinalize(func(s *Spec) error {
		switch string(s.Extra) {
		case "refuse":
			return errors.New("refused by the hook")
		case "send":
			f, err := os.Open("/dev/null")
			if err != nil {
				return err
			}
			return SendFile("devnull", f)
		}
		return nil
	})
}

func TestUnavailableHook(t *testing.T) {
	SetUnavailableForTest("off for this test")
	defer SetUnavailableForTest("")
	if ok, reason := Available(); ok || reason != "off for this test" {
		t.Errorf("Available = %v, %q", ok, reason)
	}
	if _, err := Start(baseSpec(t, "exit", "0")); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Start = %v, want ErrUnavailable", err)
	}
}

// TestAsNobody reruns the sandbox tests as an unprivileged user: the
// namespaces must not need root.
func TestAsNobody(t *testing.T) {
	requireUserns(t)
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: the other tests cover it")
	}
	if os.Getenv("NSROOT_TEST_NOBODY") == "1" {
		t.Fatal("recursion")
	}
	// nobody must be able to reach the binary: copy it out of the 0700
	// build directory.
	dir, err := os.MkdirTemp("", "nsroot-nobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe, _ := os.Executable()
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "nsroot.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^(TestIdentity|TestBinds|TestReadOnlySubmounts|TestMasks|TestPlaceholdersReported|TestMaskThroughSymlinkRefused|TestDevProcTmp|TestUnixSockets|TestNetwork|TestExitStatus|TestSignalsForwarded|TestStdio|TestSetupErrors|TestFinalizeHook|TestTerminal)$", "-test.v")
	cmd.Env = []string{"NSROOT_TEST_NOBODY=1", "PATH=/usr/bin:/bin", "TMPDIR=/tmp"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestIdentity") {
		t.Fatalf("as nobody, TestIdentity did not run:\n%s", out)
	}
}

// TestTerminal: with a terminal on stdin the command gets a private
// devpts, where it can open new pseudo-terminals, and keeps its own
// terminal through the inherited descriptor.
func TestTerminal(t *testing.T) {
	requireUserns(t)
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	s := baseSpec(t)
	s.Stdio[0] = tty
	if got := helperOut(t, s, "openpty"); got != "ok" {
		t.Errorf("opening /dev/ptmx with a terminal on stdin: %s", got)
	}
	if got := helperOut(t, s, "stat", fmt.Sprintf("/dev/pts/%d", n)); got != "ENOENT" {
		t.Errorf("the host's pty is visible in the private devpts: %s", got)
	}
	// Positive control of the condition: no terminal, no devpts.
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	s.Stdio[0], s.Stdio[2] = null, null
	if got := helperOut(t, s, "openpty"); got != "ENOENT" {
		t.Errorf("opening /dev/ptmx without a terminal: %s, want ENOENT", got)
	}
}

// TestLargeSpec: a spec larger than a pipe's default 64 KiB buffer goes
// through: the parent's write must not wait for a reader that is not
// there yet.
func TestLargeSpec(t *testing.T) {
	requireUserns(t)
	ws := workspace(t, map[string]string{"a": "A"})
	s := baseSpec(t)
	s.Binds = append(s.Binds, Bind{Src: ws, Dst: ws})
	s.Extra = bytes.Repeat([]byte("x"), 200<<10)
	if got := helperOut(t, s, "cat", filepath.Join(ws, "a")); got != `content="A"` {
		t.Errorf("cat with a large spec = %q", got)
	}
}

// TestFinalizeMissing: a stage 2 without the Finalize hook linked refuses
// to run the command (fail closed). The test binary drops its hook when
// re-executed under the name "nohook" (TestMain).
func TestFinalizeMissing(t *testing.T) {
	requireUserns(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "nohook")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	s := baseSpec(t, "exit", "0")
	s.Stage2 = link
	_, err = Start(s)
	var se *SetupError
	if !errors.As(err, &se) || se.Step != "finalize" || !strings.Contains(se.Msg, "no sandbox hook") {
		t.Errorf("Start without a hook = %v, want a finalize refusal", err)
	}
}

// procInit is what reading stage 2's /proc/1/environ answers: hidden
// (hidepid=2) unless the caller's gid is 0, then refused (not dumpable).
func procInit() string {
	if os.Getegid() == 0 {
		return "EACCES"
	}
	return "ENOENT"
}

// TestReceiveClosesStrayDescriptors: a descriptor that comes with a
// message that does not keep one (an error, a placeholder) is closed,
// not leaked into the parent.
func TestReceiveClosesStrayDescriptors(t *testing.T) {
	for _, msg := range []string{"Eexec\x00boom\x000", "P/some/path"} {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Sendmsg(pair[1], []byte(msg), unix.UnixRights(int(w.Fd())), nil, 0); err != nil {
			t.Fatal(err)
		}
		w.Close()
		unix.Close(pair[1]) // EOF after the message
		mine := os.NewFile(uintptr(pair[0]), "test")
		c := &Child{Files: map[string]*os.File{}, cmd: -1}
		_ = c.receive(mine)
		mine.Close()
		// With every copy of the write end closed, the read end sees EOF
		// at once; a leaked copy would keep it open.
		r.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := r.Read(make([]byte, 1))
		r.Close()
		if n != 0 || err != io.EOF {
			t.Errorf("message %q: the descriptor sent with it was kept open (read = %d, %v)", msg[:1], n, err)
		}
	}
}

// TestInitHoldsNoRoot: stage 2 stays as the namespace's init while the
// command runs, and keeps no descriptor on the new root or the mask
// source (it held both before).
func TestInitHoldsNoRoot(t *testing.T) {
	requireUserns(t)
	child, out, done := startLines(t, baseSpec(t, "waitsig"))
	defer done()
	if line, _ := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("helper said %q", line)
	}
	dir := fmt.Sprintf("/proc/%d/fd", child.Pid)
	ents, lerr := os.ReadDir(dir)
	var held []string
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && (l == "/" || strings.HasSuffix(l, emptyName)) {
			held = append(held, e.Name()+" -> "+l)
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR1) // forwarded: the command ends
	if _, err := child.Wait(); err != nil {
		t.Fatal(err)
	}
	if lerr != nil {
		t.Skipf("stage 2's descriptors cannot be listed from here (it is not dumpable): %v", lerr)
	}
	if len(held) > 0 {
		t.Errorf("stage 2 holds %q while the command runs", held)
	}
}
