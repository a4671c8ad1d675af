package seccomp

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// Kernel constants the filter compares against. They are the same on
// amd64 and arm64 (the only ABIs with a table); an ABI where they differ
// (MIPS, SPARC) would need its own.
const (
	afUnix  = 1
	afInet  = 2
	afInet6 = 10

	sockTypeMask  = 0xf
	sockStream    = 1
	sockDgram     = 2
	sockSeqpacket = 5

	ipprotoTCP = 6
	ipprotoUDP = 17

	msgFastOpen = 0x20000000

	tiocsti   = 0x5412
	tioclinux = 0x541c
	// TIOCSPGRP (tcsetpgrp): a process the tool leaves behind, with
	// SIGTTOU ignored, makes itself the terminal's foreground group after
	// the tool has exited and reads what the user types next.
	tiocspgrp = 0x5410

	// File attribute flags (chattr, FS_XFLAG_*): metadata writes through
	// ioctl on any descriptor the tool may open, read-only included.
	// _IOW('f', 2, long), its 32-bit twin, and _IOW('X', 32, struct
	// fsxattr); the encoding is the same on amd64 and arm64.
	fsIocSetflags   = 0x40086602
	fsIocSetflags32 = 0x40046602
	fsIocFssetxattr = 0x401c5820

	prioProcess      = 0
	ioprioWhoProcess = 1

	// cloneNewNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET. clone(2)
	// reuses 0x80 (CLONE_NEWTIME) for CSIGNAL, so only unshare tests it.
	cloneNamespaces = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
	cloneNewTime    = 0x80
)

// Return values (linux/seccomp.h). A denied call fails with EPERM, never
// kills: tools see an ordinary error. Foreign ABIs and clone3 get ENOSYS.
const (
	RetAllow = 0x7fff0000
	retErrno = 0x00050000
	RetEPERM = retErrno | 1
	RetNOSYS = retErrno | 38
	// RetNODATA answers getxattr as for an attribute that is not there;
	// RetZero makes listxattr report an empty list.
	RetNODATA = retErrno | 61
	RetZero   = retErrno // errno 0: the call returns 0 without running
)

// seccomp_data offsets: nr, arch, instruction pointer, then six 64-bit
// arguments. Both supported ABIs are little-endian, so an argument's low
// half comes first.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

func argLo(i int) uint32 { return uint32(offArgs + 8*i) }

// Build assembles the filter for spec on arch. The program, in order:
// refuse a foreign audit architecture and (amd64) x32 numbers; dispatch
// on the call number to a short check per named call; allow everything
// else. Integer arguments are compared on their low 32 bits, as the
// kernel reads them.
func Build(spec Spec, arch *Arch) ([]bpf.RawInstruction, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	ins, err := program(spec, arch)
	if err != nil {
		return nil, err
	}
	return bpf.Assemble(ins)
}

// Program returns the filter as instructions (for tests and the VM).
func Program(spec Spec, arch *Arch) ([]bpf.Instruction, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return program(spec, arch)
}

// Rules returns, for each call the filter names on arch, what it does
// with it, for reports and the reference evaluator: "deny", "enosys", or
// the name of an argument check.
func Rules(spec Spec, arch *Arch) map[string]string {
	out := map[string]string{}
	for _, r := range rules(spec) {
		if _, ok := arch.Number(r.name); ok {
			out[r.name] = r.check
		}
	}
	return out
}

type rule struct {
	name  string
	check string // "deny", "enosys", or an argument check below
}

var metadataCalls = []string{
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "utimensat", "futimesat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"setxattrat", "removexattrat",
	// file_setattr(2) (Linux 6.17) sets FS_XFLAG_* by path, with no open.
	"file_setattr",
}

