package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// workspace makes a canonical workspace root holding files (a trailing
// slash makes a directory).
func workspace(t testing.TB, files ...string) string {
	t.Helper()
	root, err := policy.CanonicalRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rulesText(rs []Rule) string {
	var b []string
	for _, r := range rs {
		p := r.Path
		if p == "" {
			p = "."
		}
		b = append(b, p+"="+r.Op.String())
	}
	return strings.Join(b, " ")
}

func TestPropose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string // in the workspace after the run
		obs   []FileAccess
		want  string
	}{
		{"reads stay per file",
			[]string{"src/a.txt", "src/b.txt", "src/c.txt"},
			[]FileAccess{{"src/a.txt", OpRead}, {"src/b.txt", OpRead}},
			"src/a.txt=read src/b.txt=read"},
		{"a file the run created is granted through its directory",
			[]string{"out/app", "out/main.go"},
			[]FileAccess{{"out/app", OpCreate | OpUpdate}},
			"out=create+update"},
		{"a file created in a directory the run made is the directory's",
			[]string{"out/report.txt"},
			[]FileAccess{{"out", OpCreate}, {"out/report.txt", OpCreate | OpUpdate}},
			".=create out=create+update"},
		{"a file the run removed again is its directory's",
			[]string{"out/c.txt"},
			[]FileAccess{{"out/.tmp123", OpCreate | OpUpdate | OpRead}, {"out/.tmp123", OpDelete}, {"out/c.txt", OpCreate | OpDelete | OpUpdate}},
			"out=read+create+update+delete"},
		{"a narrower rule never takes away what the rule above grants",
			[]string{"a/b/c.txt"},
			[]FileAccess{{"", OpRead}, {"a/b/c.txt", OpUpdate}},
			".=read a/b/c.txt=read+update"},
		{"a rule that adds nothing is dropped",
			[]string{"src/a.txt"},
			[]FileAccess{{"", OpRead}, {"src/a.txt", OpRead}},
			".=read"},
		{"many reads below a directory become the directory",
			[]string{"src/0", "src/1", "src/2", "src/3", "other"},
			[]FileAccess{{"src/0", OpRead}, {"src/1", OpRead}, {"src/2", OpRead}, {"src/3", OpRead}, {"other", OpRead}},
			"other=read src=read"},
		{"execute is kept on the program",
			[]string{"scripts/run.sh"},
			[]FileAccess{{"scripts/run.sh", OpExecute | OpRead}},
			"scripts/run.sh=read+execute"},
		{"JP's own files get nothing",
			[]string{".jp/config.toml", ".jp.toml"},
			[]FileAccess{{".jp/config.toml", OpRead}, {".jp.toml", OpRead}},
			""},
		{"a write around .jp keeps it read-only where that breaks nothing",
			[]string{"x.txt", ".jp/"},
			[]FileAccess{{"", OpRead | OpUpdate}},
			".=read+update .jp=read .jp.toml=read"},
		{"but not where the run creates beside it",
			[]string{"newdir/", ".jp/"},
			[]FileAccess{{"", OpRead}, {"newdir", OpCreate}},
			".=read+create"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, tc.files...)
			var obs Observations
			for _, fa := range tc.obs {
				obs.Files = append(obs.Files, FileAccess{filepath.Join(root, filepath.FromSlash(fa.Path)), fa.Op})
			}
			p, err := Propose(obs, Context{Root: root, Collapse: 4, Protect: []string{".jp", ".jp.toml"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := rulesText(p.FS); got != tc.want {
				t.Errorf("rules\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

func TestProposeOutside(t *testing.T) {
	root := workspace(t)
	home := t.TempDir()
	obs := Observations{
		Files: []FileAccess{
			{filepath.Join(home, ".cache/go-build/ab/cd"), OpCreate | OpUpdate},
			{filepath.Join(home, ".cache/go-build/ef"), OpRead},
			{filepath.Join(home, ".npm/_cacache/x"), OpRead},
			{filepath.Join(home, ".cargo/bin/cargo"), OpExecute | OpRead},
			{"/etc/locale.alias", OpRead},
			{"/scratch/x", OpCreate},
			{"/usr/bin/sh", OpExecute | OpRead},
		},
		Connects: []Connect{{Addr: "140.82.112.3", Port: 443, Name: "github.com"}, {Addr: "127.0.0.1", Port: 8080}, {Addr: "140.82.112.3", Port: 443, Name: "github.com"}},
		Unix:     []string{"/run/user/0/bus"},
	}
	ctx := Context{
		Root: root, Home: home, Scratch: []string{"/scratch"},
		Baseline: func(p string, op Op) bool { return strings.HasPrefix(p, "/usr/") && op&^(OpRead|OpExecute) == 0 },
	}
	p, err := Propose(obs, ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range p.Mounts {
		got = append(got, m.Name+"="+strings.Replace(m.Target, home, "~", 1)+":"+m.Mode)
		if m.System != (m.Target == "/etc/locale.alias") {
			t.Errorf("%s: System = %v", m.Target, m.System)
		}
	}
	if want := "locale.alias=/etc/locale.alias:ro go-build=~/.cache/go-build:rw cargo=~/.cargo:rx npm=~/.npm:ro"; strings.Join(got, " ") != want {
		t.Errorf("mounts\n got: %s\nwant: %s", strings.Join(got, " "), want)
	}
	if len(p.Net) != 2 || p.Net[0] != (Net{"127.0.0.1", 8080, ""}) || p.Net[1] != (Net{"github.com", 443, "https"}) {
		t.Errorf("net = %+v", p.Net)
	}
	if len(p.FS) != 0 {
		t.Errorf("fs = %s, want none", rulesText(p.FS))
	}
	text := Render("t", p, home, "`x`")
	for _, want := range []string{
		"jp-policy mount t:go-build=~/.cache/go-build:rw",
		"jp-policy mount t:cargo=~/.cargo:rx",
		"host = \"github.com\"\nscheme = \"https\"\nport = 443\nallow = true",
		"path = \".\"\n", // no file: one rule, no capability
		"#   /run/user/0/bus",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered proposal lacks %q:\n%s", want, text)
		}
	}
	if Render("t", p, home, "`x`") != text {
		t.Error("the same proposal renders differently twice")
	}
}

// TestRenderEscapes: a command line or tool name cannot break out of its
// comment or key.
func TestRenderEscapes(t *testing.T) {
	p := &Proposal{FS: []Rule{{Path: "a\nb", Op: OpRead}}}
	text := Render("t\n[x]", p, "", "`sh -c 'x\n[[evil]]'`")
	var n int
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "[[") && !strings.HasPrefix(line, `[[conversation.tools."t\n[x]".access.`) {
			t.Errorf("stray table header %q", line)
		}
		if strings.HasPrefix(line, "[[") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d tables, want 2:\n%s", n, text)
	}
}

// TestRenderMountComment: a path outside the workspace is the traced
// command's choice; in the mount command written as a comment, a newline
// in it cannot end the comment and add config, and no control character
// reaches a terminal the proposal is printed on.
func TestRenderMountComment(t *testing.T) {
	evil := "/opt/m\n[conversation.tools.x]\nrun = \"unattended\"\n#\x1b]0;t\a"
	p := &Proposal{Mounts: []Mount{
		{Target: evil, Name: "m", Mode: "rw"},
		{Target: evil + "2", Name: "m2", Mode: "ro", System: true},
	}}
	text := Render("t", p, "", "`x`")
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "[conversation.tools.x]") || strings.HasPrefix(line, "run = ") {
			t.Errorf("a traced path added config: %q in\n%s", line, text)
		}
	}
	if strings.ContainsAny(text, "\x1b\a") {
		t.Errorf("control characters reach the output:\n%q", text)
	}
	if n := strings.Count(text, "#   jp-policy mount "); n != 2 {
		t.Errorf("%d mount commands, want 2:\n%s", n, text)
	}
}
