package config

import (
	"encoding/json"
	"io"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// JSON output. Maps marshal with sorted keys and lists keep merge order,
// so the output is stable for a given set of files.

type jsonValue struct {
	Value    any      `json:"value"`
	Origin   string   `json:"origin"`
	Overrode []string `json:"overrode,omitempty"`
}

type jsonRule struct {
	Rule   any    `json:"rule"`
	Origin string `json:"origin"`
}

type jsonAccess struct {
	Origin         string              `json:"origin"`
	FS             *[]jsonRule         `json:"fs,omitempty"`
	Net            *[]jsonRule         `json:"net,omitempty"`
	Env            *[]jsonRule         `json:"env,omitempty"`
	Config         *[]jsonRule         `json:"config,omitempty"`
	Commands       map[string]jsonRule `json:"commands,omitempty"`
	SensitivePaths []jsonValue         `json:"sensitive_paths,omitempty"`
	Replaced       []jsonReplacement   `json:"replaced,omitempty"`
}

type jsonReplacement struct {
	List    string   `json:"list"`
	By      string   `json:"by"`
	Reason  string   `json:"reason"`
	Dropped []string `json:"dropped"`
}

type jsonTool struct {
	Origin string     `json:"origin"`
	Source *jsonValue `json:"source,omitempty"`
	Enable *jsonValue `json:"enable,omitempty"`
	// AllowToggle is enable.allow_toggle of the table form.
	AllowToggle *jsonValue  `json:"allow_toggle,omitempty"`
	Run         *jsonValue  `json:"run,omitempty"`
	Command     *jsonValue  `json:"command,omitempty"`
	Access      *jsonAccess `json:"access,omitempty"`
}

type jsonLoaded struct {
	Root        string              `json:"root"`
	Layers      []Layer             `json:"layers"`
	Tools       map[string]jsonTool `json:"tools"`
	Defaults    *jsonTool           `json:"defaults,omitempty"`
	Candidates  []string            `json:"candidates"`
	Skipped     []string            `json:"skipped,omitempty"`
	Diagnostics diag.List           `json:"diagnostics"`
}

// WriteJSON prints the merged tool config as indented, stable JSON, with
// every value's origin.
func (l *Loaded) WriteJSON(w io.Writer, o PrintOptions) error {
	tools, err := l.selected(o.Tool)
	if err != nil {
		return err
	}
	rel := func(p diag.Position) string { return RelPos(p, l.Cwd).String() }
	rels := func(ps []diag.Position) []string {
		var out []string
		for _, p := range ps {
			out = append(out, rel(p))
		}
		return out
	}
	val := func(v any, pos diag.Position, overrode []diag.Position) *jsonValue {
		return &jsonValue{Value: v, Origin: rel(pos), Overrode: rels(overrode)}
	}
	out := jsonLoaded{Root: l.Root, Tools: map[string]jsonTool{}, Diagnostics: diag.List{}}
	for _, ly := range l.Layers {
		ly.Path = RelPos(diag.Position{File: ly.Path}, l.Cwd).File
		if ly.ExtendedBy != "" {
			ly.ExtendedBy = RelPos(diag.Position{File: ly.ExtendedBy}, l.Cwd).File
		}
		out.Layers = append(out.Layers, ly)
	}
	out.Candidates = []string{}
	for _, c := range l.Candidates {
		out.Candidates = append(out.Candidates, RelPos(diag.Position{File: c}, l.Cwd).File)
	}
	for _, c := range l.Skipped {
		out.Skipped = append(out.Skipped, RelPos(diag.Position{File: c}, l.Cwd).File)
	}
	for _, d := range l.Diagnostics {
		d.Pos = RelPos(d.Pos, l.Cwd)
		out.Diagnostics = append(out.Diagnostics, d)
	}
	for _, t := range tools {
		jt := jsonTool{Origin: rel(t.Pos)}
		if t.Source.Set {
			jt.Source = val(t.Source.Value, t.Source.Pos, t.Source.Overrode)
		}
		if t.Enable.Set {
			jt.Enable = val(t.Enable.Value, t.Enable.Pos, t.Enable.Overrode)
		} else if t.EnableMode.Set {
			jt.Enable = val(t.EnableMode.Value, t.EnableMode.Pos, t.EnableMode.Overrode)
		}
		if t.AllowToggle.Set {
			jt.AllowToggle = val(t.AllowToggle.Value, t.AllowToggle.Pos, t.AllowToggle.Overrode)
		}
		if t.Run.Set {
			jt.Run = val(t.Run.Value, t.Run.Pos, t.Run.Overrode)
		}
		if t.Command.Set {
			jt.Command = val(t.Command.Value, t.Command.Pos, t.Command.Overrode)
		}
		if a := t.Access; a != nil {
			ja := &jsonAccess{Origin: rel(a.Pos)}
			ja.FS = jsonRules(a.FS, func(r FsRule) (any, diag.Position) { return fsJSON(r), r.Pos }, rel)
			ja.Net = jsonRules(a.Net, func(r NetRule) (any, diag.Position) { return netJSON(r), r.Pos }, rel)
			ja.Env = jsonRules(a.Env, func(r EnvRule) (any, diag.Position) { return envJSON(r), r.Pos }, rel)
			ja.Config = jsonRules(a.Config, func(r ConfigRule) (any, diag.Position) { return configJSON(r), r.Pos }, rel)
			if a.Commands != nil {
				ja.Commands = map[string]jsonRule{}
				for n, c := range a.Commands {
					m := map[string]any{}
					if c.Args != nil {
						m["args"] = c.Args
					}
					if c.Envs != nil {
						m["envs"] = c.Envs
					}
					ja.Commands[n] = jsonRule{Rule: m, Origin: rel(c.Pos)}
				}
			}
			for _, s := range a.SensitivePaths {
				ja.SensitivePaths = append(ja.SensitivePaths, *val(s.Value, s.Pos, nil))
			}
			for _, r := range a.Replaced {
				ja.Replaced = append(ja.Replaced, jsonReplacement{List: r.List, By: rel(r.By), Reason: r.Reason, Dropped: rels(r.Dropped)})
			}
			jt.Access = ja
		}
		if t == l.Defaults {
			out.Defaults = &jt
		} else {
			out.Tools[t.Name] = jt
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func jsonRules[T any](rules []T, conv func(T) (any, diag.Position), rel func(diag.Position) string) *[]jsonRule {
	if rules == nil {
		return nil
	}
	out := make([]jsonRule, 0, len(rules))
	for _, r := range rules {
		v, pos := conv(r)
		out = append(out, jsonRule{Rule: v, Origin: rel(pos)})
	}
	return &out
}

func fsJSON(r FsRule) map[string]any {
	m := map[string]any{"path": r.Path}
	for k, v := range map[string]*bool{"external": r.External, "read": r.Read, "write": r.Write, "create": r.Create,
		"update": r.Update, "delete": r.Delete, "execute": r.Execute} {
		if v != nil {
			m[k] = *v
		}
	}
	return m
}

func netJSON(r NetRule) map[string]any {
	m := map[string]any{"host": r.Host}
	if r.Scheme != nil {
		m["scheme"] = *r.Scheme
	}
	if r.Port != nil {
		m["port"] = *r.Port
	}
	if r.PathPrefix != nil {
		m["path_prefix"] = *r.PathPrefix
	}
	if r.Allow != nil {
		m["allow"] = *r.Allow
	}
	return m
}

func envJSON(r EnvRule) map[string]any {
	m := map[string]any{"name": r.Name}
	if r.Read != nil {
		m["read"] = *r.Read
	}
	return m
}

func configJSON(r ConfigRule) map[string]any {
	m := map[string]any{"path": r.Path}
	if r.Read != nil {
		m["read"] = *r.Read
	}
	if r.Write != nil {
		m["write"] = r.Write
	}
	if r.Delete != nil {
		m["delete"] = *r.Delete
	}
	if r.Apply != nil {
		m["apply"] = *r.Apply
	}
	return m
}
