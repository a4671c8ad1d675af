package gitsnap

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Snapshot is one materialised revision.
type Snapshot struct {
	// Dir is the temporary directory holding the repository's tree at the
	// revision; Workspace is the workspace inside it (the same path below
	// the repository's top level as the workspace it was taken from).
	Dir, Workspace string
	Rev            string
}

// Remove deletes the snapshot.
func (s *Snapshot) Remove() error { return os.RemoveAll(s.Dir) }

// GitError is a git command that failed, with what git said.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return out, nil
}

// Take writes the tree of rev, for the repository holding workspace, into
// a new temporary directory.
func Take(workspace, rev string) (*Snapshot, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%q is not a git revision", rev)
	}
	prefix, err := git(workspace, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	top, err := git(workspace, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	if _, err := git(string(bytes.TrimSpace(top)), "rev-parse", "--verify", "--quiet", rev+"^{tree}"); err != nil {
		return nil, fmt.Errorf("%q is not a revision of the repository at %s", rev, strings.TrimSpace(string(top)))
	}
	tarball, err := git(string(bytes.TrimSpace(top)), "archive", "--format=tar", rev)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "jp-policy-rev-")
	if err != nil {
		return nil, err
	}
	if err := extract(dir, bytes.NewReader(tarball)); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("extracting %s: %w", rev, err)
	}
	ws := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The canonical path: the compiler records symlink-free roots.
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return &Snapshot{Dir: dir, Workspace: ws, Rev: rev}, nil
}

// extract writes a tar stream's directories, regular files and symlinks
// under dir. An entry whose cleaned name is absolute or climbs out of
// dir is an error, and so is one below a symlink extracted earlier.
func extract(dir string, r io.Reader) error {
	tr := tar.NewReader(r)
	links := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if name == "." || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("tar entry %q is outside the tree", h.Name)
		}
		for p := path.Dir(name); p != "."; p = path.Dir(p) {
			if links[p] {
				return fmt.Errorf("tar entry %q is below the symlink %q", h.Name, p)
			}
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, dst); err != nil {
				return err
			}
			links[name] = true
		default:
			// git archive writes a pax global header (the commit id) and
			// nothing else; other kinds have no place in a config tree.
		}
	}
}
