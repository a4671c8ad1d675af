package emittest

import (
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Scenario is one golden case shared by all three emitters.
type Scenario struct {
	Name string
	// Root is the temporary directory to replace with $ROOT.
	Root string
	Tool emit.Tool
}

// workspace is the tree most scenarios start from.
var workspace = []string{
	"ws/.env", "ws/README.md", "ws/.git/config", "ws/src/main.go", "ws/src/lib/util.go", "ws/docs/",
}

// Scenarios builds every shared golden case in its own temporary tree.
func Scenarios(t testing.TB) []Scenario {
	var out []Scenario
	add := func(name string, entries []string, rules func(root string) []Rule, edit func(*emit.Tool)) {
		root := TempRoot(t)
		Tree(t, root, entries...)
		ws := filepath.Join(root, "ws")
		tool := Tool(t, name, ws, rules(root))
		if edit != nil {
			edit(&tool)
		}
		out = append(out, Scenario{Name: name, Root: root, Tool: tool})
	}
	add("workspace-rw", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}}
	}, nil)
	add("dotenv-none", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}, {Path: ".env", Caps: ""}}
	}, nil)
	add("src-readonly", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}, {Path: "src", Caps: "r"}}
	}, nil)
	add("nested-three", append(workspace, "ws/a/top.txt", "ws/a/b/mid.txt", "ws/a/b/c/deep.txt", "ws/a/b/c/d/", "ws/a/b/other/x"),
		func(string) []Rule {
			return []Rule{{Path: "", Caps: "rw"}, {Path: "a", Caps: "r"}, {Path: "a/b", Caps: "rwx"}, {Path: "a/b/c", Caps: ""}}
		}, nil)
	add("external-narrowed", append(workspace, "target/.env", "target/lib/mod.go", "target/Cargo.toml", "ws/fork -> ../target"),
		func(root string) []Rule {
			target := filepath.Join(root, "target")
			return []Rule{
				{Path: "", Caps: "rw"},
				{Path: "fork", Caps: "rw", External: target},
				{Path: "fork/.env", Caps: "", External: filepath.Join(target, ".env")},
			}
		}, nil)
	add("missing-narrowed", []string{"ws/README.md", "ws/src/main.go"}, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}, {Path: ".env", Caps: ""}, {Path: "secrets/key", Caps: ""}, {Path: "out", Caps: "rw"}}
	}, nil)
	add("file-rules", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "r"}, {Path: "README.md", Caps: "rw"}, {Path: "src", Caps: "c"}, {Path: "docs", Caps: "rw"}}
	}, nil)
	add("net-env-commands", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}}
	}, func(tool *emit.Tool) {
		tool.Access.Net = []policy.NetRule{
			{Host: "api.github.com", Scheme: new("https"), Allow: true},
			{Host: "localhost", Port: new(uint16(8080)), Allow: true},
			{Host: "xn--bcher-kva.example", Scheme: new("gopher"), Allow: true},
			{Host: "evil.example", Allow: false},
			{Host: "intranet.example", Port: new(uint16(22)), Allow: false},
		}
		tool.Access.Env = []policy.EnvRule{{Name: "GITHUB_TOKEN", Read: true}, {Name: "AWS_*", Read: true}, {Name: "LC_ALL", Read: false}}
		tool.Access.Commands = map[string]policy.CommandRule{
			"git":   {Args: [][]string{{"status"}, {"log", "**"}}},
			"cargo": {Envs: []string{"PATH"}},
		}
	})
	add("no-commands", workspace, func(string) []Rule {
		return []Rule{{Path: "", Caps: "r"}}
	}, func(tool *emit.Tool) {
		tool.Access.Commands = map[string]policy.CommandRule{}
	})
	add("weird-path", []string{"ws/weird \"name\"/a\\b/ü.txt", "ws/.env"}, func(string) []Rule {
		return []Rule{{Path: "", Caps: "rw"}, {Path: "weird \"name\"/a\\b", Caps: "r"}}
	}, nil)
	return out
}
