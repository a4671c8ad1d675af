package atomicfile

import (
	"github.com/jp-policy/jp-policy/internal/platform"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, giving the new file perm. The directory
// must exist; callers decide what its permissions should be.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(name)
		}
	}()
	// Windows has no Unix permission bits to set; the file inherits the
	// directory's ACL there.
	if err := tmp.Chmod(perm); err != nil && platform.Host != platform.Windows {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	done = true
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the platform allows it; failure
// only weakens durability, never correctness, so it is not reported.
func syncDir(dir string) {
	if platform.Host == platform.Windows {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
