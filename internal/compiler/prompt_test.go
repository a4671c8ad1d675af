package compiler

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextPrompterWords: each situation is put in its own words, and only
// an explicit yes approves.
func TestTextPrompterWords(t *testing.T) {
	grants := []ToolGrant{{Tool: "fs_read_file", Caps: []string{"read"}}}
	for _, tc := range []struct {
		name   string
		m      MountPrompt
		answer string
		want   []string
		ok     bool
	}{
		{"new", MountPrompt{RulePath: "fork", Target: "/x", Grants: grants}, "y\n",
			[]string{"Approve this target binding?", "fork → /x", "fs_read_file:", "Approve? [y/N]"}, true},
		{"retarget", MountPrompt{RulePath: "fork", Target: "/y", Previous: "/x", Grants: grants}, "\n",
			[]string{"Symlink `fork` retargeted:", "was: /x", "now: /y", "Allow new target? [y/N]"}, false},
		{"other workspace", MountPrompt{RulePath: "fork", Target: "/x", ApprovedIn: []string{"/ws/a", "/ws/b"}, Grants: grants}, "yes\n",
			[]string{"Approve this target binding for this workspace?", "fork → /x", "approved in /ws/a and /ws/b, which share this workspace's id", "Approve? [y/N]"}, true},
		{"other workspace, no", MountPrompt{RulePath: "fork", Target: "/x", ApprovedIn: []string{"/ws/a"}, Grants: grants}, "nope\n",
			[]string{"for this workspace?"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &TextPrompter{In: strings.NewReader(tc.answer), Out: &out}
			ok, err := p.ApproveMount(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Errorf("answer %q: approved %v, want %v", tc.answer, ok, tc.ok)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("prompt lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
