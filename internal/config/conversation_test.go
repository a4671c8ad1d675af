package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func fsPaths(tl *Tool) string {
	if tl == nil || tl.Access == nil {
		return "<none>"
	}
	var p []string
	for _, r := range tl.Access.FS {
		p = append(p, r.Path)
	}
	return strings.Join(p, " ")
}

// A conversation stored as JP writes it: base_config.json holds the
// finalised config's to_partial (lists as { value, strategy = "replace" }),
// events.json a config_delta that added a rule on a later turn (a delta's
// list is a plain Vec: appended).
func storedConversation(t *testing.T, ws string) {
	dir := filepath.Join(ws, ".jp", "conversations", "17431234567-a-title")
	write(t, filepath.Join(dir, "base_config.json"), `{"conversation": {"tools": {
  "t": {"source": "local", "run": "unattended", "enable": {"state": true, "allow_toggle": "any"},
        "access": {"fs": {"value": [{"path": "old", "read": true}], "strategy": "replace", "discard_when_merged": false}}},
  "off": {"source": "local", "enable": {"state": false, "allow_toggle": "if_named"}},
  "noaccess": {"source": "local"}}}}`)
	write(t, filepath.Join(dir, "events.json"), `[{"type": "config_delta", "timestamp": "2025-01-01T00:00:00Z", "delta": {"conversation": {"tools": {"t": {"access": {"fs": [{"path": "later", "read": true}]}}}}}}]`)
}

// TestConversationLayerOverridesBase follows config_pipeline_tests.rs
// conversation_layer_overrides_base with cmd/query.rs's
// apply_conversation_config: the stored config (ConversationStream::config,
// then to_partial) is merged over files + env, its fs list replacing the
// files' (strategy Replace), its scalars overriding theirs; a stored tool
// without access keeps the files' access.
func TestConversationLayerOverridesBase(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), `[conversation.tools.t]
source = "local"
run = "ask"
[[conversation.tools.t.access.fs]]
path = "src"
read = true
[conversation.tools.off]
source = "local"
[conversation.tools.noaccess]
source = "local"
[[conversation.tools.noaccess.access.fs]]
path = "docs"
read = true
`)
	storedConversation(t, ws)
	opts.Conversation = "jp-c17431234567"
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Diagnostics {
		t.Error(d)
	}
	if got := fsPaths(l.Tools["t"]); got != "old later" {
		t.Errorf("t fs = %q, want the stored rules only", got)
	}
	if l.Tools["t"].Run.Value != "unattended" {
		t.Errorf("run = %q", l.Tools["t"].Run.Value)
	}
	if EffectiveEnable(l.Tools["off"], l.Defaults).State {
		t.Error("the stored enable state must win")
	}
	if got := fsPaths(l.Tools["noaccess"]); got != "docs" {
		t.Errorf("noaccess fs = %q: a stored tool without access keeps the files'", got)
	}
	if l.Conversation == nil || l.Conversation.ID != "jp-c17431234567" || len(l.Conversation.Files) != 2 {
		t.Fatalf("conversation %+v", l.Conversation)
	}
	kinds := 0
	for _, ly := range l.Layers {
		if ly.Kind == LayerConversation {
			kinds++
		}
	}
	if kinds != 2 {
		t.Errorf("%d conversation layers, want base_config.json and events.json (staleness inputs)", kinds)
	}
}

// TestWithConversationPreservesCfgOverConversation follows
// config_pipeline_tests.rs with_conversation_preserves_cfg_over_conversation:
// --cfg is applied after the conversation layer.
func TestWithConversationPreservesCfgOverConversation(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), "[conversation.tools.t]\nsource = \"local\"\n")
	storedConversation(t, ws)
	opts.Conversation = "17431234567"
	opts.Cfg = []string{"conversation.tools.t.access.fs+=cfg", "conversation.tools.t.run=ask"}
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fsPaths(l.Tools["t"]); got != "old later cfg" || l.Tools["t"].Run.Value != "ask" {
		t.Errorf("fs %q run %q", got, l.Tools["t"].Run.Value)
	}
}

func TestConversationNotFound(t *testing.T) {
	_, opts := testWorkspace(t)
	for _, id := range []string{"jp-c1", "nonsense"} {
		opts.Conversation = id
		_, err := Load(opts)
		var list diag.List
		if !errors.As(err, &list) || list[0].Pos.File != "--conversation" {
			t.Errorf("%s: %v", id, err)
		}
	}
}
