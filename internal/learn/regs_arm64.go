//go:build linux

package learn

import "golang.org/x/sys/unix"

const auditArch = 0xc00000b7 // AUDIT_ARCH_AARCH64

const x32Bit = 0 // no second ABI on arm64

func sysNr(r *unix.PtraceRegs) uint64 { return r.Regs[8] }

func sysArgs(r *unix.PtraceRegs) [6]uint64 {
	return [6]uint64{r.Regs[0], r.Regs[1], r.Regs[2], r.Regs[3], r.Regs[4], r.Regs[5]}
}

func sysRet(r *unix.PtraceRegs) int64 { return int64(r.Regs[0]) }

// arm64 has only the *at forms.
var archCalls []call
