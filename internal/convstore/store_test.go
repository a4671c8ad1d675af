package convstore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParseID follows ConversationId's FromStr (jp_id::parse: jp-c<target
// id>[-<global id>]) and try_from_dirname (the deciseconds).
func TestParseID(t *testing.T) {
	for in, want := range map[string]string{"jp-c17431234567": "17431234567", "17431234567": "17431234567", "jp-c17431234567-abc": "17431234567"} {
		if got, err := ParseID(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "jp-c", "jp-x1", "abc", "-1", "+1", "1.5"} {
		if _, err := ParseID(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

// TestLoadConversationIDFromEntry follows load_conversation_id_from_entry
// (jp_storage lib.rs): directories only, dot-prefixed ones skipped
// (.archive, .trash), the id is the name's first `-` part; both roots,
// each id once.
func TestLoadConversationIDFromEntry(t *testing.T) {
	tmp := t.TempDir()
	r := Roots{Workspace: filepath.Join(tmp, "ws", ".jp"), User: filepath.Join(tmp, "user")}
	write(t, filepath.Join(r.Workspace, "conversations", "200-title", "events.json"), "[]")
	write(t, filepath.Join(r.Workspace, "conversations", "100", "events.json"), "[]")
	write(t, filepath.Join(r.Workspace, "conversations", ".archive", "300", "events.json"), "[]")
	write(t, filepath.Join(r.Workspace, "conversations", "notes.txt"), "")
	write(t, filepath.Join(r.Workspace, "conversations", "x-y", "events.json"), "[]")
	write(t, filepath.Join(r.User, "conversations", "200-title", "events.json"), "[]")
	write(t, filepath.Join(r.User, "conversations", "400", "events.json"), "[]")
	got, err := List(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"100", "200", "400"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

// TestPickNewer follows load_conversation_stream's pick_newer (jp_storage
// load.rs): of the two roots' copies, the newer stream (events.json or
// base_config.json), ties to the user-workspace copy.
func TestPickNewer(t *testing.T) {
	tmp := t.TempDir()
	r := Roots{Workspace: filepath.Join(tmp, "ws", ".jp"), User: filepath.Join(tmp, "user")}
	ws := filepath.Join(r.Workspace, "conversations", "100-a")
	user := filepath.Join(r.User, "conversations", "100-b")
	write(t, filepath.Join(ws, "events.json"), "[]")
	write(t, filepath.Join(user, "events.json"), "[]")
	old, now := time.Unix(1_000_000, 0), time.Unix(2_000_000, 0)
	set := func(p string, tm time.Time) {
		if err := os.Chtimes(p, tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	set(filepath.Join(ws, "events.json"), old)
	set(filepath.Join(user, "events.json"), old)
	if s, err := Find(r, "100"); err != nil || s.Dir != user {
		t.Errorf("tie: %v %v, want the user copy", s, err)
	}
	write(t, filepath.Join(ws, "base_config.json"), "{}")
	set(filepath.Join(ws, "base_config.json"), now)
	s, err := Find(r, "100")
	if err != nil || s.Dir != ws || len(s.Files) != 2 {
		t.Errorf("newer base_config.json in the workspace: %+v %v", s, err)
	}
	for _, id := range []string{"999", "10", "1"} {
		// "10" and "1" are prefixes of "100": JP's starts_with would take
		// that conversation; jp-policy refuses the id.
		if _, err := Find(r, id); !errors.As(err, new(*NotFoundError)) {
			t.Errorf("id %s: %v", id, err)
		}
	}
}

// TestConfigFromParts follows ConversationStream::from_parts and
// config(): base_config.json, then every config_delta's delta in order;
// other events are not config. TestFromLegacyEvents: without
// base_config.json the first event's delta is the base
// (from_legacy_events), and a stream that does not start with one cannot
// be loaded.
func TestConfigFromParts(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, ".jp", "conversations", "100")
	write(t, filepath.Join(dir, "base_config.json"), `{"conversation": {"tools": {"t": {"run": "ask"}}}}`)
	write(t, filepath.Join(dir, "events.json"), `[{"type": "chat_request", "content": "x"}, {"type": "config_delta", "delta": {"conversation": {}}}, {"type":"config_delta","delta":{"assistant":{}}}]`)
	s, err := Find(Roots{Workspace: filepath.Join(tmp, ".jp")}, "100")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Layers) != 3 || c.Layers[0].Get("conversation") == nil || c.Layers[1].Get("conversation") == nil || c.Layers[2].Get("assistant") == nil {
		t.Fatalf("layers %d", len(c.Layers))
	}
	// Positions on events.json's first line are the file's, not the
	// wrapper's: `{"conversation"` of the first delta starts at column 78.
	if p := c.Layers[1].Pos; p.Line != 1 || p.Col != 78 {
		t.Errorf("delta at %v, want 1:78", p)
	}
}

func TestFromLegacyEvents(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, ".jp", "conversations", "100")
	write(t, filepath.Join(dir, "events.json"), `[{"type": "config_delta", "delta": {"conversation": {"tools": {}}}}, {"type": "config_delta", "delta": {"user": {}}}]`)
	s, err := Find(Roots{Workspace: filepath.Join(tmp, ".jp")}, "100")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Read()
	if err != nil || len(c.Layers) != 2 {
		t.Fatalf("legacy: %v %v", c, err)
	}
	write(t, filepath.Join(dir, "events.json"), `[{"type": "chat_request"}]`)
	if _, err := s.Read(); err == nil {
		t.Error("a legacy stream without a leading config_delta must be refused")
	}
	write(t, filepath.Join(dir, "events.json"), `{"not": "an array"}`)
	if _, err := s.Read(); err == nil {
		t.Error("events.json that is not an array must be refused")
	}
}

// FuzzEventList: events.json is read through a wrapper object; whatever
// the bytes, reading never panics, and every position it gives is inside
// the file (line and column from 1, never in the wrapper).
func FuzzEventList(f *testing.F) {
	for _, s := range []string{`[]`, `[{"type":"config_delta","delta":{}}]`, "\ufeff[1]", `{}`, `[`, `[{"a":[{"b":1}]}]`, "[\n{}\n]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := eventList("events.json", b)
		if err != nil {
			return
		}
		for _, it := range items {
			it.Walk(func(n *tomlpos.Node) {
				if n.Pos.Line < 1 || n.Pos.Col < 1 || (n.Pos.Line == 1 && n.Pos.Col > len(b)+1) {
					t.Fatalf("%q: position %v outside the file", b, n.Pos)
				}
			})
		}
	})
}
