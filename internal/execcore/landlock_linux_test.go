//go:build linux

package execcore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/execplan"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The bits execcore applies are the ones compile writes: package
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
