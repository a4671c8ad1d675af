package execplan

import (
	"encoding/json"
	"errors"

	"golang.org/x/net/bpf"
)

// Sandbox is a run's Linux sandbox with every decision taken: the Landlock
// ruleset as kernel bits and the seccomp program. The fast path applies
// it on the thread that execs; the namespaced path builds it in the
// parent and hands it to stage 2 (nsroot.Spec.Extra, EncodeSandbox),
// which applies it the same way inside the new root.
type Sandbox struct {
	ABI int `json:"abi"`
	// HandledFS are the filesystem rights the ruleset handles (the
	// kernel's, for its ABI): everything not granted below is denied.
	HandledFS uint64 `json:"handled_fs"`
	// Baseline paths are followed through symlinks (/bin on merged-/usr
	// systems); FS paths must contain none (compiled canonical).
	Baseline []Rule `json:"baseline"`
	FS       []Rule `json:"fs"`
	// HandledNet is 0 when TCP is not restricted.
	HandledNet uint64   `json:"handled_net"`
	ConnectTCP []uint16 `json:"connect_tcp"`
	BindTCP    []uint16 `json:"bind_tcp"`
	Scoped     uint64   `json:"scoped"`
	// Filter is the seccomp program; nil only under --best-effort on a
	// kernel that cannot filter.
	Filter []bpf.RawInstruction `json:"filter"`
	// Trace, under `exec --denials` only, is learn's trace filter,
	// installed just before Filter on the thread that execs the tool, so
	// that its tracer stops at the tool's calls and at none of exec's.
	Trace []bpf.RawInstruction `json:"trace,omitempty"`
}

// ErrSandboxSyntax is bytes EncodeSandbox did not write.
var ErrSandboxSyntax = errors.New("not a sandbox this jp-policy encoded")

// EncodeSandbox renders s as JSON. Both ends are the same jp-policy
// binary (stage 2 is a re-exec of it), so there is no versioning.
func EncodeSandbox(s *Sandbox) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // numbers, strings and slices always marshal
	}
	return b
}

// DecodeSandbox reads what EncodeSandbox wrote; anything else (unknown
// fields, trailing data, not JSON) is ErrSandboxSyntax.
func DecodeSandbox(b []byte) (*Sandbox, error) {
	var s Sandbox
	if err := strictJSON(b, &s); err != nil {
		return nil, ErrSandboxSyntax
	}
	return &s, nil
}
