package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
)

// Protected paths outside the workspace (emit.Tool.Protected): an
// existing one under a writable external grant is a protected bind of the
// namespaced plan (so the tool needs that path), a missing one is a guard
// the Landlock split keeps from being created; a rule that names one, or a
// grant that cannot write, leaves it alone.
func TestProtectedOutside(t *testing.T) {
	base := emittest.TempRoot(t)
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(ws, ".jp"), filepath.Join(home, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bashrc, zshrc := filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshrc")
	tests := []struct {
		name          string
		rules         []emittest.Rule
		wantProtected []string // among bashrc and zshrc
		wantGuard     bool     // zshrc guarded by the split
		// bashrcWritable: a grant on .bashrc or home has write_file.
		bashrcWritable bool
	}{
		{"rw mount", []emittest.Rule{{Path: ".", Caps: "r"}, {Path: "home", Caps: "rw", External: home}}, []string{bashrc, zshrc}, true, false},
		{"ro mount", []emittest.Rule{{Path: ".", Caps: "r"}, {Path: "home", Caps: "r", External: home}}, nil, false, false},
		{"named exactly", []emittest.Rule{{Path: ".", Caps: "r"}, {Path: "home", Caps: "rw", External: home}, {Path: "home/.bashrc", Caps: "rw", External: bashrc}}, []string{zshrc}, true, true},
		{"mount elsewhere", []emittest.Rule{{Path: ".", Caps: "rw"}, {Path: "docs", Caps: "rw", External: filepath.Join(home, "docs")}}, nil, false, false},
	}
	// A write-only mount: the guard on the existing .bashrc grants nothing
	// and is still no mask (the namespace plan would not cover it, and
	// MaskedFS would drop the guard).
	t.Run("write-only mount", func(t *testing.T) {
		tool := emittest.Tool(t, "t", ws, []emittest.Rule{{Path: ".", Caps: "r"}, {Path: "home", Caps: "w", External: home}})
		tool.Protected = []string{bashrc, zshrc}
		m, err := Build(tool)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(m.Masks, bashrc) || m.MaskedFS != nil {
			t.Errorf("masks %v, masked_fs %v: a guard became a mask", m.Masks, m.MaskedFS)
		}
		for _, g := range m.FS {
			if (g.Path == bashrc || g.Path == home) && slices.Contains(g.Access, ll.WriteFile) {
				t.Errorf("%s writable: %v", g.Path, g.Access)
			}
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := emittest.Tool(t, "t", ws, tc.rules)
			tool.Protected = []string{bashrc, zshrc}
			m, err := Build(tool)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range m.Namespace.Protected {
				if p == bashrc || p == zshrc {
					got = append(got, p)
				}
			}
			if !slices.Equal(got, tc.wantProtected) {
				t.Errorf("protected %v, want %v", got, tc.wantProtected)
			}
			needs := ll.NamespaceNeeds(m)
			hasNeed := slices.ContainsFunc(needs, func(n ll.NSNeed) bool {
				return n.ID == "ns.protected" && strings.Contains(n.What, bashrc) || strings.Contains(n.What, zshrc)
			})
			if hasNeed != (len(tc.wantProtected) > 0) {
				t.Errorf("ns.protected naming a start-up file: %v, want %v", hasNeed, len(tc.wantProtected) > 0)
			}
			// The guard: the home directory itself loses make_reg, its
			// existing entries keep the mount's rights.
			var homeRights, docsRights []string
			for _, g := range m.FS {
				switch g.Path {
				case home:
					homeRights = g.Access
				case filepath.Join(home, "docs"):
					docsRights = g.Access
				}
			}
			guarded := homeRights != nil && !slices.Contains(homeRights, ll.MakeReg) && slices.Contains(docsRights, ll.MakeReg)
			if guarded != tc.wantGuard {
				t.Errorf("guarded %v (home %v, docs %v), want %v", guarded, homeRights, docsRights, tc.wantGuard)
			}
			// An existing protected file covered by the write grant is
			// written through no grant: not its own, not its directory's.
			writable := false
			for _, g := range m.FS {
				if (g.Path == bashrc || g.Path == home) && slices.Contains(g.Access, ll.WriteFile) {
					writable = true
				}
			}
			if writable != tc.bashrcWritable {
				t.Errorf(".bashrc writable through Landlock: %v, want %v", writable, tc.bashrcWritable)
			}
			var clause string
			for _, c := range m.Clauses {
				if strings.Contains(c.How, "fs.protected "+zshrc) {
					clause = c.ID
				}
			}
			if (clause != "") != tc.wantGuard {
				t.Errorf("clause naming the guard: %q, want one: %v", clause, tc.wantGuard)
			}
		})
	}
}
