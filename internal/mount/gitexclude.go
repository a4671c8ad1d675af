package mount

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
)

// A mount's symlink is a machine-local artifact (it points into this
// user's home), so `git status` should not offer it for a commit: mount
// lists it in the repository's .git/info/exclude, which git reads and
// never shares, and unmount takes the line out. Only a workspace whose
// .git is a directory is handled (a linked worktree's .git file names
// another directory; its exclude file is the main repository's).

// excludeLine is the exclude pattern for rulePath: anchored at the
// workspace root, so it matches the link and nothing else.
func excludeLine(rulePath string) []byte { return []byte("/" + filepath.ToSlash(rulePath)) }

func excludeFile(root string) string {
	dotgit := filepath.Join(root, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.IsDir() {
		return ""
	}
	return filepath.Join(dotgit, "info", "exclude")
}

// addExclude lists rulePath in the workspace's .git/info/exclude (when
// root is a git work tree) and pushes the undo.
func addExclude(root, rulePath string, u *undo) error {
	path := excludeFile(root)
	if path == "" {
		return nil
	}
	snap, err := takeSnapshot(path)
	if err != nil {
		return err
	}
	old, _ := os.ReadFile(path)
	line := excludeLine(rulePath)
	for l := range bytes.SplitSeq(old, []byte("\n")) {
		if bytes.Equal(bytes.TrimSpace(l), line) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	buf := append([]byte(nil), old...)
	if len(buf) > 0 && buf[len(buf)-1] != '\n' {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if err := atomicfile.Write(path, buf, 0o644); err != nil {
		return err
	}
	u.push(snap.restore)
	return nil
}

// removeExclude takes rulePath's line out of the exclude file, if there.
func removeExclude(root, rulePath string) error {
	path := excludeFile(root)
	if path == "" {
		return nil
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	line := excludeLine(rulePath)
	var out [][]byte
	found := false
	for l := range bytes.SplitSeq(old, []byte("\n")) {
		if bytes.Equal(bytes.TrimSpace(l), line) {
			found = true
			continue
		}
		out = append(out, l)
	}
	if !found {
		return nil
	}
	return atomicfile.Write(path, bytes.Join(out, []byte("\n")), 0o644)
}
