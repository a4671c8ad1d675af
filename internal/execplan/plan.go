package execplan

import (
	"encoding/binary"
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/rulematch"
	"github.com/jp-policy/jp-policy/internal/seccomp"

	"golang.org/x/net/bpf"
)

// Plan is one tool's exec plan: what `jp-policy exec` and
// `jp-policy-exec` read first for the tool, pinned (its SHA-256 is the
// tool's line in the pin table) and decoded without reflection. It holds
// the staleness inputs and, when compile found that the tool's Linux
// policy is enforced exactly by Landlock and seccomp without namespaces,
// everything the fast path applies (Fast), already decided: rights as
// kernel bit masks, scopes as bits, the lowest ABI that enforces every
// clause. The exec path applies it; it never re-derives policy.
//
// The full path (dry runs, namespaces, the proxy, hints, macOS and
// Windows) reads the tool's exec index file (ExecSHA256 pins it) and its
// manifests, as before.
type Plan struct {
	Tool   string
	Root   string
	Digest string
	Inputs []Input
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

// planMagic starts a plan file; the digit is its format.
const planMagic = "jp-policy exec plan 1\n"

// ErrPlanSyntax is a plan file this jp-policy did not write.
var ErrPlanSyntax = errors.New("not an exec plan this jp-policy wrote")

// Encode renders p in the plan file format: the magic line, then
// uvarint-prefixed strings and lists, uvarint numbers, 0/1 flags, in the
// order of the fields. Command keys are written sorted, so the bytes
// depend only on p.
func Encode(p *Plan) []byte {
	var e encoder
	e.b = append(e.b, planMagic...)
	e.str(p.Tool)
	e.str(p.Root)
	e.str(p.Digest)
	e.num(uint64(len(p.Inputs)))
	for _, in := range p.Inputs {
		e.str(in.Kind)
		e.str(in.Path)
		e.str(in.SHA256)
		e.str(in.Target)
	}
	e.str(p.ExecSHA256)
	e.flag(p.Enabled)
	e.flag(p.Fast != nil)
	if f := p.Fast; f != nil {
		e.str(f.LinuxSHA256)
		e.num(uint64(f.NeedABI))
		e.strs(f.Sockets)
		e.strs(f.EnvMinimal)
		e.num(uint64(len(f.EnvRules)))
		for _, r := range f.EnvRules {
			e.str(r.Name)
			e.flag(r.Read)
		}
		e.flag(f.Commands != nil)
		keys := make([]string, 0, len(f.Commands))
		for k := range f.Commands {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e.num(uint64(len(keys)))
		for _, k := range keys {
			c := f.Commands[k]
			e.str(k)
			e.flag(c.Args != nil)
			e.num(uint64(len(c.Args)))
			for _, a := range c.Args {
				e.strs(a)
			}
			e.flag(c.Envs != nil)
			e.strs(c.Envs)
		}
		e.rules(f.Baseline)
		e.rules(f.FS)
		e.flag(f.NetRestrict)
		e.ports(f.ConnectTCP)
		e.ports(f.BindTCP)
		e.num(f.Scoped)
		e.num(f.TmpAccess)
		e.str(f.FilterArch)
		e.filter(f.Filter)
		e.num(uint64(len(f.HandledFS)))
		for _, h := range f.HandledFS {
			e.num(h)
		}
		e.str(string(f.Seccomp.Inet))
		e.flag(f.Seccomp.Listen)
		e.flag(f.Seccomp.Unix)
		e.flag(f.Seccomp.Metadata)
		e.flag(f.Seccomp.XattrRead)
	}
	return e.b
}

type encoder struct{ b []byte }

func (e *encoder) num(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *encoder) str(s string) { e.num(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) strs(ss []string) {
	e.num(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}
func (e *encoder) rules(set []Rule) {
	e.num(uint64(len(set)))
	for _, r := range set {
		e.str(r.Path)
		e.num(r.Access)
		e.str(r.Clause)
		e.flag(r.Optional)
	}
}

func (e *encoder) filter(prog []bpf.RawInstruction) {
	e.num(uint64(len(prog)))
	for _, in := range prog {
		e.num(uint64(in.Op))
		e.num(uint64(in.Jt))
		e.num(uint64(in.Jf))
		e.num(uint64(in.K))
	}
}

func (e *encoder) ports(ps []uint16) {
	e.num(uint64(len(ps)))
	for _, p := range ps {
		e.num(uint64(p))
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
	d := decoder{s: rest}
	p := &Plan{Tool: d.str(), Root: d.str(), Digest: d.str()}
	if n := d.count(4); n > 0 {
		p.Inputs = make([]Input, n)
		for i := range p.Inputs {
			p.Inputs[i] = Input{Kind: d.str(), Path: d.str(), SHA256: d.str(), Target: d.str()}
		}
	}
	p.ExecSHA256 = d.str()
	p.Enabled = d.flag()
	if d.flag() {
		f := &Fast{LinuxSHA256: d.str(), NeedABI: int(d.small())}
		f.Sockets = d.strs()
		f.EnvMinimal = d.strs()
		if n := d.count(2); n > 0 {
			f.EnvRules = make([]rulematch.EnvRule, n)
			for i := range f.EnvRules {
				f.EnvRules[i] = rulematch.EnvRule{Name: d.str(), Read: d.flag()}
			}
		}
		hasCommands := d.flag()
		n := d.count(5)
		if hasCommands {
			f.Commands = make(map[string]rulematch.CommandRule, n)
		} else if n != 0 {
			d.bad, n = true, 0
		}
		prev := ""
		for i := range n {
			k := d.str()
			if i > 0 && k <= prev {
				d.bad = true // keys are written sorted and distinct
			}
			prev = k
			var c rulematch.CommandRule
			hasArgs := d.flag()
			na := d.count(1)
			if hasArgs {
				c.Args = make([][]string, na)
			} else if na != 0 {
				d.bad, na = true, 0
			}
			for j := range na {
				c.Args[j] = d.strs()
			}
			hasEnvs := d.flag()
			envs := d.strs()
			if hasEnvs {
				c.Envs = envs
				if c.Envs == nil {
					c.Envs = []string{}
				}
			} else if envs != nil {
				d.bad = true
			}
			if f.Commands != nil {
				f.Commands[k] = c
			}
		}
		f.Baseline = d.rules()
		f.FS = d.rules()
		f.NetRestrict = d.flag()
		f.ConnectTCP = d.ports()
		f.BindTCP = d.ports()
		f.Scoped = d.num()
		f.TmpAccess = d.num()
		f.FilterArch = d.str()
		f.Filter = d.filter()
		if n := d.count(1); n > 0 {
			f.HandledFS = make([]uint64, n)
			for i := range f.HandledFS {
				f.HandledFS[i] = d.num()
			}
		}
		f.Seccomp.Inet = seccomp.Inet(d.str())
		f.Seccomp.Listen = d.flag()
		f.Seccomp.Unix = d.flag()
		f.Seccomp.Metadata = d.flag()
		f.Seccomp.XattrRead = d.flag()
		if f.Seccomp.Validate() != nil {
			d.bad = true
		}
		p.Fast = f
	}
	if d.bad || d.s != "" {
		return nil, ErrPlanSyntax
	}
	return p, nil
}

// decoder reads what encoder wrote; the first error sets bad, after which
// every read returns a zero value.
type decoder struct {
	s   string
	bad bool
}

func (d *decoder) num() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint([]byte(d.s[:min(len(d.s), binary.MaxVarintLen64)]))
	// n > 1 with a last byte of 0 is an overlong encoding (0x80 0x00 for
	// 0): Encode never writes one, and accepting it would let two byte
	// strings decode to one plan (FuzzDecodePlan and FuzzDecodeSandbox assert
	// Encode(Decode(b)) == b).
	if n <= 0 || n > 1 && d.s[n-1] == 0 {
		d.bad = true
		return 0
	}
	d.s = d.s[n:]
	return v
}

// small is a number that must fit an int comfortably (an ABI version).
func (d *decoder) small() uint64 {
	v := d.num()
	if v > 1<<16 {
		d.bad = true
		return 0
	}
	return v
}

// count is a list length, refused when the bytes left cannot hold that
// many elements of at least minBytes each (no huge allocation from a
// forged count).
func (d *decoder) count(minBytes int) int {
	v := d.num()
	if d.bad || v > uint64(len(d.s)/minBytes) {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.num()
	if d.bad || n > uint64(len(d.s)) {
		d.bad = true
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) flag() bool {
	if d.bad || d.s == "" || d.s[0] > 1 {
		d.bad = true
		return false
	}
	v := d.s[0] == 1
	d.s = d.s[1:]
	return v
}

func (d *decoder) rules() []Rule {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	out := make([]Rule, n)
	for i := range out {
		out[i] = Rule{Path: d.str(), Access: d.num(), Clause: d.str(), Optional: d.flag()}
	}
	return out
}

func (d *decoder) filter() []bpf.RawInstruction {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	out := make([]bpf.RawInstruction, n)
	for i := range out {
		op, jt, jf, k := d.num(), d.num(), d.num(), d.num()
		if op > 0xffff || jt > 0xff || jf > 0xff || k > 0xffffffff {
			d.bad = true
		}
		out[i] = bpf.RawInstruction{Op: uint16(op), Jt: uint8(jt), Jf: uint8(jf), K: uint32(k)}
	}
	return out
}

func (d *decoder) ports() []uint16 {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]uint16, n)
	for i := range out {
		v := d.num()
		if v > 0xffff {
			d.bad = true
		}
		out[i] = uint16(v)
	}
	return out
}
