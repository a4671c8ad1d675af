package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func sample() ([]diag.Diagnostic, Options) {
	base := filepath.FromSlash("/ws")
	file := filepath.Join(base, ".jp", "config.toml")
	home := filepath.FromSlash("/home/u")
	files := map[string][]byte{file: []byte("[[a.b]]\npath = \"/etc\"\n\texternal = true\n")}
	ds := []diag.Diagnostic{
		{Pos: diag.Position{File: file, Line: 2, Col: 8, EndLine: 2, EndCol: 14}, Severity: diag.Error, Rule: "JP103", Message: "absolute: 100%, a,b:c", Help: "use a relative path",
			Related: []diag.Related{{Pos: diag.Position{File: filepath.Join(home, ".config", "jp", "config.toml"), Line: 4, Col: 1}, Message: "overrides"}}},
		{Pos: diag.Position{File: file, Line: 3, Col: 2, EndLine: 3, EndCol: 10}, Severity: diag.Warning, Rule: "JP116", Message: "second\nline"},
		{Pos: diag.Position{File: file}, Severity: diag.Error, Message: "whole file"},
	}
	return ds, Options{Base: base, Home: home, Files: files, Version: "test"}
}

func TestText(t *testing.T) {
	ds, o := sample()
	var b bytes.Buffer
	if err := Text(&b, ds, o); err != nil {
		t.Fatal(err)
	}
	want := ".jp/config.toml:2:8: error: absolute: 100%, a,b:c [JP103]\n" +
		" 2 | path = \"/etc\"\n" +
		"   |        ^^^^^^\n" +
		"  help: use a relative path\n" +
		"  note: overrides ~/.config/jp/config.toml:4:1\n" +
		".jp/config.toml:3:2: warning: second\\nline [JP116]\n" +
		" 3 | \texternal = true\n" +
		"   | \t^^^^^^^^\n" +
		".jp/config.toml: error: whole file\n" +
		"2 errors, 1 warning\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTextColor(t *testing.T) {
	ds, o := sample()
	o.Color = true
	var b bytes.Buffer
	_ = Text(&b, ds, o)
	if !strings.Contains(b.String(), ansiRed+"error"+ansiReset) {
		t.Errorf("no colour in %q", b.String())
	}
	o.Color = false
	b.Reset()
	_ = Text(&b, ds, o)
	if strings.Contains(b.String(), "\x1b[") {
		t.Errorf("colour without Color: %q", b.String())
	}
}

