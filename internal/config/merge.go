package config

import (
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// merger folds layer trees into a Loaded, one layer at a time, in JP's
// order. It keeps the MergeableVec state (dedup, discard_when_merged) that
// the model does not expose.
type merger struct {
	l     *Loaded
	state map[*Access]*accessState
	// assigning is set while a --cfg KEY=VALUE layer is applied: JP
	// assigns those into the config built so far (apply_cfg_args), so an
	// access table they touch is not a partial merged over the earlier
	// layers and names no implicit empty list.
	assigning bool
}

type vecMeta struct {
	set     bool // a layer has declared the list: later layers merge into it
	dedup   bool // sticky once on, until a layer says dedup = false
	discard bool // drop this value whatever the next layer's strategy
}

type accessState struct {
	fs, net, env, config, sens vecMeta
}

func newMerger(l *Loaded) *merger {
	return &merger{l: l, state: map[*Access]*accessState{}}
}

// written is where a key-value was written: its key, or the value when the
// key is unknown (array elements).
func written(n *tomlpos.Node) diag.Position {
	if n.KeyPos.IsZero() {
		return n.Pos
	}
	// The whole declaration, `net = []`: from the key to the end of its
	// value (or of the [[header]] that declared it).
	p := n.KeyPos
	if v := n.Pos; v.File == p.File && v.HasEnd() && (v.EndLine > p.EndLine || (v.EndLine == p.EndLine && v.EndCol > p.EndCol)) {
		p.EndLine, p.EndCol = v.EndLine, v.EndCol
	}
	return p
}

func (m *merger) apply(root *tomlpos.Node) {
	tools := root.Get("conversation").Get("tools")
	if tools == nil {
		return
	}
	for _, name := range tools.Keys {
		tn := tools.Fields[name]
		if tn.Kind != tomlpos.Table {
			continue // the schema reports it
		}
		var t *Tool
		if name == "*" {
			if m.l.Defaults == nil {
				m.l.Defaults = &Tool{Name: name, Pos: tn.Pos}
			}
			t = m.l.Defaults
		} else {
			if m.l.Tools == nil {
				m.l.Tools = map[string]*Tool{}
			}
			if t = m.l.Tools[name]; t == nil {
				t = &Tool{Name: name, Pos: tn.Pos}
				m.l.Tools[name] = t
			}
		}
		m.applyTool(t, tn)
	}
}

func setStr(dst *Str, value string, pos diag.Position) {
	next := Str{Value: value, Pos: pos, Set: true}
	if dst.Set {
		next.Overrode = append(slices.Clone(dst.Overrode), dst.Pos)
	}
	*dst = next
}

func setBool(dst *Bool, value bool, pos diag.Position) {
	next := Bool{Value: value, Pos: pos, Set: true}
	if dst.Set {
		next.Overrode = append(slices.Clone(dst.Overrode), dst.Pos)
	}
	*dst = next
}

func (m *merger) applyTool(t *Tool, tn *tomlpos.Node) {
	if n := tn.Get("source"); n != nil && n.Kind == tomlpos.String {
		setStr(&t.Source, n.Str, written(n))
	}
	if n := tn.Get("run"); n != nil && n.Kind == tomlpos.String {
		setStr(&t.Run, n.Str, written(n))
	}
	if n := tn.Get("enable"); n != nil {
		// The two forms are one key: whichever was written last wins and
		// remembers the other as overridden.
		switch n.Kind {
		case tomlpos.Bool, tomlpos.String:
			// JP's bool and string forms set allow_toggle too (From<bool>,
			// FromStr): an earlier table's allow_toggle no longer holds.
			t.AllowToggle = Str{}
		}
		switch n.Kind {
		case tomlpos.Bool:
			prev := t.EnableMode
			setBool(&t.Enable, n.Bool, written(n))
			if prev.Set {
				t.Enable.Overrode = append(t.Enable.Overrode, append(prev.Overrode, prev.Pos)...)
				t.EnableMode = Str{}
			}
		case tomlpos.String:
			prev := t.Enable
			setStr(&t.EnableMode, n.Str, written(n))
			if prev.Set {
				t.EnableMode.Overrode = append(t.EnableMode.Overrode, append(prev.Overrode, prev.Pos)...)
				t.Enable = Bool{}
			}
		case tomlpos.Table:
			// Only the fields written change, as in JP's field-wise merge
			// of EnableConfig.
			if s := n.Get("state"); s != nil && s.Kind == tomlpos.Bool {
				prev := t.EnableMode
				setBool(&t.Enable, s.Bool, written(s))
				if prev.Set {
					t.Enable.Overrode = append(t.Enable.Overrode, append(prev.Overrode, prev.Pos)...)
					t.EnableMode = Str{}
				}
			}
			if a := n.Get("allow_toggle"); a != nil && a.Kind == tomlpos.String {
				setStr(&t.AllowToggle, a.Str, written(a))
			}
		}
	}
	if n := tn.Get("command"); n != nil {
		switch n.Kind {
		case tomlpos.String:
			setStr(&t.Command, n.Str, written(n))
		case tomlpos.Table:
			if p := n.Get("program"); p != nil && p.Kind == tomlpos.String {
				parts := []string{p.Str}
				if a := n.Get("args"); a != nil && a.Kind == tomlpos.Array {
					for _, it := range a.Items {
						if it.Kind == tomlpos.String {
							parts = append(parts, it.Str)
						}
					}
				}
				setStr(&t.Command, strings.Join(parts, " "), written(n))
			}
		}
	}
	if an := tn.Get("access"); an != nil && an.Kind == tomlpos.Table {
		m.applyAccess(t, an)
	}
}

func (m *merger) applyAccess(t *Tool, an *tomlpos.Node) {
	if t.Access == nil {
		t.Access = &Access{Pos: written(an)}
	}
	a := t.Access
	st := m.state[a]
	if st == nil {
		st = &accessState{}
		m.state[a] = st
	}
	at := written(an)
	if n := an.Get("fs"); n != nil {
		if in, ok := parseVec(n, decodeFS); ok {
			a.FS = mergeVec(a, "fs", a.FS, &st.fs, in, fsKey, func(r FsRule) diag.Position { return r.Pos })
			a.FSDecl = append(a.FSDecl, written(n))
		}
	} else if m.implicit(st.fs) {
		a.FS = mergeVec(a, "fs", a.FS, &st.fs, implicitVec[FsRule](at), fsKey, func(r FsRule) diag.Position { return r.Pos })
	}
	if n := an.Get("net"); n != nil {
		if in, ok := parseVec(n, decodeNet); ok {
			a.Net = mergeVec(a, "net", a.Net, &st.net, in, netKey, func(r NetRule) diag.Position { return r.Pos })
			a.NetDecl = append(a.NetDecl, written(n))
		}
	} else if m.implicit(st.net) {
		a.Net = mergeVec(a, "net", a.Net, &st.net, implicitVec[NetRule](at), netKey, func(r NetRule) diag.Position { return r.Pos })
	}
	if n := an.Get("env"); n != nil {
		if in, ok := parseVec(n, decodeEnv); ok {
			a.Env = mergeVec(a, "env", a.Env, &st.env, in, envKey, func(r EnvRule) diag.Position { return r.Pos })
			a.EnvDecl = append(a.EnvDecl, written(n))
		}
	} else if m.implicit(st.env) {
		a.Env = mergeVec(a, "env", a.Env, &st.env, implicitVec[EnvRule](at), envKey, func(r EnvRule) diag.Position { return r.Pos })
	}
	if n := an.Get("config"); n != nil {
		if in, ok := parseVec(n, decodeConfig); ok {
			a.Config = mergeVec(a, "config", a.Config, &st.config, in, configKey, func(r ConfigRule) diag.Position { return r.Pos })
			a.ConfigDecl = append(a.ConfigDecl, written(n))
		}
	} else if m.implicit(st.config) {
		a.Config = mergeVec(a, "config", a.Config, &st.config, implicitVec[ConfigRule](at), configKey, func(r ConfigRule) diag.Position { return r.Pos })
	}
	if n := an.Get("sensitive_paths"); n != nil {
		if in, ok := parseVec(n, decodeStr); ok {
			a.SensitivePaths = mergeVec(a, "sensitive_paths", a.SensitivePaths, &st.sens, in,
				func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
		}
	} else if m.implicit(st.sens) {
		a.SensitivePaths = mergeVec(a, "sensitive_paths", a.SensitivePaths, &st.sens, implicitVec[Str](at),
			func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
	}
	if n := an.Get("commands"); n != nil && n.Kind == tomlpos.Table {
		if a.Commands == nil {
			a.Commands = map[string]*CommandRule{}
		}
		a.CommandsDecl = append(a.CommandsDecl, written(n))
		for _, prog := range n.Keys {
			r, ok := decodeCommand(prog, n.Fields[prog])
			if !ok {
				continue
			}
			// A later layer replaces the whole entry for a program: args
			// from two layers are never combined into a wider grant.
			if old := a.Commands[prog]; old != nil {
				r.Overrode = append(slices.Clone(old.Overrode), old.Pos)
			}
			a.Commands[prog] = &r
		}
	}
}

// implicit reports whether an access table that does not name a list
// merges an empty one into it. In JP a partial's MergeableVec field is
// never absent: an `access` table without `fs` deserialises with
// MergeableVec::default(), a plain empty list (partials are
// #[serde(default)]), and schematic's merge_nested_map_setting always
// runs vec_with_strategy on it. Appending nothing changes nothing, but a
// previous value marked discard_when_merged is dropped: the rules are
// gone. That holds for every layer merged as a partial (files, the env
// layer, the conversation layer, --cfg files), not for --cfg KEY=VALUE,
// which JP assigns into the config built so far. Before any layer wrote
// the list there is nothing to drop, and the empty first value would only
// move when dedup starts to apply, which changes no rule set.
func (m *merger) implicit(meta vecMeta) bool {
	return !m.assigning && meta.set
}

// implicitVec is the empty list an access table without the list stands
// for, written where the table was.
func implicitVec[T any](at diag.Position) vecInput[T] {
	return vecInput[T]{pos: at, items: []T{}, strategy: strategyAppend, implicit: true}
}
