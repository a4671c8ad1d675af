package config

import "github.com/jp-policy/jp-policy/internal/diag"

// Enabled is a tool's resolved `enable` state and where it was decided.
type Enabled struct {
	State bool
	// Pos is the value that decided it: the tool's own `enable`, else the
	// `conversation.tools.'*'` default; zero when neither is set (JP's
	// fallback: enabled).
	Pos diag.Position
	// FromDefaults is set when the `'*'` table decided.
	FromDefaults bool
}

// EffectiveEnable resolves whether tool t is enabled, as JP's
// ToolConfigWithDefaults::effective_enable does
// (jp_config conversation/tool.rs): the state is the tool's own, else the
// defaults' (`conversation.tools.'*'.enable`), else true
// (`self.state.or(defaults.state).unwrap_or(true)`). Each side's state is
// what JP's PartialEnableConfig holds after the layers are merged field by
// field: a boolean `enable` or a table's `state`, or a string read as
// PartialEnableConfig::from_str reads it ("true"/"on"/"always": on;
// "false"/"off"/"explicit": off, "explicit" meaning off unless a directive
// names the tool). A table that sets only allow_toggle leaves the state to
// earlier layers.
func EffectiveEnable(t, defaults *Tool) Enabled {
	if s, pos, ok := enableState(t); ok {
		return Enabled{State: s, Pos: pos}
	}
	if s, pos, ok := enableState(defaults); ok {
		return Enabled{State: s, Pos: pos, FromDefaults: true}
	}
	return Enabled{State: true}
}

// enableState is the `state` of one merged `enable`, if any layer set it.
func enableState(t *Tool) (bool, diag.Position, bool) {
	switch {
	case t == nil:
		return false, diag.Position{}, false
	case t.Enable.Set:
		return t.Enable.Value, t.Enable.Pos, true
	case t.EnableMode.Set:
		s, ok := EnableFromStr(t.EnableMode.Value)
		return s, t.EnableMode.Pos, ok
	}
	return false, diag.Position{}, false
}

// EnableFromStr is the state of PartialEnableConfig::from_str: ok is false
// for a string JP refuses (the schema reports it; the value is then left
// out, as every invalid value is).
func EnableFromStr(s string) (state, ok bool) {
	switch s {
	case "true", "on", "always":
		return true, true
	case "false", "off", "explicit":
		return false, true
	}
	return false, false
}
