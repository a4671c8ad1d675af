package plan

import "github.com/jp-policy/jp-policy/internal/policy"

// PathKind says what a rule's path is on this machine at compile time.
type PathKind string

const (
	KindDir     PathKind = "dir"
	KindFile    PathKind = "file"
	KindMissing PathKind = "missing" // does not exist yet (a rule may name a file to be created)
)

// Grant is one compiled fs rule bound to this machine.
type Grant struct {
	// Index is the rule's position in Tool.Access.FS.
	Index int `json:"index"`
	// Abs is the canonical absolute path the rule governs: the workspace
	// root joined with the lexical path for ordinary rules, the approved
	// target for external rules.
	Abs string `json:"abs"`
	// Link is the absolute path of the workspace symlink of an external
	// rule, "" for ordinary rules.
	Link string   `json:"link,omitempty"`
	Kind PathKind `json:"kind"`
}

// Status is how a platform enforces one clause of a policy.
type Status string

const (
	Enforced    Status = "enforced"
	Degraded    Status = "degraded"    // enforced in part; How says what is lost
	Cooperative Status = "cooperative" // only the tool's own check (RFD 076) enforces it
)

// Clause is one enforceable part of a policy (an fs rule, the net rules,
// the env allowlist, ...) and how a platform handles it.
type Clause struct {
	// ID is stable across compiles: "fs[0]", "net", "net[2]", "env",
	// "commands", "baseline", "scope.signal", ...
	ID     string `json:"id"`
	What   string `json:"what"`
	Status Status `json:"status"`
	How    string `json:"how,omitempty"`
	// MinABI is the lowest Landlock ABI that enforces the clause (Linux
	// manifests only; 0 elsewhere).
	MinABI int `json:"min_abi,omitempty"`
}

// Env is a manifest's environment allowlist, the same on every platform
// that filters the environment (landlock and winjob manifests). A
// variable reaches the child when the policy's env rules (RFD 076
// matching: longest literal wins, exact beats prefix) allow it, or when
// no env rule matches it and it is in Minimal (RFD 075's minimal set,
// policy.MinimalEnv, plus what the platform needs to start a process at
// all; a trailing '*' marks a prefix). An explicit `read = false` rule
// therefore removes even a minimal variable: the user's word is never
// widened. Windows compares names case-insensitively.
type Env struct {
	Minimal []string         `json:"minimal"`
	Rules   []policy.EnvRule `json:"rules"`
}

// Allows decides one variable name: the env rules decide when one matches
// (RFD 076: longest literal wins, exact beats prefix at equal length);
// otherwise the minimal set does. An explicit `read = false` rule
// therefore removes even PATH.
func (e Env) Allows(name string) bool {
	if rule, allowed := policy.MatchEnv(e.Rules, name); rule != nil {
		return allowed
	}
	return e.inMinimalSet(name)
}

// FromMinimal reports whether name reaches the child through the minimal
// set rather than through an env rule.
func (e Env) FromMinimal(name string) bool {
	if rule, _ := policy.MatchEnv(e.Rules, name); rule != nil {
		return false
	}
	return e.inMinimalSet(name)
}

func (e Env) inMinimalSet(name string) bool {
	for _, m := range e.Minimal {
		if policy.NameMatches(m, name) {
			return true
		}
	}
	return false
}
