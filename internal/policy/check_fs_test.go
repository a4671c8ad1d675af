package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustChecker(t *testing.T, root string, p *AccessPolicy) *Checker {
	t.Helper()
	c, err := NewChecker(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kindOf is the JSON error kind of a decision, "" when allowed.
func kindOf(d Decision) string { return ErrorKind(d.Err) }

type fsCase struct {
	cp    Capability
	path  string
	allow bool
	kind  string // expected JSON error kind when refused
	rule  string // expected winning rule path ("-" = none)
}

func runFS(t *testing.T, c *Checker, cases []fsCase) {
	t.Helper()
	for _, tc := range cases {
		d := c.CheckFS(tc.cp, tc.path)
		if d.Allowed != tc.allow || (!tc.allow && kindOf(d) != tc.kind) {
			t.Errorf("%s %q: allowed=%v err=%v; want allowed=%v kind=%s", tc.cp, tc.path, d.Allowed, d.Err, tc.allow, tc.kind)
			continue
		}
		if d.Allowed && d.Err != nil {
			t.Errorf("%s %q: allowed with error %v", tc.cp, tc.path, d.Err)
		}
		if tc.rule != "" {
			got := "-"
			if r, ok := d.Rule.(FsRule); ok {
				got = displayPath(r.LexicalPath)
			}
			if got != tc.rule {
				t.Errorf("%s %q: rule %s, want %s", tc.cp, tc.path, got, tc.rule)
			}
		}
	}
}

// RFD 076 "Evaluation: longest prefix match".
func TestRFD076LongestPrefix(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, "README.md", "src/lib.rs", "src/generated/schema.rs", "tests/main.rs", "src_generated/foo.rs")
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true), Write: new(true)},
		{LexicalPath: "src", Read: new(true)},
		{LexicalPath: "src/generated", Read: new(true), Write: new(true)},
	}})
	runFS(t, c, []fsCase{
		{Read, "README.md", true, "", "."},
		{Update, "README.md", true, "", "."},
		{Read, "src/lib.rs", true, "", "src"},
		{Update, "src/lib.rs", false, "denied", "src"},
		{Create, "src/new.rs", false, "denied", "src"},
		{Read, "src/generated/schema.rs", true, "", "src/generated"},
		{Delete, "src/generated/schema.rs", true, "", "src/generated"},
		{Read, "tests/main.rs", true, "", "."},
		{Create, "tests/new.rs", true, "", "."},
		// component-aware: src does not match src_generated
		{Update, "src_generated/foo.rs", true, "", "."},
		{Execute, "README.md", false, "denied", "."},
	})
	d := c.CheckFS(Update, "src/lib.rs")
	var de *DeniedError
	if !errors.As(d.Err, &de) || strings.Join(de.Grants, ",") != ".,src/generated" || de.Capability != "update" {
		t.Errorf("grants = %+v", d.Err)
	}
}

// TestGrantsCollapseSamePath follows JP's granting_paths (jp_tool
// access.rs; JP's tests granting_paths_drops_a_grant_a_later_rule_shadows,
// _keeps_a_grant_a_later_rule_restores, _keeps_a_broader_grant_a_deeper_rule_denies):
// rules on one path collapse to the last, at the first one's place,
// before the granting paths are listed.
func TestGrantsCollapseSamePath(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, "src/a", "docs/b")
	tests := []struct {
		name  string
		rules []FsRule
		cp    Capability
		want  string
	}{
		{"a later no-read on the path grants nothing", []FsRule{{LexicalPath: "src", Read: new(true)}, {LexicalPath: "src", Read: new(false)}}, Read, ""},
		{"a later grant on the path counts", []FsRule{{LexicalPath: "src", Read: new(false)}, {LexicalPath: "src", Read: new(true)}}, Read, "src"},
		{"a path is named once, at its first place", []FsRule{{LexicalPath: "src", Read: new(true)}, {LexicalPath: "docs", Read: new(true)}, {LexicalPath: "src", Read: new(true)}}, Read, "src,docs"},
		{"other paths are not collapsed", []FsRule{{LexicalPath: "", Read: new(true)}, {LexicalPath: "src", Read: new(false)}}, Read, "."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustChecker(t, ws, &AccessPolicy{FS: tc.rules})
			if got := strings.Join(c.fsGrants(tc.cp), ","); got != tc.want {
				t.Errorf("grants %q, want %q", got, tc.want)
			}
		})
	}
}

