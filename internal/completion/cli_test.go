package completion

import (
	"testing"

	"github.com/alecthomas/kong"
)

// testCLI is a small fixed grammar with one of everything the generator
// handles, so the goldens do not move when the real CLI grows.
type testCLI struct {
	Verbose   bool   `short:"v" help:"Say more."`
	Color     bool   `negatable:"" default:"true" help:"Colour the output (it's on)."`
	Workspace string `type:"path" short:"w" help:"Workspace root."`

	Lint struct {
		Format string   `enum:"text,json,sarif" default:"text" help:"Output format."`
		Paths  []string `arg:"" optional:"" type:"path" help:"Config files."`
	} `cmd:"" help:"Check the config."`
	Check struct {
		Fs struct {
			Op   string `arg:"" enum:"read,create,update,delete,execute" help:"Operation."`
			Path string `arg:"" type:"path" help:"Path to check."`
			Tool string `short:"t" help:"Tool name."`
		} `cmd:"" help:"Check a path."`
		Net struct {
			URL string `arg:"" help:"URL to check."`
		} `cmd:"" help:"Check a URL."`
	} `cmd:"" aliases:"ck" help:"Ask whether access is allowed."`
	Exec struct {
		Tool    string   `required:"" help:"Tool whose policy applies."`
		Command []string `arg:"" passthrough:"" help:"Command and arguments."`
	} `cmd:"" help:"Run a command under a policy."`
	Mount struct {
		Target string `arg:"" type:"existingdir" help:"Directory to mount."`
		Name   string `arg:"" optional:"" help:"Mount name."`
		Output string `help:"Where to write."`
	} `cmd:"" help:"Mount a directory."`
	Schema struct {
		Out string `completion:"file" help:"Write here."`
	} `cmd:"" help:"Print the schema."`
	Secret struct{} `cmd:"" hidden:"" help:"Not shown."`
}

// testTree builds the completion tree of testCLI through kong.
func testTree(t *testing.T) *Command {
	t.Helper()
	var cli testCLI
	p, err := kong.New(&cli, kong.Name("jpp"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromKong(p.Model)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
