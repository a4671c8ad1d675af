package lint

import (
	"strings"

	"github.com/jp-policy/jp-policy/policy"
)

// sensitiveConfigPaths is RFD 078's hard-coded list, kept in package
// policy so that lint and `check config-delta` judge by one list.
var sensitiveConfigPaths = policy.SensitiveConfigPaths()

// configMapPaths lists the JP config paths whose value is a map keyed by
// user-chosen names, so that a `*` segment may follow them (RFD 078
// "Wildcard semantics"). Everything else in JP's config is a struct with
// fixed field names, where `*` is a config error. docs/rules.md shows this
// table; keep the two in step (TestDocsMapTable).
var configMapPaths = []string{
	"conversation.tools",              // tool name -> tool config
	"conversation.tools.*.parameters", // parameter name -> schema
	"conversation.tools.*.options",    // free-form tool options
	"providers.llm.aliases",           // alias -> model id
	"providers.mcp",                   // server name -> MCP server
	"plugins.command",                 // plugin name -> plugin config
	"template.values",                 // template variable -> value
}

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
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	for i := 0; i < n; i++ {
		if !segMatch(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sensitiveConfigPath returns the sensitive pattern that path overlaps.
func sensitiveConfigPath(path string) (string, bool) {
	for _, s := range sensitiveConfigPaths {
		if configOverlaps(path, s) {
			return s, true
		}
	}
	return "", false
}

// wildcardNotMap returns the index of the first `*` segment of path that
// does not follow a map path, and the parent path it follows.
func wildcardNotMap(path string) (int, string, bool) {
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