// RFD 076 "Configuration" and "Filesystem rules" examples, and the
// capability table (write alias, explicit atomics).
func TestRFD076ConfigExamples(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, ".config/jp/tools/x.toml", ".env", "main.rs")
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true)},
		{LexicalPath: ".config/jp/tools", Read: new(true), Write: new(true)},
		{LexicalPath: ".env"},
		{LexicalPath: "wd", Write: new(true), Delete: new(false)},
		{LexicalPath: "co", Create: new(true)},
	}})
	runFS(t, c, []fsCase{
		{Read, "main.rs", true, "", "."},
		{Update, "main.rs", false, "denied", "."},
		{Create, ".config/jp/tools/new.toml", true, "", ".config/jp/tools"},
		{Update, ".config/jp/tools/x.toml", true, "", ".config/jp/tools"},
		{Read, ".env", false, "denied", ".env"},
		{Create, "wd/a", true, "", "wd"},
		{Update, "wd/a", true, "", "wd"},
		{Delete, "wd/a", false, "denied", "wd"},
		{Create, "co/a", true, "", "co"},
		{Update, "co/a", false, "denied", "co"},
		{Delete, "co/a", false, "denied", "co"},
	})
}

func TestFSTiesAndDefaults(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, "src/lib.rs", "other/x")
	// Ties go to the last rule; "." and "" are the same root.
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: ".", Read: new(true)},
		{LexicalPath: "src", Read: new(false)},
		{LexicalPath: "./src/", Read: new(true)},
	}})
	runFS(t, c, []fsCase{{Read, "src/lib.rs", true, "", "./src/"}})
	// No matching rule is denied.
	c = mustChecker(t, ws, &AccessPolicy{FS: []FsRule{{LexicalPath: "src", Read: new(true)}}})
	runFS(t, c, []fsCase{
		{Read, "other/x", false, "denied", "-"},
		{Read, "", false, "denied", "-"},
	})
	// access: null and fs: [] are unrestricted but confined.
	for _, p := range []*AccessPolicy{nil, {}} {
		c = mustChecker(t, ws, p)
		runFS(t, c, []fsCase{
			{Execute, "src/lib.rs", true, "", "-"},
			{Create, "new/file", true, "", "-"},
			{Read, "/etc/passwd", false, "absolute", ""},
			{Read, "../x", false, "input_escape", ""},
		})
	}
	// A declared policy whose rules all dropped is deny-all.
	c = mustChecker(t, ws, &AccessPolicy{FS: DenyAllFS()})
	for _, cp := range Capabilities {
		runFS(t, c, []fsCase{{cp, "src/lib.rs", false, "denied", "."}})
	}
}

// Symlinks inside the workspace are matched on their canonical form, so
// an alias cannot dodge a more specific rule; dangling links, loops and
// escapes are typed errors.
func TestFSSymlinks(t *testing.T) {
	base := tmp(t)
	ws := filepath.Join(base, "ws")
	tree(t, base,
		"ws/secret/key", "ws/pub/readme",
		"ws/alias -> secret",
		"ws/pub/inner -> ../secret",
		"ws/escape -> ../outside",
		"outside/data",
		"ws/broken -> ../outside/missing",
		"ws/dangle-in -> nothere",
		"ws/loop1 -> loop2", "ws/loop2 -> loop1",
	)
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true), Write: new(true)},
		{LexicalPath: "secret"},
	}})
	// A rule written on the alias instead of its canonical form would never
	// match (keys are canonical); NewChecker refuses it rather than let a
	// deny rule silently lapse. So do rules through escaping or dangling
	// links.
	for _, bad := range []string{"alias", "alias/key", "escape", "broken", "loop1"} {
		_, err := NewChecker(ws, &AccessPolicy{FS: []FsRule{{LexicalPath: bad}}})
		var pe *PolicyError
		if !errors.As(err, &pe) || pe.Section != "fs" {
			t.Errorf("NewChecker with rule %q: %v", bad, err)
		}
	}
	runFS(t, c, []fsCase{
		{Read, "secret/key", false, "denied", "secret"},
		{Read, "alias/key", false, "denied", "secret"},
		{Read, "pub/inner/key", false, "denied", "secret"},
		{Create, "alias/new", false, "denied", "secret"},
		{Read, "pub/readme", true, "", "."},
		{Read, "escape/data", false, "escape", ""},
		{Read, "escape", false, "escape", ""},
		{Create, "broken", false, "escape", ""}, // dangling maps to escape in JSON
		{Create, "dangle-in", false, "escape", ""},
		{Read, "loop1/x", false, "io", ""},
		{Create, "brand/new/file", true, "", "."},
	})
	d := c.CheckFS(Read, "broken")
	var pe *PathError
	if !errors.As(d.Err, &pe) || pe.Kind != KindDangling {
		t.Errorf("broken: %v, want dangling", d.Err)
	}
	d = c.CheckFS(Read, "loop1")
	if !errors.As(d.Err, &pe) || pe.Kind != KindLoop {
		t.Errorf("loop: %v, want loop", d.Err)
	}
	// unrestricted still refuses escapes
	c = mustChecker(t, ws, nil)
	runFS(t, c, []fsCase{{Read, "escape/data", false, "escape", ""}})
}

