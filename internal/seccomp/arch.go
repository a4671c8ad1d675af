package seccomp

import "fmt"

// Arch is one system-call ABI the filter supports: its audit architecture
// and the numbers of the calls the filter names. The tables are data, so
// both architectures are built and tested on any host; arch_test.go checks
// them against golang.org/x/sys.
type Arch struct {
	Name      string
	AuditArch uint32
	// X32Bit is set where the same audit architecture also carries a
	// second ABI whose numbers have this bit set (x32 on amd64), which
	// the filter must refuse.
	X32Bit uint32
	// Calls are the system calls the filter may name, with their numbers;
	// calls the architecture does not have (chmod on arm64) are absent.
	// A list, not a map: a map literal is built by the package's
	// initialiser in every binary that links seccomp, on every start;
	// a list of constants is data the linker lays out.
	Calls []Call
}

// Call is one system call of an Arch.
type Call struct {
	Name string
	Nr   uint32
}

// Number is the number of the call name on a, false when a has no such
// call.
func (a *Arch) Number(name string) (uint32, bool) {
	for _, c := range a.Calls {
		if c.Name == name {
			return c.Nr, true
		}
	}
	return 0, false
}

// Audit architectures (linux/audit.h).
const (
	auditArchX86_64  = 0xc000003e
	auditArchAArch64 = 0xc00000b7
)

// AMD64 is x86-64's native ABI.
var AMD64 = Arch{Name: "amd64", AuditArch: auditArchX86_64, X32Bit: 0x40000000, Calls: []Call{
	{"socket", 41}, {"socketpair", 53}, {"listen", 50}, {"sendto", 44}, {"sendmsg", 46}, {"sendmmsg", 307},
	{"ioctl", 16}, {"keyctl", 250}, {"add_key", 248}, {"request_key", 249},
	{"open_by_handle_at", 304}, {"name_to_handle_at", 303},
	{"prlimit64", 302}, {"setpriority", 141}, {"sched_setaffinity", 203}, {"sched_setscheduler", 144},
	{"sched_setparam", 142}, {"sched_setattr", 314}, {"ioprio_set", 251}, {"migrate_pages", 256}, {"move_pages", 279},
	{"chmod", 90}, {"fchmod", 91}, {"fchmodat", 268}, {"fchmodat2", 452},
	{"chown", 92}, {"fchown", 93}, {"lchown", 94}, {"fchownat", 260},
	{"utime", 132}, {"utimes", 235}, {"utimensat", 280}, {"futimesat", 261},
	{"setxattr", 188}, {"lsetxattr", 189}, {"fsetxattr", 190}, {"removexattr", 197}, {"lremovexattr", 198}, {"fremovexattr", 199},
	{"setxattrat", 463}, {"removexattrat", 466}, {"file_setattr", 469},
	{"getxattr", 191}, {"lgetxattr", 192}, {"getxattrat", 464}, {"listxattr", 194}, {"llistxattr", 195}, {"listxattrat", 465},
	{"bpf", 321}, {"perf_event_open", 298}, {"userfaultfd", 323}, {"kexec_load", 246}, {"kexec_file_load", 320},
	{"init_module", 175}, {"finit_module", 313}, {"delete_module", 176},
	{"unshare", 272}, {"setns", 308}, {"clone", 56}, {"clone3", 435},
	{"io_uring_setup", 425}, {"io_uring_enter", 426}, {"io_uring_register", 427},
}}

// ARM64 is AArch64's ABI (the generic table: no chmod, chown, lchown,
// utime, utimes or futimesat).
var ARM64 = Arch{Name: "arm64", AuditArch: auditArchAArch64, Calls: []Call{
	{"socket", 198}, {"socketpair", 199}, {"listen", 201}, {"sendto", 206}, {"sendmsg", 211}, {"sendmmsg", 269},
	{"ioctl", 29}, {"keyctl", 219}, {"add_key", 217}, {"request_key", 218},
	{"open_by_handle_at", 265}, {"name_to_handle_at", 264},
	{"prlimit64", 261}, {"setpriority", 140}, {"sched_setaffinity", 122}, {"sched_setscheduler", 119},
	{"sched_setparam", 118}, {"sched_setattr", 274}, {"ioprio_set", 30}, {"migrate_pages", 238}, {"move_pages", 239},
	{"fchmod", 52}, {"fchmodat", 53}, {"fchmodat2", 452},
	{"fchown", 55}, {"fchownat", 54},
	{"utimensat", 88},
	{"setxattr", 5}, {"lsetxattr", 6}, {"fsetxattr", 7}, {"removexattr", 14}, {"lremovexattr", 15}, {"fremovexattr", 16},
	{"setxattrat", 463}, {"removexattrat", 466}, {"file_setattr", 469},
	{"getxattr", 8}, {"lgetxattr", 9}, {"getxattrat", 464}, {"listxattr", 11}, {"llistxattr", 12}, {"listxattrat", 465},
	{"bpf", 280}, {"perf_event_open", 241}, {"userfaultfd", 282}, {"kexec_load", 104}, {"kexec_file_load", 294},
	{"init_module", 105}, {"finit_module", 273}, {"delete_module", 106},
	{"unshare", 97}, {"setns", 268}, {"clone", 220}, {"clone3", 435},
	{"io_uring_setup", 425}, {"io_uring_enter", 426}, {"io_uring_register", 427},
}}

// ArchFor returns the ABI of a Go GOARCH, or an error for one the filter
// does not support (the launcher then refuses, or with --best-effort runs
// without the filter and says so).
func ArchFor(goarch string) (*Arch, error) {
	switch goarch {
	case "amd64":
		return &AMD64, nil
	case "arm64":
		return &ARM64, nil
	}
	return nil, fmt.Errorf("seccomp: no system-call table for %s", goarch)
}
