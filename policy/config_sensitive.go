package policy

// sensitiveConfigPaths is RFD 078's hard-coded list of config paths where
// an unintended write compromises safety; `write = true` does not reach
// them, only `write = "insecure_allow"`. Config cannot change the list.
var sensitiveConfigPaths = []string{
	// A tool that may write its own access policy can escalate itself.
	"conversation.tools.*.access",
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
