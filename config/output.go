package config

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/diag"
)

// UnknownToolError is a --tool name no layer defines.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("no tool named %q in the merged config", e.Name)
}

// RelPos shows a position relative to base when the file lies below it,
// so messages stay short and stable.
func RelPos(p diag.Position, base string) diag.Position {
	if p.File == "" || base == "" || !filepath.IsAbs(p.File) {
		return p
	}
	if rel, err := filepath.Rel(base, p.File); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p.File = filepath.ToSlash(rel)
	}
	return p
}

// FormatDiagnostic renders `file:line:col: severity: message [ID]` with
// the file relative to base, plus an indented help line.
func FormatDiagnostic(d diag.Diagnostic, base string) string {
	d.Pos = RelPos(d.Pos, base)
	s := d.String()
	if d.Help != "" {
		s += "\n    help: " + d.Help
	}
	return s
}

// PrintOptions selects what WriteText and WriteJSON print.
type PrintOptions struct {
	Tool    string // "" = every tool
	Origins bool   // prefix every line with where it was written
}

func (l *Loaded) selected(tool string) ([]*Tool, error) {
	if tool != "" {
		if tool == "*" && l.Defaults != nil {
			return []*Tool{l.Defaults}, nil
		}
		t := l.Tools[tool]
		if t == nil {
			return nil, &UnknownToolError{Name: tool}
		}
		return []*Tool{t}, nil
	}
	var out []*Tool
	if l.Defaults != nil {
		out = append(out, l.Defaults)
	}
	names := make([]string, 0, len(l.Tools))
	for n := range l.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, l.Tools[n])
	}
	return out, nil
}

func toolKey(name string) string {
	if bareKey.MatchString(name) {
		return "conversation.tools." + name
	}
	return "conversation.tools." + strconv.Quote(name)
}

// WriteText prints the merged tool config one value per line, like
// `git config --list --show-origin`.
func (l *Loaded) WriteText(w io.Writer, o PrintOptions) error {
	tools, err := l.selected(o.Tool)
	if err != nil {
		return err
	}
	p := &textPrinter{w: w, o: o, base: l.Cwd}
	for _, t := range tools {
		k := toolKey(t.Name)
		p.str(k+".source", t.Source)
		if t.Enable.Set {
			p.line(k+".enable", strconv.FormatBool(t.Enable.Value), t.Enable.Pos, t.Enable.Overrode)
		}
		p.str(k+".enable", t.EnableMode)
		p.str(k+".run", t.Run)
		p.str(k+".command", t.Command)
		if a := t.Access; a != nil {
			writeList(p, k+".access.fs", a.FS, a.FSDecl, func(r FsRule) (string, diag.Position) { return fsText(r), r.Pos })
			writeList(p, k+".access.net", a.Net, a.NetDecl, func(r NetRule) (string, diag.Position) { return netText(r), r.Pos })
			writeList(p, k+".access.env", a.Env, a.EnvDecl, func(r EnvRule) (string, diag.Position) { return envText(r), r.Pos })
			writeList(p, k+".access.config", a.Config, a.ConfigDecl, func(r ConfigRule) (string, diag.Position) { return configText(r), r.Pos })
			for i, s := range a.SensitivePaths {
				p.line(fmt.Sprintf("%s.access.sensitive_paths[%d]", k, i), strconv.Quote(s.Value), s.Pos, nil)
			}
			if a.Commands != nil && len(a.Commands) == 0 && len(a.CommandsDecl) > 0 {
				p.line(k+".access.commands", "{}", a.CommandsDecl[len(a.CommandsDecl)-1], nil)
			}
			progs := make([]string, 0, len(a.Commands))
			for n := range a.Commands {
				progs = append(progs, n)
			}
			sort.Strings(progs)
			for _, n := range progs {
				c := a.Commands[n]
				p.line(k+".access.commands."+tomlKey(n), commandText(*c), c.Pos, c.Overrode)
			}
			if o.Origins {
				for _, r := range a.Replaced {
					var dropped []string
					for _, d := range r.Dropped {
						dropped = append(dropped, RelPos(d, l.Cwd).String())
					}
					fmt.Fprintf(w, "# %s.access.%s: %s at %s dropped %d earlier rule(s): %s\n", k, r.List, r.Reason,
						RelPos(r.By, l.Cwd), len(r.Dropped), strings.Join(dropped, ", "))
				}
			}
		}
	}
	return p.err
}

