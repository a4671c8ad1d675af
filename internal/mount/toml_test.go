package mount

import (
	"errors"
	"strings"
	"testing"
)

const sample = `# Workspace config.
extends = ["config/personas/default.toml"]

[conversation.tools.fs_read_file]
source = "local"   # keep this comment
command = "just serve-tools {{context}} {{tool}}"

[[conversation.tools.fs_modify_file.access.fs]]
path = "src"
read = true
`

func TestAppendFindRemoveRoundTrip(t *testing.T) {
	blocks := []Block{
		{Tool: "fs_read_file", Rule: WorkspaceDefaultRule()},
		{Tool: "fs_read_file", Rule: MountRule("fork", ReadOnly)},
		{Tool: "fs_modify_file", Rule: MountRule("fork", ReadWrite)},
		{Tool: "odd.tool name", Rule: MountRule(`we"ird\path`, ReadOnly)},
	}
	out, err := AppendBlocks("config.toml", []byte(sample), blocks)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), sample) {
		t.Fatal("existing text changed")
	}
	for _, want := range []string{
		"\n# jp-policy mount: fork\n[[conversation.tools.fs_modify_file.access.fs]]\npath = \"fork\"\nexternal = true\nread = true\nwrite = true\n",
		"\n" + markerDefaultText + "\n[[conversation.tools.fs_read_file.access.fs]]\npath = \".\"\nread = true\nwrite = true\n",
		`[[conversation.tools."odd.tool name".access.fs]]` + "\npath = \"we\\\"ird\\\\path\"\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	found := FindBlocks(out)
	if len(found) != 4 {
		t.Fatalf("found %d blocks, want 4: %+v", len(found), found)
	}
	if !found[0].Default || found[1].RulePath != "fork" || found[2].Tool != "fs_modify_file" || found[3].Tool != "odd.tool name" || found[3].RulePath != `we"ird\path` {
		t.Fatalf("found = %+v", found)
	}
	if back := RemoveBlocks(out, found); string(back) != sample {
		t.Fatalf("remove all did not restore the original:\n%s", back)
	}
	partial := RemoveBlocks(out, found[2:3])
	if strings.Contains(string(partial), "fs_modify_file.access.fs]]\npath = \"fork\"") || len(FindBlocks(partial)) != 3 {
		t.Fatalf("partial removal wrong:\n%s", partial)
	}
}

func TestAppendToFileWithoutTrailingNewline(t *testing.T) {
	out, err := AppendBlocks("c.toml", []byte(`a = 1`), []Block{{Tool: "t", Rule: MountRule("m", ReadOnly)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "a = 1\n\n# jp-policy mount: m\n") {
		t.Fatalf("got %q", out)
	}
	out, err = AppendBlocks("c.toml", nil, []Block{{Tool: "t", Rule: MountRule("m", ReadOnly)}})
	if err != nil || !strings.HasPrefix(string(out), "# jp-policy mount: m\n") {
		t.Fatalf("empty file: %q %v", out, err)
	}
}

func TestAppendRefusesWhatCannotBeExtended(t *testing.T) {
	tests := map[string]string{
		"inline array":   "[conversation.tools.t]\naccess.fs = [{ path = \"src\", read = true }]\n",
		"inline access":  "[conversation.tools.t]\naccess = { fs = [] }\n",
		"strategy table": "[conversation.tools.t.access.fs]\nstrategy = \"replace\"\nvalue = []\n",
		"broken file":    "[conversation\n",
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := AppendBlocks("c.toml", []byte(src), []Block{{Tool: "t", Rule: MountRule("m", ReadOnly)}})
			var me *Error
			if !errors.As(err, &me) || me.Kind != KindConfig {
				t.Fatalf("want a config error, got %v", err)
			}
		})
	}
}

func TestFindBlocksSkipsHandEdited(t *testing.T) {
	tests := map[string]string{
		"path changed":     "# jp-policy mount: fork\n[[conversation.tools.t.access.fs]]\npath = \"other\"\nexternal = true\nread = true\n",
		"external removed": "# jp-policy mount: fork\n[[conversation.tools.t.access.fs]]\npath = \"fork\"\nread = true\n",
		"no header":        "# jp-policy mount: fork\npath = \"fork\"\n",
		"other table":      "# jp-policy mount: fork\n[conversation.tools.t]\npath = \"fork\"\n",
		"default external": markerDefaultText + "\n[[conversation.tools.t.access.fs]]\npath = \".\"\nexternal = true\nread = true\n",
		"marker at eof":    "# jp-policy mount: fork\n",
	}
	for name, src := range tests {
		if got := FindBlocks([]byte(src)); len(got) != 0 {
			t.Errorf("%s: found %+v, want none", name, got)
		}
	}
}

func TestFindBlocksCRLF(t *testing.T) {
	src := "a = 1\r\n\r\n# jp-policy mount: fork\r\n[[conversation.tools.t.access.fs]]\r\npath = \"fork\"\r\nexternal = true\r\nread = true\r\n"
	got := FindBlocks([]byte(src))
	if len(got) != 1 {
		t.Fatalf("found %+v", got)
	}
	if back := RemoveBlocks([]byte(src), got); string(back) != "a = 1\r\n" {
		t.Fatalf("got %q", back)
	}
}

// TestAcknowledgeHome: a block's JP132 acknowledgement is written above
// its marker, and unmounting removes it with the block.
func TestAcknowledgeHome(t *testing.T) {
	out, err := AppendBlocks("c.toml", []byte("a = 1\n"), []Block{{Tool: "t", Rule: MountRule("home", ReadWrite), Acknowledge: "a dotfiles\nmanager"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\n# jp-policy: ignore JP132 -- a dotfiles manager\n# jp-policy mount: home\n[[conversation.tools.t.access.fs]]\n") {
		t.Fatalf("acknowledgement not written above the block:\n%s", out)
	}
	found := FindBlocks(out)
	if len(found) != 1 {
		t.Fatalf("FindBlocks = %v", found)
	}
	if got := string(RemoveBlocks(out, found)); got != "a = 1\n" {
		t.Errorf("after removal: %q", got)
	}
}
