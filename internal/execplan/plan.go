package execplan

import (
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/rulematch"
	"github.com/jp-policy/jp-policy/internal/seccomp"
	"github.com/jp-policy/jp-policy/internal/wire"

	"golang.org/x/net/bpf"
)

// Plan is one tool's exec plan: what `jp-policy exec` and
// `jp-policy-exec` read first for the tool, pinned (its SHA-256 is the
// tool's line in the pin table) and decoded without reflection. It holds
// what binds it to the rest of the tool's files (the exec index's hash)
// and, when compile found that the tool's Linux
// policy is enforced exactly by Landlock and seccomp without namespaces,
// everything the fast path applies (Fast), already decided: rights as
// kernel bit masks, scopes as bits, the lowest ABI that enforces every
// clause. The exec path applies it; it never re-derives policy.
//
// The full path (dry runs, namespaces, the proxy, hints, macOS and
// Windows) reads the tool's exec index file (ExecSHA256 pins it) and its
// manifests, as before.
//
// A plan depends only on the tool's compiled policy and the workspace
// root: the staleness inputs are in the pin (Pin.Inputs), so an edit of
// the config that leaves the tool's policy alone leaves its plan, and the
// hash the pin records for it, the same.
type Plan struct {
	Tool string
	Root string
	// ExecSHA256 is the hash of the tool's exec index file
	// (exec/<tool>.json), which the full path reads after this one.
	ExecSHA256 string
	Enabled    bool
	// Fast is nil when the tool needs the full path on Linux: a part of
	// its policy only the namespaced path enforces exactly, or no Linux
	// manifest.
	Fast *Fast
}

// Fast is the Linux fast path of one tool: Landlock on the exec thread,
// no_new_privs, no capabilities, the seccomp filter, execve.
type Fast struct {
	// LinuxSHA256 is the hash of the Linux manifest this was built from
	// (the same compile), for reports and tests.
	LinuxSHA256 string
	// NeedABI is the lowest Landlock ABI that enforces every clause in
	// full; below it the run is the full path's (degraded or refused).
	NeedABI int
	// Sockets are the paths the namespaced path would bind: one that is
	// a Unix socket at exec time makes the namespaced path the exact one
	// (the seccomp filter here refuses socket(AF_UNIX)).
	Sockets []string
	// EnvMinimal and EnvRules are the environment allowlist.
	EnvMinimal []string
	EnvRules   []rulematch.EnvRule
	// Commands is nil when any program may run.
	Commands map[string]rulematch.CommandRule
	// Baseline holds the system grants (symlinks followed), FS the
	// policy's grants (no symlink may appear in them).
	Baseline []Rule
	FS       []Rule
	// NetRestrict: every TCP connect and bind is denied but the ports.
	NetRestrict bool
	ConnectTCP  []uint16
	BindTCP     []uint16
	// Scoped is the Landlock scope bits (ABI 6).
	Scoped uint64
	// Filter is the seccomp program for Seccomp, assembled by compile
	// for FilterArch (the compiling machine's GOARCH); exec on another
	// architecture assembles its own.
	FilterArch string
	Filter     []bpf.RawInstruction
	// TmpAccess is the rights on the run's private TMPDIR.
	TmpAccess uint64
	// HandledFS[abi] is every filesystem right a kernel of that Landlock
	// ABI knows (the ruleset handles them all: what is not granted is
	// denied); a newer kernel gets the last entry.
	HandledFS []uint64
	Seccomp   seccomp.Spec
}

// Rule is one Landlock path grant: Access is the kernel's access bits.
type Rule struct {
	Path   string
	Access uint64
	// Clause names the policy clause, for errors.
	Clause string
	// Optional rules are skipped when Path does not exist at launch.
	Optional bool
}

// PlanFile is tool's plan file, relative to the artifact directory; ""
// for a name that cannot be a file name.
func PlanFile(tool string) string {
	if ExecFile(tool) == "" {
		return ""
	}
	return path.Join(DirExec, tool+".plan")
}

