package approvals

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzLoad checks that no input panics Load, that a corrupt store never
// yields an entry, and that a healthy store survives a save/load round
// trip unchanged.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"mounts":[{"rule_path":"fork","canonical_target":"/abs","approved_at":"2026-05-26T13:00:00Z"}]}`))
	f.Add([]byte(`{"mounts":[],"plugins":{"x":[1,2]}}`))
	f.Add([]byte(`{"mounts":null}`))
	f.Add([]byte(`{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z","approved_in":["/b","/a","/b"]}]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, FileName)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, _, err := Load(p)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if s.Corrupt() {
			if len(s.Entries()) != 0 {
				t.Fatal("corrupt store has entries")
			}
			return
		}
		before := s.Entries()
		if err := s.Save(false); err != nil {
			t.Fatalf("Save: %v", err)
		}
		s2, warns, err := Load(p)
		if err != nil || len(warns) != 0 {
			t.Fatalf("reload: %v %v", warns, err)
		}
		after := s2.Entries()
		if len(before) != len(after) {
			t.Fatalf("round trip changed entries: %v -> %v", before, after)
		}
		for i := range before {
			if before[i].RulePath != after[i].RulePath || before[i].CanonicalTarget != after[i].CanonicalTarget || !before[i].ApprovedAt.Equal(after[i].ApprovedAt) || !slices.Equal(before[i].ApprovedIn, after[i].ApprovedIn) {
				t.Fatalf("round trip changed entries: %v -> %v", before, after)
			}
		}
	})
}
