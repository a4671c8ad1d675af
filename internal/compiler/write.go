package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/jp-policy/jp-policy/internal/artifact"
)

func defaultOutDir(root string) string {
	return filepath.Join(root, filepath.FromSlash(artifact.DefaultDir))
}

// marshalJSON is the one JSON encoding of every file the compiler writes:
// two-space indent, sorted map keys (encoding/json), no HTML escaping (so
// paths with & or < stay readable), and a final newline.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeDir replaces dir with exactly files. Everything is written to a
// sibling temporary directory first and swapped in with renames, so a
// failure at any point before the swap leaves the previous artifact as it
// was, and readers never see a half-written one.
func writeDir(dir string, files map[string][]byte) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeNew(p, files[name]); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	// Durable once, not per file (a 1,000-tool artifact is 5,000 files):
	// exec verifies every file it uses against hashes pinned outside the
	// workspace, so a file a crash left torn is refused, never applied.
	if err := syncTree(tmp); err != nil {
		return err
	}
	var old string
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir) // put the previous artifact back
		}
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	ok = true
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