// RFD D43: external mounts, the nested-escape boundary, retargeting.
func TestD43External(t *testing.T) {
	base := tmp(t)
	ws := filepath.Join(base, "ws")
	x := filepath.Join(base, "code", "forks", "x")
	tree(t, base,
		"ws/src/lib.rs",
		"ws/fork -> ../code/forks/x",
		"ws/other -> ../code/forks/x",
		"code/forks/x/src/lib.rs",
		"code/forks/x/secrets -> ../../../etc",
		"etc/passwd",
		"code/forks/x/back -> ../../../ws/src",
	)
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true)},
		{LexicalPath: "fork", External: true, ApprovedTarget: new(x), Read: new(true), Write: new(true)},
		{LexicalPath: "src", Read: new(true)},
	}})
	runFS(t, c, []fsCase{
		{Update, "fork/src/lib.rs", true, "", "fork"},
		{Create, "fork/src/new.rs", true, "", "fork"},
		{Read, "fork", true, "", "fork"},
		{Read, "fork/secrets/passwd", false, "escape", ""},
		// the same target through a link without an external rule
		{Read, "other/src/lib.rs", false, "escape", ""},
		// a nested link back into the workspace is matched canonically
		{Update, "fork/back/lib.rs", false, "denied", "src"},
		{Read, "fork/back/lib.rs", true, "", "src"},
	})
	// Unapproved (no approved target) external rule: escape.
	c = mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "fork", External: true, Read: new(true)},
	}})
	runFS(t, c, []fsCase{{Read, "fork/src/lib.rs", false, "escape", ""}})
	// Approved target no longer matches (retargeted after compile): escape.
	c = mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "fork", External: true, ApprovedTarget: new(filepath.Join(base, "code", "forks", "y")), Read: new(true)},
	}})
	runFS(t, c, []fsCase{{Read, "fork/src/lib.rs", false, "escape", ""}})
	// Approved target is a component prefix, not a byte prefix.
	c = mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "fork", External: true, ApprovedTarget: new(filepath.Join(base, "code", "forks", "")), Read: new(true)},
	}})
	runFS(t, c, []fsCase{{Read, "fork/src/lib.rs", true, "", "fork"}})
	c = mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "fork", External: true, ApprovedTarget: new(filepath.Join(base, "code", "for")), Read: new(true)},
	}})
	runFS(t, c, []fsCase{{Read, "fork/src/lib.rs", false, "escape", ""}})
}

