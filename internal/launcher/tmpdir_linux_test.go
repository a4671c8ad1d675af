//go:build linux

package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
		got, ok := parseStartTime([]byte(tc.line))
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
	if self, ok := startTime(os.Getpid()); !ok || self == "" {
		t.Fatal("no start time for this process")
	}
}

// TestFastTmpDir: the run's directory is <pid>-<start> under the
// workspace's 0700 directory; the sweep removes directories whose process
// is gone (or whose pid now runs with another start time) and keeps live
// ones and foreign names.
func TestFastTmpDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "jp-policy-test")
	self, ok := startTime(os.Getpid())
	if !ok {
		t.Fatal("no start time")
	}
	mine := strconv.Itoa(os.Getpid()) + "-" + self
	ws := TmpWorkspaceDir(root, "/ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o700)
	dead := []string{"1-0", "999999999-5"}
	keep := []string{"notes", "x-1"}
	for _, n := range append(dead, keep...) {
		os.MkdirAll(filepath.Join(ws, n, "sub"), 0o700)
		os.WriteFile(filepath.Join(ws, n, "sub", "f"), nil, 0o600)
	}
	os.Symlink("/", filepath.Join(ws, "1-0", "link"))
	// Each exec's sweep is bounded (in time too, so a loaded machine
	// removes less per exec): a few execs remove what is dead, and only
	// that.
	var names []string
	for range 100 {
		dir, err := FastTmpDir(root, "/ws")
		if err != nil {
			t.Fatal(err)
		}
		if dir != filepath.Join(ws, mine) {
			t.Fatalf("dir %s, want %s", dir, filepath.Join(ws, mine))
		}
		es, _ := os.ReadDir(ws)
		names = names[:0]
		for _, e := range es {
			names = append(names, e.Name())
		}
		if len(names) == 3 {
			break
		}
	}
	if want := []string{mine, "notes", "x-1"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("after the sweeps: %v, want %v", names, want)
	}
	// A root open to others is refused.
	os.Chmod(root, 0o755)
	var te *TmpDirError
	if _, err := FastTmpDir(root, "/ws"); !errors.As(err, &te) {
		t.Fatalf("root 0755: %v, want a TmpDirError", err)
	}
	// So is a symlink.
	link := root + "-link"
	os.Chmod(root, 0o700)
	os.Symlink(root, link)
	if _, err := FastTmpDir(link, "/ws"); !errors.As(err, &te) {
		t.Fatalf("symlinked root: %v, want a TmpDirError", err)
	}
}

// TestSweepBounded is issue 25's attack on the sweep: a leftover of a
// tool that has exited holds many entries in its directory. The next exec
// of the same workspace spends at most the budget on it (and makes
// progress: the tree shrinks, and is gone after enough execs); an exec of
// another workspace never looks at it.
func TestSweepBounded(t *testing.T) {
	root := filepath.Join(t.TempDir(), "jp-policy-test")
	ws := TmpWorkspaceDir(root, "/attacked")
	junk := filepath.Join(ws, "999999999-5")
	const n = 2000
	if err := os.MkdirAll(junk, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o700)
	for i := range n {
		if err := os.Mkdir(filepath.Join(junk, strconv.Itoa(i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		es, _ := os.ReadDir(junk)
		return len(es)
	}
	// Another workspace: no entry of the attacked one is touched.
	if _, err := FastTmpDir(root, "/other"); err != nil {
		t.Fatal(err)
	}
	if c := count(); c != n {
		t.Fatalf("an exec of another workspace removed %d entries of this one's leftovers", n-c)
	}
	// The attacked workspace: each exec is bounded and makes progress.
	left := n
	for round := 0; left > 0; round++ {
		start := time.Now()
		if _, err := FastTmpDir(root, "/attacked"); err != nil {
			t.Fatal(err)
		}
		// Far above the budget's wall time, far below an unbounded
		// sweep of the tree; a loaded machine only makes it slower per
		// system call, not more calls.
		if d := time.Since(start); d > time.Second {
			t.Fatalf("one exec spent %v sweeping", d)
		}
		now := count()
		if _, err := os.Stat(junk); err != nil {
			break
		}
		if now >= left {
			t.Fatalf("round %d: no progress (%d entries left)", round, now)
		}
		if left-now > sweepOps {
			t.Fatalf("round %d: removed %d entries, more than the budget of %d calls", round, left-now, sweepOps)
		}
		left = now
	}
}
