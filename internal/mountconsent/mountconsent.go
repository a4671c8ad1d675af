package mountconsent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/grantdiff"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// Entry is one grant a mount added: tool, rule path (as in the config)
// and mount mode (ro, rx, rw, rwx).
type Entry struct {
	Tool string `json:"tool"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// File is where the record of workspace root lives under dataDir (JP's
// user data directory).
func File(dataDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(jpdirs.PolicyDataDir(dataDir), "mount-consent", hex.EncodeToString(sum[:12])+".json")
}

// Load returns the recorded entries (none when there is no record).
func Load(dataDir, root string) ([]Entry, error) {
	b, err := os.ReadFile(File(dataDir, root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Root    string  `json:"root"`
		Entries []Entry `json:"entries"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Root != root {
		return nil, nil // unreadable or another root's: consents to nothing
	}
	return doc.Entries, nil
}

// Record adds entries to the record of root.
func Record(dataDir, root string, entries []Entry) error {
	old, err := Load(dataDir, root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(old, e) {
			old = append(old, e)
		}
	}
	b, err := json.MarshalIndent(struct {
		Root    string  `json:"root"`
		Entries []Entry `json:"entries"`
	}{root, old}, "", "  ")
	if err != nil {
		return err
	}
	path := File(dataDir, root)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// Clear removes the record of root.
func Clear(dataDir, root string) error {
	err := os.Remove(File(dataDir, root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// capabilities are what a mount mode grants, as grantdiff names them.
func capabilities(mode string) []string {
	switch mode {
	case "ro":
		return []string{"read"}
	case "rx":
		return []string{"read", "execute"}
	case "rw":
		return []string{"read", "write"}
	case "rwx":
		return []string{"read", "write", "execute"}
	}
	return nil
}

// Covers reports whether every widening in d is a grant the entries
// consented to: an fs change of a recorded tool whose gained items are
// recorded rule paths, with capabilities the mode grants, reaching no
// self-escalation path. False when nothing widens.
func Covers(entries []Entry, d *grantdiff.Diff) bool {
	if d == nil || !d.Widened() || len(entries) == 0 {
		return false
	}
	for _, c := range d.Changes {
		if !c.Widened {
			continue
		}
		if c.Clause != grantdiff.ClauseFS || len(c.Gained) == 0 {
			return false
		}
		for _, it := range c.Gained {
			if len(it.Including) > 0 || len(it.On) == 0 {
				return false
			}
			for _, on := range it.On {
				if !allowed(entries, c.Tool, on, it.What) {
					return false
				}
			}
		}
	}
	return true
}

func allowed(entries []Entry, tool, path, what string) bool {
	for _, e := range entries {
		if e.Tool != tool || e.Path != path {
			continue
		}
		caps := capabilities(e.Mode)
		ok := caps != nil
		for w := range strings.SplitSeq(what, ",") {
			if !slices.Contains(caps, strings.TrimSpace(w)) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
