package completion

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

func find(t *testing.T, c *Command, path ...string) *Command {
	t.Helper()
	for _, name := range path {
		i := slices.IndexFunc(c.Commands, func(cc *Command) bool { return cc.Name == name })
		if i < 0 {
			t.Fatalf("no command %q under %q", name, c.Name)
		}
		c = c.Commands[i]
	}
	return c
}

func flagNamed(t *testing.T, c *Command, name string) Flag {
	t.Helper()
	for _, f := range c.Flags {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no flag --%s on %q", name, c.Name)
	return Flag{}
}

func TestFromKongTree(t *testing.T) {
	tree := testTree(t)
	if tree.Name != "jpp" {
		t.Errorf("root name %q", tree.Name)
	}
	var names []string
	for _, c := range tree.Commands {
		names = append(names, c.Name)
	}
	if want := []string{"lint", "check", "exec", "mount", "schema"}; !slices.Equal(names, want) {
		t.Errorf("commands %q, want %q (hidden ones left out, kong's order kept)", names, want)
	}
	if got := find(t, tree, "check").Aliases; !slices.Equal(got, []string{"ck"}) {
		t.Errorf("check aliases %q", got)
	}
	if f := flagNamed(t, tree, "verbose"); f.Short != 'v' || f.Value != nil {
		t.Errorf("--verbose = %+v, want short v and no value", f)
	}
	if f := flagNamed(t, tree, "color"); f.Negation != "no-color" || f.Value != nil {
		t.Errorf("--color = %+v, want negation no-color", f)
	}
	fs := find(t, tree, "check", "fs")
	if len(fs.Args) != 2 || fs.Args[0].Value.Kind != KindEnum || !slices.Equal(fs.Args[0].Value.Enum, []string{"read", "create", "update", "delete", "execute"}) {
		t.Errorf("check fs args %+v", fs.Args)
	}
	exec := find(t, tree, "exec")
	if a := exec.Args[0]; !a.Passthrough || !a.Variadic || a.Value.Kind != KindCommand {
		t.Errorf("exec arg %+v, want passthrough variadic command", a)
	}
	if a := find(t, tree, "lint").Args[0]; !a.Variadic || a.Value.Kind != KindFile {
		t.Errorf("lint arg %+v, want variadic file", a)
	}
}

// TestValueKind covers how a value's Kind is inferred, hint by hint.
func TestValueKind(t *testing.T) {
	var cli struct {
		Hint      string `completion:"dir" enum:"a,b" default:"a"`
		HintNone  string `completion:"none" type:"path"`
		Enum      string `enum:"x,y" default:"x"`
		Path      string `type:"path"`
		Existing  string `type:"existingdir"`
		Content   []byte `type:"filecontent"`
		FileFlag  kong.FileContentFlag
		Paths     []string `type:"path"`
		Workspace string
		OutFile   string
		Thing     string `placeholder:"PATH"`
		URL       string
		Count     int `type:"counter"`
		Bool      bool
		Tool      string
		Root      string `type:"path"`
	}
	p, err := kong.New(&cli, kong.Name("x"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromKong(p.Model)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		want Kind // "" means the flag takes no value
	}{
		{"hint", KindDir},
		{"hint-none", KindNone},
		{"enum", KindEnum},
		{"path", KindFile},
		{"existing", KindDir},
		{"content", KindFile},
		{"file-flag", KindFile},
		{"paths", KindFile},
		{"workspace", KindDir},
		{"out-file", KindFile},
		{"thing", KindFile},
		{"url", KindNone},
		{"count", ""},
		{"bool", ""},
		{"tool", KindTool},
		{"root", KindDir},
	} {
		f := flagNamed(t, tree, tc.flag)
		got := Kind("")
		if f.Value != nil {
			got = f.Value.Kind
		}
		if got != tc.want {
			t.Errorf("--%s: kind %q, want %q", tc.flag, got, tc.want)
		}
	}
}

// branchCLI has a kong ArgumentNode: `jpx user NAME delete`.
type branchCLI struct {
	User struct {
		Name struct {
			Name   string   `arg:"" type:"path"`
			Delete struct{} `cmd:""`
		} `arg:""`
	} `cmd:""`
}

func TestFromKongBranch(t *testing.T) {
	var cli branchCLI
	p, err := kong.New(&cli, kong.Name("jpx"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromKong(p.Model)
	if err != nil {
		t.Fatal(err)
	}
	user := find(t, tree, "user")
	if len(user.Commands) != 1 || !user.Commands[0].Branch || user.Commands[0].BranchArg.Kind != KindFile {
		t.Fatalf("user children %+v, want one file branch", user.Commands)
	}
	var b strings.Builder
	if err := Write(&b, "bash", tree); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`'user/'*) REPLY='user <name>'`, `'user <name>/delete') REPLY='user <name> delete'`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("bash script lacks %s", want)
		}
	}
}

func TestFromKongRefuses(t *testing.T) {
	var badEnum struct {
		Mode string `enum:"a b,c" default:"c"`
	}
	var badTag struct {
		Mode string `completion:"files"`
	}
	for _, tc := range []struct {
		name    string
		grammar any
		want    any
	}{
		{"enum word with a space", &badEnum, new(*NameError)},
		{"unknown completion tag", &badTag, new(*TagError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := kong.New(tc.grammar, kong.Name("x"), kong.Exit(func(int) {}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = FromKong(p.Model)
			if err == nil || !errors.As(err, tc.want) {
				t.Fatalf("err %v, want %T", err, tc.want)
			}
		})
	}
	if _, err := FromKong(nil); err == nil {
		t.Error("FromKong(nil) succeeded")
	}
}

func TestWriteRefuses(t *testing.T) {
	ok := func() *Command { return &Command{Name: "p", Commands: []*Command{{Name: "sub"}}} }
	for _, tc := range []struct {
		name  string
		shell string
		tree  func() *Command
		want  any
	}{
		{"unknown shell", "ksh", ok, new(*ShellError)},
		{"program with a space", "bash", func() *Command { return &Command{Name: "p q"} }, new(*NameError)},
		{"command with a quote", "zsh", func() *Command { c := ok(); c.Commands[0].Name = "a'b"; return c }, new(*NameError)},
		{"alias with a glob", "fish", func() *Command { c := ok(); c.Commands[0].Aliases = []string{"a*"}; return c }, new(*NameError)},
		{"flag with a newline", "bash", func() *Command { c := ok(); c.Flags = []Flag{{Name: "a\nb"}}; return c }, new(*NameError)},
		{"short flag symbol", "bash", func() *Command { c := ok(); c.Flags = []Flag{{Name: "a", Short: '$'}}; return c }, new(*NameError)},
		{"enum with a tab", "bash", func() *Command {
			c := ok()
			c.Args = []Arg{{Name: "a", Value: Value{Kind: KindEnum, Enum: []string{"x\ty"}}}}
			return c
		}, new(*NameError)},
		{"unknown kind", "fish", func() *Command {
			c := ok()
			c.Args = []Arg{{Name: "a", Value: Value{Kind: "url"}}}
			return c
		}, new(*TagError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			err := Write(&b, tc.shell, tc.tree())
			if err == nil || !errors.As(err, tc.want) {
				t.Fatalf("err %v, want %T", err, tc.want)
			}
			if b.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", b.Len())
			}
		})
	}
	if err := Write(io.Discard, "bash", nil); err == nil {
		t.Error("Write(nil tree) succeeded")
	}
}

func TestFromKongWords(t *testing.T) {
	var cli struct {
		Ignore []string `completion:"rule"`
		Rules  struct {
			ID string `arg:"" optional:"" completion:"rule"`
		} `cmd:""`
	}
	p, err := kong.New(&cli, kong.Name("x"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"JP001", "JP101"}
	tree, err := FromKong(p.Model, WithWords("rule", ids))
	if err != nil {
		t.Fatal(err)
	}
	if f := flagNamed(t, tree, "ignore"); f.Value == nil || f.Value.Kind != KindEnum || !slices.Equal(f.Value.Enum, ids) {
		t.Errorf("--ignore = %+v, want the rule words", f.Value)
	}
	if a := find(t, tree, "rules").Args; len(a) != 1 || !slices.Equal(a[0].Value.Enum, ids) {
		t.Errorf("rules ID = %+v, want the rule words", a)
	}
	// Without the list the tag is unknown: a typo cannot complete nothing
	// silently.
	if _, err := FromKong(p.Model); !errors.As(err, new(*TagError)) {
		t.Errorf("no word list: err %v, want a TagError", err)
	}
	if _, err := FromKong(p.Model, WithWords("rule", []string{"a b"})); !errors.As(err, new(*NameError)) {
		t.Errorf("unsafe word: err %v, want a NameError", err)
	}
	if _, err := FromKong(p.Model, WithWords("file", ids)); !errors.As(err, new(*TagError)) {
		t.Errorf("a list named like a Kind: err %v, want a TagError", err)
	}
}
