//go:build linux

package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The bits exec applies are the ones compile writes: package
// landlock's table of rights and scopes.
func TestBitsAreLandlocks(t *testing.T) {
	if fileRights != uint64(landlock.FileRights) {
		t.Errorf("fileRights %#x, landlock.FileRights %#x", fileRights, uint64(landlock.FileRights))
	}
	if landlock.ScopeSignal != llsyscall.ScopeSignal || landlock.ScopeAbstractUnix != llsyscall.ScopeAbstractUnixSocket {
		t.Errorf("scope bits differ from the kernel's")
	}
}

func TestBuildRulesetMasksByKind(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{HandledFS: uint64(landlock.RightsForABI(1)), FS: []execplan.Rule{
		{Path: dir, Access: uint64(landlock.RReadDir | landlock.RMakeReg | landlock.RRefer), Clause: "fs[0]"},
		{Path: file, Access: uint64(landlock.RReadFile | landlock.RRemoveFile | landlock.RTruncate), Clause: "fs[1]"},
		{Path: filepath.Join(dir, "gone"), Access: uint64(landlock.RReadFile), Clause: "fs[2]", Optional: true},
	}}
	rs, err := buildRuleset(s)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.close()
	if len(rs.paths) != 2 {
		t.Fatalf("%d rules, want 2 (the optional missing path skipped)", len(rs.paths))
	}
	if rs.paths[0].AllowedAccess != uint64(landlock.RReadDir|landlock.RMakeReg) {
		t.Errorf("dir rule %#x: ABI 1 must drop refer", rs.paths[0].AllowedAccess)
	}
	if rs.paths[1].AllowedAccess != uint64(landlock.RReadFile) {
		t.Errorf("file rule %#x: directory rights and truncate (ABI 3) must go", rs.paths[1].AllowedAccess)
	}
	s.FS[2].Optional = false
	s.HandledFS = uint64(landlock.RightsForABI(7))
	if _, err := buildRuleset(s); err == nil || !strings.Contains(err.Error(), "fs[2]") {
		t.Errorf("a missing required path must be refused, got %v", err)
	}
}

// TestOpenRulePath: the kind comes from the open itself (O_DIRECTORY
// first), and every path the fstat version refused is still refused.
func TestOpenRulePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "ld")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(dir, "lf")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		follow  bool
		dir     bool
		wantErr error
	}{
		{dir, false, true, nil},
		{file, false, false, nil},
		{filepath.Join(dir, "ld"), true, true, nil},
		{filepath.Join(dir, "lf"), true, false, nil},
		{filepath.Join(dir, "ld"), false, false, unix.ELOOP},
		{filepath.Join(dir, "lf"), false, false, unix.ELOOP},
		{filepath.Join(file, "x"), false, false, unix.ENOTDIR},
		{filepath.Join(dir, "gone"), false, false, unix.ENOENT},
		{"/dev/null", true, false, nil},
	} {
		fd, isDir, err := openRulePath(tc.path, tc.follow)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s follow=%v: err %v, want %v", tc.path, tc.follow, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s follow=%v: %v", tc.path, tc.follow, err)
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
		if isDir != tc.dir || (st.Mode&unix.S_IFMT == unix.S_IFDIR) != tc.dir {
			t.Errorf("%s follow=%v: dir %v (fstat mode %o), want %v", tc.path, tc.follow, isDir, st.Mode&unix.S_IFMT, tc.dir)
		}
	}
}