// planMagic starts a plan file; the digit is its format (format 1 also
// held the artifact digest and the staleness inputs; a plan of another
// format is ErrPlanSyntax, and cannot be pinned by a current pin anyway).
const planMagic = "jp-policy exec plan 2\n"

// ErrPlanSyntax is a plan file this jp-policy did not write.
var ErrPlanSyntax = errors.New("not an exec plan this jp-policy wrote")

// Encode renders p in the plan file format: the magic line, then
// uvarint-prefixed strings and lists, uvarint numbers, 0/1 flags, in the
// order of the fields. Command keys are written sorted, so the bytes
// depend only on p.
func Encode(p *Plan) []byte {
	var e encoder
	e.B = append(e.B, planMagic...)
	e.Str(p.Tool)
	e.Str(p.Root)
	e.Str(p.ExecSHA256)
	e.Flag(p.Enabled)
	e.Flag(p.Fast != nil)
	if f := p.Fast; f != nil {
		e.Str(f.LinuxSHA256)
		e.Num(uint64(f.NeedABI))
		e.Strs(f.Sockets)
		e.Strs(f.EnvMinimal)
		e.Num(uint64(len(f.EnvRules)))
		for _, r := range f.EnvRules {
			e.Str(r.Name)
			e.Flag(r.Read)
		}
		e.Flag(f.Commands != nil)
		keys := make([]string, 0, len(f.Commands))
		for k := range f.Commands {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e.Num(uint64(len(keys)))
		for _, k := range keys {
			c := f.Commands[k]
			e.Str(k)
			e.Flag(c.Args != nil)
			e.Num(uint64(len(c.Args)))
			for _, a := range c.Args {
				e.Strs(a)
			}
			e.Flag(c.Envs != nil)
			e.Strs(c.Envs)
		}
		e.rules(f.Baseline)
		e.rules(f.FS)
		e.Flag(f.NetRestrict)
		e.ports(f.ConnectTCP)
		e.ports(f.BindTCP)
		e.Num(f.Scoped)
		e.Num(f.TmpAccess)
		e.Str(f.FilterArch)
		e.filter(f.Filter)
		e.Num(uint64(len(f.HandledFS)))
		for _, h := range f.HandledFS {
			e.Num(h)
		}
		e.Str(string(f.Seccomp.Inet))
		e.Flag(f.Seccomp.Listen)
		e.Flag(f.Seccomp.Unix)
		e.Flag(f.Seccomp.Metadata)
		e.Flag(f.Seccomp.XattrRead)
	}
	return e.B
}

// encoder and decoder are package wire's, with the plan's own lists.
type encoder struct{ wire.Encoder }

func (e *encoder) rules(set []Rule) {
	e.Num(uint64(len(set)))
	for _, r := range set {
		e.Str(r.Path)
		e.Num(r.Access)
		e.Str(r.Clause)
		e.Flag(r.Optional)
	}
}

func (e *encoder) filter(prog []bpf.RawInstruction) {
	e.Num(uint64(len(prog)))
	for _, in := range prog {
		e.Num(uint64(in.Op))
		e.Num(uint64(in.Jt))
		e.Num(uint64(in.Jf))
		e.Num(uint64(in.K))
	}
}

func (e *encoder) ports(ps []uint16) {
	e.Num(uint64(len(ps)))
	for _, p := range ps {
		e.Num(uint64(p))
	}
}

// Decode reads a plan file. Any deviation from what Encode writes (a
// short read, a flag other than 0 or 1, a count larger than the bytes
// left, trailing bytes, an unknown seccomp inet mode) is ErrPlanSyntax:
// a plan is pinned, so a bad one was not written by compile.
func Decode(b []byte) (*Plan, error) {
	rest, ok := strings.CutPrefix(string(b), planMagic)
	if !ok {
		return nil, ErrPlanSyntax
	}
	d := decoder{wire.NewDecoder(rest)}
	p := &Plan{Tool: d.Str(), Root: d.Str()}
	p.ExecSHA256 = d.Str()
	p.Enabled = d.Flag()
	if d.Flag() {
		f := &Fast{LinuxSHA256: d.Str(), NeedABI: int(d.small())}
		f.Sockets = d.Strs()
		f.EnvMinimal = d.Strs()
		if n := d.Count(2); n > 0 {
			f.EnvRules = make([]rulematch.EnvRule, n)
			for i := range f.EnvRules {
				f.EnvRules[i] = rulematch.EnvRule{Name: d.Str(), Read: d.Flag()}
			}
		}
		hasCommands := d.Flag()
		n := d.Count(5)
		if hasCommands {
			f.Commands = make(map[string]rulematch.CommandRule, n)
		} else if n != 0 {
			d.Fail()
			n = 0
		}
		prev := ""
		for i := range n {
			k := d.Str()
			if i > 0 && k <= prev {
				d.Fail() // keys are written sorted and distinct
			}
			prev = k
			var c rulematch.CommandRule
			hasArgs := d.Flag()
			na := d.Count(1)
			if hasArgs {
				c.Args = make([][]string, na)
			} else if na != 0 {
				d.Fail()
				na = 0
			}
			for j := range na {
				c.Args[j] = d.Strs()
			}
			hasEnvs := d.Flag()
			envs := d.Strs()
			if hasEnvs {
				c.Envs = envs
				if c.Envs == nil {
					c.Envs = []string{}
				}
			} else if envs != nil {
				d.Fail()
			}
			if f.Commands != nil {
				f.Commands[k] = c
			}
		}
		f.Baseline = d.rules()
		f.FS = d.rules()
		f.NetRestrict = d.Flag()
		f.ConnectTCP = d.ports()
		f.BindTCP = d.ports()
		f.Scoped = d.Num()
		f.TmpAccess = d.Num()
		f.FilterArch = d.Str()
		f.Filter = d.filter()
		if n := d.Count(1); n > 0 {
			f.HandledFS = make([]uint64, n)
			for i := range f.HandledFS {
				f.HandledFS[i] = d.Num()
			}
		}
		f.Seccomp.Inet = seccomp.Inet(d.Str())
		f.Seccomp.Listen = d.Flag()
		f.Seccomp.Unix = d.Flag()
		f.Seccomp.Metadata = d.Flag()
		f.Seccomp.XattrRead = d.Flag()
		if f.Seccomp.Validate() != nil {
			d.Fail()
		}
		p.Fast = f
	}
	if !d.Done() {
		return nil, ErrPlanSyntax
	}
	return p, nil
}

type decoder struct{ *wire.Decoder }

// small is a number that must fit an int comfortably (an ABI version).
func (d decoder) small() uint64 { return d.Max(1 << 16) }

func (d decoder) rules() []Rule {
	n := d.Count(4)
	if n == 0 {
		return nil
	}
	out := make([]Rule, n)
	for i := range out {
		out[i] = Rule{Path: d.Str(), Access: d.Num(), Clause: d.Str(), Optional: d.Flag()}
	}
	return out
}

func (d decoder) filter() []bpf.RawInstruction {
	n := d.Count(4)
	if n == 0 {
		return nil
	}
	out := make([]bpf.RawInstruction, n)
	for i := range out {
		op, jt, jf, k := d.Num(), d.Num(), d.Num(), d.Num()
		if op > 0xffff || jt > 0xff || jf > 0xff || k > 0xffffffff {
			d.Fail()
		}
		out[i] = bpf.RawInstruction{Op: uint16(op), Jt: uint8(jt), Jf: uint8(jf), K: uint32(k)}
	}
	return out
}

func (d decoder) ports() []uint16 {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	out := make([]uint16, n)
	for i := range out {
		v := d.Num()
		if v > 0xffff {
			d.Fail()
		}
		out[i] = uint16(v)
	}
	return out
}
