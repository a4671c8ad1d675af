package earlyheap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestHeapOnHugePage: after the package's init, the 2 MB of heap around
// the allocator's position at the time is one huge page. Skipped, with the
// reason, where the kernel cannot give one; then the init did nothing.
func TestHeapOnHugePage(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	switch collapseErr {
	case 0:
	case syscall.EINVAL:
		t.Skip("this kernel has no MADV_COLLAPSE (Linux 6.1)")
	case syscall.EAGAIN, syscall.ENOMEM:
		t.Skipf("no free huge page at start-up: %v", collapseErr)
	default:
		t.Fatalf("MADV_COLLAPSE: %v", collapseErr)
	}
	anon, ok := anonHugeKB(t, uintptr(unsafe.Pointer(anchor)))
	if !ok {
		t.Fatalf("no mapping holds the anchor at %p", anchor)
	}
	if anon < hugePage>>10 {
		t.Errorf("the heap mapping holding the anchor has %d kB on huge pages, want at least %d", anon, hugePage>>10)
	}
}

// anonHugeKB is the AnonHugePages of the mapping that holds addr, from
// /proc/self/smaps.
func anonHugeKB(t *testing.T, addr uintptr) (kb int, ok bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, isRange := mappingRange(line); isRange {
			in = lo <= addr && addr < hi
			continue
		}
		if v, found := strings.CutPrefix(line, "AnonHugePages:"); found && in {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			return n, true
		}
	}
	return 0, false
}

// mappingRange parses the "lo-hi perms ..." line that opens a mapping.
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	field, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(field, "-")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
