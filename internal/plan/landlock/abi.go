package landlock

import "fmt"

// Landlock scope bits (LANDLOCK_SCOPE_*, ABI 6), by the manifest's scope
// names. The launcher's tests check them against go-landlock's constants.
const (
	ScopeAbstractUnix uint64 = 1 << 0
	ScopeSignal       uint64 = 1 << 1
)

// ScopeBits maps the manifest's scope names to Landlock scope bits.
var ScopeBits = map[string]uint64{
	"signal":               ScopeSignal,
	"abstract_unix_socket": ScopeAbstractUnix,
}

// UnknownRightError is a manifest naming a right this jp-policy does not
// know: guessing would risk granting more than written.
type UnknownRightError struct {
	Clause string
	Kind   string // "access" or "scope"
	Name   string
}

func (e *UnknownRightError) Error() string {
	return fmt.Sprintf("manifest clause %s: unknown landlock %s %q; this jp-policy is older than the manifest, run `jp-policy compile` with it", e.Clause, e.Kind, e.Name)
}

// RuleRights parses one rule's access names, refusing unknown ones.
func RuleRights(clause string, names []string) (Rights, error) {
	r, unknown := ParseRights(names)
	if len(unknown) > 0 {
		return 0, &UnknownRightError{Clause: clause, Kind: "access", Name: unknown[0]}
	}
	return r, nil
}

// UsedABI is the lowest ABI that knows everything m uses: its rights,
// TCP port rules (4) and scopes (6), and at least its MinABI.
func UsedABI(m *Manifest) (int, error) {
	need := max(m.MinABI, 1)
	for _, set := range [][]PathRule{m.FS, m.Baseline} {
		for _, r := range set {
			mask, err := RuleRights(r.Clause, r.Access)
			if err != nil {
				return 0, err
			}
			if mask != 0 {
				need = max(need, mask.MinABI())
			}
		}
	}
	if m.Net.Restrict || len(m.Net.ConnectTCP) > 0 || len(m.Net.BindTCP) > 0 {
		need = max(need, 4)
	}
	for _, s := range m.Scope {
		if _, ok := ScopeBits[s]; !ok {
			return 0, &UnknownRightError{Clause: "scope", Kind: "scope", Name: s}
		}
		need = max(need, 6)
	}
	return need, nil
}

// NeedABI is the lowest ABI that enforces all of m: UsedABI and every
// clause's MinABI. Below it some clause is degraded.
func NeedABI(m *Manifest) (int, error) {
	need, err := UsedABI(m)
	for _, c := range m.Clauses {
		need = max(need, c.MinABI)
	}
	return need, err
}

// TmpRights is what a tool may do in its private temporary directory
// (exec's TMPDIR, outside every grant). Execute is included: compilers
// and test runners run what they build there (go test links the test
// binary into $TMPDIR), and a directory the tool may write is no code
// boundary anyway (ld.so runs any readable file).
const TmpRights = RExecute | RReadFile | RReadDir | RWriteFile | RTruncate | RMakeReg | RMakeDir | RMakeSym | RRemoveFile | RRemoveDir

// MaxFSABI is the newest Landlock ABI that added a filesystem right this
// package knows: RightsForABI is the same for every later ABI.
// A constant, not slices.Max(rightABI) at init; TestMaxFSABI keeps the two
// equal.
const MaxFSABI = 5
