package convstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// The names JP's jp_storage uses (lib.rs).
const (
	conversationsDir = "conversations"
	eventsFile       = "events.json"
	baseConfigFile   = "base_config.json"
	metadataFile     = "metadata.json"
)

// Roots are the two storage roots JP searches for a workspace's
// conversations: the workspace's `.jp` directory, then the user-workspace
// storage ("" when there is none).
type Roots struct {
	Workspace string // <workspace>/.jp
	User      string // <user data dir>/workspace/<slug>-<id>, or ""
}

// Stored is one conversation found on disk.
type Stored struct {
	ID    string // JP's form: jp-c<deciseconds>
	Dir   string // the directory read: the newer of the two roots' copies
	Title string // from metadata.json, when it has one
	// Files are the files the stored config was read from, in order:
	// base_config.json (absent in the legacy format), then events.json.
	Files []string
}

// NotFoundError is a conversation id with no directory in either root.
type NotFoundError struct {
	ID       string
	Searched []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no stored conversation %s (searched %s)", e.ID, strings.Join(e.Searched, ", "))
}

// ParseID reads a conversation id as JP prints it (`jp-c<deciseconds>`,
// optionally followed by `-<global id>`, as jp_id's Parts reads it) or as
// its directory name starts (the deciseconds alone), and returns the
// deciseconds.
func ParseID(s string) (string, error) {
	d := s
	if rest, ok := strings.CutPrefix(s, "jp-c"); ok {
		d, _, _ = strings.Cut(rest, "-")
	}
	if _, err := strconv.ParseInt(d, 10, 64); err != nil || d == "" || d[0] == '+' || d[0] == '-' {
		return "", fmt.Errorf("%q is not a conversation id: JP's ids look like jp-c17431234567 (`jp conversation ls` lists them)", s)
	}
	return d, nil
}

// FormatID is JP's display form of a conversation id.
func FormatID(deciseconds string) string { return "jp-c" + deciseconds }

// List returns the ids (deciseconds) of every live conversation in either
// root, sorted, each once (load_conversation_id_from_entry: a directory
// whose name does not start with '.' and whose first `-`-separated part is
// an id).
func List(r Roots) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, root := range r.list() {
		entries, err := os.ReadDir(filepath.Join(root, conversationsDir))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") {
				continue
			}
			id, _, _ := strings.Cut(name, "-")
			if _, err := ParseID(id); err != nil || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (r Roots) list() []string {
	if r.User == "" {
		return []string{r.Workspace}
	}
	return []string{r.Workspace, r.User}
}

// Find locates a conversation as JP's load_conversation_stream does: in
// each root the live directory named by the id, alone or followed by
// `-<title>` (find_normal_conversation_dir_path, which matches any name
// starting with the id: see findDir), and of the two roots' copies the one whose stream
// (events.json, base_config.json) was modified last, ties going to the
// user-workspace copy (pick_newer).
func Find(r Roots, deciseconds string) (*Stored, error) {
	var ws, user string
	var searched []string
	for i, root := range r.list() {
		dir := filepath.Join(root, conversationsDir)
		searched = append(searched, dir)
		d := findDir(dir, deciseconds)
		if i == 0 {
			ws = d
		} else {
			user = d
		}
	}
	dir := user
	switch {
	case user != "" && ws != "":
		if streamMtime(ws).After(streamMtime(user)) {
			dir = ws
		}
	case user == "":
		dir = ws
	}
	if dir == "" {
		return nil, &NotFoundError{ID: FormatID(deciseconds), Searched: searched}
	}
	s := &Stored{ID: FormatID(deciseconds), Dir: dir}
	if isFile(filepath.Join(dir, baseConfigFile)) {
		s.Files = append(s.Files, filepath.Join(dir, baseConfigFile))
	}
	s.Files = append(s.Files, filepath.Join(dir, eventsFile))
	if b, err := os.ReadFile(filepath.Join(dir, metadataFile)); err == nil {
		if root, err := tomlpos.ParseJSON(filepath.Join(dir, metadataFile), b); err == nil {
			if t := root.Get("title"); t != nil && t.Kind == tomlpos.String {
				s.Title = t.Str
			}
		}
	}
	return s, nil
}

