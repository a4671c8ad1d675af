package lint

import (
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func TestCoveredRange(t *testing.T) {
	src := strings.Join([]string{
		`# jp-policy: ignore JP110 -- header`,   // 1
		`[[a.b]]`,                               // 2
		`path = "x"`,                            // 3
		``,                                      // 4
		`[[a.c]]`,                               // 5
		`value = [`,                             // 6
		`  # jp-policy: ignore JP107 -- inline`, // 7
		`  { path = "y",`,                       // 8
		`    read = true },`,                    // 9
		`  { path = "z" },`,                     // 10
		`]`,                                     // 11
		`s = """`,                               // 12
		`# jp-policy: ignore JP107 -- in a string`, // 13
		`"""`,                                 // 14
		`# jp-policy: ignore JP107 -- key`,    // 15
		`# another comment`,                   // 16
		`k = { a = "[", b = 1 }`,              // 17
		`# jp-policy: ignore JP107 -- at end`, // 18
	}, "\n")
	s := parseSuppressions(map[string][]byte{"/f.toml": []byte(src)})
	type span struct{ line, from, to int }
	var got []span
	for _, sp := range s.list {
		got = append(got, span{sp.line, sp.from, sp.to})
	}
	want := []span{{1, 2, 4}, {7, 8, 9}, {15, 17, 17}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("suppression %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if len(s.problems) != 1 || s.problems[0].Pos.Line != 18 {
		t.Errorf("want one problem (nothing follows line 18), got %v", s.problems)
	}
}

func TestSuppressionApply(t *testing.T) {
	src := "# jp-policy: ignore JP110 -- why\n[[a]]\nwrite = \"insecure_allow\"\n# jp-policy: ignore JP119 -- no\n[[b]]\npath = \"\"\n"
	s := parseSuppressions(map[string][]byte{"/f.toml": []byte(src)})
	ds := []diag.Diagnostic{
		{Pos: diag.Position{File: "/f.toml", Line: 3, Col: 9}, Severity: diag.Warning, Rule: "JP110"},
		{Pos: diag.Position{File: "/f.toml", Line: 6, Col: 8}, Severity: diag.Error, Rule: "JP119"},
		{Pos: diag.Position{File: "/g.toml", Line: 3, Col: 9}, Severity: diag.Warning, Rule: "JP110"},
		{Pos: diag.Position{File: "/g.toml", Line: 9, Col: 1}, Severity: diag.Warning, Rule: "JP116"},
	}
	out := s.apply(ds, []string{"jp116", "JP101"})
	var rules []string
	for _, d := range out {
		rules = append(rules, d.Rule+"@"+d.Pos.File)
	}
	// JP110 in f is hidden by the comment, JP116 by --ignore; JP119 is not
	// suppressible (and the attempt is JP118); --ignore JP101 hides nothing.
	want := "JP119@/f.toml JP110@/g.toml JP118@/f.toml"
	if got := strings.Join(rules, " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestValidateIgnore(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{[]string{"JP107", "jp116"}, ""},
		{[]string{"JP101"}, "cannot be suppressed"},
		{[]string{"JP999"}, "unknown rule"},
	} {
		err := ValidateIgnore(tc.ids)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ValidateIgnore(%v) = %v, want %q", tc.ids, err, tc.want)
		}
	}
}

func TestConfigPaths(t *testing.T) {
	for _, tc := range []struct {
		path      string
		sensitive bool
		badStar   bool
	}{
		{"conversation.tools", true, false},
		{"conversation", true, false},
		{"conversation.tools.*.access", true, false},
		{"conversation.tools.x.access.fs", true, false},
		{"conversation.tools.*.run", false, false},
		{"conversation.tools.x.options.*", false, false},
		{"assistant.model", false, false},
		{"assistant.*", false, true},
		{"*", true, true},
		{"providers.llm.aliases.*", false, false},
		{"providers.llm.*.x", false, true},
	} {
		_, s := sensitiveConfigPath(tc.path)
		_, _, bad := wildcardNotMap(tc.path)
		if s != tc.sensitive || bad != tc.badStar {
			t.Errorf("%q: sensitive=%v badStar=%v, want %v %v", tc.path, s, bad, tc.sensitive, tc.badStar)
		}
	}
}

// FuzzSuppressions: reading directives never panics, and every covered
// range lies inside the file, after its comment, in order.
func FuzzSuppressions(f *testing.F) {
	f.Add("# jp-policy: ignore JP107 -- r\n[[a]]\npath = \".\"\n")
	f.Add("x = [\n# jp-policy: ignore JP107,JP116 -- r\n{ a = '''\n]'''},\n]\n")
	f.Add("s = \"\"\"\n# jp-policy: ignore JP107 -- r\n")
	f.Add("# jp-policy: ignore\n# jp-policy: frob\n# jp-policy: ignore JP1 --\n")
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, name := range []string{"/f.toml", "/f.yaml"} {
			s := parseSuppressions(map[string][]byte{name: []byte(src)})
			for _, sp := range s.list {
				if sp.from <= sp.line || sp.from > sp.to || sp.to > lines {
					t.Fatalf("%s: bad range %+v in %d lines", name, sp, lines)
				}
			}
		}
	})
}
