package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// testWorkspace makes a workspace with its own global and data dirs and
// returns Options that see nothing of the real environment.
func testWorkspace(t testing.TB) (string, Options) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(tmp, "ws")
	write(t, filepath.Join(ws, ".jp", ".id"), "wsid0\n")
	vars := map[string]string{
		"JP_GLOBAL_CONFIG_DIR": filepath.Join(tmp, "global"),
		"JP_USER_DATA_DIR":     filepath.Join(tmp, "data"),
	}
	return ws, Options{Cwd: ws, Getenv: env(vars), Environ: func() []string { return nil }}
}

func TestLoadModel(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), `
[conversation.tools.t]
source = "local"

[[conversation.tools.t.access.fs]]
path = "fork"
external = true
read = true

[conversation.tools.t.access]
commands.git = { args = [["status"]] }
`)
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", l.Diagnostics)
	}
	tool := l.Tools["t"]
	cfg := filepath.Join(ws, ".jp", "config.toml")
	if tool.Source.Pos.Start() != (diag.Position{File: cfg, Line: 3, Col: 1}) {
		t.Errorf("source pos %v", tool.Source.Pos)
	}
	a := tool.Access
	if a.Pos.Start() != (diag.Position{File: cfg, Line: 5, Col: 24}) {
		t.Errorf("access pos %v", a.Pos)
	}
	r := a.FS[0]
	if ext, ok := r.Keys.Get("external"); !ok || r.Pos.Line != 5 || r.Pos.Col != 1 || ext.Line != 7 || r.External == nil || !*r.External {
		t.Errorf("fs rule %+v", r)
	}
	if a.Net != nil || a.Env != nil || a.Config != nil {
		t.Errorf("undeclared lists must stay nil: %+v", a)
	}
	if c := a.Commands["git"]; c == nil || len(c.Args) != 1 || c.Args[0][0] != "status" || c.Envs != nil {
		t.Errorf("commands %+v", a.Commands)
	}
	var wantCand []string
	for _, base := range []string{filepath.Join(opts.Getenv("JP_GLOBAL_CONFIG_DIR"), "config"), filepath.Join(ws, ".jp"),
		filepath.Join(opts.Getenv("JP_USER_DATA_DIR"), "workspace", "ws-wsid0", "config")} {
		for _, ext := range jpdirs.Extensions {
			wantCand = append(wantCand, base+ext)
		}
	}
	if strings.Join(l.Candidates, "\n") != strings.Join(wantCand, "\n") {
		t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(l.Candidates, "\n"), strings.Join(wantCand, "\n"))
	}
	if _, ok := l.Files[cfg]; !ok {
		t.Errorf("files: %v", l.Files)
	}
}

func TestExtendsDepth(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), `extends = ["d0.toml"]`)
	for i := range maxExtendsDepth + 1 {
		write(t, filepath.Join(ws, ".jp", fmt.Sprintf("d%d.toml", i)), fmt.Sprintf("extends = [\"d%d.toml\"]", i+1))
	}
	_, err := Load(opts)
	var list diag.List
	if !errors.As(err, &list) || list[0].Rule != RuleCycle || !strings.Contains(list[0].Message, "deeper than") {
		t.Fatalf("err = %v", err)
	}
}

// TestExtensionFallback: like JP, config.json is read when config.toml is
// absent, and a format jp-policy cannot read is an error, not a gap.
func TestExtensionFallback(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.json"), `{"conversation": {"tools": {"t": {"source": "local"}}}}`)
	l, err := Load(opts)
	if err != nil || l.Tools["t"] == nil || l.Layers[0].Path != filepath.Join(ws, ".jp", "config.json") {
		t.Fatalf("json fallback: %v %+v", err, l)
	}
	write(t, filepath.Join(ws, ".jp.yaml"), "a: 1\n")
	_, err = Load(opts)
	var list diag.List
	if !errors.As(err, &list) || list[0].Rule != RuleExtension {
		t.Fatalf("yaml: %v", err)
	}
}

