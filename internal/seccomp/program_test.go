package seccomp

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
)

// reference decides a system call the way the filter must, written
// plainly from the spec and the Rules table, so the assembled program has
// an independent oracle.
func reference(spec Spec, arch *Arch, auditArch, nr uint32, args [6]uint64) uint32 {
	if auditArch != arch.AuditArch {
		return RetNOSYS
	}
	if arch.X32Bit != 0 && nr >= arch.X32Bit {
		return RetNOSYS
	}
	lo := func(i int) uint32 { return uint32(args[i]) }
	name := ""
	for _, c := range arch.Calls {
		if c.Nr == nr {
			name = c.Name
		}
	}
	check, named := Rules(spec, arch)[name]
	if !named {
		return RetAllow
	}
	deny := false
	switch check {
	case "deny":
		deny = true
	case "enosys":
		return RetNOSYS
	case "enodata":
		return RetNODATA
	case "zero":
		return RetZero
	case "ioctl":
		for _, r := range []uint32{tiocsti, tioclinux, tiocspgrp} {
			deny = deny || lo(1) == r
		}
		if !spec.Metadata {
			for _, r := range []uint32{fsIocSetflags, fsIocSetflags32, fsIocFssetxattr} {
				deny = deny || lo(1) == r
			}
		}
	case "fastopen2":
		deny = lo(2)&msgFastOpen != 0
	case "fastopen3":
		deny = lo(3)&msgFastOpen != 0
	case "socketpair":
		typ := lo(1) & sockTypeMask
		deny = lo(0) != afUnix || (!spec.Unix && typ != sockStream && typ != sockSeqpacket)
	case "clone":
		deny = lo(0)&cloneNamespaces != 0
	case "unshare":
		deny = lo(0)&(cloneNamespaces|cloneNewTime) != 0
	case "touchnow":
		deny = args[1] != 0 || args[2] != 0
	case "nosetid1":
		deny = lo(1)&0o6000 != 0
	case "nosetid2":
		deny = lo(2)&0o6000 != 0
	case "pid0":
		deny = lo(0) != 0
	case "setpriority":
		deny = lo(0) != prioProcess || lo(1) != 0
	case "ioprio":
		deny = lo(0) != ioprioWhoProcess || lo(1) != 0
	case "socket":
		domain, typ, proto := lo(0), lo(1)&sockTypeMask, lo(2)
		switch {
		case domain == afUnix:
			deny = !spec.Unix
		case domain == afInet || domain == afInet6:
			switch spec.inet() {
			case InetNone:
				deny = true
			case InetTCP:
				deny = !(typ == sockStream && (proto == 0 || proto == ipprotoTCP))
			case InetTCPUDP:
				deny = !(typ == sockStream && (proto == 0 || proto == ipprotoTCP)) &&
					!(typ == sockDgram && (proto == 0 || proto == ipprotoUDP))
			}
		default:
			deny = true
		}
	default:
		panic("unknown check " + check)
	}
	if deny {
		return RetEPERM
	}
	return RetAllow
}

