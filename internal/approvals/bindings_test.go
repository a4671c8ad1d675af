package approvals

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestApproveRuleAndList(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(root, ".jp"), filepath.Join(root, "src"), filepath.Join(home, "x"), filepath.Join(home, "y")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "y"), filepath.Join(root, "other")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	root, _ = filepath.EvalSymlinks(root)
	home, _ = filepath.EvalSymlinks(home)
	s := New(filepath.Join(t.TempDir(), FileName))
	now := time.Date(2026, 5, 26, 13, 0, 0, 0, time.UTC)
	rp, target, before, err := ApproveRule(root, "./other/", s, now)
	if err != nil || rp != "other" || target != filepath.Join(home, "y") || before.Kind != Unknown {
		t.Fatalf("ApproveRule = %q %q %+v %v", rp, target, before, err)
	}
	if bs := ListBindings(root, s); len(bs) != 1 || bs[0].Status != BindingOK {
		t.Fatalf("ListBindings = %+v", bs)
	}
	if _, _, _, err := ApproveRule(root, "src", s, now); err == nil {
		t.Fatal("an in-workspace path needs no approval")
	}
	if _, _, _, err := ApproveRule(root, "missing", s, now); err == nil {
		t.Fatal("a missing rule path cannot be approved")
	}
	os.Remove(filepath.Join(root, "other"))
	if err := os.Symlink(filepath.Join(home, "x"), filepath.Join(root, "other")); err != nil {
		t.Fatal(err)
	}
	bs := ListBindings(root, s)
	if len(bs) != 1 || bs[0].Status != BindingRetargeted || bs[0].Current != filepath.Join(home, "x") {
		t.Fatalf("ListBindings = %+v", bs)
	}
	os.Remove(filepath.Join(root, "other"))
	if bs := ListBindings(root, s); len(bs) != 1 || bs[0].Status != BindingBroken || bs[0].Problem == "" {
		t.Fatalf("ListBindings = %+v", bs)
	}
}
