package earlyheap

import (
	"syscall"
	"unsafe"
)

// From <linux/mman.h>; package syscall predates MADV_COLLAPSE.
const (
	madvHugepage = 14 // MADV_HUGEPAGE, Linux 2.6.38
	madvCollapse = 25 // MADV_COLLAPSE, Linux 6.1
)

const hugePage = 2 << 20

// anchor is allocated here so its address tells where the heap allocator
// is working now; it is a package variable so the allocation escapes.
var anchor *[64]byte

// collapseErr is the collapse's outcome, for the test: 0, or why the
// kernel gave no huge page.
var collapseErr syscall.Errno

func init() {
	anchor = new([64]byte)
	base := uintptr(unsafe.Pointer(anchor)) &^ (hugePage - 1)
	// The runtime has already touched pages of this 2 MB range, so a huge
	// page can only come from a collapse (a fault lands on the existing
	// page table). Errors are ignored on purpose: no huge page means the
	// 4 KB pages the process has now, nothing worse.
	collapseErr = madvise(base, hugePage, madvCollapse)
	// The next 2 MB is usually untouched: marked, its first touch maps a
	// whole huge page. If it is not mapped (yet), the call fails.
	madvise(base+hugePage, hugePage, madvHugepage)
}

func madvise(addr, n, advice uintptr) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_MADVISE, addr, n, advice)
	return e
}