var deniedCalls = []string{
	"keyctl", "add_key", "request_key",
	"open_by_handle_at", "name_to_handle_at",
	"bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "setns",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

func rules(spec Spec) []rule {
	rs := []rule{
		// Hot calls first: every system call of the tool walks this list.
		{"ioctl", "ioctl"},
		{"sendto", "fastopen3"},
		{"sendmsg", "fastopen2"},
		{"sendmmsg", "fastopen3"},
		{"socket", "socket"},
		{"socketpair", "socketpair"},
		{"clone", "clone"},
		{"clone3", "enosys"},
		{"unshare", "unshare"},
		{"prlimit64", "pid0"},
		{"sched_setaffinity", "pid0"},
		{"sched_setscheduler", "pid0"},
		{"sched_setparam", "pid0"},
		{"sched_setattr", "pid0"},
		{"migrate_pages", "pid0"},
		{"move_pages", "pid0"},
		{"setpriority", "setpriority"},
		{"ioprio_set", "ioprio"},
	}
	if !spec.Listen {
		rs = append(rs, rule{"listen", "deny"})
	}
	for _, n := range deniedCalls {
		rs = append(rs, rule{n, "deny"})
	}
	if !spec.XattrRead {
		for _, n := range []string{"getxattr", "lgetxattr", "getxattrat"} {
			rs = append(rs, rule{n, "enodata"})
		}
		for _, n := range []string{"listxattr", "llistxattr", "listxattrat"} {
			rs = append(rs, rule{n, "zero"})
		}
	}
	if spec.Metadata {
		// Metadata writes are confined to the write grants by read-only
		// mounts, but a mode that takes effect outside is not: a tool
		// started by root that sets set-user-ID or set-group-ID on a copy
		// of a program it owns leaves a root program any local user can
		// run (attack_ns_setid.txtar). Writing the file clears the bits
		// (no CAP_FSETID); chmod is what must refuse them.
		rs = append(rs, rule{"chmod", "nosetid1"}, rule{"fchmod", "nosetid1"},
			rule{"fchmodat", "nosetid2"}, rule{"fchmodat2", "nosetid2"})
	}
	if !spec.Metadata {
		for _, n := range metadataCalls {
			check := "deny"
			if n == "utimensat" {
				check = "touchnow"
			}
			rs = append(rs, rule{n, check})
		}
	}
	return rs
}

// asm is a tiny assembler with forward labels over x/net/bpf's
// instructions; conditional jumps must land within 255 instructions.
type asm struct {
	out    []pending
	labels map[string]int
}

type pending struct {
	ins    bpf.Instruction
	cond   bpf.JumpTest
	val    uint32
	jt, jf string // labels; "" is the next instruction
}

func (a *asm) emit(i bpf.Instruction) { a.out = append(a.out, pending{ins: i}) }
func (a *asm) jump(c bpf.JumpTest, v uint32, jt, jf string) {
	a.out = append(a.out, pending{cond: c, val: v, jt: jt, jf: jf})
}
func (a *asm) label(l string) { a.labels[l] = len(a.out) }
func (a *asm) ldArg(i int) {
	a.emit(bpf.LoadAbsolute{Off: argLo(i), Size: 4})
}

func (a *asm) resolve() ([]bpf.Instruction, error) {
	prog := make([]bpf.Instruction, len(a.out))
	for i, p := range a.out {
		if p.ins != nil {
			prog[i] = p.ins
			continue
		}
		skip := func(l string) (uint8, error) {
			if l == "" {
				return 0, nil
			}
			t, ok := a.labels[l]
			if !ok {
				return 0, fmt.Errorf("seccomp: undefined label %s", l)
			}
			d := t - i - 1
			if d < 0 || d > 255 {
				return 0, fmt.Errorf("seccomp: jump to %s out of range (%d)", l, d)
			}
			return uint8(d), nil
		}
		st, err := skip(p.jt)
		if err != nil {
			return nil, err
		}
		sf, err := skip(p.jf)
		if err != nil {
			return nil, err
		}
		prog[i] = bpf.JumpIf{Cond: p.cond, Val: p.val, SkipTrue: st, SkipFalse: sf}
	}
	return prog, nil
}

func program(spec Spec, arch *Arch) ([]bpf.Instruction, error) {
	a := &asm{labels: map[string]int{}}
	a.emit(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jump(bpf.JumpEqual, arch.AuditArch, "", "nosys")
	a.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if arch.X32Bit != 0 {
		a.jump(bpf.JumpGreaterOrEqual, arch.X32Bit, "nosys", "")
	}
	rs := rules(spec)
	var bodies []rule
	seen := map[string]bool{}
	for _, r := range rs {
		nr, ok := arch.Number(r.name)
		if !ok {
			continue
		}
		switch r.check {
		case "deny":
			a.jump(bpf.JumpEqual, nr, "eperm", "")
		case "enosys":
			a.jump(bpf.JumpEqual, nr, "nosys", "")
		case "enodata":
			a.jump(bpf.JumpEqual, nr, "nodata", "")
		case "zero":
			a.jump(bpf.JumpEqual, nr, "zero", "")
		default:
			a.jump(bpf.JumpEqual, nr, "body_"+r.name, "")
			if !seen[r.name] {
				bodies = append(bodies, r)
				seen[r.name] = true
			}
		}
	}
	a.emit(bpf.RetConstant{Val: RetAllow})
	for _, r := range bodies {
		a.label("body_" + r.name)
		if err := a.body(spec, r.check); err != nil {
			return nil, err
		}
	}
	a.label("eperm")
	a.emit(bpf.RetConstant{Val: RetEPERM})
	a.label("nosys")
	a.emit(bpf.RetConstant{Val: RetNOSYS})
	a.label("nodata")
	a.emit(bpf.RetConstant{Val: RetNODATA})
	a.label("zero")
	a.emit(bpf.RetConstant{Val: RetZero})
	a.label("allow")
	a.emit(bpf.RetConstant{Val: RetAllow})
	return a.resolve()
}

// body emits one argument check; every path ends at allow or eperm.
func (a *asm) body(spec Spec, check string) error {
	switch check {
	case "ioctl":
		a.ldArg(1)
		reqs := deniedIoctls(spec)
		for i, r := range reqs {
			next := ""
			if i == len(reqs)-1 {
				next = "allow"
			}
			a.jump(bpf.JumpEqual, r, "eperm", next)
		}
	case "fastopen2", "fastopen3":
		i := 3
		if check == "fastopen2" {
			i = 2
		}
		a.ldArg(i)
		a.jump(bpf.JumpBitsSet, msgFastOpen, "eperm", "allow")
	case "socketpair":
		// Stream and seqpacket pairs only: a datagram socket of a pair
		// can still sendto(2) or connect(2) any pathname socket (journald,
		// syslog, any daemon's datagram socket), which Landlock does not
		// check; connected stream and seqpacket sockets cannot be pointed
		// elsewhere (EISCONN, and their address argument is ignored).
		a.ldArg(0)
		if spec.Unix {
			// socket(AF_UNIX) of any type is allowed: the namespace
			// holds no outside socket path to reach.
			a.jump(bpf.JumpEqual, afUnix, "allow", "eperm")
			break
		}
		a.jump(bpf.JumpEqual, afUnix, "", "eperm")
		a.ldArg(1)
		a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask})
		a.jump(bpf.JumpEqual, sockStream, "allow", "")
		a.jump(bpf.JumpEqual, sockSeqpacket, "allow", "eperm")
	case "socket":
		a.socket(spec)
	case "clone":
		a.ldArg(0)
		a.jump(bpf.JumpBitsSet, cloneNamespaces, "eperm", "allow")
	case "unshare":
		a.ldArg(0)
		a.jump(bpf.JumpBitsSet, cloneNamespaces|cloneNewTime, "eperm", "allow")
	case "touchnow":
		// utimensat(fd, NULL, NULL, flags): set an open descriptor's
		// times to now, which is what touch(1) does after creating or
		// opening a file for writing. Pointers are compared in full:
		// a path whose address has a zero low half is still a path.
		a.ldArg(1)
		a.jump(bpf.JumpEqual, 0, "", "eperm")
		a.emit(bpf.LoadAbsolute{Off: argLo(1) + 4, Size: 4})
		a.jump(bpf.JumpEqual, 0, "", "eperm")
		a.ldArg(2)
		a.jump(bpf.JumpEqual, 0, "", "eperm")
		a.emit(bpf.LoadAbsolute{Off: argLo(2) + 4, Size: 4})
		a.jump(bpf.JumpEqual, 0, "allow", "eperm")
	case "nosetid1", "nosetid2":
		a.ldArg(int(check[len(check)-1] - '0'))
		a.jump(bpf.JumpBitsSet, modeSetID, "eperm", "allow")
	case "pid0":
		a.ldArg(0)
		a.jump(bpf.JumpEqual, 0, "allow", "eperm")
	case "setpriority":
		a.ldArg(0)
		a.jump(bpf.JumpEqual, prioProcess, "", "eperm")
		a.ldArg(1)
		a.jump(bpf.JumpEqual, 0, "allow", "eperm")
	case "ioprio":
		a.ldArg(0)
		a.jump(bpf.JumpEqual, ioprioWhoProcess, "", "eperm")
		a.ldArg(1)
		a.jump(bpf.JumpEqual, 0, "allow", "eperm")
	default:
		return fmt.Errorf("seccomp: unknown check %q", check)
	}
	return nil
}