func TestGitHub(t *testing.T) {
	ds, o := sample()
	var b bytes.Buffer
	if err := GitHub(&b, ds, o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want one line per finding, got %q", b.String())
	}
	want := "::error file=.jp/config.toml,line=2,col=8,endLine=2,endColumn=14,title=JP103::absolute: 100%25, a,b:c%0Ahelp: use a relative path%0Anote: overrides ~/.config/jp/config.toml:4:1"
	if lines[0] != want {
		t.Errorf("got  %s\nwant %s", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "::warning file=.jp/config.toml,line=3,col=2,endLine=3,endColumn=10,title=JP116::second\\nline") {
		t.Errorf("warning line %q", lines[1])
	}
}

func TestJSON(t *testing.T) {
	ds, o := sample()
	var b bytes.Buffer
	if err := JSON(&b, ds, o); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&b)
	var got []Finding
	for dec.More() {
		var f Finding
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	if len(got) != 3 || got[0].Rule != "JP103" || got[0].Title == "" || got[0].File != ".jp/config.toml" ||
		got[0].Line != 2 || got[0].Col != 8 || got[0].Severity != "error" || got[0].Related[0].File != "~/.config/jp/config.toml" {
		t.Errorf("unexpected findings %+v", got)
	}
}

// TestSARIFValidatesAgainstSchema checks the SARIF output, with and
// without results, against the vendored SARIF 2.1.0 schema.
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat = true // uri, uri-reference and date-time must hold too
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const url = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, f); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	// The schema must be able to say no, or the test proves nothing.
	var bad any
	_ = json.Unmarshal([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"fatal","message":{"text":"m"}}]}]}`), &bad)
	if schema.Validate(bad) == nil {
		t.Fatal("schema accepted an invalid result level")
	}
	ds, o := sample()
	for _, tc := range []struct {
		name string
		ds   []diag.Diagnostic
	}{{"findings", ds}, {"empty", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := SARIF(&b, tc.ds, o); err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Errorf("SARIF output does not validate: %v\n%s", err, b.String())
			}
			var log sarifLog
			_ = json.Unmarshal(b.Bytes(), &log)
			if len(log.Runs) != 1 || len(log.Runs[0].Tool.Driver.Rules) == 0 || len(log.Runs[0].Results) != len(tc.ds) {
				t.Errorf("unexpected SARIF shape: %s", b.String())
			}
		})
	}
}

func TestCaretWidth(t *testing.T) {
	at := func(col, endLine, endCol int) diag.Position {
		return diag.Position{File: "f", Line: 1, Col: col, EndLine: endLine, EndCol: endCol}
	}
	for _, tc := range []struct {
		src   string
		pos   diag.Position
		pad   string
		width int
	}{
		{`path = "/etc"`, at(8, 1, 14), "       ", 6},
		{`path = "a\"b"`, at(8, 1, 14), "       ", 6},
		{"\tx = 1", at(2, 1, 3), "\t", 1},
		{"é = true", at(5, 1, 9), "    ", 4},
		{"short", at(40, 0, 0), "     ", 1},
		{"", at(1, 0, 0), "", 1},
		{"args = [", at(8, 3, 2), "       ", 1},            // runs over lines: to the end of this one
		{"x = [1,", at(5, 2, 3), "    ", 3},                // to the end of the first line
		{"k = 1", at(5, 1, 6), "    ", 1},                  // one character
		{"k = 1", diag.Position{Line: 1, Col: 3}, "  ", 1}, // no end: one caret
	} {
		line, pad, w := excerpt(tc.src, tc.pos)
		if line != tc.src || pad != tc.pad || w != tc.width {
			t.Errorf("excerpt(%q, %+v) = %q, %q, %d; want the line, %q, %d", tc.src, tc.pos, line, pad, w, tc.pad, tc.width)
		}
	}
}

// TestExcerptBounded: a finding on a megabyte-long line shows a window of
// it around the column, and a control character in the source (which a
// parse error can point at) is shown escaped, the caret still under the
// column.
func TestExcerptBounded(t *testing.T) {
	long := `{"a": "` + strings.Repeat("x", 1<<20) + `", "b": 1}`
	col := len(long) - 9 // the "b"
	line, pad, w := excerpt(long, diag.Position{Line: 1, Col: col, EndLine: 1, EndCol: col + 3})
	if len(line) > 4*excerptWidth || !strings.HasPrefix(line, "…") || !strings.Contains(line, `"b": 1}`) {
		t.Errorf("excerpt of a 1 MB line = %d bytes: %.80q", len(line), line)
	}
	if got := []rune(line)[len([]rune(pad))]; got != '"' || w != 3 {
		t.Errorf("caret under %q, width %d; want under the \"b\" key, 3", got, w)
	}
	line, pad, w = excerpt("x = \x1b]0;t\x07 y", diag.Position{Line: 1, Col: 12})
	if line != `x = \x1b]0;t\a y` || pad != strings.Repeat(" ", 15) || w != 1 {
		t.Errorf("excerpt with control characters = %q, %q, %d", line, pad, w)
	}
}

// TestDisplay: names relative to the working directory, with ../ for
// files of the workspace above it, ~/ under home, absolute elsewhere.
func TestDisplay(t *testing.T) {
	tmp := t.TempDir() // absolute on every OS
	abs := func(p string) string { return filepath.Join(tmp, filepath.FromSlash(p)) }
	o := Options{Base: abs("ws/sub"), Root: abs("ws"), Home: abs("home/u")}
	for _, tc := range []struct{ file, want string }{
		{"ws/sub/.jp.toml", ".jp.toml"},
		{"ws/.jp/config.toml", "../.jp/config.toml"},
		{"home/u/.config/jp/config.toml", "~/.config/jp/config.toml"},
		{"etc/x.toml", filepath.ToSlash(abs("etc/x.toml"))},
	} {
		if got := o.display(abs(tc.file)); got != tc.want {
			t.Errorf("display(%s) = %s, want %s", tc.file, got, tc.want)
		}
	}
}

// TestRepoRoot finds the checkout above a workspace, or falls back to it.
func TestRepoRoot(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "repo", "sub", "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := RepoRoot(ws); got != ws && !strings.HasPrefix(ws, got) {
		t.Errorf("no checkout: got %s", got)
	}
	if err := os.Mkdir(filepath.Join(tmp, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := RepoRoot(ws); got != filepath.Join(tmp, "repo") {
		t.Errorf("RepoRoot = %s, want %s", got, filepath.Join(tmp, "repo"))
	}
}

// TestSARIFRegion: the region carries the parser's end.
func TestSARIFRegion(t *testing.T) {
	ds, o := sample()
	var b bytes.Buffer
	if err := SARIF(&b, ds[:1], o); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0].Results[0].Locations[0].PhysicalLocation.Region
	if r == nil || r.StartLine != 2 || r.StartColumn != 8 || r.EndLine != 2 || r.EndColumn != 14 {
		t.Errorf("region %+v", r)
	}
}
