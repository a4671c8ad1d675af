//go:build linux

package execcore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// TestReadPlanOwnsItsBytes: ReadPlan reads into the shared scratch
// buffer, so the plan it returns must hold nothing of that buffer; a
// later read that overwrites it must leave the plan as it was.
func TestReadPlanOwnsItsBytes(t *testing.T) {
	dir := t.TempDir()
	ap := filepath.Join(dir, "policy.json")
	os.MkdirAll(filepath.Join(dir, execplan.DirExec), 0o755)
	want := &execplan.Plan{Tool: "t", Root: "/ws", Enabled: true, Fast: &execplan.Fast{
		NeedABI: 1, EnvMinimal: []string{"PATH", "HOME"},
		Baseline:  []execplan.Rule{{Path: "/usr", Access: 7, Clause: "baseline.usr"}},
		FS:        []execplan.Rule{{Path: "/ws/src", Access: 7, Clause: "fs[0]"}},
		HandledFS: []uint64{0, 0x1fff},
	}}
	b := execplan.Encode(want)
	if err := os.WriteFile(filepath.Join(dir, execplan.PlanFile("t")), b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPlan(ap, "t", execplan.SHA256Hex(b))
	if err != nil {
		t.Fatal(err)
	}
	snapshot := execplan.Encode(got)
	if scratch.busy.Load() {
		t.Fatal("ReadPlan kept the scratch buffer")
	}
	for i := range scratch.buf {
		scratch.buf[i] = 'X'
	}
	if again := execplan.Encode(got); string(again) != string(snapshot) || string(again) != string(b) {
		t.Fatalf("the plan changed when the scratch buffer was overwritten:\n%q\nwant\n%q", again, b)
	}
}

// TestReadNoFollowErrors: the scratch reader refuses what ReadNoFollow
// refuses, with the same errors.
func TestReadNoFollowErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	big := filepath.Join(dir, "big")
	link := filepath.Join(dir, "l")
	fifo := filepath.Join(dir, "fifo")
	os.WriteFile(file, []byte("hello"), 0o644)
	os.WriteFile(big, []byte(strings.Repeat("x", 3*scratchSize)), 0o644)
	os.Symlink(file, link)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p string) (string, error) {
		var s string
		err := readNoFollow(p, func(b []byte) error { s = string(b); return nil })
		return s, err
	}
	if s, err := read(file); err != nil || s != "hello" {
		t.Errorf("file: %q, %v", s, err)
	}
	if s, err := read(big); err != nil || len(s) != 3*scratchSize {
		t.Errorf("file larger than the scratch buffer: %d bytes, %v", len(s), err)
	}
	if _, err := read(link); !errors.Is(err, ErrIsSymlink) {
		t.Errorf("symlink: %v, want ErrIsSymlink", err)
	}
	var nr *jpdirs.NotRegularError
	if _, err := read(fifo); !errors.As(err, &nr) {
		t.Errorf("fifo: %v, want a NotRegularError", err)
	}
	if _, err := read(dir); !errors.As(err, &nr) {
		t.Errorf("directory: %v, want a NotRegularError", err)
	}
	if _, err := read(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
	if scratch.busy.Load() {
		t.Fatal("the scratch buffer was not released")
	}
}

func TestParseStartTime(t *testing.T) {
	// Fields 3..21 are numbers; 22 is the start time.
	nums := func(n int) string {
		f := make([]string, n)
		for i := range f {
			f[i] = strconv.Itoa(i + 3)
		}
		return strings.Join(f, " ")
	}
	for _, tc := range []struct {
		line string
		want string // "" = false
	}{
		{"1234 (bash) " + nums(19) + " 98765 4 5\n", "98765"},
		{"1234 (a b) c) (d) " + nums(19) + " 42\n", "42"},
		{"1234 (bash) " + nums(19) + " 7", "7"},
		{"1234 (bash) " + nums(18) + "\n", ""},
		{"1234 bash " + nums(19) + " 1\n", ""},
		{"1234 (bash) " + nums(19) + " 123456789012345678901234567\n", ""},
		{"", ""},
	} {
		var s startBuf
		ok := parseStartTime([]byte(tc.line), &s)
		if got := s.String(); ok != (tc.want != "") || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
	var self startBuf
	if !startTime(os.Getpid(), &self) || self.String() == "" {
		t.Fatal("no start time for this process")
	}
}

// TestFastTmpDir: the run's directory is <pid>-<start> under a 0700 root;
// the sweep removes directories whose process is gone (or whose pid now
// runs with another start time) and keeps live ones and foreign names.
func TestFastTmpDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "jp-policy-test")
	var self startBuf
	if !startTime(os.Getpid(), &self) {
		t.Fatal("no start time")
	}
	mine := strconv.Itoa(os.Getpid()) + "-" + self.String()
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	dead := []string{"1-0", "999999999-5"}
	keep := []string{"notes", "x-1"}
	for _, n := range append(dead, keep...) {
		os.MkdirAll(filepath.Join(root, n, "sub"), 0o700)
	}
	dir, err := FastTmpDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(root, mine) {
		t.Fatalf("dir %s, want %s", dir, filepath.Join(root, mine))
	}
	es, _ := os.ReadDir(root)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if want := []string{mine, "notes", "x-1"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("after the sweep: %v, want %v", names, want)
	}
	// A root open to others is refused.
	os.Chmod(root, 0o755)
	var te *TmpDirError
	if _, err := FastTmpDir(root); !errors.As(err, &te) {
		t.Fatalf("root 0755: %v, want a TmpDirError", err)
	}
	// So is a symlink.
	link := root + "-link"
	os.Chmod(root, 0o700)
	os.Symlink(root, link)
	if _, err := FastTmpDir(link); !errors.As(err, &te) {
		t.Fatalf("symlinked root: %v, want a TmpDirError", err)
	}
}
