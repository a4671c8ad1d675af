package landlock

import (
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// FormatVersion is bumped whenever the manifest's meaning changes.
const FormatVersion = 3

// Access right names, as in the kernel's LANDLOCK_ACCESS_FS_* without the
// prefix, lower-cased.
const (
	Execute    = "execute"
	WriteFile  = "write_file"
	ReadFile   = "read_file"
	ReadDir    = "read_dir"
	RemoveDir  = "remove_dir"
	RemoveFile = "remove_file"
	MakeChar   = "make_char"
	MakeDir    = "make_dir"
	MakeReg    = "make_reg"
	MakeSock   = "make_sock"
	MakeFifo   = "make_fifo"
	MakeBlock  = "make_block"
	MakeSym    = "make_sym"
	Refer      = "refer"     // ABI 2
	Truncate   = "truncate"  // ABI 3
	IoctlDev   = "ioctl_dev" // ABI 5
)

// PathRule grants Access on Path and everything beneath it.
type PathRule struct {
	Path   string   `json:"path"`
	Access []string `json:"access"`
	// Clause names the policy clause this grant serves ("fs[0]",
	// "baseline.loader", ...), so denials can be explained.
	Clause string `json:"clause"`
	// Optional grants are skipped when Path does not exist at launch
	// (baseline entries differ between distributions); a missing
	// non-optional path is an error.
	Optional bool `json:"optional,omitempty"`
}

// Net is the TCP part of the manifest. With Restrict set, every TCP
// connect and bind is denied except the listed ports.
type Net struct {
	Restrict   bool     `json:"restrict"`
	ConnectTCP []uint16 `json:"connect_tcp"`
	BindTCP    []uint16 `json:"bind_tcp"`
}

// Manifest is what `jp-policy exec` applies on Linux for one tool.
type Manifest struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`
	Root    string `json:"root"`
	// MinABI is the lowest ABI that enforces every clause in full.
	MinABI int `json:"min_abi"`
	// FS holds the policy's grants, already split around narrower rules.
	FS []PathRule `json:"fs"`
	// Baseline holds the named system grants every program needs.
	Baseline []PathRule `json:"baseline"`
	Net      Net        `json:"net"`
	// Scope lists Landlock scopes: "signal", "abstract_unix_socket" (ABI 6).
	Scope []string `json:"scope"`
	Env   plan.Env `json:"env"`
	// Commands is nil when any program may run.
	Commands map[string]policy.CommandRule `json:"commands"`
	// Seccomp is the configurable part of the system-call filter the
	// launcher installs after Landlock (format 2). A manifest without it
	// is refused, never run unfiltered.
	Seccomp *seccomp.Spec `json:"seccomp"`
	// Masks lists narrowed absolute paths that a launcher with a private
	// mount namespace may hide exactly, instead of relying on the split.
	Masks []string `json:"masks"`
	// MaskedFS replaces FS for a launcher that covers every path in Masks
	// (read-only and empty: an empty read-only tmpfs over a directory, a
	// read-only bind of an empty file over a file). It is the split
	// computed as if the masked rules were absent, so the ancestors keep
	// their full rights. nil when Masks is empty. If any mask cannot be
	// applied (the path vanished, no user namespace), use FS.
	MaskedFS []PathRule `json:"masked_fs,omitempty"`
	// Namespace is the plan for a launcher that builds the tool's
	// filesystem in a private mount namespace (exec --namespaces).
	Namespace *NSPlan       `json:"namespace"`
	Clauses   []plan.Clause `json:"clauses"`
}