// seccompData lays out struct seccomp_data for x/net/bpf's VM. The
// kernel loads 32-bit words in host order; the VM, made for packets,
// loads them big-endian. So each word sits where a little-endian kernel
// has it (the low half of an argument first) but is stored big-endian.
func seccompData(auditArch, nr uint32, args [6]uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

func run(t testing.TB, spec Spec, arch *Arch, auditArch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	prog, err := Program(spec, arch)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	got, err := vm.Run(seccompData(auditArch, nr, args))
	if err != nil {
		t.Fatal(err)
	}
	return uint32(got)
}

var specs = []Spec{
	{},
	{Inet: InetTCP},
	{Inet: InetTCPUDP, Listen: true},
	{Inet: InetTCP, Unix: true, Metadata: true, Listen: true, XattrRead: true},
	{Unix: true},
}

var arches = []*Arch{&AMD64, &ARM64}

func TestFilterCases(t *testing.T) {
	hi := uint64(0xffffffff00000000)
	for _, arch := range arches {
		nr := func(n string) uint32 { v, _ := arch.Number(n); return v }
		cases := []struct {
			name string
			spec Spec
			nr   uint32
			args [6]uint64
			want uint32
		}{
			{"tiocsti", Spec{}, nr("ioctl"), [6]uint64{0, tiocsti}, RetEPERM},
			{"tiocsti with garbage in the upper half", Spec{}, nr("ioctl"), [6]uint64{0, hi | tiocsti}, RetEPERM},
			{"tioclinux", Spec{}, nr("ioctl"), [6]uint64{0, tioclinux}, RetEPERM},
			{"tiocgwinsz", Spec{}, nr("ioctl"), [6]uint64{0, 0x5413}, RetAllow},
			{"tiocspgrp (terminal takeover)", Spec{}, nr("ioctl"), [6]uint64{0, tiocspgrp}, RetEPERM},
			{"tiocspgrp even with metadata", Spec{Metadata: true}, nr("ioctl"), [6]uint64{0, hi | tiocspgrp}, RetEPERM},
			{"tiocgpgrp", Spec{}, nr("ioctl"), [6]uint64{0, 0x540f}, RetAllow},
			{"chattr (FS_IOC_SETFLAGS)", Spec{}, nr("ioctl"), [6]uint64{3, fsIocSetflags}, RetEPERM},
			{"chattr 32-bit", Spec{}, nr("ioctl"), [6]uint64{3, fsIocSetflags32}, RetEPERM},
			{"FS_IOC_FSSETXATTR", Spec{}, nr("ioctl"), [6]uint64{3, fsIocFssetxattr}, RetEPERM},
			{"lsattr (FS_IOC_GETFLAGS)", Spec{}, nr("ioctl"), [6]uint64{3, 0x80086601}, RetAllow},
			{"chattr with metadata", Spec{Metadata: true}, nr("ioctl"), [6]uint64{3, fsIocSetflags}, RetAllow},
			{"chmod +x with metadata", Spec{Metadata: true}, nr("fchmodat"), [6]uint64{0, 0, 0o755}, RetAllow},
			{"chmod u+s with metadata", Spec{Metadata: true}, nr("fchmodat"), [6]uint64{0, 0, 0o4755}, RetEPERM},
			{"chmod g+s with metadata", Spec{Metadata: true}, nr("fchmod"), [6]uint64{3, hi | 0o2755}, RetEPERM},
			{"fchmodat2 u+s with metadata", Spec{Metadata: true}, nr("fchmodat2"), [6]uint64{0, 0, 0o4000}, RetEPERM},
			{"sticky bit with metadata", Spec{Metadata: true}, nr("fchmod"), [6]uint64{3, 0o1777}, RetAllow},
			{"chmod without metadata", Spec{}, nr("fchmod"), [6]uint64{3, 0o644}, RetEPERM},
			{"file_setattr", Spec{}, nr("file_setattr"), [6]uint64{}, RetEPERM},
			{"file_setattr with metadata", Spec{Metadata: true}, nr("file_setattr"), [6]uint64{}, RetAllow},
			{"no net: tcp socket", Spec{}, nr("socket"), [6]uint64{afInet, sockStream}, RetEPERM},
			{"no net: unix socket", Spec{}, nr("socket"), [6]uint64{afUnix, sockStream}, RetEPERM},
			{"unix spelt with upper bits", Spec{Unix: true}, nr("socket"), [6]uint64{hi | afUnix, sockStream}, RetAllow},
			{"socketpair unix", Spec{}, nr("socketpair"), [6]uint64{afUnix, sockStream}, RetAllow},
			{"socketpair inet", Spec{}, nr("socketpair"), [6]uint64{afInet, sockStream}, RetEPERM},
			{"socketpair unix seqpacket, cloexec", Spec{}, nr("socketpair"), [6]uint64{afUnix, sockSeqpacket | 0x80000}, RetAllow},
			{"socketpair unix dgram (sendto any path)", Spec{}, nr("socketpair"), [6]uint64{afUnix, sockDgram}, RetEPERM},
			{"socketpair unix dgram where unix sockets are allowed", Spec{Unix: true}, nr("socketpair"), [6]uint64{afUnix, sockDgram | 0x800}, RetAllow},
			{"socketpair inet where unix sockets are allowed", Spec{Unix: true}, nr("socketpair"), [6]uint64{afInet, sockStream}, RetEPERM},
			{"socketpair unix stream spelt with upper bits", Spec{}, nr("socketpair"), [6]uint64{hi | afUnix, hi | sockStream}, RetAllow},
			{"tcp", Spec{Inet: InetTCP}, nr("socket"), [6]uint64{afInet6, sockStream | 0x80000 | 0x800, ipprotoTCP}, RetAllow},
			{"mptcp", Spec{Inet: InetTCP}, nr("socket"), [6]uint64{afInet, sockStream, 262}, RetEPERM},
			{"sctp stream", Spec{Inet: InetTCP}, nr("socket"), [6]uint64{afInet, sockStream, 132}, RetEPERM},
			{"udp without udp", Spec{Inet: InetTCP}, nr("socket"), [6]uint64{afInet, sockDgram}, RetEPERM},
			{"udp with udp", Spec{Inet: InetTCPUDP}, nr("socket"), [6]uint64{afInet, sockDgram, ipprotoUDP}, RetAllow},
			{"icmp dgram", Spec{Inet: InetTCPUDP}, nr("socket"), [6]uint64{afInet, sockDgram, 1}, RetEPERM},
			{"raw", Spec{Inet: InetTCPUDP}, nr("socket"), [6]uint64{afInet, 3, 0}, RetEPERM},
			{"packet", Spec{Inet: InetTCPUDP}, nr("socket"), [6]uint64{17, 3, 0}, RetEPERM},
			{"netlink", Spec{Inet: InetTCPUDP}, nr("socket"), [6]uint64{16, 3, 0}, RetEPERM},
			{"fastopen sendto", Spec{Inet: InetTCP}, nr("sendto"), [6]uint64{3, 0, 0, msgFastOpen}, RetEPERM},
			{"plain sendto", Spec{Inet: InetTCP}, nr("sendto"), [6]uint64{3, 0, 0, 0x40}, RetAllow},
			{"fastopen sendmsg", Spec{Inet: InetTCP}, nr("sendmsg"), [6]uint64{3, 0, msgFastOpen}, RetEPERM},
			{"fastopen sendmmsg", Spec{Inet: InetTCP}, nr("sendmmsg"), [6]uint64{3, 0, 1, msgFastOpen}, RetEPERM},
			{"listen", Spec{Inet: InetTCP}, nr("listen"), [6]uint64{3, 5}, RetEPERM},
			{"listen granted", Spec{Inet: InetTCP, Listen: true}, nr("listen"), [6]uint64{3, 5}, RetAllow},
			{"keyctl", Spec{}, nr("keyctl"), [6]uint64{}, RetEPERM},
			{"open_by_handle_at", Spec{}, nr("open_by_handle_at"), [6]uint64{}, RetEPERM},
			{"prlimit self", Spec{}, nr("prlimit64"), [6]uint64{0, 0}, RetAllow},
			{"prlimit other", Spec{}, nr("prlimit64"), [6]uint64{1234}, RetEPERM},
			{"prlimit pid spelt 0 in the low half", Spec{}, nr("prlimit64"), [6]uint64{hi}, RetAllow},
			{"setpriority self", Spec{}, nr("setpriority"), [6]uint64{prioProcess, 0, 10}, RetAllow},
			{"setpriority user", Spec{}, nr("setpriority"), [6]uint64{2, 0, 10}, RetEPERM},
			{"setpriority other", Spec{}, nr("setpriority"), [6]uint64{prioProcess, 77, 10}, RetEPERM},
			{"sched_setaffinity other", Spec{}, nr("sched_setaffinity"), [6]uint64{77}, RetEPERM},
			{"ioprio self", Spec{}, nr("ioprio_set"), [6]uint64{ioprioWhoProcess, 0}, RetAllow},
			{"ioprio pgrp", Spec{}, nr("ioprio_set"), [6]uint64{2, 0}, RetEPERM},
			{"clone thread", Spec{}, nr("clone"), [6]uint64{0x3d0f00}, RetAllow},
			{"clone newuser", Spec{}, nr("clone"), [6]uint64{0x10000000 | 17}, RetEPERM},
			{"clone3", Spec{}, nr("clone3"), [6]uint64{}, RetNOSYS},
			{"unshare files", Spec{}, nr("unshare"), [6]uint64{0x400}, RetAllow},
			{"unshare newtime", Spec{}, nr("unshare"), [6]uint64{cloneNewTime}, RetEPERM},
			{"io_uring", Spec{}, nr("io_uring_setup"), [6]uint64{}, RetEPERM},
			{"fchmodat denied", Spec{}, nr("fchmodat"), [6]uint64{}, RetEPERM},
			{"fchmodat with metadata", Spec{Metadata: true}, nr("fchmodat"), [6]uint64{}, RetAllow},
			{"utimensat on a path", Spec{}, nr("utimensat"), [6]uint64{3, 0x7fff0000, 0, 0}, RetEPERM},
			{"utimensat on a path at an address with a zero low half", Spec{}, nr("utimensat"), [6]uint64{3, 0x7fff00000000, 0, 0}, RetEPERM},
			{"utimensat with explicit times", Spec{}, nr("utimensat"), [6]uint64{3, 0, 0x7fff0000, 0}, RetEPERM},
			{"futimens now (touch)", Spec{}, nr("utimensat"), [6]uint64{3, 0, 0, 0}, RetAllow},
			{"read", Spec{}, 0xfff, [6]uint64{}, RetAllow},
			{"getxattr by path", Spec{}, nr("getxattr"), [6]uint64{}, RetNODATA},
			{"listxattr by path", Spec{}, nr("llistxattr"), [6]uint64{}, RetZero},
			{"getxattr where only grants exist", Spec{XattrRead: true}, nr("getxattr"), [6]uint64{}, RetAllow},
		}
		for _, c := range cases {
			got := run(t, c.spec, arch, arch.AuditArch, c.nr, c.args)
			if got != c.want {
				t.Errorf("%s %s: got %#x, want %#x", arch.Name, c.name, got, c.want)
			}
			if ref := reference(c.spec, arch, arch.AuditArch, c.nr, c.args); ref != c.want {
				t.Errorf("%s %s: reference says %#x, want %#x (the oracle is wrong)", arch.Name, c.name, ref, c.want)
			}
		}
	}
}

func TestForeignABIs(t *testing.T) {
	const auditArchI386 = 0x40000003
	if got := run(t, Spec{Inet: InetTCP}, &AMD64, auditArchI386, 20, [6]uint64{}); got != RetNOSYS {
		t.Errorf("i386 on amd64: %#x", got)
	}
	if got := run(t, Spec{Inet: InetTCP}, &AMD64, AMD64.AuditArch, 0x40000000|41, [6]uint64{afInet}); got != RetNOSYS {
		t.Errorf("x32 socket on amd64: %#x", got)
	}
	const auditArchARM = 0x40000028
	if got := run(t, Spec{}, &ARM64, auditArchARM, 1, [6]uint64{}); got != RetNOSYS {
		t.Errorf("arm on arm64: %#x", got)
	}
}

// Every spec assembles, within the kernel's limits.
func TestBuildAllSpecs(t *testing.T) {
	for _, arch := range arches {
		for _, inet := range []Inet{"", InetNone, InetTCP, InetTCPUDP} {
			for bits := range 16 {
				s := Spec{Inet: inet, Listen: bits&1 != 0, Unix: bits&2 != 0, Metadata: bits&4 != 0, XattrRead: bits&8 != 0}
				raw, err := Build(s, arch)
				if err != nil {
					t.Fatalf("%s %+v: %v", arch.Name, s, err)
				}
				if len(raw) > 255 {
					t.Errorf("%s %+v: %d instructions", arch.Name, s, len(raw))
				}
			}
		}
	}
	if _, err := Build(Spec{Inet: "udp"}, &AMD64); err == nil {
		t.Error("an unknown inet mode must be refused")
	}
}

// FuzzFilterMatchesReference runs random system calls through the
// assembled program (x/net/bpf's VM) and the reference evaluator.
func FuzzFilterMatchesReference(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint32(41), uint64(2), uint64(1), uint64(262), uint64(0), false)
	f.Add(uint8(1), uint8(3), uint32(29), uint64(0), uint64(0xffffffff00005412), uint64(0), uint64(0), false)
	f.Add(uint8(0), uint8(1), uint32(44), uint64(3), uint64(0), uint64(0), uint64(msgFastOpen), true)
	f.Fuzz(func(t *testing.T, archSel, specSel uint8, nr uint32, a0, a1, a2, a3 uint64, foreign bool) {
		arch := arches[int(archSel)%len(arches)]
		spec := specs[int(specSel)%len(specs)]
		// Bias towards the named calls, where the checks are.
		names := sortedNames(arch)
		if nr < 1<<20 {
			nr, _ = arch.Number(names[int(nr)%len(names)])
		}
		audit := arch.AuditArch
		if foreign {
			audit ^= uint32(a3)
		}
		args := [6]uint64{a0, a1, a2, a3}
		got := run(t, spec, arch, audit, nr, args)
		want := reference(spec, arch, audit, nr, args)
		if got != want {
			t.Fatalf("%s %+v nr %d args %#x: filter %#x, reference %#x", arch.Name, spec, nr, args, got, want)
		}
	})
}

// BenchmarkBuild is what exec adds per run to assemble the filter (the
// install is one system call), next to a floor of assembling a two-
// instruction program in the same run.
func BenchmarkBuild(b *testing.B) {
	b.Run("filter", func(b *testing.B) {
		for b.Loop() {
			if _, err := Build(Spec{Inet: InetTCPUDP}, &AMD64); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			if _, err := bpf.Assemble([]bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 4}, bpf.RetConstant{Val: RetAllow}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
