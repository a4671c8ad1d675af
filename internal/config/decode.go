package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// The decoders turn one rule table into a model rule. A field of the
// wrong type is left unset, which reads as "not granted": the schema has
// already reported it, and an invalid value must never widen a grant.

func ruleKeys(n *tomlpos.Node) Keys {
	k := make(Keys, len(n.Keys))
	for i, name := range n.Keys {
		k[i] = Key{Name: name, Pos: n.Fields[name].Pos}
	}
	return k
}

func boolField(n *tomlpos.Node, key string) *bool {
	if f := n.Get(key); f != nil && f.Kind == tomlpos.Bool {
		b := f.Bool
		return &b
	}
	return nil
}

func strField(n *tomlpos.Node, key string) (string, bool) {
	if f := n.Get(key); f != nil && f.Kind == tomlpos.String {
		return f.Str, true
	}
	return "", false
}

func strPtr(n *tomlpos.Node, key string) *string {
	if s, ok := strField(n, key); ok {
		return &s
	}
	return nil
}

func decodeFS(n *tomlpos.Node) (FsRule, bool) {
	if n.Kind != tomlpos.Table {
		return FsRule{}, false
	}
	path, ok := strField(n, "path")
	if !ok {
		return FsRule{}, false
	}
	return FsRule{
		Pos: n.Pos, Keys: ruleKeys(n), Path: path,
		External: boolField(n, "external"),
		Read:     boolField(n, "read"),
		Write:    boolField(n, "write"),
		Create:   boolField(n, "create"),
		Update:   boolField(n, "update"),
		Delete:   boolField(n, "delete"),
		Execute:  boolField(n, "execute"),
	}, true
}

func decodeNet(n *tomlpos.Node) (NetRule, bool) {
	if n.Kind != tomlpos.Table {
		return NetRule{}, false
	}
	host, ok := strField(n, "host")
	if !ok {
		return NetRule{}, false
	}
	r := NetRule{Pos: n.Pos, Keys: ruleKeys(n), Host: host,
		Scheme: strPtr(n, "scheme"), PathPrefix: strPtr(n, "path_prefix"), Allow: boolField(n, "allow")}
	if p := n.Get("port"); p != nil {
		if p.Kind == tomlpos.Float && p.Float == math.Trunc(p.Float) && math.Abs(p.Float) <= 1<<20 {
			// JSON Schema counts 443.0 as an integer, so it is one here too.
			p = &tomlpos.Node{Kind: tomlpos.Integer, Int: int64(p.Float), Pos: p.Pos}
		}
		if p.Kind != tomlpos.Integer || p.Int < 1 || p.Int > 65535 {
			// A port that cannot exist cannot be dropped either (that
			// would match the scheme's default port instead): the rule
			// goes, and the schema error stops compilation.
			return NetRule{}, false
		}
		v := p.Int
		r.Port = &v
	}
	return r, true
}

func decodeEnv(n *tomlpos.Node) (EnvRule, bool) {
	if n.Kind != tomlpos.Table {
		return EnvRule{}, false
	}
	name, ok := strField(n, "name")
	if !ok {
		return EnvRule{}, false
	}
	return EnvRule{Pos: n.Pos, Keys: ruleKeys(n), Name: name, Read: boolField(n, "read")}, true
}

func decodeConfig(n *tomlpos.Node) (ConfigRule, bool) {
	if n.Kind != tomlpos.Table {
		return ConfigRule{}, false
	}
	path, ok := strField(n, "path")
	if !ok {
		return ConfigRule{}, false
	}
	r := ConfigRule{Pos: n.Pos, Keys: ruleKeys(n), Path: path,
		Read: boolField(n, "read"), Delete: boolField(n, "delete"), Apply: strPtr(n, "apply")}
	if w := n.Get("write"); w != nil {
		switch {
		case w.Kind == tomlpos.Bool:
			r.Write = w.Bool
		case w.Kind == tomlpos.String && w.Str == "insecure_allow":
			r.Write = w.Str
		}
	}
	return r, true
}

func decodeStr(n *tomlpos.Node) (Str, bool) {
	if n.Kind != tomlpos.String {
		return Str{}, false
	}
	return Str{Value: n.Str, Pos: n.Pos, Set: true}, true
}

func decodeCommand(prog string, n *tomlpos.Node) (CommandRule, bool) {
	if n == nil || n.Kind != tomlpos.Table {
		return CommandRule{}, false
	}
	r := CommandRule{Pos: n.Pos, Keys: ruleKeys(n), Program: prog}
	if a := n.Get("args"); a != nil {
		// Malformed args narrow to "no argument list allowed" rather than
		// falling back to nil, which means any arguments.
		r.Args = [][]string{}
		if a.Kind == tomlpos.Array {
			for _, it := range a.Items {
				if it.Kind != tomlpos.Array {
					continue
				}
				var prefix []string
				good := true
				for _, s := range it.Items {
					if s.Kind != tomlpos.String {
						good = false
						break
					}
					prefix = append(prefix, s.Str)
				}
				if good {
					if prefix == nil {
						prefix = []string{}
					}
					r.Args = append(r.Args, prefix)
				}
			}
		}
	}
	if e := n.Get("envs"); e != nil {
		r.Envs = []string{}
		if e.Kind == tomlpos.Array {
			for _, it := range e.Items {
				if it.Kind == tomlpos.String {
					r.Envs = append(r.Envs, it.Str)
				}
			}
		}
	}
	return r, true
}

// The keys identify rules for dedup: equal content, positions ignored.

func optBool(b *bool) string {
	if b == nil {
		return "-"
	}
	return strconv.FormatBool(*b)
}

func optStr(s *string) string {
	if s == nil {
		return "-"
	}
	return strconv.Quote(*s)
}

func fsKey(r FsRule) string {
	return strings.Join([]string{strconv.Quote(r.Path), optBool(r.External), optBool(r.Read), optBool(r.Write),
		optBool(r.Create), optBool(r.Update), optBool(r.Delete), optBool(r.Execute)}, "|")
}

func netKey(r NetRule) string {
	port := "-"
	if r.Port != nil {
		port = strconv.FormatInt(*r.Port, 10)
	}
	return strings.Join([]string{strconv.Quote(r.Host), optStr(r.Scheme), port, optStr(r.PathPrefix), optBool(r.Allow)}, "|")
}

func envKey(r EnvRule) string { return strconv.Quote(r.Name) + "|" + optBool(r.Read) }

func configKey(r ConfigRule) string {
	return strings.Join([]string{strconv.Quote(r.Path), optBool(r.Read), fmt.Sprintf("%T:%v", r.Write, r.Write),
		optBool(r.Delete), optStr(r.Apply)}, "|")
}
