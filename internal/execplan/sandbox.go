package execplan

import (
	"errors"
	"strings"

	"github.com/jp-policy/jp-policy/internal/wire"

	"golang.org/x/net/bpf"
)

// Sandbox is a run's Linux sandbox with every decision taken: the Landlock
// ruleset as kernel bits and the seccomp program. The fast path builds it
// from the plan; the namespaced path builds it in the parent and hands it
// to stage 2 (nsroot.Spec.Extra, EncodeSandbox), which applies it on the
// thread that execs the command, so stage 2 decodes a few hundred bytes
// without reflection instead of re-deriving a manifest.
type Sandbox struct {
	ABI int
	// HandledFS are the filesystem rights the ruleset handles (the
	// kernel's, for its ABI): everything not granted below is denied.
	HandledFS uint64
	// Baseline paths are followed through symlinks (/bin on merged-/usr
	// systems); FS paths must contain none (compiled canonical).
	Baseline []Rule
	FS       []Rule
	// HandledNet is 0 when TCP is not restricted.
	HandledNet uint64
	ConnectTCP []uint16
	BindTCP    []uint16
	Scoped     uint64
	// Filter is the seccomp program; nil only under --best-effort on a
	// kernel that cannot filter.
	Filter []bpf.RawInstruction
}

// sandboxMagic starts an encoded Sandbox; the digit is its format. Both
// ends are the same jp-policy build (jp-policy and jp-policy-exec are
// installed together), so there is no versioning beyond it.
const sandboxMagic = "jp-policy sandbox 1\n"

// ErrSandboxSyntax is bytes EncodeSandbox did not write.
var ErrSandboxSyntax = errors.New("not a sandbox this jp-policy encoded")

// EncodeSandbox renders s in the plan file's encoding (uvarint numbers,
// length-prefixed strings, 0/1 flags, in field order).
func EncodeSandbox(s *Sandbox) []byte {
	var e encoder
	e.B = append(e.B, sandboxMagic...)
	e.Num(uint64(s.ABI))
	e.Num(s.HandledFS)
	e.rules(s.Baseline)
	e.rules(s.FS)
	e.Num(s.HandledNet)
	e.ports(s.ConnectTCP)
	e.ports(s.BindTCP)
	e.Num(s.Scoped)
	// A nil program (no filter under --best-effort) and an empty one
	// are different answers: the flag keeps them apart.
	e.Flag(s.Filter != nil)
	e.filter(s.Filter)
	return e.B
}

// DecodeSandbox reads what EncodeSandbox wrote; anything else (a
// truncated, padded or forged encoding) is ErrSandboxSyntax.
func DecodeSandbox(b []byte) (*Sandbox, error) {
	rest, ok := strings.CutPrefix(string(b), sandboxMagic)
	if !ok {
		return nil, ErrSandboxSyntax
	}
	d := decoder{wire.NewDecoder(rest)}
	s := &Sandbox{ABI: int(d.small()), HandledFS: d.Num()}
	s.Baseline = d.rules()
	s.FS = d.rules()
	s.HandledNet = d.Num()
	s.ConnectTCP = d.ports()
	s.BindTCP = d.ports()
	s.Scoped = d.Num()
	if hasFilter, prog := d.Flag(), d.filter(); hasFilter {
		s.Filter = prog
		if s.Filter == nil {
			s.Filter = []bpf.RawInstruction{}
		}
	} else if prog != nil {
		d.Fail()
	}
	if !d.Done() {
		return nil, ErrSandboxSyntax
	}
	return s, nil
}
