package approvals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
)

// CorruptError is returned by Save when the store was loaded from a
// corrupt file and the caller did not force the write: overwriting would
// silently destroy whatever the user had in it.
type CorruptError struct {
	Path   string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("approvals store %s is corrupt (%s); refusing to overwrite it", e.Path, e.Reason)
}

// Save writes the store to its path atomically (temp file in the same
// directory, fsync, rename), creating the directory 0700 if needed; the
// file is 0600. The JSON is deterministic: two-space indent, entries
// sorted by rule path, unknown top-level keys kept.
//
// When the store was loaded from a corrupt file, Save returns a
// *CorruptError unless force is true. Pass force only when the user just
// approved something, so their decision is not lost to an old bad file.
func (s *Store) Save(force bool) error {
	if s.path == "" {
		return fmt.Errorf("approvals store: no file to save to")
	}
	if s.corrupt && !force {
		return &CorruptError{Path: s.path, Reason: s.corruptReason}
	}
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, data, 0o600); err != nil {
		return fmt.Errorf("approvals store: %w", err)
	}
	s.corrupt, s.corruptReason = false, ""
	return nil
}

// wireOut is the output shape of one entry; the timestamp is formatted by
// hand so it is always UTC with a Z suffix, as JP writes it.
type wireOut struct {
	RulePath        string   `json:"rule_path"`
	CanonicalTarget string   `json:"canonical_target"`
	ApprovedAt      string   `json:"approved_at"`
	ApprovedIn      []string `json:"approved_in,omitempty"`
}

// Marshal renders the store as Save writes it.
func (s *Store) Marshal() ([]byte, error) {
	entries := s.Entries()
	mounts := make([]wireOut, len(entries))
	for i, e := range entries {
		mounts[i] = wireOut{e.RulePath, e.CanonicalTarget, e.ApprovedAt.UTC().Format(time.RFC3339Nano), e.ApprovedIn}
	}
	mountsJSON, err := json.Marshal(mounts)
	if err != nil {
		return nil, err
	}
	top := make(map[string]json.RawMessage, len(s.extra)+1)
	for k, v := range s.extra {
		top[k] = v
	}
	top["mounts"] = mountsJSON
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Build the object by hand so key order is fixed (mounts first, then
	// the rest sorted), and indent the result as a whole.
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	write := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		b.Write(top[k])
	}
	write("mounts")
	for _, k := range keys {
		if k != "mounts" {
			write(k)
		}
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("approvals store: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