func TestBindRule(t *testing.T) {
	base := tmp(t)
	ws := filepath.Join(base, "ws")
	x := filepath.Join(base, "code", "x")
	tree(t, base,
		"ws/src/lib.rs",
		"ws/srclink -> src",
		"ws/fork -> ../code/x",
		"code/x/a",
		"ws/broken -> ../code/missing",
		"ws/inlink -> src",
		"ws/out -> ../code",
		"ws/loop -> loop",
	)
	for _, tc := range []struct {
		path     string
		external bool
		want     Bound
		kind     RuleErrorKind
	}{
		{path: ".", want: Bound{Lexical: "", Abs: ws, Kind: BoundDir}},
		{path: "src", want: Bound{Lexical: "src", Abs: ws + "/src", Kind: BoundDir}},
		{path: "srclink/lib.rs", want: Bound{Lexical: "src/lib.rs", Abs: ws + "/src/lib.rs", Kind: BoundFile}},
		{path: "./new/thing", want: Bound{Lexical: "new/thing", Abs: ws + "/new/thing", Kind: BoundMissing}},
		{path: "fork", external: true, want: Bound{Lexical: "fork", Abs: x, Kind: BoundDir, External: true}},
		{path: "fork/a", external: true, want: Bound{Lexical: "fork/a", Abs: x + "/a", Kind: BoundFile, External: true}},
		{path: "/etc", kind: RuleNotWorkspaceRelative},
		{path: "../x", kind: RuleNotWorkspaceRelative},
		{path: "fork", kind: RuleNotWorkspaceRelative},
		{path: "out/x", kind: RuleNotWorkspaceRelative},
		{path: "broken", kind: RuleNotWorkspaceRelative},
		{path: "broken", external: true, kind: RuleBrokenLink},
		{path: "nothing", external: true, kind: RuleBrokenLink},
		{path: ".", external: true, kind: RuleExternalInsideWorkspace},
		{path: "inlink", external: true, kind: RuleExternalInsideWorkspace},
		{path: "src", external: true, kind: RuleExternalInsideWorkspace},
		{path: "loop", kind: RuleInvalid},
		{path: "a\x00", kind: RuleInvalid},
		{path: "/etc", external: true, kind: RuleNotWorkspaceRelative},
	} {
		b, err := BindRule(ws, tc.path, tc.external)
		if tc.kind != "" {
			var re *RuleError
			if !errors.As(err, &re) || re.Kind != tc.kind {
				t.Errorf("BindRule(%q, %v) = %+v, %v; want %s", tc.path, tc.external, b, err, tc.kind)
			}
			continue
		}
		links := b.Links
		b.Links = nil // compared below
		if err != nil || !reflect.DeepEqual(b, tc.want) {
			t.Errorf("BindRule(%q, %v) = %+v, %v; want %+v", tc.path, tc.external, b, err, tc.want)
		}
		if fi, lerr := os.Lstat(filepath.Join(ws, tc.path)); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			if len(links) == 0 || links[0] != filepath.Join(ws, tc.path) {
				t.Errorf("BindRule(%q).Links = %q, want it to start with the rule's own link", tc.path, links)
			}
		}
	}

	// Approval classification: only the same canonical target keeps it.
	b, _ := BindRule(ws, "fork", true)
	if !b.Approved(x, true) || b.Approved(x+"2", true) || b.Approved("", false) || b.Approved(x, false) {
		t.Error("Approved: wrong classification")
	}
	r := b.Rule(FsRule{LexicalPath: "ignored", Read: new(true)})
	if r.LexicalPath != "fork" || !r.External || r.ApprovedTarget == nil || *r.ApprovedTarget != x || !r.CanRead() {
		t.Errorf("Rule = %+v", r)
	}

	res := BindAll(ws, []RuleInput{{Path: "."}, {Path: "fork", External: true}, {Path: "fork/sub"}, {Path: "./fork"}, {Path: "forked"}})
	kinds := []RuleErrorKind{}
	for _, r := range res {
		if re, ok := errors.AsType[*RuleError](r.Err); ok {
			kinds = append(kinds, re.Kind)
		} else if r.Err == nil {
			kinds = append(kinds, "ok")
		}
	}
	want := []RuleErrorKind{"ok", "ok", RuleNestedUnderExternal, RuleNestedUnderExternal, "ok"}
	if len(kinds) != len(want) {
		t.Fatalf("BindAll kinds = %v", kinds)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("BindAll[%d] = %s, want %s", i, kinds[i], want[i])
		}
	}
	if m, ok := NestedUnderExternal("fork/a/b", []RuleInput{{Path: "fork", External: true}}); !ok || m != "fork" {
		t.Errorf("NestedUnderExternal = %q, %v", m, ok)
	}
}

func TestDecisionJSON(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, "src/lib.rs")
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{{LexicalPath: "src", Read: new(true)}}})
	for _, tc := range []struct {
		cp   Capability
		path string
		want string
	}{
		{Read, "src/lib.rs", `{"allowed":true,"error":null,"resolved":"` + ws + `/src/lib.rs","rule":{"lexical_path":"src","external":false,"approved_target":null,"read":true,"write":null,"create":null,"update":null,"delete":null,"execute":null},"grants":["src"]}`},
		{Update, "src/lib.rs", `{"allowed":false,"error":{"kind":"denied","message":"access denied: update on fs \"src/lib.rs\" (rule \"src\" does not grant update)"},"resolved":"` + ws + `/src/lib.rs","rule":{"lexical_path":"src","external":false,"approved_target":null,"read":true,"write":null,"create":null,"update":null,"delete":null,"execute":null},"grants":[]}`},
		{Read, "/etc", `{"allowed":false,"error":{"kind":"absolute","message":"absolute paths are not permitted; give a workspace-relative path: \"/etc\""},"rule":null,"grants":[]}`},
	} {
		b, err := json.Marshal(c.CheckFS(tc.cp, tc.path))
		if err != nil || string(b) != tc.want {
			t.Errorf("JSON(%s %s) =\n%s\nwant\n%s", tc.cp, tc.path, b, tc.want)
		}
	}
}
