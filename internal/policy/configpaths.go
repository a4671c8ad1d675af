package policy

import "strings"

// sensitiveConfigPaths is RFD 078's hard-coded list of config paths where
// an unintended write compromises safety. Config cannot shorten it.
var sensitiveConfigPaths = []string{
	// A tool that may write its own access policy can escalate itself.
	"conversation.tools.*.access",
}

// configMapPaths lists the JP config paths whose value is a map keyed by
// user-chosen names, so that a `*` segment may follow them (RFD 078
// "Wildcard semantics"). Everything else in JP's config is a struct with
// fixed field names, where `*` is a config error. docs/rules.md shows this
// table; keep the two in step (lint's TestDocsMapTable).
var configMapPaths = []string{
	"conversation.tools",              // tool name -> tool config
	"conversation.tools.*.parameters", // parameter name -> schema
	"conversation.tools.*.options",    // free-form tool options
	"providers.llm.aliases",           // alias -> model id
	"providers.mcp",                   // server name -> MCP server
	"plugins.command",                 // plugin name -> plugin config
	"template.values",                 // template variable -> value
}

// SensitiveConfigPaths returns a copy of RFD 078's sensitive config path
// patterns ('*' is one segment), for lint and `check config-delta`.
func SensitiveConfigPaths() []string {
	return append([]string(nil), sensitiveConfigPaths...)
}

// SensitiveConfigLeaf returns the sensitive pattern a concrete config path
// lies at or below, segment by segment ('*' in the pattern matches one
// segment).
func SensitiveConfigLeaf(path string) (string, bool) {
	for _, s := range sensitiveConfigPaths {
		if _, ok := configPrefix(s, path); ok {
			return s, true
		}
	}
	return "", false
}

// ConfigMapPaths returns a copy of the map-valued config paths.
func ConfigMapPaths() []string { return append([]string(nil), configMapPaths...) }

func splitConfigPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// segMatch compares one segment of two patterns, where `*` on either side
// matches any single segment.
func segMatch(a, b string) bool { return a == b || a == "*" || b == "*" }

// configOverlaps reports whether a rule on path could reach a config
// value under pattern, or the other way round: one is a prefix of the
// other, segment by segment. A rule on `conversation.tools` covers every
// tool's `access`; a rule on `conversation.tools.x.access.fs` lies inside
// one.
func configOverlaps(path, pattern string) bool {
	a, b := splitConfigPath(path), splitConfigPath(pattern)
	n := min(len(a), len(b))
	for i := range n {
		if !segMatch(a[i], b[i]) {
			return false
		}
	}
	return true
}

// SensitiveConfigPath returns the sensitive pattern that path overlaps.
func SensitiveConfigPath(path string) (string, bool) {
	for _, s := range sensitiveConfigPaths {
		if configOverlaps(path, s) {
			return s, true
		}
	}
	return "", false
}

// WildcardNotMap returns the index of the first `*` segment of path that
// does not follow a map path, and the parent path it follows.
func WildcardNotMap(path string) (int, string, bool) {
	segs := splitConfigPath(path)
	for i, s := range segs {
		if s != "*" {
			continue
		}
		parent := strings.Join(segs[:i], ".")
		if !isMapPath(parent) {
			return i, parent, true
		}
	}
	return 0, "", false
}

// isMapPath reports whether parent (which may itself hold `*` segments
// in map positions) is one of configMapPaths. Concrete keys match the
// table's `*` entries: `conversation.tools.x.options` is a map because
// `conversation.tools.*.options` is.
func isMapPath(parent string) bool {
	ps := splitConfigPath(parent)
	for _, m := range configMapPaths {
		ms := splitConfigPath(m)
		if len(ms) != len(ps) {
			continue
		}
		ok := true
		for i := range ms {
			if ms[i] != ps[i] && ms[i] != "*" {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// validateConfigRuleMeaning refuses what RFD 078 makes a config error
// whatever the policy came from (config, a compiled artifact or a hand-
// written access object): write = true on a sensitive path, which must be
// acknowledged as "insecure_allow", and `*` where the config has fixed
// field names rather than a map. lint reports the same findings on config
// as JP108 and JP109.
func validateConfigRuleMeaning(r ConfigRule) error {
	if r.Write == ConfigWriteAllow {
		if s, ok := SensitiveConfigPath(r.Path); ok {
			return &ConfigRuleError{Path: r.Path, Sensitive: s}
		}
	}
	if i, parent, bad := WildcardNotMap(r.Path); bad {
		return &ConfigRuleError{Path: r.Path, WildcardAt: i, Parent: parent}
	}
	return nil
}

// ConfigRuleError is a config rule that RFD 078 refuses: Sensitive is set
// for write = true on a sensitive path, else the `*` segment at
// WildcardAt follows Parent, which is not a map.
type ConfigRuleError struct {
	Path       string
	Sensitive  string
	WildcardAt int
	Parent     string
}

func (e *ConfigRuleError) Error() string {
	if e.Sensitive != "" {
		return "write = true on config path \"" + e.Path + "\" reaches the sensitive path \"" + e.Sensitive + "\"; RFD 078 requires write = \"insecure_allow\" to acknowledge it"
	}
	parent := e.Parent
	if parent == "" {
		parent = "(the top level)"
	}
	return "config path \"" + e.Path + "\": '*' follows " + parent + ", which has fixed field names, not map keys (RFD 078 wildcard semantics)"
}
