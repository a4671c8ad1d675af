package denyhint

import (
	"slices"
	"strings"
	"testing"
)

func exists(paths ...string) func(string) bool {
	return func(p string) bool { return slices.Contains(paths, p) }
}

func TestHints(t *testing.T) {
	ws := Grant{Path: "/w", Read: true, Write: true}
	for _, tc := range []struct {
		name string
		f    Facts
		want []string // substrings, one per line, in order
	}{
		{"go cache missing", Facts{Tool: "t", Argv: []string{"go", "test", "./..."}, Program: "/usr/local/go/bin/go",
			Namespaced: true, Grants: []Grant{ws}, Home: "/h", Exists: exists("/h/.cache/go-build"), NetRules: 0},
			[]string{"files: ~/.cache/go-build (Go's build cache (GOCACHE)) is outside tool \"t\"'s grants; to use it: jp-policy mount t:gocache=~/.cache/go-build:rwx && jp-policy compile",
				"network: tool \"t\" has no net rule"}},
		{"go cache without execute", Facts{Tool: "t", Argv: []string{"go", "vet"}, Program: "/usr/bin/go", Namespaced: true,
			Grants: []Grant{ws, {Path: "/h/.cache/go-build", Read: true, Write: true}}, Home: "/h", Exists: exists("/h/.cache/go-build"), NetRules: 1},
			[]string{"is granted to tool \"t\" without execute; set execute = true on the rule"}},
		{"go cache granted in full", Facts{Tool: "t", Argv: []string{"go", "version"}, Program: "/usr/bin/go",
			Grants: []Grant{{Path: "/h/.cache", Read: true, Write: true, Execute: true}}, Home: "/h", Exists: exists("/h/.cache/go-build")},
			nil},
		{"npm offline: no net hint, cache, metadata on the fast path", Facts{Tool: "n", Argv: []string{"npm", "install", "--offline"}, Program: "/usr/bin/npm",
			Grants: []Grant{ws}, Home: "/h", Exists: exists("/h/.npm"), NetRules: 0},
			[]string{"jp-policy mount n:npm-cache=~/.npm:rw", "metadata: on the fast path"}},
		{"npm install online", Facts{Tool: "n", Argv: []string{"npm", "ci"}, Program: "/usr/bin/npm", Namespaced: true, Grants: []Grant{ws}, Home: "/h"},
			[]string{`host = "registry.npmjs.org", scheme = "https", allow = true, then jp-policy compile`}},
		{"python -m pip is pip", Facts{Tool: "p", Argv: []string{"python3", "-m", "pip", "install", "x"}, Program: "/usr/bin/python3.11", Namespaced: true, Home: "/h"},
			[]string{`host = "pypi.org", scheme = "https", allow = true (and one for files.pythonhosted.org)`}},
		{"pip --no-index needs no network", Facts{Tool: "p", Argv: []string{"pip", "install", "--no-index", "x.whl"}, Program: "/usr/bin/pip", Namespaced: true},
			nil},
		{"node behind the proxy", Facts{Tool: "w", Argv: []string{"node", "-e", "fetch()"}, Program: "/usr/bin/node", Namespaced: true, Proxied: true, NetRules: 1},
			[]string{"network: the run's only way out is the filtering proxy in HTTP_PROXY/HTTPS_PROXY; node may ignore them"}},
		{"curl behind the proxy reads it", Facts{Tool: "w", Argv: []string{"curl", "u"}, Program: "/usr/bin/curl", Namespaced: true, Proxied: true, NetRules: 1},
			nil},
		{"tar x on the namespaced path: metadata works", Facts{Tool: "a", Argv: []string{"tar", "-xf", "a.tar"}, Program: "/usr/bin/tar", Namespaced: true, Grants: []Grant{ws}},
			nil},
		{"tar x on the fast path", Facts{Tool: "a", Argv: []string{"tar", "xf", "a.tar"}, Program: "/usr/bin/tar", Grants: []Grant{ws}},
			[]string{"metadata: on the fast path (--no-namespaces) chmod, chown and utime are denied even inside write grants; tar sets"}},
		{"cp -a without a write grant: nothing to say", Facts{Tool: "a", Argv: []string{"cp", "-a", "x", "y"}, Program: "/bin/cp", Grants: []Grant{{Path: "/w", Read: true}}},
			nil},
		{"env dropped", Facts{Tool: "g", Argv: []string{"go", "env"}, Program: "/usr/bin/go", Namespaced: true, NetRules: 1,
			Dropped: []string{"HISTFILE", "GOPROXY", "GOFLAGS", "CGO_ENABLED"}},
			[]string{`env: CGO_ENABLED, GOFLAGS, GOPROXY set here but not passed to tool "g"; pass each with [[conversation.tools.g.access.env]] name = "CGO_ENABLED", read = true`}},
		{"unknown program: nothing", Facts{Tool: "x", Argv: []string{"./run.sh"}, Program: "/w/run.sh", Dropped: []string{"GOPROXY"}},
			nil},
		{"unknown program behind the proxy", Facts{Tool: "x", Argv: []string{"./client"}, Program: "/w/client", Namespaced: true, Proxied: true, NetRules: 1},
			[]string{"client may ignore them"}},
		{"empty", Facts{}, nil},
		{"git commit with .git protected", Facts{Tool: "g", Argv: []string{"git", "commit", "-m", "x"}, Program: "/usr/bin/git", Namespaced: true, NetRules: 1, Root: "/w", Grants: []Grant{ws}},
			[]string{`files: /w/.git is read-only for tool "g" (protected`}},
		{"git commit with .git granted", Facts{Tool: "g", Argv: []string{"git", "commit"}, Program: "/usr/bin/git", Namespaced: true, NetRules: 1, Root: "/w",
			Grants: []Grant{ws, {Path: "/w/.git", Read: true, Write: true}}}, nil},
		{"git log", Facts{Tool: "g", Argv: []string{"git", "log"}, Program: "/usr/bin/git", Namespaced: true, Root: "/w", Grants: []Grant{ws}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Hints(tc.f)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("line %d = %q\nwant it to contain %q", i, got[i], w)
				}
				if strings.Contains(got[i], "\n") {
					t.Errorf("line %d has a newline: %q", i, got[i])
				}
			}
		})
	}
}

func TestHintsBounded(t *testing.T) {
	f := Facts{Tool: "t", Argv: []string{"cargo", "build"}, Program: "/c/cargo", Home: "/h",
		Exists: func(string) bool { return true }, Grants: []Grant{{Path: "/w", Write: true}}}
	for range 20 {
		f.Dropped = append(f.Dropped, "CARGO_X")
	}
	if got := Hints(f); len(got) > MaxLines {
		t.Fatalf("%d lines, want at most %d", len(got), MaxLines)
	}
}

func TestHintsEscape(t *testing.T) {
	got := Hints(Facts{Tool: "t", Argv: []string{"./cl\x1b[2Jient"}, Program: "/w/client", Namespaced: true, Proxied: true})
	if len(got) != 1 || strings.ContainsRune(got[0], 0x1b) {
		t.Fatalf("Hints = %q, want one line without the escape", got)
	}
}
