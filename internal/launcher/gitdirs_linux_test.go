package launcher

import (
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// TestGitScansRoots: a writable bind inside another is walked with it,
// once, unless it lies inside a `.git` of the outer one, which the walk
// does not enter; read-only binds are not walked.
func TestGitScansRoots(t *testing.T) {
	t.Setenv("JP_USER_DATA_DIR", t.TempDir())
	ns := &landlock.NSPlan{Binds: []landlock.NSBind{
		{Path: "/ws", RW: true},
		{Path: "/ws/build", RW: true},
		{Path: "/ws/src/.git", RW: true},
		{Path: "/ws/.gitx", RW: true},
		{Path: "/ws/docs", RW: false},
		{Path: "/ro"},
		{Path: "/other", RW: true},
		{Path: "/ws2", RW: true},
	}}
	want := []string{"/ws", "/ws/src/.git", "/other", "/ws2"}
	if got := newGitScans(ns).roots; !slices.Equal(got, want) {
		t.Errorf("roots = %v, want %v", got, want)
	}
}