func TestLoadFatal(t *testing.T) {
	tests := []struct {
		name, file, content, rule string
	}{
		{"toml syntax", "config.toml", "a = ", RuleSyntax},
		{"cycle", "config.toml", `extends = ["config.toml"]`, RuleCycle},
		{"extension", "config.toml", `extends = ["a.yaml"]`, RuleExtension},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, opts := testWorkspace(t)
			write(t, filepath.Join(ws, ".jp", tc.file), tc.content)
			write(t, filepath.Join(ws, ".jp", "a.yaml"), "")
			_, err := Load(opts)
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 || list[0].Rule != tc.rule || list[0].Pos.Line == 0 {
				t.Fatalf("err = %#v", err)
			}
		})
	}
}

// FuzzLoad feeds arbitrary bytes to the loader as a TOML and a JSON layer:
// it must never panic, and every finding must point at a file.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[conversation.tools.t]\nsource = \"local\"\naccess.fs = [{ path = \".\", read = true }]\n"), false)
	f.Add([]byte(`{"conversation": {"tools": {"t": {"access": {"fs": {"strategy": "replace", "value": [{"path": 1}]}}}}}}`), true)
	f.Add([]byte("extends = [\"x.toml\", { path = \"**/*.json\", strategy = \"after\" }]\ninherit = false\n"), false)
	f.Add([]byte("conversation.tools.'*'.access.commands.git.args = [[1], \"x\"]\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		ws, opts := testWorkspace(t)
		name := filepath.Join(ws, ".jp", "config.toml")
		if asJSON {
			name = filepath.Join(ws, "layer.json")
			opts.Cfg = []string{name}
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(opts)
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || !list.HasErrors() {
				t.Fatalf("fatal error is not an error diagnostic: %v", err)
			}
			for _, d := range list {
				if d.Pos.File == "" {
					t.Fatalf("fatal error without a file: %v", d)
				}
			}
			return
		}
		for _, d := range l.Diagnostics {
			if d.Pos.File == "" {
				t.Fatalf("diagnostic without a file: %v", d)
			}
		}
		var sb strings.Builder
		if err := l.WriteJSON(&sb, PrintOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := l.WriteText(&sb, PrintOptions{Origins: true}); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkLoad loads, merges and validates five layers (global,
// workspace, .jp.toml, user-workspace, --cfg) that each configure the same
// 200 tools with 2 rules, 2,000 rules in all.
func BenchmarkLoad(b *testing.B) {
	ws, opts := testWorkspace(b)
	layer := func(tag string) string {
		var sb strings.Builder
		for i := range 200 {
			fmt.Fprintf(&sb, "[conversation.tools.tool_%03d]\nsource = \"local\"\nrun = %q\n", i, tag)
			fmt.Fprintf(&sb, "[[conversation.tools.tool_%03d.access.fs]]\npath = \"src/%s/%d\"\nread = true\nwrite = true\n", i, tag, i)
			fmt.Fprintf(&sb, "[[conversation.tools.tool_%03d.access.net]]\nhost = \"%s.example\"\nport = 443\nallow = true\n", i, tag)
		}
		return sb.String()
	}
	write(b, filepath.Join(opts.Getenv("JP_GLOBAL_CONFIG_DIR"), "config.toml"), layer("global"))
	write(b, filepath.Join(ws, ".jp", "config.toml"), layer("workspace"))
	write(b, filepath.Join(ws, ".jp.toml"), layer("dotjp"))
	write(b, filepath.Join(opts.Getenv("JP_USER_DATA_DIR"), "workspace", "ws-wsid0", "config.toml"), layer("user"))
	write(b, filepath.Join(ws, "extra.toml"), layer("cfg"))
	opts.Cfg = []string{"extra.toml"}
	b.ResetTimer()
	for b.Loop() {
		l, err := Load(opts)
		if err != nil || len(l.Diagnostics) != 0 || len(l.Tools) != 200 || len(l.Tools["tool_199"].Access.FS) != 5 {
			b.Fatalf("load: %v %v", err, l.Diagnostics)
		}
	}
}

// TestUnreadableLayerFailsClosed: a layer that exists but cannot be
// inspected must stop loading, not be skipped as absent. The symlink loop
// (ELOOP) fails for every user, root included, which is how CI runs; the
// permission case needs a user the kernel checks permissions for.
func TestUnreadableLayerFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		asRoot bool // root hits this failure too
		break_ func(t *testing.T, dir string)
	}{
		{"symlink loop", true, func(t *testing.T, dir string) {
			if err := os.Symlink(".jp.json", filepath.Join(dir, ".jp.toml")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(".jp.toml", filepath.Join(dir, ".jp.json")); err != nil {
				t.Fatal(err)
			}
		}},
		{"unsearchable directory", false, func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".jp.toml"), "x = 1\n")
			if err := os.Chmod(dir, 0o000); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if platform.Host == platform.Windows {
				t.Skip("needs POSIX symlinks and permissions")
			}
			if !tc.asRoot && os.Geteuid() == 0 {
				t.Skip("root is not denied by permissions; the symlink loop case covers root")
			}
			ws, _ := testWorkspace(t)
			sub := filepath.Join(ws, "locked")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.break_(t, sub)
			ld := &loader{l: &Loaded{Files: map[string][]byte{}}, inherit: true}
			ld.m = newMerger(ld.l)
			err := ld.discovered(LayerDotJP, filepath.Join(sub, ".jp.toml"), true)
			var list diag.List
			if !errors.As(err, &list) || !strings.Contains(err.Error(), "cannot read config file") {
				t.Fatalf("err = %v, want a fatal diagnostic", err)
			}
		})
	}
}

