package approvals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// maxFileSize bounds what Load reads; a store is a handful of entries, so
// anything larger is not one of ours.
const maxFileSize = 8 << 20

// Load reads the store at path. A missing file is an empty store. A file
// that is not a valid store (bad JSON, wrong shape) is read as an empty
// store, marked corrupt, and reported as a warning naming the file; the
// error return is for I/O failures (permission denied, a directory in the
// way), where the caller must fail closed rather than guess.
func Load(path string) (*Store, []diag.Diagnostic, error) {
	s := New(path)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// ENOTDIR: a parent is a file, so the store cannot exist either;
		// whether it can be created is Save's question.
		return s, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("approvals store: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("approvals store %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return s.markCorrupt(fmt.Sprintf("larger than %d bytes", maxFileSize)), []diag.Diagnostic{s.warning()}, nil
	}
	if err := s.decode(data); err != nil {
		s.entries = map[string]Entry{}
		s.extra = map[string][]byte{}
		s.markCorrupt(err.Error())
		return s, []diag.Diagnostic{s.warning()}, nil
	}
	return s, nil, nil
}

func (s *Store) markCorrupt(reason string) *Store {
	s.corrupt = true
	s.corruptReason = reason
	return s
}

func (s *Store) warning() diag.Diagnostic {
	return diag.Diagnostic{
		Pos:      diag.Position{File: s.path},
		Severity: diag.Warning,
		Message:  fmt.Sprintf("approvals store %s is corrupt (%s); reading it as empty, so no external mount is approved", s.path, s.corruptReason),
		Help:     "fix or delete the file; jp-policy will not overwrite it unless you approve a mount",
	}
}

// wireEntry mirrors Entry with every field optional, so a missing field
// is told apart from an empty one.
type wireEntry struct {
	RulePath        *string   `json:"rule_path"`
	CanonicalTarget *string   `json:"canonical_target"`
	ApprovedAt      *string   `json:"approved_at"`
	ApprovedIn      *[]string `json:"approved_in"`
}

// decode fills s from data, or reports why data is not a store.
func (s *Store) decode(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty file")
	}
	var top map[string]json.RawMessage
	if err := strictUnmarshal(data, &top); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if top == nil {
		return errors.New("not a JSON object")
	}
	for k, v := range top {
		if k != "mounts" {
			s.extra[k] = append([]byte(nil), v...)
		}
	}
	raw, ok := top["mounts"]
	if !ok {
		return nil
	}
	var list []json.RawMessage
	if err := strictUnmarshal(raw, &list); err != nil || list == nil {
		return errors.New(`"mounts" is not an array`)
	}
	for i, item := range list {
		e, err := decodeEntry(item)
		if err != nil {
			return fmt.Errorf("mounts[%d]: %v", i, err)
		}
		if _, dup := s.entries[e.RulePath]; dup {
			// Two bindings for one path cannot both be the user's
			// intent; which one wins is a guess, so trust neither.
			return fmt.Errorf("mounts[%d]: duplicate rule_path %q", i, e.RulePath)
		}
		s.entries[e.RulePath] = e
	}
	return nil
}

func decodeEntry(item json.RawMessage) (Entry, error) {
	var w wireEntry
	if err := strictUnmarshal(item, &w); err != nil {
		return Entry{}, fmt.Errorf("not an entry object: %v", err)
	}
	switch {
	case w.RulePath == nil || *w.RulePath == "":
		return Entry{}, errors.New("missing rule_path")
	case w.CanonicalTarget == nil || *w.CanonicalTarget == "":
		return Entry{}, errors.New("missing canonical_target")
	case !isAbs(*w.CanonicalTarget):
		return Entry{}, fmt.Errorf("canonical_target %q is not absolute", *w.CanonicalTarget)
	case w.ApprovedAt == nil:
		return Entry{}, errors.New("missing approved_at")
	}
	at, err := time.Parse(time.RFC3339Nano, *w.ApprovedAt)
	if err != nil {
		return Entry{}, fmt.Errorf("approved_at: %v", err)
	}
	e := Entry{RulePath: *w.RulePath, CanonicalTarget: *w.CanonicalTarget, ApprovedAt: at.UTC()}
	if w.ApprovedIn != nil {
		// Present means "only these workspaces": an empty or unreadable
		// list must not widen to every workspace, which is what an
		// absent one means.
		if len(*w.ApprovedIn) == 0 {
			return Entry{}, errors.New("approved_in is empty (leave it out for an approval that holds in every workspace)")
		}
		for _, r := range *w.ApprovedIn {
			if !isAbs(r) {
				return Entry{}, fmt.Errorf("approved_in: %q is not an absolute path", r)
			}
		}
		e.ApprovedIn = slices.Clone(*w.ApprovedIn)
		slices.Sort(e.ApprovedIn)
		e.ApprovedIn = slices.Compact(e.ApprovedIn)
	}
	return e, nil
}

// isAbs accepts both slash-rooted and Windows drive paths: the store may
// have been written by JP on another platform of the same user.
func isAbs(p string) bool {
	if filepath.IsAbs(p) || len(p) > 0 && p[0] == '/' {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// strictUnmarshal decodes exactly one JSON value; trailing data is an
// error (json.Unmarshal already enforces this, but a null must not pass
// as an empty object).
func strictUnmarshal(data []byte, v any) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("null")
	}
	return json.Unmarshal(data, v)
}
