package benchws

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Dirs are the directories Write creates inside the workspace.
var Dirs = []string{".jp", "src/a", "src/b", "docs", "tests", "build/out", "vendor"}

// Write creates a workspace with n local tools at root (which must exist
// or be creatable). Tool names are tool_00000 ... so they sort as numbers.
func Write(root string, n int) error {
	for _, d := range Dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("SECRET=1\n"), 0o644); err != nil {
		return err
	}
	// A workspace id, so compile has an approvals store as a real JP
	// workspace does.
	if err := os.WriteFile(filepath.Join(root, ".jp", ".id"), []byte("bench"), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(root, ".jp", "config.toml"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := range n {
		t := fmt.Sprintf("conversation.tools.tool_%05d", i)
		fmt.Fprintf(w, "[%s]\nsource = \"local\"\ncommand = \"true\"\n\n", t)
		for _, r := range []string{
			"path = \".\"\nread = true",
			"path = \"src\"\nread = true\nwrite = true",
			"path = \"src/a\"\nread = true",
			"path = \"src/b\"\nread = true\nwrite = true\ndelete = false",
			"path = \"docs\"\nread = true\nwrite = true",
			"path = \"tests\"\nread = true\nexecute = true",
			"path = \"build/out\"\nread = true\nwrite = true",
			"path = \".env\"",
			fmt.Sprintf("path = \"work/t%d/cache\"\nread = true\nwrite = true", i),
			fmt.Sprintf("path = \"vendor/t%d\"\nread = true", i),
		} {
			fmt.Fprintf(w, "[[%s.access.fs]]\n%s\n\n", t, r)
		}
		fmt.Fprintf(w, "[[%s.access.net]]\nhost = \"api.example.com\"\nscheme = \"https\"\nallow = true\n\n", t)
		fmt.Fprintf(w, "[[%s.access.env]]\nname = \"TOKEN_%d\"\nread = true\n\n", t, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
