package learn

import "syscall"

// Op is what a command did to a path, in RFD 076's capabilities.
type Op uint8

const (
	OpRead Op = 1 << iota
	OpCreate
	OpUpdate
	OpDelete
	OpExecute
)

// String names the capabilities in op, in RFD 076's order.
func (op Op) String() string {
	s := ""
	for _, n := range []struct {
		op   Op
		name string
	}{{OpRead, "read"}, {OpCreate, "create"}, {OpUpdate, "update"}, {OpDelete, "delete"}, {OpExecute, "execute"}} {
		if op&n.op != 0 {
			if s != "" {
				s += "+"
			}
			s += n.name
		}
	}
	return s
}

// FileAccess is one observed access to a file system path. Path is
// absolute and canonical at the time of the access: every existing
// directory above it resolved through symlinks, and the last element too
// where the call followed it.
type FileAccess struct {
	Path string
	Op   Op
}

// Connect is one observed TCP connection attempt that the kernel
// accepted (or that was in progress when the call returned).
type Connect struct {
	// Addr is the IP address connected to, in its canonical text form.
	Addr string
	Port uint16
	// Name is the DNS name the command resolved to Addr, when the tracer
	// saw the answer; "" otherwise.
	Name string
}

// Observations is everything one observed run did that a policy governs.
type Observations struct {
	Files    []FileAccess
	Connects []Connect
	// Unix lists Unix-domain socket paths the command connected to; no
	// access rule grants them, so they are reported, not proposed.
	Unix []string
	// Denied and DeniedConnects are the calls refused for want of
	// permission, recorded instead of Files and Connects by RunDenials.
	Denied         []Denial
	DeniedConnects []Denial
	// DeniedMore counts refused calls not kept: a refusal is kept once,
	// and at most MaxDenied distinct ones are (the tool chooses how
	// many distinct paths it is refused, and the tracer's memory is
	// the user's).
	DeniedMore int
}

// MaxDenied bounds the distinct refusals RunDenials keeps.
const MaxDenied = 1024

// Denial is one refused access: a file access (File) or a connection
// (Connect), the process that asked, and the error it got.
type Denial struct {
	File    FileAccess
	Connect Connect
	PID     int
	Comm    string
	Errno   syscall.Errno
}
