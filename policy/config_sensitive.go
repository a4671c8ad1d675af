package policy

import "strings"

// SensitiveConfigPaths is RFD 078's hard-coded list of config paths where
// an unintended write compromises safety; `write = true` does not reach
// them, only `write = "insecure_allow"`. Config cannot change the list.
var SensitiveConfigPaths = []string{
	// A tool that may write its own access policy can escalate itself.
	"conversation.tools.*.access",
}

// SensitiveConfigLeaf returns the sensitive pattern a concrete config path
// lies at or below, segment by segment ('*' in the pattern matches one
// segment).
func SensitiveConfigLeaf(path string) (string, bool) {
	for _, s := range SensitiveConfigPaths {
		if n, ok := configPrefix(s, path); ok && n == strings.Count(s, ".")+1 {
			return s, true
		}
	}
	return "", false
}