// modeSetID is S_ISUID|S_ISGID.
const modeSetID = 0o6000

// deniedIoctls lists the ioctl requests the filter refuses: terminal
// input injection and foreground-group changes always, file attribute
// flags unless the spec allows metadata writes.
func deniedIoctls(spec Spec) []uint32 {
	reqs := []uint32{tiocsti, tioclinux, tiocspgrp}
	if !spec.Metadata {
		reqs = append(reqs, fsIocSetflags, fsIocSetflags32, fsIocFssetxattr)
	}
	return reqs
}

func (a *asm) socket(spec Spec) {
	a.ldArg(0)
	if spec.Unix {
		a.jump(bpf.JumpEqual, afUnix, "allow", "")
	}
	inet := spec.inet()
	if inet == InetNone {
		a.emit(bpf.RetConstant{Val: RetEPERM})
		return
	}
	a.jump(bpf.JumpEqual, afInet, "sock_inet", "")
	a.jump(bpf.JumpEqual, afInet6, "sock_inet", "eperm")
	a.label("sock_inet")
	a.ldArg(1)
	a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask})
	if inet == InetTCPUDP {
		a.jump(bpf.JumpEqual, sockStream, "sock_tcp", "")
		a.jump(bpf.JumpEqual, sockDgram, "sock_udp", "eperm")
	} else {
		a.jump(bpf.JumpEqual, sockStream, "sock_tcp", "eperm")
	}
	a.label("sock_tcp")
	a.ldArg(2)
	a.jump(bpf.JumpEqual, 0, "allow", "")
	a.jump(bpf.JumpEqual, ipprotoTCP, "allow", "eperm")
	if inet == InetTCPUDP {
		a.label("sock_udp")
		a.ldArg(2)
		a.jump(bpf.JumpEqual, 0, "allow", "")
		a.jump(bpf.JumpEqual, ipprotoUDP, "allow", "eperm")
	}
}