// TestCfgLoadPaths: --cfg NAME is found through config_load_paths under
// the workspace root first, then under the user-workspace directory.
// TestCfgLoadPaths follows JP's resolve_cfg_args (jp_cli
// config_pipeline.rs) and find_file_in_load_path (jp_config util.rs):
// config_load_paths appended across layers, searched under three roots
// (<global>/config, the workspace root, <user-workspace>/config), the
// first load path with a match winning within a root and every root's
// match merged, lowest root first.
func TestCfgLoadPaths(t *testing.T) {
	ws, opts := testWorkspace(t)
	global := opts.Getenv("JP_GLOBAL_CONFIG_DIR")
	user := filepath.Join(opts.Getenv("JP_USER_DATA_DIR"), "workspace", "ws-wsid0", "config")
	// Two layers each add a load path: JP appends them.
	write(t, filepath.Join(ws, ".jp", "config.toml"), `config_load_paths = ["personas"]`)
	write(t, filepath.Join(ws, ".jp.toml"), `config_load_paths = ["more"]`)
	write(t, filepath.Join(user, "personas", "mine.toml"), `conversation.tools.t.source = "local"`)
	write(t, filepath.Join(ws, "personas", "both.json"), `{"conversation": {"tools": {"w": {"source": "local", "run": "ws"}}}}`)
	write(t, filepath.Join(user, "personas", "both.toml"), `conversation.tools.w.run = "user"`)
	write(t, filepath.Join(global, "config", "more", "both.toml"), `conversation.tools.g.source = "local"`)
	// Within the workspace root, "personas" comes first and wins.
	write(t, filepath.Join(ws, "more", "both.toml"), `conversation.tools.shadowed.source = "local"`)
	write(t, filepath.Join(ws, "more", "only-more.toml"), `conversation.tools.m.source = "local"`)
	opts.Cfg = []string{"mine", "both", "only-more"}
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t", "w", "g", "m"} {
		if l.Tools[name] == nil {
			t.Errorf("tool %s missing: %v", name, l.Tools)
		}
	}
	if l.Tools["shadowed"] != nil {
		t.Error("a second load path matched within one root")
	}
	if w := l.Tools["w"]; w == nil || w.Run.Value != "user" {
		t.Errorf("the user-workspace root must merge last: %+v", w)
	}
	opts.Cfg = []string{"nope"}
	if _, err := Load(opts); err == nil {
		t.Fatal("missing --cfg must be fatal")
	}
	// A --cfg file's own config_load_paths does not steer a later name.
	write(t, filepath.Join(ws, "extra.toml"), `config_load_paths = ["late"]`)
	write(t, filepath.Join(ws, "late", "x.toml"), `conversation.tools.x.source = "local"`)
	opts.Cfg = []string{filepath.Join(ws, "extra.toml"), "x"}
	if _, err := Load(opts); err == nil {
		t.Fatal("a --cfg file's config_load_paths was searched")
	}
}

