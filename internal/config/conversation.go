package config

import (
	"errors"
	"path/filepath"
	"slices"

	"github.com/jp-policy/jp-policy/internal/convstore"
	"github.com/jp-policy/jp-policy/internal/diag"
)

// Conversation is the stored conversation whose config Load merged
// (Options.Conversation).
type Conversation struct {
	ID    string // jp-c<deciseconds>
	Title string
	Dir   string   // the directory read
	Files []string // base_config.json (when present) and events.json
	// Tools lists the stored tools, by name, with where each was stored.
	Tools map[string]diag.Position
}

// conversationLayer merges a stored conversation's config as JP does when
// it continues the conversation (jp_cli lib.rs, then config_pipeline.rs
// partial_with_conversation: files + env < conversation < --cfg). The
// layer is cmd/query.rs's apply_conversation_config:
// `events(handle)?.config()` (ConversationStream::config: base_config
// merged with every config_delta in order, then finalised), turned back
// into a partial with to_partial, whose MergeableVecs come back as
// `{ strategy = "replace" }`: a stored tool's fs rules replace the files'
// whatever they say now, and every stored scalar (source, run, command,
// the enable state) overrides theirs.
func (ld *loader) conversationLayer(id string) error {
	at := diag.Position{File: "--conversation"}
	deci, err := convstore.ParseID(id)
	if err != nil {
		return diag.List{{Pos: at, Severity: diag.Error, Message: err.Error(),
			Help: "give an id `jp conversation ls` prints, or `jp-policy lint --conversations` lists"}}
	}
	s, err := convstore.Find(convstore.Roots{Workspace: filepath.Join(ld.l.Root, ".jp"), User: ld.userDir}, deci)
	if err != nil {
		if nf, ok := errors.AsType[*convstore.NotFoundError](err); ok {
			return diag.List{{Pos: at, Severity: diag.Error, Message: nf.Error(),
				Help: "`jp conversation ls` lists the stored conversations; an archived one (jp conversation unarchive) is not continued"}}
		}
		return err
	}
	c, err := s.Read()
	if err != nil {
		return err
	}
	stored := &Loaded{Tools: map[string]*Tool{}}
	sm := newMerger(stored)
	for _, layer := range c.Layers {
		sm.apply(layer)
	}
	for _, f := range s.Files {
		ld.l.Files[f] = c.Files[f]
		ld.l.Layers = append(ld.l.Layers, Layer{Kind: LayerConversation, Path: f})
	}
	conv := &Conversation{ID: s.ID, Title: s.Title, Dir: s.Dir, Files: s.Files, Tools: map[string]diag.Position{}}
	for name, t := range stored.Tools {
		conv.Tools[name] = t.Pos
	}
	ld.l.Conversation = conv
	ld.m.applyStored(stored)
	return nil
}

// applyStored merges a stored conversation's finalised config (to_partial)
// over the config built so far.
func (m *merger) applyStored(s *Loaded) {
	if s.Defaults != nil {
		if m.l.Defaults == nil {
			m.l.Defaults = &Tool{Name: "*", Pos: s.Defaults.Pos}
		}
		m.storedTool(m.l.Defaults, s.Defaults)
	}
	for name, st := range s.Tools {
		t := m.l.Tools[name]
		if t == nil {
			t = &Tool{Name: name, Pos: st.Pos}
			m.l.Tools[name] = t
		}
		m.storedTool(t, st)
	}
}

func (m *merger) storedTool(t, st *Tool) {
	for _, f := range []struct{ dst, src *Str }{{&t.Source, &st.Source}, {&t.Run, &st.Run}, {&t.Command, &st.Command}, {&t.AllowToggle, &st.AllowToggle}} {
		if f.src.Set {
			setStr(f.dst, f.src.Value, f.src.Pos)
		}
	}
	// The finalised EnableConfig's to_partial carries its state whatever
	// form it was written in ("explicit" comes back as state = false).
	if state, pos, ok := enableState(st); ok {
		prev := t.EnableMode
		setBool(&t.Enable, state, pos)
		if prev.Set {
			t.Enable.Overrode = append(t.Enable.Overrode, append(prev.Overrode, prev.Pos)...)
			t.EnableMode = Str{}
		}
	}
	if st.Access == nil {
		return // access: None in the stored config: the files' stays
	}
	if t.Access == nil {
		t.Access = &Access{Pos: st.Access.Pos}
	}
	a := t.Access
	ms := m.state[a]
	if ms == nil {
		ms = &accessState{}
		m.state[a] = ms
	}
	// AccessConfig.fs is a plain Vec once finalised: to_partial gives
	// `{ value = [...], strategy = "replace" }` (vec_to_mergeable_partial),
	// an empty one too.
	at := st.Access.Pos // where the stored tool's access was first written
	items := slices.Clone(st.Access.FS)
	if items == nil {
		items = []FsRule{}
	}
	a.FS = mergeVec(a, "fs", a.FS, &ms.fs, vecInput[FsRule]{pos: at, items: items, strategy: strategyReplace}, fsKey, func(r FsRule) diag.Position { return r.Pos })
	a.FSDecl = append(a.FSDecl, at)
	// JP's AccessConfig has no other list (its stored partial names none):
	// like any access table without them, an empty list is merged.
	if m.implicit(ms.net) {
		a.Net = mergeVec(a, "net", a.Net, &ms.net, implicitVec[NetRule](at), netKey, func(r NetRule) diag.Position { return r.Pos })
	}
	if m.implicit(ms.env) {
		a.Env = mergeVec(a, "env", a.Env, &ms.env, implicitVec[EnvRule](at), envKey, func(r EnvRule) diag.Position { return r.Pos })
	}
	if m.implicit(ms.config) {
		a.Config = mergeVec(a, "config", a.Config, &ms.config, implicitVec[ConfigRule](at), configKey, func(r ConfigRule) diag.Position { return r.Pos })
	}
	if m.implicit(ms.sens) {
		a.SensitivePaths = mergeVec(a, "sensitive_paths", a.SensitivePaths, &ms.sens, implicitVec[Str](at),
			func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
	}
}
