package mountconsent

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/grantdiff"
)

func widen(tool, clause, what string, on ...string) grantdiff.Change {
	return grantdiff.Change{Tool: tool, Clause: clause, Widened: true, Gained: []grantdiff.Item{{What: what, On: on}}}
}

func TestCovers(t *testing.T) {
	e := []Entry{{Tool: "t", Path: "c", Mode: "rw"}, {Tool: "t", Path: "tc", Mode: "rx"}}
	for _, tc := range []struct {
		name string
		d    *grantdiff.Diff
		want bool
	}{
		{"the mount", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read, write", "c")}}, true},
		{"less than the mount", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read", "c")}}, true},
		{"two mounts", &grantdiff.Diff{Changes: []grantdiff.Change{{Tool: "t", Clause: "fs", Widened: true, Gained: []grantdiff.Item{{What: "read, write", On: []string{"c"}}, {What: "read, execute", On: []string{"tc"}}}}}}, true},
		{"more than the mount", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read, write, execute", "c")}}, false},
		{"write on an rx mount", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read, write", "tc")}}, false},
		{"another tool", &grantdiff.Diff{Changes: []grantdiff.Change{widen("u", "fs", "read", "c")}}, false},
		{"another path too", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read, write", "c", "d")}}, false},
		{"a net widening beside it", &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read", "c"), widen("t", "net", "connect", "https://x")}}, false},
		{"reaching a protected path", &grantdiff.Diff{Changes: []grantdiff.Change{{Tool: "t", Clause: "fs", Widened: true, Gained: []grantdiff.Item{{What: "read, write", On: []string{"c"}, Including: []string{".git/hooks"}}}}}}, false},
		{"nothing widened", &grantdiff.Diff{}, false},
	} {
		if got := Covers(e, tc.d); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Covers(nil, &grantdiff.Diff{Changes: []grantdiff.Change{widen("t", "fs", "read", "c")}}) {
		t.Error("no record covers nothing")
	}
}

func TestRecordLoadClear(t *testing.T) {
	dir := t.TempDir()
	if err := Record(dir, "/w", []Entry{{"t", "c", "rw"}}); err != nil {
		t.Fatal(err)
	}
	if err := Record(dir, "/w", []Entry{{"t", "c", "rw"}, {"u", "d", "ro"}}); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, "/w")
	if err != nil || len(got) != 2 {
		t.Fatalf("Load = %v, %v", got, err)
	}
	if other, _ := Load(dir, "/x"); other != nil {
		t.Fatalf("another root's record: %v", other)
	}
	if err := Clear(dir, "/w"); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(dir, "/w"); got != nil {
		t.Fatalf("after Clear: %v", got)
	}
}