// TestCfgForms covers JP's KeyValueOrPath forms (jp_cli lib.rs) and
// apply_cfg_args (JP's without_conversation_returns_base_plus_cfg): an
// assignment replaces a list, '+' extends it.
func TestCfgForms(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), "[conversation.tools.t]\nsource = \"local\"\naccess.fs = [{ path = \".\", read = true }]\n")
	write(t, filepath.Join(ws, "file=with-eq.toml"), `conversation.tools.t.run = "from-file"`)
	tests := []struct {
		cfg []string
		fs  string // paths of t's fs rules
		run string
	}{
		{[]string{"conversation.tools.t.access.fs=src,docs"}, "src docs", ""},
		{[]string{"conversation.tools.t.access.fs+=src"}, ". src", ""},
		{[]string{`conversation.tools.t.access.fs:=[{"path": "a", "read": true}]`}, "a", ""},
		{[]string{`conversation.tools.t.access.fs+:=["b"]`}, ". b", ""},
		{[]string{`conversation.tools.t:={"run": "ask"}`}, ".", "ask"},
		{[]string{`{"conversation": {"tools": {"t": {"run": "unattended"}}}}`}, ".", "unattended"},
		{[]string{"@" + filepath.Join(ws, "file=with-eq.toml")}, ".", "from-file"},
		{[]string{"conversation.tools.t.run=ask", "conversation.tools.t.access.fs+=x"}, ". x", "ask"},
		{[]string{"conversation.tools.t.enable.state=false", "conversation.tools.t.enable.allow_toggle=if_named"}, ".", ""},
	}
	for _, tc := range tests {
		opts.Cfg = tc.cfg
		l, err := Load(opts)
		if err != nil {
			t.Errorf("%v: %v", tc.cfg, err)
			continue
		}
		for _, d := range l.Diagnostics {
			t.Errorf("%v: %v", tc.cfg, d)
		}
		tl := l.Tools["t"]
		var paths []string
		for _, r := range tl.Access.FS {
			paths = append(paths, r.Path)
		}
		if strings.Join(paths, " ") != tc.fs || tl.Run.Value != tc.run {
			t.Errorf("%v: fs %v run %q, want %q %q", tc.cfg, paths, tl.Run.Value, tc.fs, tc.run)
		}
	}
}

