package emit

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

// Tool is everything an emitter needs for one tool. The compiler builds it;
// emitters never touch config or the approvals store.
type Tool struct {
	Name string `json:"name"`
	// Root is the canonical absolute workspace root.
	Root string `json:"root"`
	// Access is the compiled policy. An empty Access.FS means the whole
	// workspace read-write (unrestricted but confined); the compiler
	// materialises that as an explicit root rule before emitting, so
	// emitters may assume FS is what they must enforce.
	Access policy.AccessPolicy `json:"access"`
	// Grants has one entry per Access.FS rule, in the same order.
	Grants    []Grant `json:"grants"`
	Defaulted bool    `json:"defaulted"`
	// Protected lists the canonical absolute paths outside the workspace
	// a tool must not write even where a writable grant covers them
	// (ProtectedPaths): the Linux emitter keeps every one a writable
	// grant covers read-only on exec's namespaced path.
	Protected []string `json:"-"`
	// DeveloperDir is the macOS developer directory the xcrun shims in
	// /usr/bin (git, python3, make, clang) run tools from, as the
	// compiler found it (sbpl.HostDeveloperDir); "" means
	// sbpl.DefaultDeveloperDir.
	DeveloperDir string `json:"-"`
	// Home is the user's canonical home directory, where git's user
	// configuration is; "" leaves it out of the macOS profile.
	Home string `json:"-"`
	// FS is how emitters read the disk; nil means directly (OS). The
	// compiler shares one CachedFS among the tools of a compile.
	FS FS `json:"-"`
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
