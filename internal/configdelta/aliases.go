package configdelta

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// Aliases is the model alias map jp-policy could read from the workspace
// config (`providers.llm.aliases`): alias → "provider/name". JP also has
// aliases of its own that jp-policy does not know, so a missing alias is
// reported as unresolved, never guessed.
type Aliases struct {
	m      map[string]string
	source string // what was read, for messages
}

// NewAliases wraps a ready map (tests, callers with their own source).
func NewAliases(m map[string]string, source string) *Aliases {
	return &Aliases{m: m, source: source}
}

// Resolve returns the alias's "provider/name" and whether it is known.
func (a *Aliases) Resolve(alias string) (string, bool) {
	if a == nil {
		return "", false
	}
	v, ok := a.m[alias]
	return v, ok
}

// describe is the note a leaf written through an alias carries.
func (a *Aliases) describe(alias string) string {
	if v, ok := a.Resolve(alias); ok {
		return fmt.Sprintf("alias %q resolves to %s (%s)", alias, v, a.source)
	}
	where := "no workspace config was read"
	if a != nil {
		where = "it is not in " + a.source
	}
	return fmt.Sprintf("alias %q needs resolution: %s; JP resolves it with its own alias map or rejects the delta as invalid_config", alias, where)
}

// LoadAliases reads `providers.llm.aliases` from the loaded layers in merge
// order, later layers overriding earlier ones per alias. JP_CFG_
// variables are not consulted.
func LoadAliases(l *config.Loaded) *Aliases {
	a := &Aliases{m: map[string]string{}, source: "the workspace's providers.llm.aliases"}
	for _, layer := range l.Layers {
		data, ok := l.Files[layer.Path]
		if !ok {
			continue
		}
		var root *tomlpos.Node
		var err error
		switch strings.ToLower(filepath.Ext(layer.Path)) {
		case ".toml":
			root, err = tomlpos.ParseTOML(layer.Path, data)
		case ".json":
			root, err = tomlpos.ParseJSON(layer.Path, data)
		default:
			continue
		}
		if err != nil {
			continue // Load already reported it
		}
		tbl, n := root.Lookup([]string{"providers", "llm", "aliases"})
		if n != 3 || tbl.Kind != tomlpos.Table {
			continue
		}
		for _, k := range tbl.Keys {
			if v := modelIDString(tbl.Fields[k]); v != "" {
				a.m[k] = v
			}
		}
	}
	return a
}

// modelIDString reads a model id value, "provider/name" or {provider,
// name}, as "provider/name"; "" when it is neither.
func modelIDString(n *tomlpos.Node) string {
	switch n.Kind {
	case tomlpos.String:
		if p, name, ok := strings.Cut(n.Str, "/"); ok && p != "" && name != "" {
			return n.Str
		}
	case tomlpos.Table:
		p, name := n.Get("provider"), n.Get("name")
		if p != nil && name != nil && p.Kind == tomlpos.String && name.Kind == tomlpos.String {
			return p.Str + "/" + name.Str
		}
	}
	return ""
}
