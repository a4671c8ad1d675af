package emit

import (
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

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
	Grants    []plan.Grant `json:"grants"`
	Defaulted bool         `json:"defaulted"`
	// Protected lists the canonical absolute paths outside the workspace
	// a tool must not write even where a writable grant covers them
	// (ProtectedPaths): the Linux emitter keeps every one a writable
	// grant covers read-only on exec's namespaced path.
	Protected []string `json:"-"`
	// PolicyFiles lists the canonical config files inside the workspace
	// the policy was read from (config.Loaded.PolicyFiles, outside .jp/
	// and .jp.toml, which ProtectedNames cover): like ProtectedNames, the
	// namespaced path keeps each read-only where a writable bind covers
	// it and no rule names it. Files outside the workspace go in
	// Protected.
	PolicyFiles []string `json:"-"`
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
