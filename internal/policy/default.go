package policy

// DenyNetHost is the host of the one rule that materialises "network
// denied". RFD 076 reads an empty net list as unrestricted, so deny-all
// needs a rule; a rule matches only its exact host, and "invalid" is a
// reserved TLD (RFC 2606) that never resolves, so the rule matches nothing
// real and its only effect is to make the net list non-empty, which turns
// on default-deny.
const DenyNetHost = "invalid"

// MinimalEnv is RFD 075's minimal environment: PATH, HOME, USER, LANG and
// the locale variables, sorted. RFD 075 writes the locale variables as
// LC_*; a prefix would also pass any variable that merely starts with LC_
// (LC_SECRET_TOKEN), so the set names the locale categories instead: the
// POSIX ones (LC_ALL, LC_COLLATE, LC_CTYPE, LC_MESSAGES, LC_MONETARY,
// LC_NUMERIC, LC_TIME) and glibc's (LC_ADDRESS, LC_IDENTIFICATION,
// LC_MEASUREMENT, LC_NAME, LC_PAPER, LC_TELEPHONE). It is the one home of
// the set: the manifests copy it.
var MinimalEnv = []string{
	"HOME", "LANG",
	"LC_ADDRESS", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION", "LC_MEASUREMENT",
	"LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER", "LC_TELEPHONE", "LC_TIME",
	"PATH", "USER",
}

// Default returns RFD 075's default policy for a tool without `access`:
// the workspace read-write (no execute), network denied, the minimal
// environment, any program. Each call returns fresh slices.
func Default() AccessPolicy {
	t := true
	p := AccessPolicy{
		FS:  []FsRule{{LexicalPath: "", Read: &t, Write: &t}},
		Net: []NetRule{{Host: DenyNetHost, Allow: false}},
	}
	for _, n := range MinimalEnv {
		p.Env = append(p.Env, EnvRule{Name: n, Read: true})
	}
	return p
}

// DenyAllFS is the fs list of a declared policy whose rules all dropped
// at compile time (unapproved or broken external mounts): a root rule
// granting nothing. An empty list would mean unrestricted (RFD 076), which
// must never be the result of dropping rules (RFD D43).
func DenyAllFS() []FsRule {
	return []FsRule{{LexicalPath: ""}}
}
