package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLexicalRel: the normal form never escapes, is never absolute, holds
// no "." / ".." / empty component, is a fixed point, and agrees with
// path.Clean-based joining under a root.
func FuzzLexicalRel(f *testing.F) {
	for _, s := range []string{"", ".", "a/../b", "../x", "/etc", "a//b/./c/", "a/b/../../..", "\x00", "..a/b..", "a/.../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := LexicalRel(in)
		if err != nil {
			if _, ok := err.(*PathError); !ok {
				t.Fatalf("error is %T, want *PathError", err)
			}
			return
		}
		if strings.HasPrefix(out, "/") || strings.IndexByte(out, 0) >= 0 {
			t.Fatalf("LexicalRel(%q) = %q", in, out)
		}
		if out != "" {
			for c := range strings.SplitSeq(out, "/") {
				if c == "" || c == "." || c == ".." {
					t.Fatalf("LexicalRel(%q) = %q has component %q", in, out, c)
				}
			}
		}
		if again, err := LexicalRel(out); err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
		root := "/ws"
		joined := filepath.ToSlash(filepath.Join(root, filepath.FromSlash(in)))
		want := strings.TrimPrefix(strings.TrimPrefix(joined, root), "/")
		if !strings.HasPrefix(joined+"/", root+"/") || want != out {
			t.Fatalf("LexicalRel(%q) = %q, but Join gives %q", in, out, joined)
		}
	})
}

// FuzzCheckNet: parsing never panics, and an allowed request's host is
// exactly the (normalised) host of an allowing rule that matched, so no
// userinfo, port or path trick can reach another host.
func FuzzCheckNet(f *testing.F) {
	for _, s := range []string{
		"https://api.github.com/repos", "https://api.github.com@evil.com/", "https://api.github.com.evil.com/",
		"https://api.github.com:8443/", "http://[::1]:80/", "https://MÜNCHEN.de/x", "https://x/%2e%2e/admin",
		"https://api.github.com/admin/../repos", "//api.github.com/", "https://a@b@api.github.com/",
	} {
		f.Add(s)
	}
	ws := f.TempDir()
	c, err := NewChecker(ws, &AccessPolicy{Net: []NetRule{
		{Host: "api.github.com", Allow: true},
		{Host: "api.github.com", PathPrefix: new("/admin"), Allow: false},
		{Host: "münchen.de", Scheme: new("https"), Allow: true},
		{Host: "::1", Port: up(80), Allow: true},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d := c.CheckNet(raw)
		if !d.Allowed {
			return
		}
		r, ok := d.Rule.(NetRule)
		if !ok || !r.Allow {
			t.Fatalf("allowed %q without an allowing rule: %+v", raw, d.Rule)
		}
		tg, err := parseNetTarget(raw)
		if err != nil {
			t.Fatalf("allowed unparsable %q", raw)
		}
		h, _ := NormalizeHost(r.Host)
		if tg.host != h {
			t.Fatalf("allowed %q (host %q) by rule for %q", raw, tg.host, h)
		}
		if segsPrefix(tg.path, []string{"admin"}) && h == "api.github.com" {
			t.Fatalf("allowed %q under the denied /admin prefix", raw)
		}
	})
}

// FuzzNormalizeHost: output is ASCII from the allowed set and a fixed
// point.
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"api.github.com", "münchen.de", "[::1]", "*.x", "A.B", "xn--mnchen-3ya.de", "a_b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := NormalizeHost(in)
		if err != nil {
			return
		}
		if strings.IndexByte(out, ':') < 0 {
			for i := 0; i < len(out); i++ {
				if !hostByteOK(out[i]) {
					t.Fatalf("NormalizeHost(%q) = %q", in, out)
				}
			}
		}
		if again, err := NormalizeHost(out); err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
	})
}