func findDir(conversations, prefix string) string {
	entries, err := os.ReadDir(conversations)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		// JP takes any name that starts with the id (starts_with), so
		// jp-c1 would find conversation 17431234567; jp-policy takes the
		// id alone or followed by `-<title>` (conversation_dirs_for_id),
		// so a mistyped id is an error, not another conversation.
		if n := e.Name(); n == prefix || strings.HasPrefix(n, prefix+"-") {
			return filepath.Join(conversations, e.Name())
		}
	}
	return ""
}

func streamMtime(dir string) time.Time {
	var t time.Time
	for _, f := range []string{eventsFile, baseConfigFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Config is a stored conversation's config as JP's
// ConversationStream::config merges it: the base config, then the delta
// of every `config_delta` event in order. Each layer is the parsed JSON
// tree of a PartialAppConfig, with positions in its file.
type Config struct {
	Layers []*tomlpos.Node
	// Files holds the bytes of each file read, for source excerpts and
	// digests.
	Files map[string][]byte
}

// Read parses the stored config. A file JP cannot read either (not JSON,
// events.json not an array, a legacy stream whose first event is no
// config_delta) is an error naming it.
func (s *Stored) Read() (*Config, error) {
	c := &Config{Files: map[string][]byte{}}
	var base *tomlpos.Node
	for _, f := range s.Files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		c.Files[f] = b
		if filepath.Base(f) == baseConfigFile {
			if base, err = tomlpos.ParseJSON(f, b); err != nil {
				return nil, err
			}
			continue
		}
		events, err := eventList(f, b)
		if err != nil {
			return nil, err
		}
		if base == nil {
			// Legacy: the base config is the first event's delta.
			if len(events) == 0 || !isConfigDelta(events[0]) {
				return nil, diag.List{{Pos: diag.Position{File: f, Line: 1, Col: 1}, Severity: diag.Error,
					Message: "the stored conversation has no base config: no base_config.json, and events.json does not start with a config_delta event; JP cannot load it either",
					Help:    "remove the conversation (jp conversation rm), or restore its base_config.json"}}
			}
			base = events[0].Get("delta")
			events = events[1:]
		}
		if base != nil && base.Kind == tomlpos.Table {
			c.Layers = append(c.Layers, base)
		}
		for _, e := range events {
			if d := e.Get("delta"); isConfigDelta(e) && d != nil && d.Kind == tomlpos.Table {
				c.Layers = append(c.Layers, d)
			}
		}
	}
	return c, nil
}

func isConfigDelta(e *tomlpos.Node) bool {
	t := e.Get("type")
	return e.Kind == tomlpos.Table && t != nil && t.Kind == tomlpos.String && t.Str == "config_delta"
}

// eventList is events.json's array. tomlpos reads a JSON object at the
// top, so the array is read as the member of one, and positions on the
// first line moved back by the wrapper's width.
func eventList(file string, b []byte) ([]*tomlpos.Node, error) {
	const open = `{"e":`
	n := tomlpos.SkipBOMs(b)
	wrapped := append(append([]byte(open), b[n:]...), '}')
	root, err := tomlpos.ParseJSON(file, wrapped)
	shift := func(p *diag.Position) {
		if p.Line == 1 {
			p.Col = max(1, p.Col-len(open)+n)
			if p.EndLine == 1 {
				p.EndCol = max(1, p.EndCol-len(open)+n)
			}
		}
	}
	if err != nil {
		if se, ok := errors.AsType[*tomlpos.SyntaxError](err); ok {
			shift(&se.Pos)
		}
		return nil, err
	}
	arr := root.Get("e")
	if arr == nil || arr.Kind != tomlpos.Array {
		return nil, diag.List{{Pos: diag.Position{File: file, Line: 1, Col: 1}, Severity: diag.Error,
			Message: "events.json is not an array of conversation events; JP cannot load this conversation either",
			Help:    "restore the file from a backup, or remove the conversation"}}
	}
	arr.Walk(func(x *tomlpos.Node) {
		shift(&x.Pos)
		if !x.KeyPos.IsZero() {
			shift(&x.KeyPos)
		}
	})
	return arr.Items, nil
}
