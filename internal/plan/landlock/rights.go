package landlock

import (
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Rights is a set of Landlock filesystem access rights, one bit per right
// in the kernel's LANDLOCK_ACCESS_FS_* order, so that listing a set walks
// the rights in a fixed order.
type Rights uint32

// The rights, one bit each at the kernel's LANDLOCK_ACCESS_FS_* position
// (the launcher hands these bits to the kernel as they are; its tests
// check them against go-landlock's constants).
const (
	RExecute Rights = 1 << iota
	RWriteFile
	RReadFile
	RReadDir
	RRemoveDir
	RRemoveFile
	RMakeChar
	RMakeDir
	RMakeReg
	RMakeSock
	RMakeFifo
	RMakeBlock
	RMakeSym
	RRefer    // ABI 2
	RTruncate // ABI 3
	RIoctlDev // ABI 5
)

// rightNames is indexed by bit position, in kernel order.
var rightNames = []string{
	Execute, WriteFile, ReadFile, ReadDir, RemoveDir, RemoveFile,
	MakeChar, MakeDir, MakeReg, MakeSock, MakeFifo, MakeBlock, MakeSym,
	Refer, Truncate, IoctlDev,
}

// rightABI is the first ABI that knows each right (by bit position).
var rightABI = []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 5}

func bit(name string) Rights {
	for i, n := range rightNames {
		if n == name {
			return 1 << uint(i)
		}
	}
	return 0
}

// FileRights are the rights the kernel accepts on a rule whose path is not
// a directory; the others govern a directory's entries and are rejected
// (EINVAL) on anything else.
const FileRights = RExecute | RWriteFile | RReadFile | RTruncate | RIoctlDev

// RightsForABI is every right a kernel of Landlock ABI abi knows: what it
// can handle, so what a ruleset for it must handle.
func RightsForABI(abi int) Rights {
	var r Rights
	for i, a := range rightABI {
		if a <= abi {
			r |= 1 << uint(i)
		}
	}
	return r
}

// CapabilityRights is the RFD 076 capability → Landlock mapping. Create
// deliberately leaves out make_char/make_block/make_fifo/make_sock: the
// policy speaks of files and directories, and device nodes or sockets are
// not what a user means by "create".
//
// An array indexed by capability: static data, where a map would be built
// at every jp-policy start.
var CapabilityRights = [...]Rights{
	policy.Read:    RReadFile | RReadDir,
	policy.Create:  RMakeReg | RMakeDir | RMakeSym,
	policy.Update:  RWriteFile | RTruncate,
	policy.Delete:  RRemoveFile | RRemoveDir,
	policy.Execute: RExecute,
}

// Names lists the rights in kernel order.
func (r Rights) Names() []string {
	out := []string{}
	for i, n := range rightNames {
		if r&(1<<uint(i)) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// ParseRights is the inverse of Names; unknown names are reported.
func ParseRights(names []string) (Rights, []string) {
	var r Rights
	var unknown []string
	for _, n := range names {
		b := bit(n)
		if b == 0 {
			unknown = append(unknown, n)
		}
		r |= b
	}
	return r, unknown
}

// MinABI is the first ABI that knows every right in r (1 for none).
func (r Rights) MinABI() int {
	abi := 1
	for i := range rightNames {
		if r&(1<<uint(i)) != 0 && rightABI[i] > abi {
			abi = rightABI[i]
		}
	}
	return abi
}
