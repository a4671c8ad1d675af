//go:build linux && !amd64 && !arm64

package learn

import "golang.org/x/sys/unix"

// Learning is built for amd64 and arm64; elsewhere Run refuses.
const auditArch = 0
const x32Bit = 0

func sysNr(*unix.PtraceRegs) uint64      { return ^uint64(0) }
func sysArgs(*unix.PtraceRegs) [6]uint64 { return [6]uint64{} }
func sysRet(*unix.PtraceRegs) int64      { return -1 }

var archCalls []call