func writeList[T any](p *textPrinter, key string, rules []T, decl []diag.Position, text func(T) (string, diag.Position)) {
	if rules == nil {
		return
	}
	if len(rules) == 0 {
		p.line(key, "[]", decl[len(decl)-1], nil)
		return
	}
	for i, r := range rules {
		s, pos := text(r)
		p.line(fmt.Sprintf("%s[%d]", key, i), s, pos, nil)
	}
}

type textPrinter struct {
	w    io.Writer
	o    PrintOptions
	base string
	err  error
}

func (p *textPrinter) str(key string, s Str) {
	if s.Set {
		p.line(key, strconv.Quote(s.Value), s.Pos, s.Overrode)
	}
}

func (p *textPrinter) line(key, value string, pos diag.Position, overrode []diag.Position) {
	if p.err != nil {
		return
	}
	var b strings.Builder
	if p.o.Origins {
		b.WriteString(RelPos(pos, p.base).String())
		b.WriteByte('\t')
	}
	b.WriteString(key)
	b.WriteString(" = ")
	b.WriteString(value)
	if p.o.Origins && len(overrode) > 0 {
		var old []string
		for _, o := range overrode {
			old = append(old, RelPos(o, p.base).String())
		}
		b.WriteString("\t# overrides " + strings.Join(old, ", "))
	}
	b.WriteByte('\n')
	_, p.err = io.WriteString(p.w, b.String())
}

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

type field struct {
	k, v string
}

func inline(fields []field) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		parts = append(parts, f.k+" = "+f.v)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func addBool(fs []field, k string, b *bool) []field {
	if b != nil {
		fs = append(fs, field{k, strconv.FormatBool(*b)})
	}
	return fs
}

func fsText(r FsRule) string {
	fs := []field{{"path", strconv.Quote(r.Path)}}
	fs = addBool(fs, "external", r.External)
	fs = addBool(fs, "read", r.Read)
	fs = addBool(fs, "write", r.Write)
	fs = addBool(fs, "create", r.Create)
	fs = addBool(fs, "update", r.Update)
	fs = addBool(fs, "delete", r.Delete)
	fs = addBool(fs, "execute", r.Execute)
	return inline(fs)
}

func netText(r NetRule) string {
	fs := []field{{"host", strconv.Quote(r.Host)}}
	if r.Scheme != nil {
		fs = append(fs, field{"scheme", strconv.Quote(*r.Scheme)})
	}
	if r.Port != nil {
		fs = append(fs, field{"port", strconv.FormatInt(*r.Port, 10)})
	}
	if r.PathPrefix != nil {
		fs = append(fs, field{"path_prefix", strconv.Quote(*r.PathPrefix)})
	}
	return inline(addBool(fs, "allow", r.Allow))
}

func envText(r EnvRule) string {
	return inline(addBool([]field{{"name", strconv.Quote(r.Name)}}, "read", r.Read))
}

func configText(r ConfigRule) string {
	fs := addBool([]field{{"path", strconv.Quote(r.Path)}}, "read", r.Read)
	switch w := r.Write.(type) {
	case bool:
		fs = append(fs, field{"write", strconv.FormatBool(w)})
	case string:
		fs = append(fs, field{"write", strconv.Quote(w)})
	}
	fs = addBool(fs, "delete", r.Delete)
	if r.Apply != nil {
		fs = append(fs, field{"apply", strconv.Quote(*r.Apply)})
	}
	return inline(fs)
}

func strList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func commandText(c CommandRule) string {
	var fs []field
	if c.Args != nil {
		outer := make([]string, len(c.Args))
		for i, a := range c.Args {
			outer[i] = strList(a)
		}
		fs = append(fs, field{"args", "[" + strings.Join(outer, ", ") + "]"})
	}
	if c.Envs != nil {
		fs = append(fs, field{"envs", strList(c.Envs)})
	}
	if len(fs) == 0 {
		return "{}"
	}
	return inline(fs)
}

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
	Origin  string      `json:"origin"`
	Source  *jsonValue  `json:"source,omitempty"`
	Enable  *jsonValue  `json:"enable,omitempty"`
	Run     *jsonValue  `json:"run,omitempty"`
	Command *jsonValue  `json:"command,omitempty"`
	Access  *jsonAccess `json:"access,omitempty"`
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
