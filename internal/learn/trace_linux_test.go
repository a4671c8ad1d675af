//go:build linux

package learn

import (
	"context"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

func observe(t *testing.T, dir string, argv ...string) *Result {
	t.Helper()
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	res, err := Run(argv, dir, os.Environ())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func has(obs Observations, path string, op Op) bool {
	return slices.ContainsFunc(obs.Files, func(fa FileAccess) bool { return fa.Path == path && fa.Op&op == op })
}

// TestTraceFiles runs a shell script through the tracer and checks that
// each kind of file access is seen, through every process the script
// starts, with relative paths resolved against the right directory.
func TestTraceFiles(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, f := range []string{"in.txt", "old.txt", "victim.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `cat in.txt >/dev/null
mkdir sub
echo new > sub/made.txt
echo more >> old.txt
mv sub/made.txt sub/moved.txt
rm victim.txt
ln -s in.txt link
cat link >/dev/null
(cd sub && cat moved.txt >/dev/null)
cat missing.txt 2>/dev/null
./tool.sh
exit 3`
	res := observe(t, dir, sh, "-c", script)
	if res.ExitCode != 3 {
		t.Errorf("exit code %d, want 3", res.ExitCode)
	}
	j := func(p string) string { return filepath.Join(dir, p) }
	for _, want := range []struct {
		path string
		op   Op
	}{
		{j("in.txt"), OpRead},
		{j("sub"), OpCreate},
		{j("sub/made.txt"), OpCreate},
		{j("old.txt"), OpUpdate},
		{j("sub/made.txt"), OpDelete},
		{j("sub/moved.txt"), OpCreate},
		{j("victim.txt"), OpDelete},
		{j("link"), OpCreate},
	} {
		if !has(res.Obs, want.path, want.op) {
			t.Errorf("not observed: %s on %s", want.op, want.path)
		}
	}
	// cat link follows the link; the read is of in.txt.
	if has(res.Obs, j("link"), OpRead) {
		t.Error("a read through a symlink was recorded on the link, not its target")
	}
	if n := slices.IndexFunc(res.Obs.Files, func(fa FileAccess) bool { return fa.Path == j("sub/moved.txt") && fa.Op&OpRead != 0 }); n < 0 {
		t.Error("a read relative to a subshell's working directory was not resolved there")
	}
	if has(res.Obs, j("missing.txt"), OpRead) {
		t.Error("a failed open was recorded")
	}
	if !has(res.Obs, j("tool.sh"), OpExecute) {
		t.Error("the execve of a program in the workspace was not recorded")
	}
	// The system's own programs and libraries are exec's baseline: their
	// reads are not recorded (nor worth a stop at their exit).
	if slices.ContainsFunc(res.Obs.Files, func(fa FileAccess) bool { return strings.HasPrefix(fa.Path, "/usr/") }) {
		t.Error("a read of a system file under /usr was recorded")
	}
}

// TestTraceThreadsAndDepth: calls made by a grandchild and by a thread
// of a multithreaded program are seen (the Go test binary itself serves
// as the multithreaded program: it runs a test that reads a file).
func TestTraceThreadsAndDepth(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(dir, "deep.txt")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := observe(t, dir, sh, "-c", `sh -c 'sh -c "cat deep.txt" &
wait'`)
	if !has(res.Obs, target, OpRead) {
		t.Error("a grandchild's read was not observed")
	}
	self, _ := os.Executable()
	t.Setenv("JP_POLICY_LEARN_HELPER", "1")
	res = observe(t, dir, self, "-test.run=^TestHelperReadFile$", "-test.count=1")
	if res.ExitCode != 0 {
		t.Fatalf("helper exited %d", res.ExitCode)
	}
	if !has(res.Obs, filepath.Join(dir, "deep.txt"), OpRead) {
		t.Error("a read by a multithreaded Go program was not observed")
	}
}

// TestTraceOrphan: the run lasts until the last process the command
// started has ended, one that outlives the command (reparented to learn,
// its subreaper) included: what it does after the command exits is
// observed, and the exit status is still the command's.
func TestTraceOrphan(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "late.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The orphan reads once its parent has exited (whenever it runs,
	// learn waits for it: no timing decides the outcome).
	res := observe(t, dir, sh, "-c", `sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; cat late.txt' orphan $$ &
exit 5`)
	if res.ExitCode != 5 {
		t.Errorf("exit code %d, want the command's 5", res.ExitCode)
	}
	if !has(res.Obs, filepath.Join(dir, "late.txt"), OpRead) {
		t.Error("a read by a process that outlived the command was not observed")
	}
}

// TestHelperReadFile is run by TestTraceThreadsAndDepth under the tracer.
func TestHelperReadFile(t *testing.T) {
	if os.Getenv("JP_POLICY_LEARN_HELPER") == "" {
		t.Skip("run by TestTraceThreadsAndDepth only")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		os.ReadFile("deep.txt")
	}()
	<-done
}

// TestTraceConnect: a TCP connect to a local listener is recorded with
// its address and port.
func TestTraceConnect(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to make a TCP connection")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	res := observe(t, t.TempDir(), py, "-c", "import socket; socket.create_connection(('127.0.0.1', "+strconv.Itoa(port)+")).close()")
	if res.ExitCode != 0 {
		t.Fatalf("python exited %d", res.ExitCode)
	}
	if !slices.Contains(res.Obs.Connects, Connect{Addr: "127.0.0.1", Port: uint16(port)}) {
		t.Errorf("connect to 127.0.0.1:%d not observed: %+v", port, res.Obs.Connects)
	}
}

// TestTraceSignal: a command killed by a signal reports 128+n.
func TestTraceSignal(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	res := observe(t, t.TempDir(), sh, "-c", "kill -TERM $$")
	if res.ExitCode != 128+15 {
		t.Errorf("exit code %d, want %d", res.ExitCode, 128+15)
	}
}

// TestTraceForeignABI: a system call through int 0x80 (i386's ABI, from
// an x86-64 program) is not read, and the run says so.
func TestTraceForeignABI(t *testing.T) {
	if auditArch != 0xc000003e {
		t.Skip("int 0x80 is x86-64's foreign ABI")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build a program that calls int 0x80")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "i386.c")
	// i386's getpid is 20; the call needs no memory below 4 GB.
	if err := os.WriteFile(src, []byte("int main(void){long r; __asm__ volatile(\"int $0x80\" : \"=a\"(r) : \"a\"(20L)); return r > 0 ? 0 : 1;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "i386")
	if out, err := exec.Command(cc, "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc cannot build it: %v\n%s", err, out)
	}
	if res := observe(t, dir, bin); !res.ForeignABI {
		t.Error("an int 0x80 call was not reported")
	}
	if res := observe(t, dir, "/bin/true"); res.ForeignABI {
		t.Error("a native run was reported as using another ABI")
	}
}

// TestDenialsResolveNothing: under exec --denials the traced command is
// a sandboxed tool, and a name it sends to a resolver must not be looked
// up from outside the sandbox (the lookup carries the name to the
// network). Positive control: learn, observing the same command, does
// look it up, to name the connection.
func TestDenialsResolveNothing(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to send a DNS query")
	}
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 1, RecursionDesired: true})
	b.StartQuestions()
	b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("secret-data.exfil.invalid."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
	q, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// Sent to port 53 of loopback, where nothing need listen: the send is
	// what the tracer reads.
	script := "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n" +
		"s.sendto(bytes.fromhex('" + hex.EncodeToString(q) + "'), ('127.0.0.1', 53))\n"
	for _, denials := range []bool{true, false} {
		var asked []string
		lookup := func(_ context.Context, _, host string) ([]netip.Addr, error) {
			asked = append(asked, host)
			return nil, errors.New("no")
		}
		res, err := run([]string{py, "-c", script}, t.TempDir(), os.Environ(), denials, lookup)
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 {
			t.Fatalf("python exited %d", res.ExitCode)
		}
		if !denials && !slices.Contains(asked, "secret-data.exfil.invalid") {
			t.Errorf("learn did not look up the queried name (asked %q)", asked)
		}
		if denials && len(asked) > 0 {
			t.Errorf("exec --denials looked up %q", asked)
		}
	}
}

// TestNotifyListenerStaysWithLearn: the observed command must not hold
// the filter's listener (with it, it could answer its own calls and
// blind learn), and the filter stays on the one thread that started the
// command: learn's other threads run unfiltered. Positive control: the
// command's descriptor listing is read (it shows its standard ones).
func TestNotifyListenerStaysWithLearn(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	res := observe(t, dir, sh, "-c", `exec 3>fds.txt; ls -l /proc/$$/fd >&3`)
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d", res.ExitCode)
	}
	fds, err := os.ReadFile(filepath.Join(dir, "fds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fds), "fds.txt") {
		t.Fatalf("the listing does not show the command's own descriptors:\n%s", fds)
	}
	if strings.Contains(string(fds), "seccomp") {
		t.Errorf("the command holds a seccomp listener:\n%s", fds)
	}
	// Threads of this process under a filter: at most the one that
	// started the command, if the runtime parked it (the main thread)
	// instead of ending it.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	filtered := 0
	for _, task := range tasks {
		st, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // ended meanwhile
		}
		if strings.Contains(string(st), "\nSeccomp:\t2\n") {
			filtered++
		}
	}
	if filtered > 1 {
		t.Errorf("%d threads of learn carry a seccomp filter, want at most the starting one", filtered)
	}
}
