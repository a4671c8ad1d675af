package mount

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
)

// snapshot is a file's content before a change, so the change can be
// undone byte for byte.
type snapshot struct {
	path    string
	existed bool
	data    []byte
	perm    fs.FileMode
}

func takeSnapshot(path string) (snapshot, error) {
	s := snapshot{path: path, perm: 0o644}
	fi, err := os.Stat(path)
	if missing(err) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if !fi.Mode().IsRegular() {
		return s, fmt.Errorf("%s is not a regular file", path)
	}
	if s.data, err = os.ReadFile(path); err != nil {
		return s, err
	}
	s.existed, s.perm = true, fi.Mode().Perm()
	return s, nil
}

// missing reports whether err says the path does not exist (a parent
// that is a file means the same). A nil error is not missing.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// restore puts the file back as it was (removing it if it did not exist).
func (s snapshot) restore() error {
	if !s.existed {
		if err := os.Remove(s.path); !missing(err) {
			return err
		}
		return nil
	}
	return atomicfile.Write(s.path, s.data, s.perm)
}

// realPath follows a symlinked config file to the file it names, so a
// rewrite updates that file instead of replacing the link with a copy.
func realPath(p string) string {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
	}
	return p
}

// checkWritable refuses files the user marked read-only. Root ignores
// permission bits, so the bit itself is what is honoured: a read-only
// config is a request not to have it rewritten.
func checkWritable(s snapshot) error {
	if !s.existed {
		return nil
	}
	if platform.Host != platform.Windows && s.perm&0o200 == 0 {
		return fmt.Errorf("%s is read-only", s.path)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// mkdirs creates dir and any missing parents, returning the directories
// it created, deepest first, so an undo can remove exactly those.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i, m := range slices.Backward(missing) {
		if err := os.Mkdir(m, 0o755); err != nil {
			removeDirs(missing[i+1:])
			return nil, err
		}
	}
	return missing, nil
}

// removeDirs removes directories deepest first; a directory something else
// was put into meanwhile stays.
func removeDirs(dirs []string) {
	for _, d := range dirs {
		os.Remove(d)
	}
}
