package config

import (
	"fmt"
	"github.com/jp-policy/jp-policy/internal/tomlquote"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
)

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
		p.str(k+".enable.allow_toggle", t.AllowToggle)
		p.str(k+".run", t.Run)
		p.str(k+".command", t.Command)
		if a := t.Access; a != nil {
			writeList(p, k+".access.fs", a.FS, a.FSDecl, func(r FsRule) (string, diag.Position) { return fsText(r), r.Pos })
			writeList(p, k+".access.net", a.Net, a.NetDecl, func(r NetRule) (string, diag.Position) { return netText(r), r.Pos })
			writeList(p, k+".access.env", a.Env, a.EnvDecl, func(r EnvRule) (string, diag.Position) { return envText(r), r.Pos })
			writeList(p, k+".access.config", a.Config, a.ConfigDecl, func(r ConfigRule) (string, diag.Position) { return configText(r), r.Pos })
			for i, s := range a.SensitivePaths {
				p.line(fmt.Sprintf("%s.access.sensitive_paths[%d]", k, i), tomlquote.String(s.Value), s.Pos, nil)
			}
			if a.Commands != nil && len(a.Commands) == 0 && len(a.CommandsDecl) > 0 {
				p.line(k+".access.commands", "{}", a.CommandsDecl[len(a.CommandsDecl)-1], nil)
			}
			for _, n := range slices.Sorted(maps.Keys(a.Commands)) {
				c := a.Commands[n]
				p.line(k+".access.commands."+tomlquote.Key(n), commandText(*c), c.Pos, c.Overrode)
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
		p.line(key, tomlquote.String(s.Value), s.Pos, s.Overrode)
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
	fs := []field{{"path", tomlquote.String(r.Path)}}
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
	fs := []field{{"host", tomlquote.String(r.Host)}}
	if r.Scheme != nil {
		fs = append(fs, field{"scheme", tomlquote.String(*r.Scheme)})
	}
	if r.Port != nil {
		fs = append(fs, field{"port", strconv.FormatInt(*r.Port, 10)})
	}
	if r.PathPrefix != nil {
		fs = append(fs, field{"path_prefix", tomlquote.String(*r.PathPrefix)})
	}
	return inline(addBool(fs, "allow", r.Allow))
}

func envText(r EnvRule) string {
	return inline(addBool([]field{{"name", tomlquote.String(r.Name)}}, "read", r.Read))
}

func configText(r ConfigRule) string {
	fs := addBool([]field{{"path", tomlquote.String(r.Path)}}, "read", r.Read)
	switch w := r.Write.(type) {
	case bool:
		fs = append(fs, field{"write", strconv.FormatBool(w)})
	case string:
		fs = append(fs, field{"write", tomlquote.String(w)})
	}
	fs = addBool(fs, "delete", r.Delete)
	if r.Apply != nil {
		fs = append(fs, field{"apply", tomlquote.String(*r.Apply)})
	}
	return inline(fs)
}

func strList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = tomlquote.String(v)
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