// TestRuleKeys: a rule gives the span of each key it writes, and nothing
// for a key it does not.
func TestRuleKeys(t *testing.T) {
	root, err := tomlpos.ParseTOML("c.toml", []byte("[[conversation.tools.t.access.fs]]\npath = \"src\"\nread = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	rule := root.Get("conversation").Get("tools").Get("t").Get("access").Get("fs").Items[0]
	r, ok := decodeFS(rule)
	if !ok {
		t.Fatal("the rule did not decode")
	}
	if p, ok := r.Keys.Get("path"); !ok || p.Line != 2 || p.Col != 8 || p.EndCol != 13 {
		t.Errorf("path value at %+v, %v; want 2:8-2:13", p, ok)
	}
	if _, ok := r.Keys.Get("write"); ok {
		t.Error("a key the rule does not write has a position")
	}
	if _, ok := (Keys{}).Get("path"); ok {
		t.Error("the zero Keys has a position")
	}
}

// TestRealPath: the per-directory cache resolves every path as
// filepath.EvalSymlinks does (symlinked directories and files, missing
// files, a second file in a cached directory).
func TestRealPath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.toml", "b.toml", "sub/c.toml"} {
		if err := os.WriteFile(filepath.Join(real, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink(filepath.Join(real, "a.toml"), filepath.Join(real, "alias.toml")); err != nil {
		t.Fatal(err)
	}
	ld := &loader{}
	for _, p := range []string{
		"real/a.toml", "link/a.toml", "link/b.toml", "link/alias.toml", "real/alias.toml",
		"link/sub/c.toml", "link/missing.toml", "missing/x.toml", "link", "link/sub/../b.toml",
	} {
		path := filepath.Clean(filepath.Join(dir, p))
		want := path
		if r, err := filepath.EvalSymlinks(path); err == nil {
			want = r
		}
		if got := ld.realPath(path); got != want {
			t.Errorf("realPath(%s) = %s, want %s", p, got, want)
		}
	}
	if len(ld.realDirs) == 0 {
		t.Error("nothing was cached: the test does not exercise the cache")
	}
}

// TestExtendsOrderJP is JP's "complex extends" case (util_tests.rs,
// test_load_partial_at_path_recursive): before-entries depth-first, then
// the file, then its after-entries; "five" is never named.
func TestExtendsOrderJP(t *testing.T) {
	ws, opts := testWorkspace(t)
	rule := func(p string) string {
		return "[[conversation.tools.t.access.fs]]\npath = \"" + p + "\"\nread = true\n"
	}
	dir := filepath.Join(ws, ".jp")
	write(t, filepath.Join(dir, "config.toml"), `extends = ["one.toml", { path = "two.toml", strategy = "before" }, { path = "three.toml", strategy = "after" }]
[conversation.tools.t]
source = "local"
`+rule("config"))
	write(t, filepath.Join(dir, "one.toml"), `extends = [{ path = "four.toml", strategy = "before" }]
`+rule("one"))
	write(t, filepath.Join(dir, "two.toml"), rule("two"))
	write(t, filepath.Join(dir, "three.toml"), rule("three"))
	write(t, filepath.Join(dir, "four.toml"), rule("four"))
	write(t, filepath.Join(dir, "five.toml"), rule("five"))
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fsPaths(l.Tools["t"]); got != "four one two config three" {
		t.Fatalf("merge order %q", got)
	}
}

// TestExtendsNonFileMatch: a glob match that is not a file is loaded as
// JP's load_config_file_at_path loads it, and when no file stands in for
// it the whole layer is dropped, with everything it extends (JP007).
func TestExtendsNonFileMatch(t *testing.T) {
	ws, opts := testWorkspace(t)
	dir := filepath.Join(ws, ".jp")
	global := filepath.Join(filepath.Dir(ws), "global", "config.toml")
	write(t, global, "[conversation.tools.t]\nsource = \"local\"\n[[conversation.tools.t.access.fs]]\npath = \"global\"\n")
	write(t, filepath.Join(dir, "parts", "a.toml"), "[[conversation.tools.t.access.fs]]\npath = \"a\"\n")
	write(t, filepath.Join(dir, "parts", "sub.json"), `{"conversation": {"tools": {"t": {"access": {"fs": [{"path": "sub"}]}}}}}`)
	if err := os.MkdirAll(filepath.Join(dir, "parts", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		extends, want string
		jp007         bool
	}{
		{`["parts/*.toml"]`, "global a ws", false},
		// parts/sub (a directory) loads parts/sub.json; parts/sub.json
		// is also matched itself.
		{`["parts/*"]`, "global a sub sub ws", true},
		// parts/.. has no file name: the whole layer goes.
		{`["parts/.*"]`, "global", true},
		// the drop reaches up through an extended file.
		{`["inner.toml"]`, "global", true},
	} {
		write(t, filepath.Join(dir, "inner.toml"), "extends = [\"parts/.*\"]\n[[conversation.tools.t.access.fs]]\npath = \"inner\"\n")
		write(t, filepath.Join(dir, "config.toml"), "extends = "+tc.extends+"\n[[conversation.tools.t.access.fs]]\npath = \"ws\"\n")
		l, err := Load(opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.extends, err)
		}
		if got := fsPaths(l.Tools["t"]); got != tc.want {
			t.Errorf("%s: fs %q, want %q", tc.extends, got, tc.want)
		}
		found := false
		for _, d := range l.Diagnostics {
			found = found || d.Rule == RuleDroppedLayer
		}
		if found != tc.jp007 {
			t.Errorf("%s: JP007 reported %v: %v", tc.extends, found, l.Diagnostics)
		}
	}
}

// TestGlobalConfigDirEmpty: JP_GLOBAL_CONFIG_DIR set to "" is the working
// directory to JP (env::var is Ok(""), cleaned to "."), not unset.
func TestGlobalConfigDirEmpty(t *testing.T) {
	getenv := env(map[string]string{"JP_GLOBAL_CONFIG_DIR": "", "XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"})
	if d, err := globalConfigDir(func() []string { return []string{"JP_GLOBAL_CONFIG_DIR="} }, getenv, "/w"); err != nil || d != "/w" {
		t.Errorf("set empty: %q, %v", d, err)
	}
	if d, err := globalConfigDir(func() []string { return nil }, getenv, "/w"); err != nil || d == "/w" {
		t.Errorf("unset: %q, %v", d, err)
	}
}