// FuzzMatchEnv: the winning rule really matches the name (exact equal, or
// a prefix rule whose literal prefixes it), and no other matching rule is
// strictly more specific.
func FuzzMatchEnv(f *testing.F) {
	for _, s := range []string{"AWS_SECRET_KEY", "AWS_TOKEN", "GITHUB_TOKEN_LOG", "", "*", "A*B"} {
		f.Add(s)
	}
	rules := []EnvRule{
		{Name: "GITHUB_TOKEN", Read: true}, {Name: "AWS_*", Read: true}, {Name: "AWS_SECRET_ACCESS_KEY"},
		{Name: "AWS_SEC*"}, {Name: "AWS_SECRET_*", Read: true}, {Name: "AWS_TOKEN*"}, {Name: "AWS_TOKEN", Read: true}, {Name: "*"},
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateEnvName(name) != nil {
			return
		}
		r, ok := MatchEnv(rules, name)
		if r == nil {
			if ok {
				t.Fatal("ok without rule")
			}
			return
		}
		score := func(n string) int {
			if strings.HasSuffix(n, "*") {
				if !strings.HasPrefix(name, n[:len(n)-1]) {
					return -1
				}
				return 2 * (len(n) - 1)
			}
			if n != name {
				return -1
			}
			return 2*len(n) + 1
		}
		s := score(r.Name)
		if s < 0 {
			t.Fatalf("rule %q does not match %q", r.Name, name)
		}
		for _, o := range rules {
			if score(o.Name) > s {
				t.Fatalf("%q: rule %q beats winner %q", name, o.Name, r.Name)
			}
		}
		if ok != r.Read {
			t.Fatal("ok != rule.Read")
		}
	})
}

// FuzzCheckFS: for any input on a fixed tree with in-workspace aliases,
// an escaping link, an approved mount with a nested escape, dangling
// links and a loop, an allowed decision resolves inside the workspace or
// inside the approved target of the external rule that matched, and the
// resolved path is canonical up to its deepest existing ancestor.
func FuzzCheckFS(f *testing.F) {
	for _, s := range []string{"src/lib.rs", "alias/key", "fork/a/f", "fork/esc/x", "fork/../fork/a", "esc/x", "dangle", "loop/x", "fork/back/lib.rs", "./fork//a/./f", "new/file"} {
		f.Add(s, uint8(0))
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	ext := filepath.Join(base, "ext")
	tree(f, base,
		"ws/src/lib.rs", "ws/secret/key", "ws/alias -> secret", "ws/esc -> ..",
		"ws/fork -> ../ext", "ext/a/f", "ext/esc -> ..", "ext/back -> ../ws/src",
		"ws/dangle -> ../nowhere", "ws/loop -> loop",
	)
	c, err := NewChecker(ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true), Write: new(true), Execute: new(true)},
		{LexicalPath: "secret"},
		{LexicalPath: "fork", External: true, ApprovedTarget: &ext, Read: new(true), Write: new(true)},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string, capb uint8) {
		cp := Capabilities[int(capb)%len(Capabilities)]
		d := c.CheckFS(cp, in)
		if !d.Allowed {
			if d.Err == nil {
				t.Fatal("refused without an error")
			}
			return
		}
		switch {
		case hasPathPrefix(d.Resolved, ws):
			if hasPathPrefix(d.Resolved, filepath.Join(ws, "secret")) {
				t.Fatalf("%q reached the denied secret dir: %s", in, d.Resolved)
			}
		case hasPathPrefix(d.Resolved, ext):
			if r, ok := d.Rule.(FsRule); !ok || !r.External {
				t.Fatalf("%q reached the mount without the external rule", in)
			}
		default:
			t.Fatalf("%q allowed outside: %s", in, d.Resolved)
		}
		p := d.Resolved
		for {
			if _, err := os.Lstat(p); err == nil {
				break
			}
			p = filepath.Dir(p)
		}
		if real, err := filepath.EvalSymlinks(p); err != nil || real != p {
			t.Fatalf("%q: resolved %s has non-canonical ancestor %s (%s, %v)", in, d.Resolved, p, real, err)
		}
	})
}
